#!/bin/bash
# Sampling cost, figures only (not a test): for the default format, the
# double-buffer format and `perf record` on the same event and period,
#  - the workload's slowdown at 1k, 10k and 100k samples per second
#    (cpu-clock periods of 1 ms, 100 us, 10 us), as a ratio to the
#    unsampled run, and samples taken / lost;
#  - the highest rate held with zero loss (periods halved from 1 ms).
# Usage: scripts/bench-sampling.sh [ROUNDS]   (split workload rounds)
set -eu
cd "$(dirname "$0")/.."
make -s lib/libpx.a tests/workloads/split >/dev/null
cflags="-O2 -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -Iformats -Ikernel/uapi"
drv=$(mktemp /tmp/px-bench-XXXXXX)
tmp=$(mktemp -d)
trap 'rm -rf "$drv" "$tmp"' EXIT
cc $cflags -o "$drv" scripts/bench-sampling-driver.c lib/libpx.a \
	$(pkg-config --libs popt libdw libelf) -lpfm -lm -lpthread
rounds=${1:-1500}
wl="tests/workloads/split $rounds"
ev=cpu-clock

now() { date +%s%N; }
base_ns() {
	local best=0 t0 t1 d
	for _ in 1 2 3; do
		t0=$(now); $wl; t1=$(now); d=$((t1 - t0))
		if [ "$best" = 0 ] || [ "$d" -lt "$best" ]; then best=$d; fi
	done
	echo "$best"
}
# run_lib FORMAT PERIOD -> "samples lost elapsed_ns"
run_lib() { "$drv" "$1" "$ev" "$2" $wl; }
run_perf() {
	local t0 t1 lost samples
	t0=$(now)
	perf record -q -o "$tmp/p.data" -e "$ev" -c "$1" $wl >/dev/null 2>&1
	t1=$(now)
	samples=$(perf report -i "$tmp/p.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	lost=$(perf report -i "$tmp/p.data" --stats 2>/dev/null | awk '/LOST events:/ {print $3; exit}')
	echo "${samples:-0} ${lost:-0} $((t1 - t0))"
}

base=$(base_ns)
printf 'workload: %s, unsampled %.3f s; event %s\n\n' "$wl" "$(echo "$base / 1000000000" | bc -l)" "$ev"
printf '%-14s %-10s %10s %8s %10s\n' tool rate samples lost slowdown
for rate in 1000 10000 100000; do
	period=$((1000000000 / rate))
	for tool in default double-buffer perf; do
		if [ $tool = perf ]; then r=$(run_perf $period); else r=$(run_lib $tool $period); fi
		set -- $r
		printf '%-14s %-10s %10s %8s %10.3f\n' $tool "${rate}/s" "$1" "$2" \
			"$(echo "$3 / $base" | bc -l)"
	done
done

echo
echo "highest rate held with zero loss (period halved from 1 ms, down to 16 us: cpu-clock storms below that here):"
for tool in default double-buffer perf; do
	best=none period=1000000
	while [ $period -ge 15000 ]; do
		if [ $tool = perf ]; then r=$(run_perf $period); else r=$(run_lib $tool $period); fi
		set -- $r
		[ "$2" = 0 ] || break
		best="$((1000000000 / period))/s ($1 samples)"
		period=$((period / 2))
	done
	printf '%-14s %s\n' $tool "$best"
done
