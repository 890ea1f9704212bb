#!/usr/bin/env bats
# pfmon's exports for other viewers: --perf-script (the text `perf script`
# prints, read here with the regular expressions of speedscope's and
# FlameGraph's importers: tests/cli/perf_script_check.py) and --speedscope
# (validated by ajv against the schema speedscope's npm package ships:
# tests/cli/speedscope_check.js), their counts against pfmon's own
# profile and call graph of the same run (the same samples: equal counts,
# never timings), and the errors.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	export_setup
	# scripts/install-deps.sh installs them: a machine without them
	# fails here, it does not skip
	NPM=$ROOT/tests/npm/node_modules
	SCHEMA=$NPM/speedscope/dist/release/file-format-schema.json
	if [ ! -f "$SCHEMA" ] || [ ! -d "$NPM/ajv" ]; then
		fail "speedscope or ajv is missing from tests/npm: run scripts/install-deps.sh"
	fi
}

teardown() {
	rm -rf "$T"
}

perf_script() {
	python3 "$ROOT/tests/cli/perf_script_check.py" "$@"
}

# speedscope FILE threads|leaves: the file validated, what speedscope shows
speedscope() {
	NODE_PATH=$NPM node "$ROOT/tests/cli/speedscope_check.js" "$1" "$SCHEMA" "$2"
}

# profile_rows CSV: pfmon's profile, "NAME SAMPLES" by function, sorted
profile_rows() {
	schema_awk 'v("record") == "profile" { n[v("symbol")] += v("value") }
		    END { for (f in n) print f, n[f] }' "$1" | LC_ALL=C sort
}

@test "perf script: the importers read every sample, leaf functions equal pfmon's call graph and profile" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --profile-top=0 --outfile="$T/o.csv" \
		--perf-script="$T/p.txt" "$CG/fp/cgmain" 5
	perf_script "$T/p.txt" leaves >"$T/leaves"
	# the innermost frame is the call graph's: each function's self samples
	schema_awk 'v("record") == "callgraph" && v("self") > 0 { print v("symbol"), v("self") }' \
		"$T/o.csv" | LC_ALL=C sort | diff - "$T/leaves"
	# and the profile's row of a function that is no inlined code (the
	# profile counts inlined code in its function: a sample in the
	# dynamic loader's may land there); without call graphs every row
	# (below)
	grep -x "$(profile_rows "$T/o.csv" | grep '^leaf ')" "$T/leaves"
	# one thread, all samples
	samples=$(schema_awk 'v("record") == "profile_size" { print v("value") }' "$T/o.csv")
	run -0 perf_script "$T/p.txt" threads
	assert_output --regexp "^cgmain ([0-9]+)/\\1 $samples\$"
}

@test "perf script: the stacks are the call graph's, outermost first, the kernel's part kernel.kallsyms" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f.folded" \
		--perf-script="$T/p.txt" "$CG/fp/cgmain" 5
	perf_script "$T/p.txt" stacks >"$T/stacks"
	for path in "main;a;b;leaf" "main;c;leaf" "main;lib_walk;lib_step;leaf" \
		    "main;dl_walk;leaf" "main;d;inl;leaf"; do
		grep -q ";$path\$" "$T/stacks" || fail "no stack $path in $(cat "$T/stacks")"
	done
	# the folded stacks' distinct stacks, nothing more or less
	awk '{ sub(/ [0-9]+$/, ""); print }' "$T/f.folded" | sort -u | diff - <(sort -u "$T/stacks")
	# perf's layout: the header, then "\t" the address in 16 columns, the
	# function, the module in parentheses
	run -0 grep -m1 -A1 -E '^cgmain +[0-9]+/[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +500000 cpu-clock:$' "$T/p.txt"
	assert_line --index 1 --regexp $'^\t[ 0-9a-f]{16} [^ ]+ \\(.+\\)$'
	# +0xOFFSET at the sampled place's function (not at its inlined
	# callees, nor the callers): leaf's own samples have it (the first
	# sample may fall in inlined code of the dynamic loader, without)
	run -0 grep -m1 -E $'^\t[ 0-9a-f]{16} leaf\\+0x[0-9a-f]+ \\(.+/cgmain\\)$' "$T/p.txt"
	# the kernel as perf names it
	run -1 grep -F '([kernel])' "$T/p.txt"
	# each frame's address is in its function: the program's load
	# address from the sampled place (ADDRESS - leaf's start - OFFSET),
	# then each return address, one byte back, within its function's nm
	# range, its +0xOFFSET the return address's in the function (as perf
	# prints it); an inlined caller (inl in d) has the address of the
	# function it is inlined in, and no offset
	nm -S "$CG/fp/cgmain" >"$T/nm"
	run -0 python3 - "$T/p.txt" "$T/nm" <<'PY'
import re, sys
syms = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4 and f[2] in "tT":
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
checked = inlined = 0
for ev in open(sys.argv[1]).read().split("\n\n"):
    frames = [re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", l) for l in ev.split("\n")[1:] if l]
    names = [m.group(2).split("+0x")[0] for m in frames]
    if names[:1] != ["leaf"] or "+0x" not in frames[0].group(2):
        continue
    leaf_off = int(frames[0].group(2).split("+0x")[1], 16)
    base = int(frames[0].group(1), 16) - syms["leaf"][0] - leaf_off
    if names[1:4] == ["b", "a", "main"]:
        for m in frames[1:4]:
            name, off = m.group(2).split("+0x")
            start, size = syms[name]
            ret = int(m.group(1), 16) - base
            assert start <= ret - 1 < start + size, (m.group(0), hex(ret), hex(start))
            assert ret - start == int(off, 16), (m.group(0), hex(ret - start))
        checked += 1
    if names[1:4] == ["inl", "d", "main"]:
        assert frames[1].group(1) == frames[2].group(1), (frames[1].group(0), frames[2].group(0))
        assert frames[1].group(2) == "inl" and frames[2].group(2).startswith("d+0x"), ev
        start, size = syms["d"]
        assert start <= int(frames[2].group(1), 16) - 1 - base < start + size, ev
        inlined += 1
assert checked > 0 and inlined > 0, (checked, inlined)
print(checked, "chains main;a;b;leaf and", inlined, "main;d;inl;leaf checked")
PY
}

@test "perf script without call graphs: the sampled place alone, counts equal the profile" {
	run -0 "$PFMON" -x, -e cpu-clock --long-smpl-periods=200000 --profile-top=0 \
		--outfile="$T/o.csv" --perf-script="$T/p.txt" "$SYM/build/symwork" spin 100
	perf_script "$T/p.txt" leaves | sed 's/^\[unknown\] /?? /' | LC_ALL=C sort >"$T/leaves"
	profile_rows "$T/o.csv" >"$T/profile"
	grep -q "^inline_caller [0-9]" "$T/leaves"
	diff "$T/profile" "$T/leaves"
	# one frame a sample
	[ "$(grep -c $'^\t' "$T/p.txt")" -eq "$(grep -c '^symwork ' "$T/p.txt")" ]
}

@test "speedscope: the schema holds, threads and leaf functions equal pfmon's profile and call graph" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --profile-top=0 --outfile="$T/o.csv" \
		--folded="$T/f.folded" --speedscope="$T/s.json" "$CG/fp/cgmain" 5
	speedscope "$T/s.json" leaves >"$T/leaves"
	grep -q "^leaf [0-9]" "$T/leaves"
	# the innermost frame's samples: the call graph's self samples, and
	# the profile's row of leaf, which is no inlined code (as above)
	schema_awk 'v("record") == "callgraph" && v("self") > 0 { print v("symbol"), v("self") }' \
		"$T/o.csv" | LC_ALL=C sort | diff - "$T/leaves"
	grep -x "$(profile_rows "$T/o.csv" | grep '^leaf ')" "$T/leaves"
	# the hottest leaf is the profile's first row
	top=$(schema_awk 'v("record") == "profile" && v("position") == 1 { print v("symbol") }' "$T/o.csv")
	[ "$(sort -k2,2nr "$T/leaves" | head -1 | cut -d' ' -f1)" = "$top" ]
	# one thread with every sample, its weights the periods in ns
	samples=$(schema_awk 'v("record") == "profile_size" { print v("value") }' "$T/o.csv")
	run -0 speedscope "$T/s.json" threads
	assert_output --regexp "^cgmain ([0-9]+)/\\1 $samples\$"
	run -0 python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["profiles"][0]
assert p["unit"] == "nanoseconds" and set(p["weights"]) == {500000}, p["unit"]
assert p["endValue"] == 500000 * len(p["samples"])' "$T/s.json"
	# the stacks are the call graph's, outermost first: the folded stacks
	python3 -c 'import collections, json, sys
d = json.load(open(sys.argv[1])); names = [f["name"] for f in d["shared"]["frames"]]
n = collections.Counter(";".join(names[i] for i in s) for p in d["profiles"] for s in p["samples"])
for k in sorted(n): print(k, n[k])' "$T/s.json" >"$T/stacks"
	grep -q ";main;a;b;leaf [0-9]" "$T/stacks"
	grep -q ";main;d;inl;leaf [0-9]" "$T/stacks"
	LC_ALL=C sort "$T/f.folded" | diff - <(LC_ALL=C sort "$T/stacks")
	# a sampled function has its source file
	run -0 python3 -c 'import json, sys
f = {x["name"]: x.get("file") for x in json.load(open(sys.argv[1]))["shared"]["frames"]}
print(f["leaf"])' "$T/s.json"
	assert_output --regexp "/cgmain\.c\$"
	# the validator does reject what breaks the schema
	sed 's/"unit":"nanoseconds"/"unit":"ticks"/' "$T/s.json" >"$T/bad.json"
	run -1 speedscope "$T/bad.json" threads
}

@test "speedscope without call graphs: the sampled function, counts equal the profile" {
	run -0 "$PFMON" -x, -e cpu-clock --long-smpl-periods=200000 --profile-top=0 \
		--outfile="$T/o.csv" --speedscope="$T/s.json" "$SYM/build/symwork" spin 100
	speedscope "$T/s.json" leaves >"$T/leaves"
	profile_rows "$T/o.csv" | diff - "$T/leaves"
	grep -q "^inline_caller [0-9]" "$T/leaves"
}

@test "threads: a profile each in speedscope, a header each in perf script, as the sample file counts them" {
	# 2 threads and 2 child processes each touching 300 fresh pages, every
	# page fault a sample: those four tasks have >= 300 samples each
	W=$ROOT/build/tests/workloads
	run -0 "$PFMON" --follow-all --json -e page-faults --long-smpl-periods=1 \
		--smpl-outfile="$T/x.json" --speedscope="$T/s.json" --perf-script="$T/p.txt" \
		"$W/family" 2 300
	python3 -c 'import collections, json, sys
n = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "index" in d: n["%d/%d" % (d["pid"], d["tid"])] += 1
for k in sorted(n): print(k, n[k])' "$T/x.json" | LC_ALL=C sort >"$T/want"
	[ "$(awk '$2 >= 300' "$T/want" | wc -l)" -eq 4 ]
	speedscope "$T/s.json" threads | awk '{ print $(NF - 1), $NF }' | LC_ALL=C sort | diff "$T/want" -
	perf_script "$T/p.txt" threads | awk '{ print $(NF - 1), $NF }' | LC_ALL=C sort | diff "$T/want" -
	# an event that is no clock counts in no unit
	run -0 python3 -c 'import json, sys
print(sorted({p["unit"] for p in json.load(open(sys.argv[1]))["profiles"]}))' "$T/s.json"
	assert_output "['none']"
}

@test "speedscope's viewer opens both files: the hottest function in its Sandwich table" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --profile-top=0 --outfile="$T/o.csv" \
		--speedscope="$T/s.json" --perf-script="$T/p.txt" "$CG/fp/cgmain" 5
	read -r top n < <(schema_awk 'v("record") == "profile" && v("position") == 1 {
		print v("symbol"), v("value") }' "$T/o.csv")
	[ "$top" = leaf ]
	for f in s.json p.txt; do
		run -0 python3 "$ROOT/tests/cli/speedscope_view.py" \
			"$NPM/speedscope/dist/release" "$T/$f" "$top" "$T/view-$f"
	done
	# the speedscope file's weights are nanoseconds: the function's self
	# time is its samples times the period, 0.5 ms
	self=$(awk -v n="$n" 'BEGIN { printf "%.2fms", n * 0.5 }')
	awk -v name="$top" '{ l[NR] = $0 } $0 == "\t" name { print l[NR - 1]; exit }' \
		"$T/view-s.json/speedscope_view.txt" >"$T/self"
	grep -q "^	$self " "$T/self" || fail "self time $(cat "$T/self"), not $self"
}

@test "perf script errors: an unwritable file fails before the run, counting mode is refused, no file is left" {
	run -1 "$PFMON" "${SMPL[@]}" --perf-script="$T/no/such/dir/p.txt" sh -c "touch '$T/ran'"
	[[ "$output" == *"cannot open '$T/no/such/dir/p.txt'"* ]]
	[ ! -e "$T/ran" ]
	run -2 "$PFMON" -e cpu-clock --perf-script="$T/p.txt" sh -c "touch '$T/ran'"
	[[ "$output" == *"--perf-script writes the samples of a sampling run"* ]]
	[ ! -e "$T/ran" ]
	# the command cannot run: the file is discarded with the rest
	run -127 "$PFMON" "${SMPL[@]}" --perf-script="$T/p.txt" "$T/no-such-command"
	run -2 "$PFMON" "${SMPL[@]}" --perf-script="$T/p.txt" --pprof="$T/p.txt" true
	[[ "$output" == *"must be different files"* ]]
	run -0 ls -A "$T"
	refute_output --partial "p.txt"
}

@test "speedscope errors: an unwritable file fails before the run, counting mode is refused, no file is left" {
	run -1 "$PFMON" "${SMPL[@]}" --speedscope="$T/no/such/dir/s.json" sh -c "touch '$T/ran'"
	[[ "$output" == *"cannot open '$T/no/such/dir/s.json'"* ]]
	[ ! -e "$T/ran" ]
	run -2 "$PFMON" -e cpu-clock --speedscope="$T/s.json" sh -c "touch '$T/ran'"
	[[ "$output" == *"--speedscope writes the samples of a sampling run"* ]]
	[ ! -e "$T/ran" ]
	run -127 "$PFMON" "${SMPL[@]}" --speedscope="$T/s.json" "$T/no-such-command"
	run -2 "$PFMON" "${SMPL[@]}" --speedscope="$T/s.json" --perf-script="$T/s.json" true
	[[ "$output" == *"must be different files"* ]]
	run -0 ls -A "$T"
	refute_output --partial "s.json"
}
