#!/bin/bash
# libpx's costs on this machine, figures only (not a test): a read of a
# counter with libpx against a bare read(2) of the same software event
# (the fallback path: goal within 10%), and a region marker's begin + end
# (tests/bench/libpx_cost.c).  The user-space read of a hardware counter
# needs a PMU: the arm64 guest's suite checks its counts
# (tests/hw/60-selfread.bats); its cost against read(2) is not measured
# here yet.
set -eu
cd "$(dirname "$0")/.."
make -s build/tests/bench/libpx_cost >/dev/null
echo "== libpx: ns a call, median of 5 rounds of 200000 (task-clock, read with read(2) here)"
out=$(build/tests/bench/libpx_cost task-clock 200000)
sed 's/^/  /' <<<"$out"
awk '$1 == "bare_read" { b = $2 } $1 == "px_read" { p = $2 }
	END { if (b > 0) printf "  ratio px_read / bare_read   %.3f   (goal <= 1.10: %s)\n", p / b, p / b <= 1.10 ? "met" : "not met" }' <<<"$out"
