#!/usr/bin/env bats
# pfmon --backend=module following a command's threads and children, and
# attaching to a running task: the same counts as the perf backend.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	source "$BATS_TEST_DIRNAME/../lib/procs.bash"
}

teardown() {
	px_end_background
}

# Column COL (default value) of EVENT (default page-faults) for unit UNIT
# ("all", or a tid) in pfmon -x, output $1: its count row's.
pfmon_csv() {
	local unit=unit=all
	[ "$2" = all ] || unit=tid=$2
	csv_rows - "${3:-value}" record=count "$unit" name="${4:-page-faults}" <<<"$1"
}

# The values of the per-thread count rows (unit thread) in pfmon -x, output
# $1, one a line.
thread_values() {
	csv_rows - value record=count unit=thread <<<"$1"
}

@test "pfmon --backend=module --follow-all counts every thread and child exactly" {
	local rows big all
	run --separate-stderr pfmon --backend=module --follow-all -x, -e page-faults "$W/family" 3 2000
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	rows=$(thread_values "$output" | wc -l)
	[ "$rows" -eq 7 ]	# the main thread, 3 threads, 3 children
	big=$(thread_values "$output" | awk '$1 >= 2000 && $1 <= 2000 + 50' | wc -l)
	[ "$big" -eq 6 ]
	all=$(pfmon_csv "$output" all)
	(( all >= 6 * 2000 && all <= 6 * 2000 + 6 * 50 + 150 ))
	run -0 --separate-stderr pfmon --backend=module --follow-all --aggregate-results -e page-faults "$W/family" 3 2000
	[[ $output == *"aggregate of 7 threads"* ]]
}

@test "pfmon --backend=module without --follow options counts the first thread only" {
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/family" 2 2000
	[ "$(thread_values "$output" | wc -l)" -eq 1 ]
	(( $(pfmon_csv "$output" all) < 2000 ))
}

@test "pfmon --backend=module --follow-exec counts the program a task executes" {
	run -0 --separate-stderr pfmon --backend=module --follow-exec -x, -e page-faults sh -c "exec $W/touch_pages 3000"
	(( $(pfmon_csv "$output" all) >= 3000 ))
}

# The task waits while pfmon attaches, then burns 600 ms of CPU and ends
# with status 7: pfmon counts that interval and ends with it (waiting for
# what each process prints, not for durations: the arm64 guest's clock is
# its instruction count, and pfmon's start there takes seconds of it).
@test "pfmon --backend=module --attach-task counts the attached interval, the task exits normally" {
	local v st=0
	stages_start 7 400 w 600
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" --backend=module -x, -e task-clock
	stages_go
	wait "$MON"	# pfmon ends with the task
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 7 ]
	v=$(pfmon_csv "$(<"$BATS_TEST_TMPDIR/out")" all value task-clock)
	echo "attached task-clock $v"
	(( v >= 590000000 && v < 1000000000 ))
}

# pfmon attaches while the task waits; the task burns 300 ms, then spins
# until told to end, and pfmon gets SIGINT while it spins: pfmon reports
# and leaves, the task runs on untraced and ends with its own status.
@test "pfmon --backend=module --attach-task detaches on SIGINT and the task runs on" {
	local v st=0 state
	stages_start 5 w 300 s
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" --backend=module -x, -e task-clock
	stages_go
	stages_wait "spin 2"
	kill -INT "$MON"
	wait "$MON"
	state=$(px_state "$STAGES_PID")
	[[ $state == [RS] ]]	# still running after pfmon left, not stopped
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$STAGES_PID/status"
	stages_go
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 5 ]
	v=$(pfmon_csv "$(<"$BATS_TEST_TMPDIR/out")" all value task-clock)
	echo "task-clock until SIGINT $v"
	(( v >= 290000000 ))
	[ "$(csv_rows "$BATS_TEST_TMPDIR/out" name record=count unit=all name=task-clock)" = task-clock ]
}
