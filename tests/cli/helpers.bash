# Shared set-up for the perfex CLI suite: load with `load helpers` first
# thing in setup().
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PERFEX=$ROOT/cmd/perfex
W=$ROOT/tests/workloads

# Page faults a workload takes beyond its own work: the dynamic loader,
# libc and the stack.  Measured on Debian 12 (x86_64) with
# `perfex -e page-faults tests/workloads/touch_pages 0`: 51 to 54 over 20
# runs (perf stat: 50 to 51).  The allowance doubles the measurement, so
# a test fails when perfex counts something that is not the workload, yet
# tolerates a libc or kernel that faults a little more at start-up.
STARTUP_FAULTS=100

# perfex -x, output: the value column of the event row named $2.
csv_value() {
	awk -F, -v name="$2" '$1 == "event" && $2 == name { print $3 }' <<<"$1"
}

# Does this machine count hardware events?  perf itself is the judge.
have_hw_pmu() {
	! perf stat -e instructions true 2>&1 | grep -q 'not supported'
}

# The value perf stat counts for one event over a command.
perf_stat_value() {
	local ev=$1
	shift
	perf stat -x, -e "$ev" "$@" 2>&1 >/dev/null | awk -F, 'NF > 2 { print $1; exit }'
}

# counted_function's address in the calls workload (built without PIE).
counted_function_addr() {
	nm "$W/calls" | awk '$3 == "counted_function" { print "0x" $1 }'
}
