#!/usr/bin/env bats
# pfmon sampling several event sets on the perf backend: each set's
# sampler runs in its set's turns (--switch-timeout, or --switch-ovfls
# overflows of its first event), every sample carries its set, and each
# set's sample counts are also given scaled by its share of the time.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	FIRST="uprobe:$W/two_calls:first_function"
	SECOND="uprobe:$W/two_calls:second_function"
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# The sets of a text sample file's samples in time order, as runs:
# "SET LENGTH" per line.
set_runs() { # file
	awk 'NR > 1 && !/^#/ { print $8, $5 }' "$1" | sort -n -k1,1 |
		awk '{ print $2 }' | uniq -c | awk '{ print $2, $1 }'
}

@test "two sets sampling a uprobe each: every sample in its set's turns, samples equal the calls counted in them" {
	run -0 --separate-stderr "$PFMON" --json -e "$FIRST" --long-smpl-periods=1 \
		-e "$SECOND" --long-smpl-periods=1 --switch-timeout=5 \
		--smpl-outfile="$T/s.jsonl" --resolve-addresses "$W/two_calls" 40000
	echo "$output" > "$T/out.json"
	python3 - "$T/out.json" "$T/s.jsonl" <<'PY'
import itertools, json, sys
out = json.load(open(sys.argv[1]))
# the samples rows ("raw": the samples taken) and the events' counts
ev = {e["set"]: e for e in out["events"]}
count = {c["set"]: c for c in out["counts"]}
runs = out["set_runs"]
print("turns", runs, "events", ev, "counts", count)
assert out["summary"]["lost"] == 0, out["summary"]
for s, func in ((0, "first_function"), (1, "second_function")):
    e = ev[s]
    assert count[s]["name"] == e["name"] and e["name"].endswith(":" + func), (e, count[s])
    # period 1: a sample for each call the set's own counter saw in its
    # turns; but a turn that ends while the command is inside the uprobe
    # (perf's disable lands between its count and its sample, on a loaded
    # host about once a run) has counted one call it did not sample
    assert 0 < e["raw"] <= count[s]["raw"] <= e["raw"] + runs[s], (e, count[s], out["summary"])
    assert 0 < e["active_pct"] < 100 and e["status"] == "scaled", e
    prof = [p for p in out["profile"] if p["event"] == e["name"] and p["set"] == s][0]
    assert prof["entries"][0]["symbol"] == func and prof["samples"] == e["raw"], prof
# the sample file: set 0's samples are first_function's, set 1's second's
rows = [r for r in map(json.loads, open(sys.argv[2])) if "tstamp" in r]
assert len(rows) == ev[0]["raw"] + ev[1]["raw"]
for r in rows:
    assert (r["set"], r["func"]) in ((0, "first_function"), (1, "second_function")), r
# in time order the sets' samples come in runs, never more runs of a set
# than it had turns: no sample is taken in another set's turn
rows.sort(key=lambda r: r["tstamp"])
seq = [k for k, _ in itertools.groupby(r["set"] for r in rows)]
print("runs", len(seq))
assert len(seq) >= 4, seq
for s in (0, 1):
    assert seq.count(s) <= runs[s], (seq.count(s), runs)
# the calls come in pairs (first, second), set 0 sees the firsts in its
# turns and set 1 the seconds in its own: together they see one call per
# pair, give or take the one call at each switch
total = ev[0]["raw"] + ev[1]["raw"]
assert abs(total - 40000) <= sum(runs), (total, runs)
PY
}

# Both sets switch on their trigger's overflows (a set switched on a
# timeout may see no sample in its turn on a loaded host, pfmon's timer
# being wall time: two turns of the other set would then look like one).
@test "a set switched after N overflows of its trigger records exactly N samples in each turn" {
	run -0 --separate-stderr "$PFMON" --json -e page-faults --long-smpl-periods=1 --switch-ovfls=5 \
		-e task-clock --long-smpl-periods=100000 --switch-ovfls=3 \
		--smpl-outfile="$T/s.jsonl" "$W/refault" 100000
	echo "$output" > "$T/out.json"
	python3 - "$T/out.json" "$T/s.jsonl" <<'PY'
import itertools, json, sys
out = json.load(open(sys.argv[1]))
runs = out["set_runs"]
rows = sorted((r for r in map(json.loads, open(sys.argv[2])) if "tstamp" in r),
              key=lambda r: r["tstamp"])
turns = [(k, len(list(g))) for k, g in itertools.groupby(r["set"] for r in rows)]
print("turns", runs, "runs of samples", turns)
assert out["summary"]["lost"] == 0, out["summary"]
# every turn ends at its trigger's Nth overflow: 5 page faults, 3 ticks
# of 100 us; the last turn may be cut short by the end
for s, n in ((0, 5), (1, 3)):
    mine = [k for t, k in turns if t == s]
    assert len(mine) >= 10, turns
    assert all(k == n for k in mine[:-1]) and 0 < mine[-1] <= n, (s, mine)
    assert len(mine) <= runs[s] <= len(mine) + 1, (s, mine, runs)
PY
}

# pct JSON EVENT SET FUNC: the function's share of the samples of the
# event of that set (each profile names its event and set, as the counts)
pct() { # json event set func
	python3 -c '
import json, sys
out = json.load(open(sys.argv[1]))
p = [p for p in out["profile"] if p["event"] == sys.argv[2] and p["set"] == int(sys.argv[3])][0]
assert all(e["name"] == p["event"] and e["set"] == p["set"] for e in p["entries"])
print([e for e in p["entries"] if e["symbol"] == sys.argv[4]][0]["share_pct"])' "$@"
}

# bats test_tags=timing
@test "two sets sampling cpu-clock and task-clock on split: each hot share within 3 points of one set's" {
	run -0 --separate-stderr "$PFMON" --json -e cpu-clock --long-smpl-periods=100000 \
		--profile-top=0 "$W/split" 3000
	echo "$output" > "$T/one.json"
	run -0 --separate-stderr "$PFMON" --json -e cpu-clock --long-smpl-periods=100000 \
		-e task-clock --long-smpl-periods=100000 --switch-timeout=10 --profile-top=0 "$W/split" 3000
	echo "$output" > "$T/two.json"
	one=$(pct "$T/one.json" cpu-clock 0 heavy_function)
	a=$(pct "$T/two.json" cpu-clock 0 heavy_function)
	b=$(pct "$T/two.json" task-clock 1 heavy_function)
	echo "heavy_function: one set $one%, set 0 $a%, set 1 $b%"
	python3 -c "import sys; o, a, b = map(float, sys.argv[1:]); assert abs(a - o) <= 3 and abs(b - o) <= 3" "$one" "$a" "$b"
}

@test "the sample counts of sets are given raw and scaled, in text and CSV" {
	run -0 --separate-stderr "$PFMON" -e "$FIRST" --long-smpl-periods=1 \
		-e "$SECOND" --long-smpl-periods=1 --switch-timeout=5 "$W/two_calls" 20000
	assert_line --regexp "^samples of $FIRST \(set 0\): [0-9]+, scaled [0-9]+ \(set active [0-9.]+%, \+- [0-9.]+%\)$"
	assert_line --regexp "^set activations +[0-9]+ [0-9]+$"
	run -0 --separate-stderr "$PFMON" -x, -e "$FIRST" --long-smpl-periods=1 \
		-e "$SECOND" --long-smpl-periods=1 --switch-timeout=5 "$W/two_calls" 20000
	# the samples taken, scaled, the set's share of the time, the
	# interval; then the event's count
	assert_regex "$(csv_get "$output" raw,value,active_pct,ci95_pct samples name="$SECOND" set=1)" \
		"^[0-9]+,[0-9]+,[0-9.]+,[0-9.]+$"
	assert_regex "$(csv_get "$output" raw count unit=all name="$SECOND" set=1)" "^[0-9]+$"
	assert_regex "$(csv_get "$output" value summary name=set_runs set=1)" "^[0-9]+$"
	# each profile's rows name the event and its set, as the counts do
	assert_equal "$(csv_get "$output" symbol profile name="$SECOND" set=1 | head -n 1)" second_function
	csv_get "$output" value profile_size name="$FIRST" set=0 | grep -qE '^[0-9]+$'
	run -0 schema_awk 'v("record") ~ /^profile/ && v("name") ~ /\(set/' <<<"$output"
	assert_output ""
}

@test "sampling options of sets: every bad combination is refused with what to do" {
	run -2 --separate-stderr "$PFMON" -e cpu-clock -e task-clock --long-smpl-periods=10 "$W/calls" 10
	assert_equal "$stderr" "pfmon: event set 0 (-e number 1): sampling options need --long-smpl-periods=N,...: the period of each sampling event, in order, after each set's -e"
	run -2 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=10 --long-smpl-periods=20 "$W/calls" 10
	[[ $stderr == *"--long-smpl-periods given twice for event set 0"* ]]
	run -2 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=10 --switch-ovfls=3 "$W/calls" 10
	[[ $stderr == *"--switch-ovfls switches event sets"* ]]
	run -2 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=10 --switch-ovfls=3,4 \
		-e task-clock --long-smpl-periods=10 "$W/calls" 10
	[[ $stderr == *"event set 0"*"--switch-ovfls gives 2 counts for 1 sampling events"* ]]
	run -2 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=1000 --smpl-periods-random=0xf:3 \
		-e task-clock --long-smpl-periods=1000 "$W/calls" 10
	[[ $stderr == *"several event sets"*"--backend=module"* ]]
	run -2 --separate-stderr "$PFMON" --follow-all -e page-faults --long-smpl-periods=10 --switch-ovfls=3 \
		-e task-clock --long-smpl-periods=1000 "$W/calls" 10
	[[ $stderr == *"--switch-ovfls switches the sets of one task"* ]]
	run -1 --separate-stderr "$PFMON" -e "$FIRST" --long-smpl-periods=1 --switch-ovfls=3 \
		-e task-clock --long-smpl-periods=1000 "$W/two_calls" 10
	[[ $stderr == *"perf does not restart a uprobe"*"--backend=module"* ]]
	run -1 --separate-stderr "$PFMON" -e task-clock,page-faults --long-smpl-periods=1000,1 --switch-ovfls=3,3 \
		-e cpu-clock --long-smpl-periods=1000 "$W/calls" 10
	[[ $stderr == *"'page-faults' cannot switch its set"*"only the set's first event"* ]]
}

# The interval of scaled sample counts is that of their event's count over
# the set's turns (pfmon.bats tests its coverage for counting): 3 sets,
# each sampling a fault event every 10 faults of refault's steady
# loop (100000 faults), over 100 runs (300 values): the samples taken alone must fall
# inside the printed 95% interval of the scaled count in 9 cases of 10 (a
# 95% interval misses some 15; more than 30 misses comes by chance about
# once in 10^5 suites).
# bats test_tags=timing
@test "the 95% interval of scaled sample counts holds the samples taken alone in 9 cases of 10" {
	# 100000 faults a run (0.2 s here, the test 25 s): the exec, 0.1 ms of
	# the command's time without a fault, falls in the first set's first
	# turn, which so under-estimates by 0.1 ms over the run's length: 0.7%
	# at 25000 faults, against intervals of +- 0.6% (84 of 90 inside),
	# 0.2% at 100000 (59 of 60 inside)
	run -0 --separate-stderr "$PFMON" -x, -e page-faults --long-smpl-periods=10 "$W/refault" 100000
	alone=$(csv_get "$output" raw samples name=page-faults)
	# 60 runs, 180 intervals: 9 in 10 of them hold it but one time in
	# 500 were the intervals only just 95% ones (59 of 60 held here)
	for n in $(seq 60); do
		"$PFMON" -x, --switch-timeout=2 -e page-faults --long-smpl-periods=10 \
			-e minor-faults --long-smpl-periods=10 -e page-faults --long-smpl-periods=10 \
			"$W/refault" 100000 2>/dev/null
	done | interval_coverage "$alone" samples 180 >&3
}
