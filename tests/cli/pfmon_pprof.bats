#!/usr/bin/env bats
# pfmon --pprof: the samples of a run as a gzipped pprof profile, read by
# the real client (go tool pprof, Debian's golang-go): its functions and
# their samples against pfmon's own profile and call graph of the same
# run (the same samples: equal counts, never timings), the call stacks,
# inline frames as lines of one location, the labels, the mappings'
# build-ids, several events and sets, and the errors.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	export_setup
	# scripts/install-deps.sh installs golang-go: a machine without it
	# fails here, it does not skip
	command -v go >/dev/null || fail "go is missing: run scripts/install-deps.sh (it installs golang-go)"
	# go's caches in the test's own directory; a local file needs no network
	export HOME=$T GOCACHE=$T/gocache GOPATH=$T/gopath
}

teardown() {
	rm -rf "$T"
}

# pprof_top PROFILE [OPTION...]: every function of the profile, a line
# "NAME FLAT CUM" (samples), sorted; inline levels named as functions
# (pprof's " (inline)" mark taken off).
pprof_top() {
	go tool pprof -top -sample_index=samples -nodefraction=0 -edgefraction=0 \
		-nodecount=1000000 "${@:2}" "$1" |
		awk 'body && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
				       sub(/ \(inline\)$/, "", n); print n, $1, $4 }
		     $1 == "flat" && $2 == "flat%" { body = 1 }' | LC_ALL=C sort
}

@test "frame pointers: go tool pprof -top and -traces read the stacks of cgmain" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --pprof="$T/p.pb.gz" "$CG/fp/cgmain" 5
	gzip -t "$T/p.pb.gz"
	run -0 go tool pprof -top "$T/p.pb.gz"
	assert_output --partial "Type: cpu-clock"
	assert_output --regexp "[0-9.]+m?s +[0-9.]+% +[0-9.]+% +[0-9.]+m?s +[0-9.]+% +leaf"
	# each of the five known paths is a trace, leaf first; the inlined
	# caller (inl in d) a line of d's location, marked "(inline)"
	run -0 go tool pprof -traces "$T/p.pb.gz"
	assert_output --regexp $'\n +inl \\(inline\\)\n +d\n'
	awk '/^-+\+-+$/ { if (t != "") print t; t = ""; next }
	     { n = $NF == "(inline)" ? $(NF - 1) : $NF; if ($1 ~ /^[a-z]+:$/) next
	       t = t (t == "" ? "" : ";") n }
	     END { if (t != "") print t }' <<<"$output" | sort -u >"$T/traces"
	for path in "leaf;b;a;main" "leaf;c;main" "leaf;lib_step;lib_walk;main" \
		    "leaf;dl_walk;main" "leaf;inl;d;main"; do
		grep -q "^$path;" "$T/traces" || fail "no trace $path in $(cat "$T/traces")"
	done
	# callers are places too: each an address, its mapping and the line
	# of its call (main calls a, c, lib_walk, dl_walk and d from five
	# lines of cgmain.c), the inlined caller a line of d's location
	run -0 go tool pprof -raw "$T/p.pb.gz"
	for f in a b c main lib_walk; do
		assert_output --regexp "0x[0-9a-f]+ M=[0-9]+ $f /[^ ]+/cg(main|shared)\.c:[1-9][0-9]* "
	done
	[ "$(grep -cE ' M=[0-9]+ main /[^ ]+/cgmain\.c:[1-9]' <<<"$output")" -ge 5 ]
	assert_output --regexp $'M=[0-9]+ inl /[^ ]+/cgmain\\.c:[0-9]+ s=0\n +d /[^ ]+/cgmain\\.c:[0-9]+'
}

@test "each function's samples and samples with callees equal pfmon's call graph of the same run" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --profile-top=0 --outfile="$T/o.csv" \
		--pprof="$T/p.pb.gz" "$CG/fp/cgmain" 5
	# pfmon's call graph: NAME SELF CHILDREN, summed by name as pprof
	# shows them: a name's last part in parentheses (a C++ signature to
	# pprof; here an unknown place's "?? (MODULE+0xOFFSET)") left out, and
	# the functions of one name merged.  Merged "??" places have no
	# cumulative count to compare: a stack through two of them counts
	# once in pprof's and twice in the sum of theirs
	schema_awk 'v("record") == "callgraph" { f = v("symbol"); sub(/ \(.*\)$/, "", f)
						  self[f] += v("self"); all[f] += v("value") }
		    END { for (f in all) print f, self[f], f == "??" ? "-" : all[f] }' \
		"$T/o.csv" | LC_ALL=C sort >"$T/pfmon"
	pprof_top "$T/p.pb.gz" | awk '$1 == "??" { $3 = "-" } { print }' >"$T/pprof"
	[ "$(wc -l <"$T/pfmon")" -ge 10 ]
	diff "$T/pfmon" "$T/pprof"
	# and the profile's rows (by function, its inlined code its own) are
	# the flat counts with inline levels folded into their functions
	schema_awk 'v("record") == "profile" { n[v("symbol")] += v("value") } END { for (f in n) print f, n[f] }' \
		"$T/o.csv" | LC_ALL=C sort >"$T/profile"
	pprof_top "$T/p.pb.gz" -noinlines | awk '$2 > 0 { print $1, $2 }' | diff "$T/profile" -
}

@test "without call graphs: each function's samples equal pfmon's profile, inline levels folded in" {
	run -0 "$PFMON" -x, -e cpu-clock --long-smpl-periods=200000 --profile-top=0 --outfile="$T/o.csv" \
		--pprof="$T/p.pb.gz" "$SYM/build/symwork" spin 100
	schema_awk 'v("record") == "profile" { n[v("symbol")] += v("value") } END { for (f in n) print f, n[f] }' \
		"$T/o.csv" | LC_ALL=C sort >"$T/profile"
	pprof_top "$T/p.pb.gz" -noinlines | awk '{ print $1, $2 }' >"$T/pprof"
	grep -q "^inline_caller [0-9]" "$T/pprof"
	diff "$T/profile" "$T/pprof"
	# the event's value is the samples times the period (ns)
	run -0 go tool pprof -raw "$T/p.pb.gz"
	assert_line --regexp "^PeriodType: cpu-clock nanoseconds$"
	assert_line --regexp "^Period: 200000$"
}

@test "an inlined function is a line of its caller's location, with its file:line" {
	run -0 "$PFMON" -e cpu-clock --long-smpl-periods=200000 --pprof="$T/p.pb.gz" \
		"$SYM/build/symwork" spin 100
	run -0 go tool pprof -raw "$T/p.pb.gz"
	# a location: "ID: ADDRESS M=N hot_inline FILE:LINE s=0", then its
	# caller on the next line, "inline_caller FILE:LINE s=0"
	first=$(grep -n -F 'long hot_inline(long n)' "$SYM/symwork.c" | cut -d: -f1)
	last=$(grep -n -F 'MARK:inline ' "$SYM/symwork.c" | cut -d: -f1)
	call=$(grep -n -F 'MARK:inline_call ' "$SYM/symwork.c" | cut -d: -f1)
	awk -v a="$first" -v b="$last" -v call="$call" '
		held { split($2, f, ":"); if ($1 == "inline_caller" && f[2] == call) ok++; else bad++ }
		{ held = 0 }
		$4 == "hot_inline" { split($5, f, ":"); bad += f[2] < a || f[2] > b; held = 1 }
		END { print ok " locations of hot_inline in inline_caller, " bad " others"
		      exit !(ok > 0 && !bad) }' <<<"$output"
	run -0 go tool pprof -traces "$T/p.pb.gz"
	grep -A1 'hot_inline (inline)' <<<"$output" | grep -q '^ *inline_caller$'
}

@test "labels pid, tid, cpu and set count the samples of the sample file" {
	run -0 "$PFMON" --json "${SMPL[@]}" --smpl-outfile="$T/s.json" --pprof="$T/p.pb.gz" \
		"$CG/fp/cgmain" 3
	python3 - "$T/s.json" >"$T/want" <<'PY'
import collections, json, sys
n = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "index" in d:
        for k in ("cpu", "pid", "set", "tid"):
            n[(k, d[k])] += 1
for (k, v), c in n.items():
    print(k, v, c)
PY
	run -0 go tool pprof -tags -sample_index=samples "$T/p.pb.gz"
	# "KEY: Total N", then "COUNT.0 (SHARE%): VALUE" lines
	awk '$1 ~ /^[a-z]+:$/ && $2 == "Total" { k = substr($1, 1, length($1) - 1); next }
	     k != "" && /^ *[0-9.]+ \( *[0-9.]+%\): / { printf "%s %s %d\n", k, $NF, $1 }' <<<"$output" |
		sort >"$T/got"
	sort "$T/want" | diff - "$T/got"
	for k in pid tid cpu set; do grep -q "^$k " "$T/got"; done
}

@test "mappings carry the files' build-ids" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --pprof="$T/p.pb.gz" "$CG/fp/cgmain" 3
	id=$(readelf -n "$CG/fp/cgmain" | awk '/Build ID:/ { print $3 }')
	[ -n "$id" ]
	run -0 go tool pprof -raw "$T/p.pb.gz"
	assert_line --regexp "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $CG/fp/cgmain $id "
	run -0 go tool pprof -top "$T/p.pb.gz"
	assert_line "File: cgmain"
	assert_line "Build ID: $id"
}

@test "two event sets: one profile, each sample under its own event, the set a label" {
	run -0 "$PFMON" -x, --outfile="$T/o.csv" -e cpu-clock --long-smpl-periods=500000 \
		-e task-clock --long-smpl-periods=250000 --switch-timeout=20 \
		--pprof="$T/p.pb.gz" "$CG/fp/cgmain" 5
	go tool pprof -raw "$T/p.pb.gz" >"$T/raw"
	grep -q -x "samples/count cpu-clock (set 0)/nanoseconds task-clock (set 1)/nanoseconds" "$T/raw"
	python3 - "$T/o.csv" "$T/raw" <<'PY'
import csv, re, sys
# pfmon's samples of each event against pprof's samples: each has one
# value per type, "COUNT CPU_CLOCK TASK_CLOCK: LOCATIONS", its event's its
# period per sample, the other event's 0, and its set as a label
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if r[:2] == ["schema", "record"])
col = {k: i for i, k in enumerate(rows[h])}
want = {r[col["set"]]: int(r[col["raw"]]) for r in rows[h + 1:]
        if len(r) == len(col) and r[col["record"]] == "samples"}
got = {"0": 0, "1": 0}
lines = open(sys.argv[2]).read().split("Locations")[0].splitlines()
for i, line in enumerate(lines):
    m = re.match(r"^ +(\d+) +(\d+) +(\d+):", line)
    if not m:
        continue
    n, a, b = map(int, m.groups())
    assert (a, b) in ((500000 * n, 0), (0, 250000 * n)), line
    s = "0" if a else "1"
    assert "set:[%s id]" % s in lines[i + 1], lines[i + 1]
    got[s] += n
assert got == want and min(got.values()) > 0, (got, want)
print(got)
PY
}

@test "errors: an unwritable --pprof fails before the run, counting mode is refused, no file is left" {
	run -1 "$PFMON" "${SMPL[@]}" --pprof="$T/no/such/dir/p.pb.gz" sh -c "touch '$T/ran'"
	[[ "$output" == *"cannot open '$T/no/such/dir/p.pb.gz'"* ]]
	[ ! -e "$T/ran" ]
	# counting: no samples to write
	run -2 "$PFMON" -e cpu-clock --pprof="$T/p.pb.gz" sh -c "touch '$T/ran'"
	[[ "$output" == *"--pprof writes the samples of a sampling run"* ]]
	[ ! -e "$T/ran" ]
	# the command cannot run: the profile is discarded with the rest
	run -127 "$PFMON" "${SMPL[@]}" --pprof="$T/p.pb.gz" "$T/no-such-command"
	run -2 "$PFMON" "${SMPL[@]}" --pprof="$T/p.pb.gz" --folded="$T/p.pb.gz" --call-graph=fp true
	[[ "$output" == *"must be different files"* ]]
	run -0 ls -A "$T"
	refute_output --partial "p.pb.gz"
}
