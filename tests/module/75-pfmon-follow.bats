#!/usr/bin/env bats
# pfmon --backend=module following a command's threads and children, and
# attaching to a running task: the same counts as the perf backend.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

# Column COL (default value) of EVENT (default page-faults) for unit UNIT
# ("all", or a tid) in pfmon -x, output.
pfmon_csv() {
	awk -F, -v unit="$2" -v col="${3:-value}" -v ev="${4:-page-faults}" '
		$1 == "unit" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		($1 == unit || $3 == unit) && $6 == ev { print $idx[col] }' <<<"$1"
}

@test "pfmon --backend=module --follow-all counts every thread and child exactly" {
	local rows big all
	run --separate-stderr pfmon --backend=module --follow-all -x, -e page-faults "$W/family" 3 2000
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	rows=$(awk -F, '$1 == "thread"' <<<"$output" | wc -l)
	[ "$rows" -eq 7 ]	# the main thread, 3 threads, 3 children
	big=$(awk -F, '$1 == "thread" && $7 >= 2000 && $7 <= 2000 + 50' <<<"$output" | wc -l)
	[ "$big" -eq 6 ]
	all=$(pfmon_csv "$output" all)
	(( all >= 6 * 2000 && all <= 6 * 2000 + 6 * 50 + 150 ))
	run -0 --separate-stderr pfmon --backend=module --follow-all --aggregate-results -e page-faults "$W/family" 3 2000
	[[ $output == *"aggregate of 7 threads"* ]]
}

@test "pfmon --backend=module without --follow options counts the first thread only" {
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/family" 2 2000
	[ "$(awk -F, '$1 == "thread"' <<<"$output" | wc -l)" -eq 1 ]
	(( $(pfmon_csv "$output" all) < 2000 ))
}

@test "pfmon --backend=module --follow-exec counts the program a task executes" {
	run -0 --separate-stderr pfmon --backend=module --follow-exec -x, -e page-faults sh -c "exec $W/touch_pages 3000"
	(( $(pfmon_csv "$output" all) >= 3000 ))
}

@test "pfmon --backend=module --attach-task counts the attached interval, the task exits normally" {
	local pid v status=0
	"$W/spin" 1500 7 &
	pid=$!
	sleep 0.5
	run --separate-stderr pfmon --backend=module --attach-task "$pid" -x, -e task-clock
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 7 ]
	v=$(pfmon_csv "$output" all value task-clock)
	# spin runs 1.5 s of CPU time; pfmon attached some 0.5 s in
	(( v > 300000000 && v < 1400000000 ))
}

@test "pfmon --backend=module --attach-task detaches on SIGINT and the task runs on" {
	local pid mon status=0
	"$W/spin" 2500 5 &
	pid=$!
	sleep 0.3
	pfmon --backend=module --attach-task "$pid" -x, -e task-clock >"$BATS_TEST_TMPDIR/out" 2>&1 &
	mon=$!
	sleep 1
	kill -INT "$mon"
	wait "$mon"
	cat "$BATS_TEST_TMPDIR/out"
	kill -0 "$pid"	# still running after pfmon left
	wait "$pid" || status=$?
	[ "$status" -eq 5 ]
	grep -q '^all,.*,task-clock,' "$BATS_TEST_TMPDIR/out"
}
