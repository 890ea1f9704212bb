#!/bin/bash
# Benchmark of the symbol resolver (lib/symbols/symbols.c, symindex.c,
# lib/profile/profile.c) against perf report, on the same samples of the same
# program:
#   perf record -c PERIOD -e cpu-clock tests/workloads/symbols/build/symwork spin MS
# Our side is tests/workloads/symbols/symresolve, which resolves and counts
# each sample through the library as pfmon does with its sample records
# (px_symbols_resolve + px_profile_count).  Its input is the recording's
# mappings and samples, taken out with
#   perf script -F pid,ip --show-mmap-events
# and stored in a binary form (symresolve -w: 16 bytes a sample), read
# without parsing as perf report reads perf.data; neither step is timed,
# as perf record's is not.  The kernel's symbols come from a copy of
# /proc/kallsyms made right after recording, for both tools: perf record
# puts one in its build-id cache (~/.debug) and perf report reads it;
# ours is given to symresolve with PX_KALLSYMS.
#
# Figures, all measured here, none fixed in this script:
#  1. Whole runs (hyperfine median wall time, /usr/bin/time peak RSS) of
#       perf report --stdio               functions
#       symresolve -f                     functions, no DWARF (the same work)
#       symresolve                        functions, and file:line and inline
#                                         chains resolved for every address
#     on a short recording and a big one (about a million samples: BIG_MS),
#     and samples resolved per second = samples / whole-run time, as a
#     ratio against perf report (the issue's target: 10x or more).
#     Then perf report -s srcline / symresolve -l (source lines) on a small
#     recording (LINES_PERIOD, default 100000 ns, 400 ms): perf runs
#     addr2line for that, which takes seconds per 10000 samples.
#  2. Samples resolved per second as a marginal rate, start-up left out
#     the same way for both tools: delta samples / delta seconds between
#     the short and the big recording; and ours in memory: the big input
#     fed N1 and N2 samples (-n, cycled), i.e. resolve+count alone.
#  3. Peak memory at one million samples (the big input cycled or cut to
#     exactly 1000000 with -n), and perf report's on the big recording.
#  4. The top entries of both profiles side by side: they must agree.
# Never fails on a figure.
#
# PERIOD (ns, default 10000), SHORT_MS (500) and BIG_MS (8000) choose the
# recordings; RUNS (5) the hyperfine runs; N1/N2 (1000000/21000000) the
# in-memory sample counts.
set -u
cd "$(dirname "$0")/.." || exit 1

PERIOD=${PERIOD:-10000}
SHORT_MS=${SHORT_MS:-500}
BIG_MS=${BIG_MS:-8000}
RUNS=${RUNS:-5}
N1=${N1:-1000000}
N2=${N2:-21000000}
LINES_PERIOD=${LINES_PERIOD:-100000}

scripts/build-symbols-workload.sh || exit 1
out=tests/workloads/symbols/build
drv=$out/symresolve
# the library as built (make all), not a list of its sources that drifts
make -s build/libpx.a || exit 1
cc -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib/symbols -Ilib/profile -Ilib/base -o "$drv" \
	tests/workloads/symbols/symresolve.c build/libpx.a -ldw -lelf -lpthread || exit 1
for t in perf hyperfine python3; do
	command -v $t >/dev/null || { echo "bench-symbols: $t is not installed"; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-symbols: /usr/bin/time is not installed"; exit 1; }
unset DEBUGINFOD_URLS

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# wall CMD: the median wall time of CMD (a shell command line) in seconds,
# from hyperfine (which subtracts the shell's own start-up)
wall() {
	hyperfine -w 1 -r "$RUNS" --style none --export-json "$tmp/h.json" "$1" \
		>/dev/null 2>&1 || { echo nan; return; }
	python3 -c 'import json,sys; print("%.6f" % json.load(open(sys.argv[1]))["results"][0]["median"])' \
		"$tmp/h.json"
}

# rss CMD: peak RSS in KB of one run of CMD; its stdout goes to $tmp/last.out
rss() {
	/usr/bin/time -f "%M" -o "$tmp/rss" bash -c "$1" >"$tmp/last.out" 2>/dev/null
	tail -1 "$tmp/rss"
}

f3() { awk -v a="$1" 'BEGIN { printf "%.3f", a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "n/a" }'; }
# marginal N1 T1 N2 T2: (N2 - N1) / (T2 - T1); a difference of less than
# 20 ms is within the noise of one run here and is flagged as such
marginal() {
	awk -v a="$1" -v s="$2" -v b="$3" -v t="$4" \
		'BEGIN { if (t > s) printf "%.0f", (b - a) / (t - s); else print "n/a" }'
}
delta() {
	awk -v s="$1" -v t="$2" 'BEGIN { d = t - s; printf "(%.3f s more%s)", d,
		d < 0.02 ? ": within the noise, not a figure to trust" : "" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f", a / b; else print "n/a" }'; }

row() {	# label secs kb samples
	printf "  %-36s %8s s %12s samples/s %9s KB peak\n" "$1" "$(f3 "$2")" "$(rate "$4" "$2")" "$3"
}

record() {	# name ms [period]
	local data=$tmp/$1.data period=${3:-$PERIOD}
	perf record -q -c "$period" -e cpu-clock -o "$data" "$out/symwork" spin "$2" \
		>/dev/null 2>&1 || { echo "bench-symbols: perf record failed"; exit 1; }
	cp /proc/kallsyms "$tmp/$1.kallsyms" 2>/dev/null || : >"$tmp/$1.kallsyms"
	local t0=$EPOCHREALTIME
	perf script -i "$data" -F pid,ip --show-mmap-events >"$tmp/$1.txt" 2>/dev/null
	"$drv" -w "$tmp/$1.bin" <"$tmp/$1.txt" || exit 1
	local t1=$EPOCHREALTIME
	grep -vc PERF_RECORD "$tmp/$1.txt" >"$tmp/$1.n"
	rm -f "$tmp/$1.txt"
	echo "# $1: perf record -c $period -e cpu-clock symwork spin $2:" \
	     "$(cat "$tmp/$1.n") samples; extraction and conversion (not counted):" \
	     "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
}

declare -A T KB
whole() {	# name: whole-run figures of the three tools on one recording
	local name=$1 n data=$tmp/$1.data ours
	ours="PX_KALLSYMS=$tmp/$1.kallsyms $drv"
	n=$(cat "$tmp/$name.n")
	T[perf,$name]=$(wall "perf report -i $data --stdio >/dev/null 2>&1")
	KB[perf,$name]=$(rss "perf report -i $data --stdio 2>/dev/null")
	cp "$tmp/last.out" "$tmp/$name.perf.out"
	row "perf report --stdio" "${T[perf,$name]}" "${KB[perf,$name]}" "$n"
	T[func,$name]=$(wall "$ours -f -q <$tmp/$name.bin 2>/dev/null")
	KB[func,$name]=$(rss "$ours -f <$tmp/$name.bin 2>/dev/null")
	cp "$tmp/last.out" "$tmp/$name.func.out"
	row "symresolve -f (functions)" "${T[func,$name]}" "${KB[func,$name]}" "$n"
	T[full,$name]=$(wall "$ours -q <$tmp/$name.bin 2>/dev/null")
	KB[full,$name]=$(rss "$ours -q <$tmp/$name.bin 2>/dev/null")
	row "symresolve (+ lines, inlines)" "${T[full,$name]}" "${KB[full,$name]}" "$n"
	echo "  samples resolved per second vs perf report (target 10x):" \
	     "functions $(ratio "${T[perf,$name]}" "${T[func,$name]}")x," \
	     "with lines and inlines $(ratio "${T[perf,$name]}" "${T[full,$name]}")x;" \
	     "peak memory $(ratio "${KB[perf,$name]}" "${KB[func,$name]}")x and" \
	     "$(ratio "${KB[perf,$name]}" "${KB[full,$name]}")x less"
}

record short "$SHORT_MS"
record big "$BIG_MS"
record lines 400 "$LINES_PERIOD"
ns=$(cat "$tmp/short.n") nb=$(cat "$tmp/big.n")

echo
echo "## 1. whole runs"
for r in short big; do
	echo "# $r ($(cat "$tmp/$r.n") samples)"
	whole "$r"
done
nli=$(cat "$tmp/lines.n")
echo "# source lines ($nli samples)"
t=$(RUNS=2 wall "perf report -i $tmp/lines.data --stdio -s srcline >/dev/null 2>&1")
kb=$(rss "perf report -i $tmp/lines.data --stdio -s srcline 2>/dev/null")
row "perf report --stdio -s srcline" "$t" "$kb" "$nli"
ours="PX_KALLSYMS=$tmp/lines.kallsyms $drv"
t2=$(wall "$ours -l -q <$tmp/lines.bin 2>/dev/null")
kb2=$(rss "$ours -l -q <$tmp/lines.bin 2>/dev/null")
row "symresolve -l (source lines)" "$t2" "$kb2" "$nli"
echo "  by source line: $(ratio "$t" "$t2")x faster, peak memory $(ratio "$kb" "$kb2")x less"

echo
echo "## 2. samples resolved per second, marginal: delta samples / delta seconds"
ours="PX_KALLSYMS=$tmp/big.kallsyms $drv"
perf_m=$(marginal "$ns" "${T[perf,short]}" "$nb" "${T[perf,big]}")
func_m=$(marginal "$ns" "${T[func,short]}" "$nb" "${T[func,big]}")
full_m=$(marginal "$ns" "${T[full,short]}" "$nb" "${T[full,big]}")
tf1=$(wall "$ours -f -q -n $N1 <$tmp/big.bin 2>/dev/null")
tf2=$(wall "$ours -f -q -n $N2 <$tmp/big.bin 2>/dev/null")
tl1=$(wall "$ours -q -n $N1 <$tmp/big.bin 2>/dev/null")
tl2=$(wall "$ours -q -n $N2 <$tmp/big.bin 2>/dev/null")
funcmem_m=$(marginal "$N1" "$tf1" "$N2" "$tf2")
fullmem_m=$(marginal "$N1" "$tl1" "$N2" "$tl2")
printf "  %-52s %12s samples/s %s\n" \
	"perf report --stdio ($ns -> $nb samples)" "$perf_m" \
	"$(delta "${T[perf,short]}" "${T[perf,big]}")" \
	"symresolve -f ($ns -> $nb samples)" "$func_m" \
	"$(delta "${T[func,short]}" "${T[func,big]}")" \
	"symresolve, lines+inlines (same)" "$full_m" \
	"$(delta "${T[full,short]}" "${T[full,big]}")" \
	"symresolve -f, in memory (-n $N1 -> $N2)" "$funcmem_m" "$(delta "$tf1" "$tf2")" \
	"symresolve, lines+inlines, in memory (same)" "$fullmem_m" "$(delta "$tl1" "$tl2")"
echo "  ratio to perf report's marginal rate:"
echo "    functions:        $(ratio "$func_m" "$perf_m")x, $(ratio "$funcmem_m" "$perf_m")x in memory"
echo "    lines + inlines:  $(ratio "$full_m" "$perf_m")x, $(ratio "$fullmem_m" "$perf_m")x in memory"

echo
echo "## 3. peak memory at one million samples"
kb=$(rss "$ours -f -q -n 1000000 <$tmp/big.bin 2>/dev/null")
printf "  %-58s %9s KB\n" "symresolve -f, exactly 1000000 samples of the big input" "$kb"
kb=$(rss "$ours -q -n 1000000 <$tmp/big.bin 2>/dev/null")
printf "  %-58s %9s KB\n" "symresolve (lines+inlines), the same" "$kb"
printf "  %-58s %9s KB\n" "perf report --stdio, big recording ($nb samples)" "${KB[perf,big]}"

echo
echo "## 4. top of both profiles (big recording)"
paste -d'\n' \
	<(grep -E '^ +[0-9]' "$tmp/big.perf.out" | head -6 | sed 's/^ */    perf: /') \
	<(grep -E '^ +[0-9]' "$tmp/big.func.out" | head -6 | sed 's/^ */    ours: /')
