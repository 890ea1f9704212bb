#!/usr/bin/env bats
# Per-rank runs and pfmon-report, with the launchers' variables set by
# hand (tests/cli/mpi.bats and slurm.bats run the real launchers): file
# name patterns, rank, host and job in every output, the merged report in
# text, CSV and JSON, and every refusal.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	REPORT=$BIN/pfmon-report
	UPROBE="uprobe:$W/calls:counted_function"
	T=$(mktemp -d)
	HOST=$(hostname)
}

teardown() {
	rm -rf "$T"
}

# as_rank R N JOB CMD...: CMD as rank R of N in job JOB (Open MPI's names)
as_rank() {
	local r=$1 n=$2 job=$3
	shift 3
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$n OMPI_MCA_ess_base_jobid=$job "$@"
}

@test "perfex -o expands %r %h %p %j and %%, and the JSON records rank, size, host and job" {
	run -0 --separate-stderr as_rank 2 4 77 "$PERFEX" -e page-faults --json \
		-o "$T/c.%r.%h.%j.%%.json" true
	f="$T/c.2.$HOST.77.%.json"
	[ -f "$f" ]
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["schema"], d["tool"], d["rank"], d["size"], d["host"], d["job"]) == (3, "perfex", 2, 4, sys.argv[2], "77"), d
' "$f" "$HOST"
	# %p is perfex's own pid: one file, named by a number
	run -0 "$PERFEX" -e page-faults -o "$T/p.%p.txt" true
	ls "$T"/p.*.txt | grep -Eq '/p\.[0-9]+\.txt$'
}

@test "the launchers' variables: Open MPI, then PMI, then Slurm; Slurm's job id first" {
	run -0 --separate-stderr env PMI_RANK=1 PMI_SIZE=3 SLURM_PROCID=0 SLURM_NTASKS=2 \
		SLURM_JOB_ID=555 "$PERFEX" -e page-faults --json true
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert (d["rank"], d["size"], d["job"]) == (1, 3, "555"), d' "$stderr"
	run -0 --separate-stderr env SLURM_PROCID=1 SLURM_NTASKS=2 "$PERFEX" -x, -e page-faults true
	# every row has rank,size,host,job
	assert_equal "$(head -1 <<<"$stderr")" "$SCHEMA_HEADER"
	run -0 schema_awk '{ print v("record"), v("rank"), v("size"), v("host"), v("job") "." }' <<<"$stderr"
	assert_output "$(printf 'count 1 2 %s .\nelapsed 1 2 %s .' "$HOST" "$HOST")"
	# text says where it ran, only under a launcher
	run -0 --separate-stderr env SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_JOB_ID=9 "$PERFEX" -e page-faults true
	grep -q "^# rank 1 of 2 on $HOST, job 9$" <<<"$stderr"
	run -0 --separate-stderr "$PERFEX" -e page-faults true
	! grep -q "^# rank" <<<"$stderr"
}

@test "bad patterns and launcher variables: usage errors, the command never runs, no file" {
	run -2 "$PERFEX" -e page-faults -o "$T/x.%j" touch "$T/ran"
	[[ "$output" == *"%j: this run has no job id"* ]]
	run -2 "$PFMON" -e task-clock --outfile="$T/x.%q" touch "$T/ran"
	[[ "$output" == *"unknown %q"* ]]
	run -2 "$PFMON" -e task-clock --long-smpl-periods=1000000 --smpl-outfile="$T/x%" touch "$T/ran"
	[[ "$output" == *"a lone % at the end"* ]]
	run -2 env OMPI_COMM_WORLD_RANK=two "$PERFEX" -e page-faults touch "$T/ran"
	[[ "$output" == *"OMPI_COMM_WORLD_RANK=two is not a rank"* ]]
	run -2 env SLURM_PROCID=3 SLURM_NTASKS=2 "$PFMON" -e task-clock touch "$T/ran"
	[[ "$output" == *"rank 3 is not below the job's size 2"* ]]
	[ ! -e "$T/ran" ]
	[ -z "$(ls "$T")" ]
}

@test "pfmon: every output file name expands, and every output records the rank" {
	run -0 --separate-stderr as_rank 1 2 88 "$PFMON" -e "$UPROBE" --long-smpl-periods=1 \
		-x, --outfile="$T/r%r.csv" --smpl-outfile="$T/s%r.txt" \
		--call-graph=fp --folded="$T/f%r.folded" --flamegraph="$T/g%r.svg" "$W/calls" 100
	[ -s "$T/r1.csv" ] && [ -s "$T/s1.txt" ] && [ -s "$T/f1.folded" ] && [ -s "$T/g1.svg" ]
	# one header, then rows of this rank, size, host and job
	run -0 head -1 "$T/r1.csv"
	assert_output "$SCHEMA_HEADER"
	run -0 schema_awk '{ print v("rank"), v("size"), v("host"), v("job") }' "$T/r1.csv"
	[ "${#lines[@]}" -gt 10 ]
	run -0 sort -u <<<"$output"
	assert_output "1 2 $HOST 88"
	sed -n 2p "$T/s1.txt" | grep -qx "# run {\"rank\":1,\"size\":2,\"host\":\"$HOST\",\"job\":\"88\"}"
	# the flame graph's heading says whose graph it is
	grep -qF "class=\"heading\" x=\"600\" y=\"50\">$UPROBE, rank 1 of 2 on $HOST, job 88</text>" "$T/g1.svg"
	run -0 --separate-stderr as_rank 1 2 88 "$PFMON" -e task-clock --json --outfile="$T/m%r.json" true
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["schema"], d["tool"], d["rank"], d["size"], d["job"]) == (3, "pfmon", 1, 2, "88"), d' "$T/m1.json"
}

# four ranks of perfex, rank r touching (r+1)*1000 pages
perfex_ranks() { # format suffix
	for r in 0 1 2 3; do
		as_rank "$r" 4 42 "$PERFEX" -e page-faults,task-clock "$1" -o "$T/c.%r.$2" \
			"$W/touch_pages" $(((r + 1) * 1000)) || return 1
	done
}

@test "pfmon-report over four perfex ranks: sum, min, mean, max, their ranks and max/mean" {
	perfex_ranks --json json
	run -0 "$REPORT" --json "$T"/c.*.json
	python3 - "$output" "$T" <<'PY'
import json, sys
rep = json.loads(sys.argv[1])
vals = [json.load(open("%s/c.%d.json" % (sys.argv[2], r)))["events"][0]["value"] for r in range(4)]
assert (rep["schema"], rep["tool"], rep["kind"], rep["ranks"], rep["size"], rep["job"]) == \
       (3, "pfmon-report", "perfex counts", 4, 4, "42"), rep
pf = rep["events"][0]
assert pf["name"] == "page-faults" and pf["ranks"] == 4, pf
assert pf["value"] == sum(vals) and pf["min"] == min(vals) and pf["max"] == max(vals), (pf, vals)
assert abs(pf["mean"] - sum(vals) / 4) < 0.01, pf
assert pf["max_rank"] == 3 and pf["min_rank"] == 0, pf
assert abs(pf["imbalance"] - max(vals) / (sum(vals) / 4)) < 1e-4, pf
# the work is 1000, 2000, 3000, 4000 pages: max/mean is 1.6 but for start-up faults
assert 1.5 < pf["imbalance"] < 1.6, pf
assert [i["rank"] for i in rep["inputs"]] == [0, 1, 2, 3], rep["inputs"]
assert [i["name"] for i in rep["inputs"]] == ["%s/c.%d.json" % (sys.argv[2], r) for r in range(4)], rep["inputs"]
PY
	run -0 "$REPORT" "$T"/c.*.json
	assert_line --index 0 "# pfmon-report: perfex counts of 4 ranks (the job has 4) on 1 host, job 42"
	assert_line --regexp '^page-faults +[0-9]+ +[0-9]+ +0 +[0-9.]+ +[0-9]+ +3 +1\.5[0-9]{2}$'
	run -0 "$REPORT" -x';' "$T"/c.*.json
	assert_line --index 0 "$(tr , ';' <<<"$SCHEMA_HEADER")"
	assert_line --regexp "^$(schema_row -s ';' record=merged set=0 name=page-faults value='[0-9]+' min='[0-9]+' \
		max='[0-9]+' mean='[0-9.]+' imbalance='1\.5[0-9]{3}' min_rank=0 max_rank=3 ranks=4 size=4 job=42)\$"
}

@test "pfmon-report reads CSV as well as JSON, and both give the same figures" {
	perfex_ranks -x, csv
	perfex_ranks --json json
	# each rank's CSV and JSON come from separate runs: compare what the
	# report says with the files it read
	for ext in csv json; do
		run -0 "$REPORT" -x, "$T"/c.*."$ext"
		row=$(schema_awk 'v("record") == "merged" && v("name") == "page-faults"' <<<"$output")
		want=$(python3 - "$T" "$ext" <<'PY'
import csv, json, sys
vals = []
for r in range(4):
    path = "%s/c.%d.%s" % (sys.argv[1], r, sys.argv[2])
    if sys.argv[2] == "json":
        vals.append(json.load(open(path))["events"][0]["value"])
    else:
        vals += [int(row["value"]) for row in csv.DictReader(open(path))
                 if (row["record"], row["name"]) == ("count", "page-faults")]
mean = sum(vals) / 4
print("value=%d min=%d max=%d mean=%.2f imbalance=%.4f" % (sum(vals), min(vals), max(vals), mean, max(vals) / mean))
PY
)
		# shellcheck disable=SC2086  # the words are COLUMN=VALUE
		want=$(schema_row record=merged set=0 name=page-faults $want min_rank=0 max_rank=3 ranks=4 size=4 job=42)
		[ "$row" = "$want" ] || { echo "report: $row, files: $want"; false; }
	done
	# pfmon's counts CSV, with the aggregate rows
	for r in 0 1; do
		as_rank "$r" 2 7 "$PFMON" -e "$UPROBE" -x, --outfile="$T/m.%r.csv" "$W/calls" $(((r + 1) * 500))
	done
	run -0 "$REPORT" -x, "$T"/m.*.csv
	assert_line "$(schema_row record=merged set=0 name="$UPROBE" value=1500 min=500 max=1000 mean=750.00 \
		imbalance=1.3333 min_rank=0 max_rank=1 ranks=2 size=2 job=7)"
}

@test "pfmon-report merges sampling reports into one profile with per-rank shares" {
	# a uprobe sampled at every call: rank 0 1000 samples, rank 1 3000
	for r in 0 1; do
		as_rank "$r" 2 5 "$PFMON" -e "$UPROBE" --long-smpl-periods=1 --json \
			--outfile="$T/s.%r.json" "$W/calls" $(((2 * r + 1) * 1000))
		as_rank "$r" 2 5 "$PFMON" -e "$UPROBE" --long-smpl-periods=1 -x, \
			--outfile="$T/s.%r.csv" "$W/calls" $(((2 * r + 1) * 1000))
	done
	for ext in json csv; do
		run -0 "$REPORT" --json "$T"/s.*."$ext"
		python3 - "$output" <<'PY'
import json, sys
rep = json.loads(sys.argv[1])
assert rep["schema"] == 3 and rep["kind"] == "pfmon sampling report", rep
ev = rep["events"][0]
assert (ev["value"], ev["min"], ev["max"], ev["max_rank"]) == (4000, 1000, 3000, 1), ev
p = rep["profile"][0]
assert p["samples"] == 4000 and p["cut_ranks"] == 0, p
f = p["entries"][0]
assert (f["symbol"], f["position"], f["value"], f["share_pct"]) == ("counted_function", 1, 4000, 100), f
shares = [(s["rank"], s["value"], s["share_pct"]) for s in p["shares"] if s["position"] == f["position"]]
assert shares == [(0, 1000, 25), (1, 3000, 75)], p["shares"]
assert all(s["symbol"] == f["symbol"] and s["module"] == f["module"] for s in p["shares"]), p["shares"]
PY
	done
	run -0 "$REPORT" "$T"/s.*.json
	assert_line --regexp '^ +4000 100\.00%  counted_function +.*/calls$'
	assert_line --regexp '^ +per rank: 0 25\.0% 1 75\.0%$'
}

@test "pfmon-report refuses bad and mixed inputs, naming the file, and writes no report" {
	perfex_ranks --json json
	head -c 100 "$T/c.3.json" >"$T/cut.json"
	run -1 "$REPORT" -o "$T/out" "$T/c.0.json" "$T/cut.json"
	[[ "$output" == *"$T/cut.json: not valid JSON (a truncated file?)"* ]]
	[ ! -e "$T/out" ]
	# another event list
	as_rank 3 4 42 "$PERFEX" -e page-faults,context-switches --json -o "$T/other.json" true
	run -1 "$REPORT" "$T/c.0.json" "$T/other.json"
	[[ "$output" == *"$T/other.json has the event context-switches where $T/c.0.json has task-clock"* ]]
	# the same rank twice, another job, another tool
	run -1 "$REPORT" "$T/c.1.json" "$T/c.1.json"
	[[ "$output" == *"are both rank 1"* ]]
	as_rank 3 4 43 "$PERFEX" -e page-faults,task-clock --json -o "$T/job43.json" true
	run -1 "$REPORT" "$T/c.0.json" "$T/job43.json"
	[[ "$output" == *"from job 43"*"merge the files of one job"* ]]
	as_rank 3 4 42 "$PFMON" -e page-faults,task-clock --json --outfile="$T/pfmon.json" true
	run -1 "$REPORT" "$T/c.0.json" "$T/pfmon.json"
	[[ "$output" == *"holds pfmon counts, but $T/c.0.json holds perfex counts"* ]]
	# a text report, a missing file, no file, bad options
	"$PERFEX" -e page-faults true 2>"$T/text"
	run -1 "$REPORT" "$T/text"
	[[ "$output" == *"a text report? write --json or -x , to merge"* ]]
	run -1 "$REPORT" "$T/nonexistent"
	[[ "$output" == *"cannot open '$T/nonexistent'"* ]]
	run -2 "$REPORT"
	run -2 "$REPORT" --json -x, "$T/c.0.json"
	run -2 "$REPORT" --top=-1 "$T/c.0.json"
	# a cut CSV
	perfex_ranks -x, csv
	head -n 2 "$T/c.1.csv" >"$T/cut.csv"
	run -1 "$REPORT" "$T/c.0.csv" "$T/cut.csv"
	[[ "$output" == *"$T/cut.csv: truncated: no elapsed row at the end"* ]]
}

@test "pfmon-report -o writes the report whole, and --version and --help answer" {
	perfex_ranks --json json
	run -0 "$REPORT" -o "$T/report.txt" "$T"/c.*.json
	[ -z "$output" ]
	grep -q "^# pfmon-report: perfex counts of 4 ranks" "$T/report.txt"
	run -0 "$REPORT" --version
	assert_output "pfmon-report $(cat "$ROOT/VERSION")"
	run -0 "$REPORT" --help
	assert_output --partial "--top=N"
}

# three ranks of perfex --regions over the regions example, rank r with
# (r+1)*100 pages a call and r worker threads: "touch" takes 10 calls of
# (r+1)*100 page faults in each rank, "worker" 10 calls of as many per
# worker thread, in ranks 1 and 2 (rank 0 starts none)
region_ranks() { # format suffix
	for r in 0 1 2; do
		as_rank "$r" 3 42 "$PERFEX" --regions -e task-clock,page-faults "$1" \
			-o "$T/g.%r.$2" "$ROOT/build/examples/regions" $(((r + 1) * 100)) "$r" || return 1
	done
}

@test "pfmon-report merges perfex --regions over ranks: calls, sum and per-call figures, and each rank's sum" {
	region_ranks --json json
	region_ranks -x, csv
	for ext in json csv; do
		# CSV: per region and event in -e's order a region row (perfex's
		# fields: runs the calls, min, mean and max per call) and the
		# merged row of the ranks' sums
		run -0 "$REPORT" -x, "$T"/g.*."$ext"
		assert_line "$(schema_row record=region name=page-faults status=counted runs=30 value=6000 \
			min=100 max=300 symbol=touch mean=200.00 size=3 job=42)"
		assert_line "$(schema_row record=merged name=page-faults value=6000 min=1000 max=3000 \
			symbol=touch mean=2000.00 imbalance=1.5000 min_rank=0 max_rank=2 ranks=3 size=3 job=42)"
		assert_line "$(schema_row record=region name=page-faults status=counted runs=30 value=8000 \
			min=200 max=300 symbol=worker mean=266.67 size=3 job=42)"
		assert_line "$(schema_row record=merged name=page-faults value=8000 min=2000 max=6000 \
			symbol=worker mean=4000.00 imbalance=1.5000 min_rank=1 max_rank=2 ranks=2 size=3 job=42)"
		csv=$output
		run -0 schema_awk 'v("symbol") != "" { print v("record"), v("symbol"), v("name"), v("runs") }' <<<"$csv"
		assert_output "$(printf '%s\n' 'region touch task-clock 30' 'merged touch task-clock ' \
			'region touch page-faults 30' 'merged touch page-faults ' 'region worker task-clock 30' \
			'merged worker task-clock ' 'region worker page-faults 30' 'merged worker page-faults ')"
		# JSON: the same rows, in "regions" and "region_ranks"
		run -0 "$REPORT" --json "$T"/g.*."$ext"
		python3 - "$output" <<'PY'
import json, sys
rep = json.loads(sys.argv[1])
reg = {(g["symbol"], g["name"]): g for g in rep["regions"]}
spread = {(g["symbol"], g["name"]): g for g in rep["region_ranks"]}
assert [(g["symbol"], g["name"]) for g in rep["regions"]] == list(spread) == \
       [("touch", "task-clock"), ("touch", "page-faults"), ("worker", "task-clock"), ("worker", "page-faults")], rep
want = {"touch": ((30, 6000, 100, 300, 200.0), (6000, 1000, 3000, 2000.0, 1.5, 0, 2, 3)),
        "worker": ((30, 8000, 200, 300, 266.67), (8000, 2000, 6000, 4000.0, 1.5, 1, 2, 2))}
for sym, (calls, ranks) in want.items():
    g, s = reg[(sym, "page-faults")], spread[(sym, "page-faults")]
    assert (g["runs"], g["value"], g["min"], g["max"], g["mean"]) == calls and g["status"] == "counted", g
    assert (s["value"], s["min"], s["max"], s["mean"], s["imbalance"], s["min_rank"], s["max_rank"], s["ranks"]) == ranks, s
    assert reg[(sym, "task-clock")]["runs"] == 30, reg
PY
		# text: a table of the calls, then one of the ranks' sums
		run -0 "$REPORT" "$T"/g.*."$ext"
		assert_line --regexp '^touch +page-faults +30 +6000 +100 +200\.00 +300$'
		assert_line --regexp '^worker +page-faults +30 +8000 +200 +266\.67 +300$'
		assert_line --regexp '^touch +page-faults +6000 +1000 +0 +2000\.00 +3000 +2 +1\.500$'
		assert_line --regexp '^worker +page-faults +8000 +2000 +1 +4000\.00 +6000 +2 +1\.500  \(counted in 2 of 3 ranks\)$'
	done
}

@test "pfmon-report sums a region's calls over a rank's threads and runs (perfex -r)" {
	"$PERFEX" --regions -r 2 -e page-faults -x, -o "$T/r2.csv" "$ROOT/build/examples/regions" 100 2
	run -0 "$REPORT" -x, "$T/r2.csv"
	assert_line "$(schema_row record=region name=page-faults status=counted runs=20 value=2000 \
		min=100 max=100 symbol=touch mean=100.00 size=1)"
	assert_line "$(schema_row record=region name=page-faults status=counted runs=40 value=4000 \
		min=100 max=100 symbol=worker mean=100.00 size=1)"
	assert_line "$(schema_row record=merged name=page-faults value=4000 min=4000 max=4000 \
		symbol=worker mean=4000.00 imbalance=1.0000 min_rank=0 max_rank=0 ranks=1 size=1)"
}

# spoil IN OUT LINE KEY VALUE: IN with line LINE's KEY (a CSV's column, a
# JSON line's member) set to VALUE (JSON: a JSON value; empty: removed)
spoil() {
	python3 - "$@" <<'PY'
import json, sys
src, dst, line, key, value = sys.argv[1:]
lines = open(src).read().split("\n")
at = int(line) - 1
if src.endswith(".json"):
    row = json.loads(lines[at])
    row.pop(key)
    if value:
        row[key] = json.loads(value)
    lines[at] = json.dumps(row)
else:
    cells = lines[at].split(",")
    cells[lines[0].split(",").index(key)] = value
    lines[at] = ",".join(cells)
open(dst, "w").write("\n".join(lines))
PY
}

@test "pfmon-report refuses a bad region row, naming the file and line, and writes no report" {
	"$PERFEX" --regions -e page-faults -x, -o "$T/g.csv" "$ROOT/build/examples/regions" 100 1
	"$PERFEX" --regions -e page-faults --json -o "$T/g.json" "$ROOT/build/examples/regions" 100 1
	# CSV line 3 and JSON line 2: the second region row
	while IFS='|' read -r key value err; do
		for ext in csv json; do
			line=$([ "$ext" = csv ] && echo 3 || echo 2)
			spoil "$T/g.$ext" "$T/bad.$ext" "$line" "$key" "$value"
			run -1 "$REPORT" -o "$T/out" "$T/bad.$ext"
			assert_output "pfmon-report: $T/bad.$ext:$line: a region row $err"
			[ ! -e "$T/out" ]
		done
	done <<'EOF_CASES'
symbol||without its symbol (the region) and name (the event)
runs||without its runs (the calls), value, min and max
runs|2.5|whose runs (the calls) is not a whole number above 0
value|-100|with a negative value, min or max
min|400|whose min is above its max
status|"not-counted"|whose status is neither counted nor scaled
EOF_CASES
}
