#!/bin/bash
# In the bench guest (scripts/bench-module.sh): the slowdown of a fixed
# amount of CPU work from switching three event sets every 1, 10 and 100 ms,
# with pfmon on each backend (--backend=module: the kernel switches the
# sets; --backend=perf: pfmon rotates them on a timer), against perf stat
# counting the same events at once.  Medians of RUNS wall times (bash's
# EPOCHREALTIME: the guest has no hyperfine); figures, never pass/fail.
set -u
. /opt/pfm/env
W=$PFM_WORKLOADS
RUNS=${RUNS:-5}
WORK=("$W/loop" "${BENCH_LOOP:-20000000}")
EVENTS=(task-clock page-faults context-switches)
sets=()
for ev in "${EVENTS[@]}"; do sets+=(-e "$ev"); done

# wall seconds of one run of "$@"
wall() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || echo "failed: $*" >&2
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f\n", b - a }'
}

# median of RUNS wall times of "$@"
median_wall() {
	local i
	for ((i = 0; i < RUNS; i++)); do wall "$@"; done | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

row() {	# label seconds
	awk -v l="$1" -v s="$2" -v r="$ref" -v a="$alone" 'BEGIN {
		printf "  %-30s %9.2f ms  to perf stat %6.3f  to alone %6.3f\n", l, s * 1e3, s / r, s / a }'
}

echo "set switching: median wall time of '${WORK[*]##*/}' over $RUNS runs, ${#EVENTS[@]} sets"
"${WORK[@]}"	# warm the page cache and the emulator's code cache
ref=$(median_wall perf stat -o /dev/null -e "$(IFS=,; echo "${EVENTS[*]}")" "${WORK[@]}")
alone=$(median_wall "${WORK[@]}")
row "alone" "$alone"
row "perf stat (no switching)" "$ref"
for be in module perf; do
	for ms in 100 10 1; do
		row "pfmon --backend=$be ${ms} ms" \
		    "$(median_wall /opt/pfm/bin/pfmon --backend=$be --outfile /dev/null --switch-timeout=$ms "${sets[@]}" "${WORK[@]}")"
	done
done
echo "  (perf's own start-up in this emulated guest is most of perf stat's time)"
