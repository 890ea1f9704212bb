#!/bin/bash
# Benchmark of pfmon-report (lib/merge): the issue's target is 1,000 rank
# files of 8 events merged in under a second.  The files are real perfex
# outputs, one run of perfex per rank with Open MPI's rank variables set
# (OMPI_COMM_WORLD_RANK / _SIZE / OMPI_MCA_ess_base_jobid), as mpirun
# would set them, in JSON and in CSV; writing them is not timed.  Then
# hyperfine's median wall time of pfmon-report over all of them, in text,
# and with --json output.  No other tool merges rank files (perf has none,
# likwid-mpirun prints each rank): the figure is set against the target.
# Never fails on a figure.
#
# RANKS (1000) and RUNS (10) may be set in the environment.
set -eu
cd "$(dirname "$0")/.."

RANKS=${RANKS:-1000}
RUNS=${RUNS:-10}
EVENTS=task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults,cpu-clock,perf::CGROUP-SWITCHES
PERFEX=$PWD/build/bin/perfex
REPORT=$PWD/build/bin/pfmon-report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== pfmon-report: $RANKS rank files of 8 events"
mkdir "$tmp/json" "$tmp/csv"
for ((r = 0; r < RANKS; r++)); do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$RANKS OMPI_MCA_ess_base_jobid=1 \
		"$PERFEX" -e "$EVENTS" --json -o "$tmp/json/c.%r.json" true
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$RANKS OMPI_MCA_ess_base_jobid=1 \
		"$PERFEX" -e "$EVENTS" -x, -o "$tmp/csv/c.%r.csv" true
done
"$REPORT" "$tmp"/json/*.json | head -3

# median seconds of a shell command line over RUNS runs
median() {
	hyperfine --runs "$RUNS" --warmup 1 --export-json "$tmp/h.json" "$1" >/dev/null 2>&1
	python3 -c 'import json, sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"
}

printf '%-44s %10s %14s\n' "merge" "median s" "vs the 1 s target"
for what in "json:" "json:--json" "csv:" "csv:-x,"; do
	dir=${what%%:*} opt=${what#*:}
	s=$(median "$REPORT $opt $tmp/$dir/*.$dir >/dev/null")
	printf '%-44s %10s %13.0fx\n' "$RANKS $dir files, ${opt:-text} output" "$s" \
		"$(python3 -c "print(1 / max($s, 1e-6))")"
done
