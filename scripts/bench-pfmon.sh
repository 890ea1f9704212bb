#!/bin/bash
# pfmon's cost of switching event sets: wall time of a fixed-work workload
# under pfmon with three event sets switched every 1, 10 and 100 ms,
# against perf stat counting the same events (all at once, no switching),
# measured by hyperfine in one run.  Figures, not a pass/fail test.
set -eu
cd "$(dirname "$0")/.."

PFMON=./build/bin/pfmon
WORK="build/tests/workloads/loop ${BENCH_LOOP:-300000000}"
EVENTS=(task-clock page-faults context-switches)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v hyperfine >/dev/null || { echo "bench-pfmon: hyperfine is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }

sets=()
for ev in "${EVENTS[@]}"; do sets+=(-e "$ev"); done
perf_events=$(IFS=,; echo "${EVENTS[*]}")

echo "== pfmon set switching: wall time of '$WORK', ${#EVENTS[@]} sets (hyperfine)"
hyperfine -N --warmup 2 --min-runs 10 --style basic --export-json "$tmp/sw.json" \
	-n "perf stat" "perf stat -o /dev/null -e $perf_events $WORK" \
	-n "pfmon 100ms" "$PFMON --outfile /dev/null --switch-timeout=100 ${sets[*]} $WORK" \
	-n "pfmon 10ms" "$PFMON --outfile /dev/null --switch-timeout=10 ${sets[*]} $WORK" \
	-n "pfmon 1ms" "$PFMON --outfile /dev/null --switch-timeout=1 ${sets[*]} $WORK" \
	-n "alone" "$WORK" >"$tmp/sw.txt" 2>&1 || { cat "$tmp/sw.txt"; exit 1; }
python3 - "$tmp/sw.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["perf stat"]["median"]
for name in ("alone", "perf stat", "pfmon 100ms", "pfmon 10ms", "pfmon 1ms"):
    x = r[name]
    print(f"  {name:12s} median {x['median']*1e3:9.2f} ms  (mean {x['mean']*1e3:9.2f} +- {x['stddev']*1e3:.2f})"
          f"  ratio to perf stat {x['median']/base:6.3f}")
PY
