#!/usr/bin/env bats
# pfmon --call-graph: call chains through the main binary, a linked and a
# dlopen'ed library and an inlined function (tests/workloads/callgraph:
# five known paths from main to leaf), by frame pointers and by DWARF on a
# build without them; children and self percentages, caller trees, folded
# stacks, chains cut short, and the errors.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	CG=$ROOT/build/tests/workloads/callgraph
	T=$(mktemp -d)
	# CPU time sampled every 0.5 ms
	SMPL=(-e cpu-clock --long-smpl-periods=500000)
}

teardown() {
	rm -rf "$T"
}

# match_share FOLDED: of the samples whose stack holds leaf, the share (%)
# whose frames from the last main to leaf are one of the five known paths;
# then the count of each path on the following lines (PATH COUNT).
match_share() {
	awk '
		{
			n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack)
			k = split(stack, f, ";"); m = 0; l = 0
			for (i = 1; i <= k; i++) { if (f[i] == "main") m = i; if (f[i] == "leaf") l = i }
			if (!l) next
			leaf += n
			p = ""
			for (i = m; m && i <= l; i++) p = p (p == "" ? "" : ";") f[i]
			if (p == "main;a;b;leaf" || p == "main;c;leaf" || p == "main;lib_walk;lib_step;leaf" ||
			    p == "main;dl_walk;leaf" || p == "main;d;inl;leaf") { ok += n; path[p] += n }
		}
		END {
			printf "%.2f\n", leaf ? 100 * ok / leaf : 0
			for (p in path) print p, path[p]
		}' "$1"
}

# The five paths all have samples and >= 99% of leaf's samples are on them.
check_paths() {
	local out
	out=$(match_share "$1")
	echo "$out"
	awk 'NR == 1 { if ($1 < 99) { print "only " $1 "% on the known paths"; exit 1 } }
	     NR > 1 { n++ } END { if (n != 5) { print n " of the 5 paths seen"; exit 1 } }' <<<"$out"
}

@test "frame pointers: >= 99% of leaf's chains are the known paths" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f" "$CG/fp/cgmain" 20
	check_paths "$T/f"
}

@test "dwarf without frame pointers: >= 99% of leaf's chains are the known paths" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=dwarf --folded="$T/f" "$CG/nofp/cgmain" 20
	check_paths "$T/f"
	# the unwinder reaches the outermost frame from the program's code:
	# no chain through main is cut short.  (Start-up's may be: a sample
	# in the kernel while the exec completes has the new program's stack
	# under the old program's registers; ld.so's _dl_start_user and the
	# program's _init have no CFI.  Some 2 to 4 samples a run, a fixed
	# cost that was over 1% of a run this short now and then.)
	run -0 "$PFMON" --json "${SMPL[@]}" --call-graph=dwarf --resolve-addresses \
		--smpl-outfile="$T/s.json" "$CG/nofp/cgmain" 5
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "index" in d and "main" in d["frames"]:
        n += 1
        assert d["chain_cut"] is False, line
assert n > 100, n' "$T/s.json"
}

@test "frame pointers on the build without them: wrong chains, marked unknown, never garbage names" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f" "$CG/nofp/cgmain" 5
	# each frame is a symbol, an inlined function or ?? (MODULE+0xOFFSET);
	# a chain that runs to the depth limit (frame pointers in a loop) starts
	# with [truncated] (test_chains: return addresses of 0 or in the
	# kernel's half are ?? ([unknown]+0xADDRESS))
	run -0 awk '{ sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		for (i = 1; i <= k; i++) {
			if (i == 1 && f[i] == "[truncated]") continue
			if (f[i] !~ /^[A-Za-z_.@0-9]+$/ && f[i] !~ /^\?\? \([^ ]+\+0x[0-9a-f]+\)$/) { print "bad frame: " f[i]; exit 1 }
		} }' "$T/f"
}

@test "folded stacks parse back to the samples and to each function's children count" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --profile-top=0 --folded="$T/f" "$CG/fp/cgmain" 10
	csv=$output
	# every sample is one folded stack
	[ "$(awk '{ s += $NF } END { print s }' "$T/f")" -eq "$(summary "$csv" samples)" ]
	# a function's children samples: the folded samples whose stack holds it
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete seen
	       for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; c[f[i]] += n } }
	     END { for (x in c) print x "," c[x] }' "$T/f" | sort >"$T/from_folded"
	# by name, as folded stacks name frames: the report keys functions by
	# name and module, and two modules may hold one name (the loader's
	# _start and the program's, when a loaded host's sampling lands in
	# the start-up)
	schema_awk 'v("record") == "callgraph" { c[v("symbol")] += v("value") }
		END { for (x in c) print x "," c[x] }' <<<"$csv" | sort >"$T/from_report"
	diff "$T/from_folded" "$T/from_report"
}

# User time only (cpu-clock:u): on a busy host the kernel's share (the
# timer's interrupts deferred to where a context switch enables them) grows
# with the load, and leaf's share of all samples falls with it.
@test "children and self add up: main holds the leaf's samples, leaf's callers sum to it" {
	run -0 "$PFMON" -x, -e cpu-clock:u --long-smpl-periods=500000 --call-graph=fp --profile-top=0 --profile-callers "$CG/fp/cgmain" 10
	csv=$output
	total=$(csv_get "$csv" value callgraph symbol=leaf)
	self=$(csv_get "$csv" self callgraph symbol=leaf)
	samples=$(summary "$csv" samples)
	# leaf is where the time goes: its self samples are nearly all
	[ "$self" -ge $((samples * 95 / 100)) ]
	# children percentages are shares of the samples
	schema_awk -v n="$samples" 'v("record") == "callgraph" {
		d = v("share_pct") - 100 * v("value") / n; if (d > 0.01 || d < -0.01) bad = 1 }
		END { exit bad }' <<<"$csv"
	# leaf's callers: each level down its tree holds all of it again
	schema_awk -v t="$total" 'v("record") == "callers" && v("root") == "leaf" {
			if (v("depth") == "0") root = v("value"); if (v("depth") == "1") d1 += v("value") }
		END { if (root != t || d1 != t) { print root, d1, t; exit 1 } }' <<<"$csv"
	# the five callers of leaf, and main above all of its samples
	[ "$(csv_get "$csv" symbol callers root=leaf depth=1 | wc -l)" -eq 5 ]
	main=$(csv_get "$csv" value callgraph symbol=main)
	[ "$main" -ge $((total * 99 / 100)) ]
}

@test "text and JSON: children, self, trees" {
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --profile-callers "$CG/fp/cgmain" 3
	[[ "$output" == *"# call graph of cpu-clock:"* ]]
	[[ "$output" == *"# callers of leaf (cpu-clock)"* ]]
	[[ "$output" == *"call chains "*" frames, "*" unknown (??), "*" chains cut short"* ]]
	run -0 "$PFMON" --json "${SMPL[@]}" --call-graph=fp --profile-callers "$CG/fp/cgmain" 3
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
g = d["callgraph"][0]
assert d["schema"] == 3 and "call_chains" not in d, d.keys()
f = {x["symbol"]: x for x in g["functions"]}
assert f["leaf"]["value"] == g["samples"] or f["leaf"]["self"] > 0
assert all(x["name"] == "cpu-clock" for x in g["functions"]), g["functions"]
assert [x["position"] for x in g["functions"]] == list(range(1, len(g["functions"]) + 1))
t = [t for t in g["trees"] if t["kind"] == "callers" and t["function"] == "leaf"]
assert t and t[0]["nodes"][0]["symbol"] == "leaf" and t[0]["nodes"][0]["depth"] == 0, t
assert all(n["root"] == "leaf" for n in t[0]["nodes"]), t
assert d["summary"]["chain_frames"] > 0' <<<"$output"
}

@test "a chain longer than --call-graph-depth ends in [truncated]" {
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=fp --call-graph-depth=2 --folded="$T/f" "$CG/fp/cgmain" 3
	[ "$(summary "$output" cut_chains)" -gt 0 ]
	grep -q '^\[truncated\];' "$T/f"
	run -0 "$PFMON" -x, "${SMPL[@]}" --call-graph=dwarf --call-graph-depth=3 --folded="$T/f" "$CG/nofp/cgmain" 3
	grep -q '^\[truncated\];' "$T/f"
}

@test "call-graph errors are usage errors, and no file is left" {
	SECONDS=0
	cmd=("$CG/fp/cgmain" 1)
	run -2 "$PFMON" "${SMPL[@]}" --call-graph=lbr "${cmd[@]}"
	[[ "$output" == *"unknown mode 'lbr'"* ]]
	run -2 "$PFMON" "${SMPL[@]}" --call-graph=dwarf,7 "${cmd[@]}"
	[[ "$output" == *"multiple of 8"* ]]
	run -2 "$PFMON" "${SMPL[@]}" --call-graph=fp --call-graph-depth=600 "${cmd[@]}"
	run -2 "$PFMON" "${SMPL[@]}" --call-graph=fp --smpl-module=double-buffer "${cmd[@]}"
	[[ "$output" == *"callchain format"* ]]
	run -2 "$PFMON" "${SMPL[@]}" --smpl-module=callchain "${cmd[@]}"
	run -2 "$PFMON" -e cpu-clock --call-graph=fp "${cmd[@]}"
	[[ "$output" == *"need sampling"* ]]
	run -2 "$PFMON" "${SMPL[@]}" --folded="$T/f" "${cmd[@]}"
	[[ "$output" == *"need call chains"* ]]
	run -2 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f" --outfile="$T/f" "${cmd[@]}"
	[ ! -e "$T/f" ]
	run -1 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/no/such/dir/f" "$ROOT/build/tests/workloads/sleeper" 5000
	# refused before the command ran (it would sleep 5 s)
	[ "$SECONDS" -lt 5 ]
	[[ "$output" == *"$T/no/such/dir"* ]]
}

# Every chain starts at its sample's address.  A sample in the program
# (built with frame pointers) has its whole chain, but in the C runtime's
# code that libc calls at start and exit; one in the dynamic
# loader or libc (built without them), during start-up or in a system
# call, may be cut where their frame pointers lead nowhere.  (Whole is
# not exact: a sample in a prologue, before its frame is made, or in a
# PLT stub, which makes none, skips its caller, as every frame-pointer
# walk does; the first test counts the paths.)
@test "the sample file carries each chain: addresses, and names when resolved" {
	run -0 "$PFMON" --json "${SMPL[@]}" --call-graph=fp --resolve-addresses \
		--smpl-outfile="$T/s.json" "$CG/fp/cgmain" 3
	python3 -c '
import json, sys
n = mine = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "end" in d:
        assert d["end"] == n
        continue
    if "run" in d:
        continue
    n += 1
    assert d["chain"][0] == d["ip"], line
    # the code of the program, not that of the C runtime in it, which
    # libc (without frame pointers) calls at start and exit
    crt = ("_init", "_fini", "_start", "frame_dummy", "__do_global_dtors_aux",
           "register_tm_clones", "deregister_tm_clones")
    if d["module"].endswith("/fp/cgmain") and d["func"] not in crt:
        mine += 1
        assert d["chain_cut"] is False, line
assert mine > 0' "$T/s.json"
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --resolve-addresses --smpl-outfile="$T/s.txt" "$CG/fp/cgmain" 3
	grep -q ' chain 0x[0-9a-f]*,0x.* | chain: leaf <- b <- a <- main' "$T/s.txt"
	grep -q ' | chain: leaf <- inl <- d <- main' "$T/s.txt"
	# cut chains say so
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --call-graph-depth=2 --smpl-outfile="$T/c.txt" "$CG/fp/cgmain" 3
	grep -q ' chain 0x[0-9a-f]*,0x[0-9a-f]*,\[truncated\]$' "$T/c.txt"
}

# The kernel's frame-pointer walk does not stop at a frame that points at
# itself: it read return addresses of 0 to its depth limit, and the sample
# file carried 126 of them as a chain cut by the limit.
@test "frame pointers into a frame that points at itself: the chain ends at the first return address of 0, cut" {
	run -0 "$PFMON" --json -e cpu-clock --long-smpl-periods=1000000 --call-graph=fp \
		--resolve-addresses --smpl-outfile="$T/s.json" "$W/fploop" 200000000
	python3 -c '
import json, sys
spin = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "index" not in d:
        continue
    user = d["chain"][sum(1 for a in d["chain"] if int(a, 16) >= 1 << 63):]
    assert "0x0" not in user[1:], line
    if d["func"] == "spin":
        spin += 1
        assert d["chain"] == [d["ip"]] and d["chain_cut"] is True, line
assert spin > 0, "no sample in spin"' "$T/s.json"
}

@test "the SVG flame graph renders in headless Chromium with leaf's box and its samples" {
	out=$ROOT/build/tests/flamegraph
	rm -rf "$out"
	mkdir -p "$out"
	run -0 "$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f" --flamegraph="$out/cgmain.svg" "$CG/fp/cgmain" 10
	# leaf's box on the path through a and b: the samples of the stacks
	# that pass there, from the folded stacks of the same run
	n=$(awk '{ c = $NF; sub(/ [0-9]+$/, "") } $0 ~ /(^|;)main;a;b;leaf(;|$)/ { s += c } END { print s + 0 }' "$T/f")
	[ "$n" -gt 0 ]
	# a screenshot stays in $out (flamegraph.png) for a person to look at
	run -0 "$ROOT/tests/cli/flamegraph_render.py" "$out/cgmain.svg" leaf "$n" "$out"
	[ -s "$out/flamegraph.png" ]
}

@test "system-wide: each stack starts with its process's name" {
	"$CG/fp/cgmain" 40 &
	pid=$!
	run -0 "$PFMON" --system-wide --session-timeout=1 "${SMPL[@]}" --call-graph=fp --folded="$T/f"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	grep -q '^cgmain;.*;main;a;b;leaf [0-9]*$' "$T/f"
}

@test "pfmon -v: the kernel's symbols and libc's compressed debug file are read during the run" {
	run -0 --separate-stderr "$PFMON" -v "${SMPL[@]}" --call-graph=fp "$CG/fp/cgmain" 5
	# libc6-dbg ships libc's debug file compressed: it is inflated ahead
	grep -E "^pfmon: read ahead during the run: the kernel's symbols, [1-9][0-9]* debug files inflated \([0-9.]+ MB\), in [0-9.]+ ms$" <<<"$stderr"
	grep -E "^pfmon: resolved [0-9]+ samples in [0-9.]+ ms$" <<<"$stderr"
	# (test_debugcache: libc resolves through the copy as through its file)
	# user-only functions need neither: nothing is read ahead
	run -0 --separate-stderr "$PFMON" -v -e cpu-clock:u --long-smpl-periods=500000 \
		"$CG/fp/cgmain" 5
	! grep -q "read ahead" <<<"$stderr"
	grep -q "^pfmon: resolved" <<<"$stderr"
}

@test "samples taken while the command's exec completes name the program before it, not ??" {
	# until the exec returns, the registers are those of the program that
	# called execve (pfmon's child): read in its mappings, not the new ones
	# every 50 us of CPU: the exec still gets about ten samples.  Not at
	# the kernel's floor for cpu-clock, 10 us: on a loaded virtual
	# machine taking a sample there costs as much, and the task makes no
	# headway (/bin/true ran 8 minutes)
	run -0 "$PFMON" -e cpu-clock --long-smpl-periods=50000 --call-graph=fp --folded="$T/f" /bin/true
	run -0 awk '/;__x64_sys_execve;/ { n++; split($0, f, ";"); if (f[1] ~ /^\?\?/) bad++ }
		END { print n + 0, bad + 0 }' "$T/f"
	echo "$output"
	[ "${output% *}" -gt 0 ]
	[ "${output#* }" -eq 0 ]
	grep -q '^execve;entry_SYSCALL_64' "$T/f"
}

# A package upgrade during a long run renames a new copy of a library
# over the one the command has mapped.  pfmon holds each file from the
# moment its mapping is reported (lib/symbols/heldfiles.h), so the
# resolution after the run reads the file that was mapped: dl_walk, in
# the dlopen'ed libcgdl.so, keeps its name though garbage now sits at
# its path (read by path, its frames were "??").
@test "a library replaced on disk during the run still resolves: the mapped file is read, not the new one" {
	cp "$CG"/fp/cgmain "$CG"/fp/libcgshared.so "$CG"/fp/libcgdl.so "$T"/
	"$PFMON" "${SMPL[@]}" --call-graph=fp --folded="$T/f" "$T/cgmain" 100 \
		>"$T/out" 2>"$T/err" &
	local pid=$!
	# once the library is mapped (cgmain dlopens it first thing)
	for _ in $(seq 100); do
		grep -q libcgdl.so "/proc/$(pgrep -n -P "$pid" cgmain)/maps" 2>/dev/null && break
		sleep 0.05
	done
	head -c 20000 /dev/urandom >"$T/new.so"
	mv "$T/new.so" "$T/libcgdl.so"
	wait "$pid"
	# dl_walk's path is 2 parts of the work in 10: 20% of the samples
	awk '{ n += $NF } /;main;dl_walk;leaf / { d += $NF }
	     END { print d, n; exit !(n > 1000 && d * 10 >= n) }' "$T/f" ||
		fail "dl_walk lost its samples: $(cat "$T/f" "$T/err")"
	run -1 grep -F ';main;??' "$T/f"
	run -1 grep -F 'replaced' "$T/err"
}
