#!/usr/bin/env bats
# pfmon profiles and --resolve-addresses: functions (or source lines, or
# inlined functions) ranked by samples per sampling event, through the main
# binary, a linked library, a dlopen'ed library, an inlined function, the
# kernel, forked children, and code that belongs to no file ("??").

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	SYM=$ROOT/tests/workloads/symbols
	SYMBIN=$SYM/build/symwork
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# The share (percent) of function $2 of event $3 in pfmon -x, output $1
# (with --profile-top=0), of the samples in user space: the kernel's share
# grows with the host's load (interrupts charged to the task's clock).
# Nothing when the function has no row.
pct() {
	schema_awk -v f="$2" -v e="$3" '
		v("record") == "profile" && v("name") == e && v("module") != "[kernel]" {
			u += v("value"); if (v("symbol") == f) { n += v("value"); seen = 1 } }
		END { if (seen) printf "%.2f\n", 100 * n / u }' <<<"$1"
}

# user_share OUTPUT NAME...: the profile rows named NAME... (functions, or
# ?? for code in no module) hold at least 97% of the samples outside the
# kernel, and there are 500 of those at least.  (The kernel's share grows
# with the host's load: interrupts and switches charged to the task's
# clock; what runs in user space is the workload's own.)
user_share() {
	local out=$1
	shift
	schema_awk -v names=" $* " '
		v("record") == "profile" { if (v("module") == "[kernel]") k += v("value"); else u += v("value") }
		v("record") == "profile" && v("module") != "[kernel]" && index(names, " " v("symbol") " ") { w += v("value") }
		END { printf "%d of %d user-space samples in%s(%d in the kernel)\n", w, u, names, k
		      exit !(u >= 500 && w >= 0.97 * u) }' <<<"$out"
}

# The line of $1 (in tests/workloads/symbols) holding "$2".
line_of() {
	grep -n -F -- "$2" "$SYM/$1" | head -1 | cut -d: -f1
}

# bats test_tags=timing
@test "cpu-clock profile of split: heavy_function 70% and light_function 30%, within 5 points" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-top=0 "$W/split" 1500
	h=$(pct "$output" heavy_function cpu-clock)
	l=$(pct "$output" light_function cpu-clock)
	[ -n "$h" ] && [ -n "$l" ]
	awk -v h="$h" -v l="$l" 'BEGIN { s = 100 * h / (h + l); print "heavy share", s;
		exit !(s >= 65 && s <= 75) }'
	# and they hold (nearly) all of its user-space samples (the kernel's
	# share depends on the host's load: interrupts charged to its clock)
	user_share "$output" heavy_function light_function
	# the rows are ranked: heavy_function first
	run -0 csv_get "$output" symbol profile position=1
	assert_output heavy_function
}

@test "the text profile ranks functions with their percentages and modules" {
	run -0 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=100000 --profile-top=2 "$W/split" 600
	assert_line --regexp '^# profile of cpu-clock: [0-9]+ samples, by functions$'
	# the module by its file name in text
	assert_line --regexp "^ +[0-9]+ +[0-9.]+%  heavy_function +split\$"
	assert_line --regexp "^ +[0-9]+ +[0-9.]+%  light_function +split\$"
	# --profile-top=2: two rows under the header
	run -0 awk '/^# profile/ { p = 1; next } p && /^ +[0-9]+ / { n++ } END { print n }' <<<"$output"
	assert_output 2
	# -v: the module's full path
	run -0 --separate-stderr "$PFMON" -v -e cpu-clock --long-smpl-periods=100000 --profile-top=2 "$W/split" 600
	assert_line --regexp "^ +[0-9]+ +[0-9.]+%  heavy_function +$W/split\$"
}

# calls and split are built without PIE: their code lies at the same
# addresses.  A sample resolves against the program its process ran when
# it was taken, not the last one it mapped there.
@test "a program exec'ed by the command: samples before and after the exec resolve to their own programs" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 \
		--profile-top=0 "$W/calls" 30000000 "$W/split" 300
	run -0 schema_awk 'v("record") == "profile" && (v("module") ~ /\/calls$/ || v("module") ~ /\/split$/) {
			mod = v("module"); sub(/.*\//, "", mod); n[mod "," v("symbol")] += v("value")
		}
		END { split_all = n["split,heavy_function"] + n["split,light_function"] + n["split,main"]
			print (n["calls,counted_function"] + n["calls,main"] > 50),
			   (n["split,heavy_function"] > 50), (n["split,light_function"] > 20),
			   (n["split,spin"] < 5), (n["split,main"] * 50 < split_all) }' <<<"$output"
	# calls' samples misnamed at their addresses would put a hundred or
	# more in split's spin (where calls' counted_function lies) and main.
	# split's spin runs once, 10 iterations: nothing.  Its main does a few
	# instructions in 200,000 per round, but a busy host's timer lands
	# there more often than that (1 to 5 of its samples seen, all at its
	# loop's addresses): under 2% of split's samples.
	assert_output "1 1 1 1 1"
}

@test "main binary, linked library, dlopen'ed library and inlined function are named" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-top=0 "$SYMBIN" spin 400
	for f in hot_main:symwork hot_shared:libsymshared.so hot_dlopen:libsymdl.so inline_caller:symwork; do
		[[ $(csv_get "$output" module profile symbol="${f%%:*}") == *"/build/${f#*:}" ]]
		p=$(pct "$output" "${f%%:*}" cpu-clock)
		awk -v p="$p" 'BEGIN { exit !(p > 15 && p < 35) }'
	done
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-top=0 --profile-inlined "$SYMBIN" spin 400
	p=$(pct "$output" hot_inline cpu-clock)
	awk -v p="$p" 'BEGIN { exit !(p > 15 && p < 35) }'
	# only inline_caller's own few instructions stay under its name
	p=$(pct "$output" inline_caller cpu-clock)
	awk -v p="${p:-0}" 'BEGIN { exit !(p < 2) }'
}

@test "--resolve-addresses: every hot sample with its function, file:line and inline chain" {
	run -0 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=200000 --resolve-addresses \
		--smpl-outfile="$T/s.txt" "$SYMBIN" spin 300
	python3 - "$T/s.txt" "$SYM" \
		"$(line_of symwork.c 'long hot_main(long n)')" "$(line_of symwork.c 'MARK:main ')" \
		"$(line_of symwork.c 'long hot_inline(long n)')" "$(line_of symwork.c 'MARK:inline ')" \
		"$(line_of symwork.c 'MARK:inline_call ')" \
		"$(line_of symshared.c 'hot_shared(long n)')" "$(line_of symshared.c 'MARK:shared ')" \
		"$(line_of symdl.c 'hot_dlopen(long n)')" "$(line_of symdl.c 'MARK:dlopen ')" <<'PY'
import re, sys
path, src = sys.argv[1], sys.argv[2]
(main_a, main_b, inl_a, inl_b, call_line, sh_a, sh_b, dl_a, dl_b) = map(int, sys.argv[3:])
want = {  # function: module, source, line range
    "hot_main": ("symwork", "symwork.c", main_a, main_b),
    "inline_caller": ("symwork", "symwork.c", inl_a, inl_b),
    "hot_shared": ("libsymshared.so", "symshared.c", sh_a, sh_b),
    "hot_dlopen": ("libsymdl.so", "symdl.c", dl_a, dl_b),
}
seen = dict.fromkeys(want, 0)
lines = open(path).read().splitlines()
assert lines[0] == "# pfmon samples v1" and lines[-1].startswith("# end "), (lines[0], lines[-1])
assert lines[1].startswith("# run {"), lines[1]
for l in lines[2:-1]:
    cols, _, place = l.partition(" | ")
    assert place, "no resolved place: " + l
    m = re.match(r"(\S+) (\S+?)(?:\+0x[0-9a-f]+)? (\S+?):(\d+)(?::\d+)?(?: inlined: (.*))?$", place)
    assert m, "bad place: " + place
    module, func, file, line, chain = m.groups()
    if func not in want:
        continue
    wmod, wsrc, lo, hi = want[func]
    if func == "inline_caller" and chain is None:
        # inline_caller's own instructions, around the call
        assert call_line - 2 <= int(line) <= call_line + 3, (func, line)
        continue
    assert module == src + "/build/" + wmod, (func, module)
    assert file == src + "/" + wsrc, (func, file)
    # from the function's first line to its closing brace, two lines
    # after the marked call (the return statement, then the brace)
    assert lo <= int(line) <= hi + 2, (func, line, lo, hi)
    if func == "inline_caller":
        assert chain == "hot_inline %s/symwork.c:%d" % (src, call_line), chain
    else:
        assert chain is None, (func, chain)
    seen[func] += 1
print(seen)
assert all(n > 50 for n in seen.values()), seen
PY
}

@test "--resolve-addresses in JSON Lines: module, func, offset, file, line and inlines" {
	run -0 --separate-stderr "$PFMON" --json -e cpu-clock --long-smpl-periods=200000 --resolve-addresses \
		--smpl-outfile="$T/s.json" "$SYMBIN" spin 200
	python3 - "$T/s.json" "$SYM" "$(line_of symwork.c 'MARK:inline_call ')" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert "run" in recs[0] and recs[-1] == {"end": len(recs) - 2}
call_line = int(sys.argv[3])
inl = [r for r in recs[1:-1] if r["func"] == "inline_caller"]
chained = 0
for r in inl:
    assert r["module"].endswith("/build/symwork") and r["file"] == sys.argv[2] + "/symwork.c", r
    # offset 0: a sample taken as the call arrived at its first instruction
    assert r["offset"] >= 0 and r["line"] > 0, r
    if not r["inlines"]:
        # inline_caller's own instructions, around the call
        assert call_line - 2 <= r["line"] <= call_line + 3, r
        continue
    assert r["inlines"] == [{"func": "hot_inline", "call_file": sys.argv[2] + "/symwork.c",
                             "call_line": call_line}], r["inlines"]
    chained += 1
assert chained > 20, (chained, len(inl))
PY
}

@test "--profile-lines ranks source lines of the hot functions" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-lines "$SYMBIN" spin 400
	# the hot rows of user space (under load, the kernel's rows grow:
	# interrupts charged to the task's clock)
	run -0 schema_awk 'v("record") == "profile" && v("share_pct") + 0 > 5 && v("module") != "[kernel]" {
			n++; if (v("symbol") !~ /\/symbols\/sym(work|shared|dl)\.c:[0-9]+$/) bad++ }
		END { print (n >= 4), bad + 0 }' <<<"$output"
	assert_output "1 0"
}

@test "code in no file (anonymous executable memory) reads ??" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-top=0 --resolve-addresses \
		--smpl-outfile="$T/s.txt" "$W/anon_exec" 3000
	user_share "$output" "??"
	# and the sample lines: no function, no module, no line
	run -0 grep -c ' | ?? ?? ??:0$' "$T/s.txt"
	(( output > 100 ))
}

@test "kernel samples are named through /proc/kallsyms" {
	[ -r /proc/kallsyms ] && awk '$1 != "0000000000000000" { ok = 1; exit } END { exit !ok }' /proc/kallsyms ||
		skip "kallsyms shows no addresses to this user"
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=50000 --profile-top=0 "$W/touch_pages" 20000
	run -0 schema_awk 'v("record") == "profile" && v("module") == "[kernel]" && v("symbol") != "??" {
		print v("symbol") }' <<<"$output"
	[ -n "$output" ]
	for f in $(head -3 <<<"$output"); do
		grep -q " $f\$\| $f\s" /proc/kallsyms
	done
}

@test "one profile per sampling event" {
	run -0 --separate-stderr "$PFMON" -x, -e "cpu-clock,uprobe:$W/calls:counted_function" \
		--long-smpl-periods=100000,10 "$W/calls" 100000
	all=$output
	run -0 schema_awk 'v("record") == "profile" && v("name") ~ /^uprobe:/ {
		print v("position"), v("value"), v("share_pct"), v("symbol") }' <<<"$output"
	assert_output "1 10000 100.00 counted_function"
	csv_get "$all" symbol profile name=cpu-clock | grep -q .
}

@test "the profile follows forked children, resolved through the mappings they inherited" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --follow-fork \
		--profile-top=0 --resolve-addresses --smpl-outfile="$T/s.txt" "$W/fork_calls" fork 2 60000000
	# the profile's first rows are the children's work, by its functions
	# (in either order: how the loop's time splits between the caller and
	# the callee depends on the CPU)
	run -0 schema_awk 'v("record") == "profile" && v("position") + 0 <= 2 { print v("symbol") }' <<<"$output"
	assert_equal "$(sort <<<"$output")" "$(printf 'calls\ncounted_function')"
	# Each child's own samples in user space (the parent's start-up in the
	# loader and libc is fixed work but not fixed time: it grows with the
	# host's load, so it is left out): 97% in the loop, and none unresolved.
	# (The kernel's share, interrupts and switches charged to the children's
	# clock, grows with the load too.)  Some 1,800 samples here, fewer on a
	# faster CPU: 200 are enough for the share to mean something.
	run -0 awk '
		/^#/ { next }
		!parent { parent = $2 }
		$2 != parent && $11 != "[kernel]" {
			u++
			f = $12; sub(/\+.*/, "", f)
			if (f == "calls" || f == "counted_function") w++
			if ($11 == "??" || f == "??") unresolved++
		}
		END { printf "%d of %d, %d unresolved\n", w, u, unresolved
		      exit !(u >= 200 && w >= 0.97 * u && !unresolved) }' "$T/s.txt"
}

@test "JSON profile parses and holds the summary" {
	run -0 --separate-stderr "$PFMON" --json -e cpu-clock --long-smpl-periods=100000 "$W/split" 600
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = d["summary"]
assert s["samples"] > 500 and s["lost"] == 0, s
p = d["profile"][0]
assert p["event"] == "cpu-clock" and p["by"] == "functions", p
top = p["entries"][0]
assert top["symbol"] == "heavy_function" and top["module"].endswith("/split"), top
assert top["name"] == "cpu-clock" and top["position"] == 1, top
assert abs(sum(e["share_pct"] for e in p["entries"]) - 100) < 5 or len(p["entries"]) == 20
' "$output"
}

@test "samples in the [vdso] are attributed to it, its exported function by name" {
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 --profile-top=0 \
		"$W/clockloop" 300
	# most of its time in user space is in the vdso; like perf report, the
	# parts without a symbol of their own in the vdso's dynamic symbol
	# table stay ??
	vdso=$(schema_awk 'v("record") == "profile" && v("module") != "[kernel]" {
			u += v("value"); if (v("module") == "[vdso]") s += v("value") }
		END { printf "%.2f\n", 100 * s / u }' <<<"$output")
	echo "vdso share: $vdso"
	awk -v p="$vdso" 'BEGIN { exit !(p > 50) }'
	[ -n "$(pct "$output" __vdso_clock_gettime cpu-clock)" ]
}
