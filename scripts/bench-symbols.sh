#!/bin/bash
# Benchmark of the symbol resolver (lib/symbols.c + lib/profile.c) against
# perf report, on the same perf.data of the same workload:
#   perf record -c PERIOD -e cpu-clock tests/workloads/symbols/build/symwork spin MS
# Our side is tests/workloads/symbols/symresolve fed with
#   perf script -F pid,ip --show-mmap-events
# (extracting that text is perf's work and is timed apart, not counted).
# Figures: wall time, samples per second and peak RSS (/usr/bin/time) for
#   perf report --stdio                      functions
#   symresolve -f                            functions, no DWARF (same work)
#   symresolve                               functions, with file:line and
#                                            inline chains resolved as well
#   perf report --stdio -s srcline / symresolve -l   source lines (small run)
# for a small run (PERIOD, default 100000 ns) and for one million samples
# (BIG_SAMPLES wanted at period 10000 ns; cpu-clock may deliver fewer,
# so the input is also cycled to exactly one million).  Prints figures and ratios; never fails
# on a figure.
set -u
cd "$(dirname "$0")/.." || exit 1

PERIOD=${PERIOD:-100000}
BIG_SAMPLES=${BIG_SAMPLES:-1000000}
BIG_PERIOD=${BIG_PERIOD:-10000}

scripts/build-symbols-workload.sh || exit 1
out=tests/workloads/symbols/build
drv=$out/symresolve
cc -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -o "$drv" \
	tests/workloads/symbols/symresolve.c lib/symbols.c lib/profile.c lib/error.c \
	-ldw -lelf -lpthread || exit 1
command -v perf >/dev/null || { echo "bench-symbols: perf is not installed"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-symbols: /usr/bin/time is not installed"; exit 1; }
unset DEBUGINFOD_URLS

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD... (stdin from $input): sets $secs and $kb
measure() {
	local name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" <"${input:-/dev/null}" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	read -r secs kb <"$tmp/time"
	# /usr/bin/time reports 0.00 below 10 ms
	[ "$secs" = "0.00" ] && secs=0.005
}

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

row() {	# label secs kb samples
	printf "  %-34s %8.3f s %12s samples/s %9s KB peak\n" "$1" "$2" "$(rate "$4" "$2")" "$3"
}

run() {	# label period spin-ms [srcline]
	local label=$1 period=$2 ms=$3 srcline=${4:-}
	local data=$tmp/$label.data txt=$tmp/$label.txt n
	local perf_s perf_kb f_s f_kb full_s full_kb

	echo "# $label: perf record -c $period -e cpu-clock symwork spin $ms"
	perf record -q -c "$period" -e cpu-clock -o "$data" "$out/symwork" spin "$ms" \
		>/dev/null 2>&1 || { echo "  perf record failed"; return; }
	input=/dev/null measure script perf script -i "$data" -F pid,ip --show-mmap-events
	cp "$tmp/script.out" "$txt"
	n=$(grep -vc PERF_RECORD "$txt")
	echo "  $n samples; perf script extraction (not counted): ${secs} s"

	input=/dev/null measure report perf report -i "$data" --stdio
	perf_s=$secs perf_kb=$kb
	row "perf report --stdio" "$perf_s" "$perf_kb" "$n"
	input=$txt measure func "$drv" -f
	f_s=$secs f_kb=$kb
	row "symresolve -f (functions)" "$f_s" "$f_kb" "$n"
	input=$txt measure full "$drv"
	full_s=$secs full_kb=$kb
	row "symresolve (+ lines, inlines)" "$full_s" "$full_kb" "$n"
	echo "  speed-up vs perf report: functions $(ratio "$perf_s" "$f_s")x," \
	     "with lines and inlines $(ratio "$perf_s" "$full_s")x (target 10x)"
	echo "  memory vs perf report: functions $(ratio "$perf_kb" "$f_kb")x less," \
	     "with lines and inlines $(ratio "$perf_kb" "$full_kb")x less"
	echo "  resolver alone: $(sed -n 's/.*resolve+count \([0-9.]* s ([0-9]* samples\/s)\).*/\1/p' "$tmp/full.err")"
	echo "  top of both profiles:"
	grep -E '^ +[0-9]' "$tmp/report.out" | head -4 | sed 's/^/    perf: /'
	grep -E '^ +[0-9]' "$tmp/full.out" | head -4 | sed 's/^/    ours: /'
	if [ -n "$srcline" ]; then
		input=/dev/null measure srcline timeout 300 perf report -i "$data" --stdio -s srcline
		perf_s=$secs perf_kb=$kb
		row "perf report --stdio -s srcline" "$perf_s" "$perf_kb" "$n"
		input=$txt measure lines "$drv" -l
		row "symresolve -l (source lines)" "$secs" "$kb" "$n"
		echo "  speed-up by source line: $(ratio "$perf_s" "$secs")x," \
		     "memory $(ratio "$perf_kb" "$kb")x less"
	fi
	# the same input cycled to one million samples: memory stays flat
	input=$txt measure cycle "$drv" -q -n 1000000
	row "symresolve, input cycled to 1M" "$secs" "$kb" 1000000
}

run small "$PERIOD" 400 srcline
big_ms=$(( BIG_SAMPLES * BIG_PERIOD / 1000000 / 4 ))
run large "$BIG_PERIOD" "$big_ms"
