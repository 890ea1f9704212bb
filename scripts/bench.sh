#!/bin/bash
# Benchmark figures (`make bench`): what perfex costs and how much it
# perturbs what it measures, against perf stat in the same run.  Prints
# figures and whether each target was met; it is not a pass/fail test.
#
# Each benchmark is a function bench_NAME; add new ones (pfmon's) below
# and to BENCHES.
set -eu
cd "$(dirname "$0")/.."

PERFEX=./build/bin/perfex
LOOP=build/tests/workloads/loop
RUNS=${BENCH_RUNS:-7}	# runs per side for the perturbation medians

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

need() {
	command -v "$1" >/dev/null || { echo "bench: $1 is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
}

# median of the numbers on standard input, one a line
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}


# perfex's own cost: wall time of `perfex -e task-clock true` against
# `perf stat -e task-clock true`, both measured by hyperfine in one run.
# On a 2-CPU VM without a PMU: perfex 8.4 ms, `true` alone 2.3; the rest
# is perfex's own exec, start-up and exit (2.4), the command forked, held
# and exec'd from that copy (1.9 more than hyperfine's posix_spawn of
# it), libpfm4's start-up (1.1), options, counters and report (0.5).
bench_overhead() {
	need hyperfine
	echo "== perfex overhead: wall time of counting 'true' (hyperfine)"
	hyperfine -N --warmup 20 --min-runs 200 --style basic \
		--export-json "$tmp/overhead.json" \
		-n perfex "$PERFEX -o /dev/null -e task-clock true" \
		-n "perf stat" "perf stat -o /dev/null -e task-clock true" \
		-n "true" "true" >"$tmp/overhead.txt" 2>&1 || {
		cat "$tmp/overhead.txt"
		return 1
	}
	python3 - "$tmp/overhead.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
px, ps, t = r["perfex"], r["perf stat"], r["true"]
ratio = px["mean"] / ps["mean"]
print(f"  perfex -e task-clock true      {px['mean']*1e3:8.3f} ms +- {px['stddev']*1e3:.3f} (median {px['median']*1e3:.3f})")
print(f"  perf stat -e task-clock true   {ps['mean']*1e3:8.3f} ms +- {ps['stddev']*1e3:.3f} (median {ps['median']*1e3:.3f})")
print(f"  true alone                     {t['mean']*1e3:8.3f} ms")
print(f"  ratio perfex / perf stat       {ratio:8.3f}   (target <= 0.15: {'met' if ratio <= 0.15 else 'not met'})")
PY
}

# Perturbation: the task-clock a fixed amount of CPU work takes under
# perfex against under perf stat, medians over RUNS runs each,
# interleaved.  (A workload that runs for a fixed CPU time would show no
# perturbation whatever the tool did.)
bench_perturbation() {
	need perf
	local n=200000000 i a b
	echo "== perturbation: task-clock of '$LOOP $n', $RUNS runs each (medians)"
	: >"$tmp/px"
	: >"$tmp/ps"
	for ((i = 0; i < RUNS; i++)); do
		$PERFEX -x, -e task-clock "$LOOP" $n 2>&1 >/dev/null |
			awk -F, '$1 == "schema" { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$(c["record"]) == "count" { print $(c["value"]) }' >>"$tmp/px"
		perf stat -x, -e task-clock "$LOOP" $n 2>&1 >/dev/null |
			awk -F, 'NF > 2 { print $1 * 1e6; exit }' >>"$tmp/ps"
	done
	a=$(median <"$tmp/px")
	b=$(median <"$tmp/ps")
	awk -v a="$a" -v b="$b" 'BEGIN {
		r = a / b; d = (r - 1) * 100
		printf "  under perfex     %12.3f ms task-clock\n", a / 1e6
		printf "  under perf stat  %12.3f ms task-clock\n", b / 1e6
		printf "  ratio            %12.4f   (%+.2f%%; target within 1%%: %s)\n",
			r, d, (d <= 1 && d >= -1) ? "met" : "not met"
	}'
}

BENCHES=(overhead perturbation)

for b in "${@:-${BENCHES[@]}}"; do
	"bench_$b"
	echo
done
