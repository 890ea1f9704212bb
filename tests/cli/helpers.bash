# Shared set-up for the perfex CLI suite: load with `load helpers` first
# thing in setup().
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PERFEX=$ROOT/build/bin/perfex
: "${PFMON:=$ROOT/build/bin/pfmon}"
W=$ROOT/build/tests/workloads

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

# pfmon -x, output: the value of sampling summary row $2 of output $1.
summary() {
	awk -F, -v k="$2" '$1 == "summary" && $2 == k { print $3 }' <<<"$1"
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

# interval_coverage ALONE KIND VALUE_COL CI_COL ROWS: pfmon -x, output on
# standard input; its rows whose first field is KIND and whose CI_COL (a
# 95% interval in % of the VALUE_COL estimate) is known.  Prints how many
# hold ALONE, the figure measured without multiplexing, within their
# interval, and succeeds when there are ROWS of them and 9 in 10 hold it.
interval_coverage() {
	awk -F, -v a="$1" -v kind="$2" -v vc="$3" -v cc="$4" -v rows="$5" '
		$1 == kind && $cc != "" {
			d = $vc - a; if (d < 0) d = -d
			n++; inside += d <= $vc * $cc / 100; w += $cc }
		END {
			printf "alone %d: inside %d of %d, mean +- %.2f%%\n", a, inside, n, n ? w / n : 0
			exit !(n == rows && inside * 10 >= n * 9) }'
}

# counted_function's address in the calls workload (built without PIE).
counted_function_addr() {
	nm "$W/calls" | awk '$3 == "counted_function" { print "0x" $1 }'
}

# The per-test time limit.  tests/run-all.sh sets BATS_TEST_TIMEOUT
# (seconds) and bats fails a test that runs longer as "not ok N name #
# timeout after Ns", then goes on.  Bats before 1.13 (Debian 12 has 1.8.2)
# ends only the test's own children when that time comes (bats-core issue
# 1020): a test hung in `run CMD` or `$(CMD)`, where CMD is a grandchild,
# stays hung.  So a watchdog started here acts for bats a little earlier:
# it raises bats' time-out in the test (SIGABRT, the signal bats' trap
# waits for) and ends every process under the test, so the hung command
# returns and bats reports the test as timed out.
px_under() { # PID SKIP: the processes under PID, except SKIP and its own
	ps -e -o pid= -o ppid= | awk -v root="$1" -v skip="$2" '
		{ parent[$1] = $2 }
		END {
			for (p in parent) {
				q = p
				while (q != root && q != skip && q > 1 && (q in parent))
					q = parent[q]
				if (q == root && p != root)
					print p
			}
		}'
}

px_watchdog() { # PID LIMIT
	local pid=$1 limit=$2 me=$BASHPID stat start now pids
	((limit > 0)) || limit=1
	stat=$(</proc/"$pid"/stat) || return
	start=$(awk '{ print $20 }' <<<"${stat##*) }")
	while ((limit-- > 0)); do
		sleep 1
		# gone, or its number taken by another process since: done
		stat=$(</proc/"$pid"/stat) 2>/dev/null || return
		now=$(awk '{ print $20 }' <<<"${stat##*) }")
		[[ $now == "$start" ]] || return
	done
	kill -ABRT "$pid" || return
	mapfile -t pids < <(px_under "$pid" "$me")
	((${#pids[@]})) || return
	kill -TERM "${pids[@]}"
	sleep 2
	mapfile -t pids < <(px_under "$pid" "$me")
	((${#pids[@]} == 0)) || kill -KILL "${pids[@]}"
}

# Act 3 s before bats' own limit (counted from the test's start, before
# setup()): once bats has ended the test's children, theirs are no longer
# under the test (init adopts them) and could not be found.
if [[ -n ${BATS_TEST_TIMEOUT:-} && ${BATS_VERSION:-0} =~ ^1\.([0-9]|1[0-2])\. ]]; then
	(
		# hold none of bats' files open (its output, fd 3), so that
		# bats never waits for the watchdog
		for fd in "/proc/$BASHPID/fd/"*; do
			fd=${fd##*/}
			((fd > 2)) && eval "exec $fd>&-"
		done
		px_watchdog "$$" $((BATS_TEST_TIMEOUT - SECONDS - 3))
	) </dev/null >/dev/null 2>&1 &
fi

# Waiting for events instead of durations: tests/lib/procs.bash, shared
# with the module suite.
source "$BATS_TEST_DIRNAME/../lib/procs.bash"
