#!/bin/bash
# Run every test suite: the C unit tests, the bats CLI suite and, when it
# exists, the module suite in a VM (scripts/vm-test.sh).  Each suite's TAP
# output is shown as it runs; the last line is the sum over all suites:
#   N passed, N failed[, N skipped]
# and the exit status is non-zero when anything failed.
set -u
cd "$(dirname "$0")/.." || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run_suite NAME CMD...: show its output, keep its standard output (the
# TAP) for the count, and count a failing exit with no "not ok" line as one
# failed test.  Standard error is progress for the reader, never counted.
run_suite() {
	local name=$1 out rc
	shift
	echo "# ---- $name: $*"
	out=$(mktemp)
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok - $name exited with status $rc and reported no failing test"
		echo "not ok - $name exited with status $rc" >>"$out"
	fi
	cat "$out" >>"$log"
	rm -f "$out"
}

for t in tests/unit/test_*; do
	case $t in *.c|*.h|*.o) continue ;; esac
	[ -x "$t" ] || continue
	run_suite "unit $(basename "$t")" "$t"
done

if command -v bats >/dev/null; then
	run_suite "cli" bats --formatter tap tests/cli
else
	echo "not ok - bats is not installed (scripts/install-deps.sh installs it)" | tee -a "$log"
fi

if [ -e scripts/vm-test.sh ]; then
	run_suite "module suite" bash scripts/vm-test.sh
fi

# "ok N ... # skip reason" is a skipped test, not a pass
skipped=$(grep -Eci '^ok\b.*#[[:space:]]*skip' "$log")
okays=$(grep -Ec '^ok\b' "$log")
failed=$(grep -Ec '^not ok\b' "$log")
passed=$((okays - skipped))

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
