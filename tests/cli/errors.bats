#!/usr/bin/env bats
# Every error a user can meet: a clear message and a non-zero status.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "unknown event: named, with close matches, usage status" {
	run -2 --separate-stderr "$PERFEX" -e page-fualts true
	assert_equal "$output" ""
	assert_regex "$stderr" "unknown event 'page-fualts'"
	assert_regex "$stderr" "did you mean: .*PAGE-FAULTS"
	assert_regex "$stderr" "-l"
}

@test "unknown event in a list stops before the command runs" {
	run -2 --separate-stderr "$PERFEX" -e task-clock,taskclok touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "unknown event 'taskclok'; did you mean: .*TASK-CLOCK"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "unknown event with LIBPFM_FORCE_PMU: close matches from the model's and perf's names, the variable named" {
	run -2 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -e page-fualts true
	assert_regex "$stderr" "unknown event 'page-fualts'; did you mean: .*PAGE-FAULTS"
	assert_regex "$stderr" "LIBPFM_FORCE_PMU=skl is set"
	run -2 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -e INST_RETIRD true
	assert_regex "$stderr" "did you mean: .*INST_RETIRED"
	# a variable that names no table of libpfm4 still leaves perf's names
	run -2 --separate-stderr env LIBPFM_FORCE_PMU=no_such_pmu "$PERFEX" -e INST_RETIRED:ANY_P,task-clock true
	assert_regex "$stderr" "unknown event 'INST_RETIRED:ANY_P'.*LIBPFM_FORCE_PMU=no_such_pmu"
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=no_such_pmu "$PERFEX" -x, -e task-clock true
	assert_regex "$(csv_value "$stderr" task-clock)" "^[1-9][0-9]*$"
}

@test "empty event names in a list are refused" {
	for list in "" "," "page-faults," ",page-faults" "page-faults,,task-clock"; do
		run -2 --separate-stderr "$PERFEX" -e "$list" true
		assert_regex "$stderr" "empty event name"
	done
}

@test "bad breakpoints are refused with the syntax" {
	run -2 --separate-stderr "$PERFEX" -e mem:zz true
	assert_regex "$stderr" 'mem:ADDR\[/LEN\]\[:r\|w\|rw\|x\]'
	run -2 --separate-stderr "$PERFEX" -e mem:0x1000/3 true
	assert_regex "$stderr" "use 1, 2, 4 or 8"
	run -2 --separate-stderr "$PERFEX" -e mem:0x1000:q true
	assert_regex "$stderr" "use r, w, rw or x"
}

@test "an event this machine cannot count is <not supported>, never 0" {
	if have_hw_pmu; then
		# the same events must then really count
		run -0 --separate-stderr "$PERFEX" -x, -e cycles,page-faults true
		assert_regex "$(csv_value "$stderr" cycles)" "^[1-9][0-9]*$"
		return
	fi
	run -0 --separate-stderr "$PERFEX" -e cycles,page-faults true
	assert_regex "$stderr" "<not supported>  cycles"
	assert_regex "$stderr" "warning: 'cycles' cannot be counted on this machine"
	refute_regex "$stderr" "[[:space:]]0  cycles"
	run -0 --separate-stderr "$PERFEX" -x, -e cycles,page-faults true
	# no value, no runs, no spread
	assert_equal "$(csv_get "$stderr" value,raw,active_pct,status,ci95_pct,runs,stddev,min,max count name=cycles)" \
		",,,not-supported,,,,,"
	run -0 --separate-stderr "$PERFEX" --json -e cycles,page-faults true
	run -0 python3 -c 'import json,sys; e=json.loads(sys.argv[1].splitlines()[-1])["events"][0]; assert e["status"]=="not-supported" and e["value"] is None, e' "$stderr"
}

@test "when no event can be counted, perfex fails and does not run the command" {
	have_hw_pmu && skip "no event is unsupported on a machine with a hardware PMU"
	run -1 --separate-stderr "$PERFEX" -e cycles,instructions touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "none of the events can be counted on this machine \(cycles, instructions\)"
	assert_regex "$stderr" "software events such as task-clock"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "a forced PMU's events, where no hardware PMU counts them: not counted, the command not run" {
	have_hw_pmu && skip "this machine has a hardware PMU"
	run -1 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -e INST_RETIRED:ANY_P,cycles touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "none of the events can be counted on this machine \(INST_RETIRED:ANY_P, cycles\)"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -x, -e INST_RETIRED:ANY_P,page-faults true
	assert_equal "$(csv_get "$stderr" value,raw,active_pct,status count name=INST_RETIRED:ANY_P)" ",,,not-supported"
	assert_regex "$(csv_value "$stderr" page-faults)" "^[1-9][0-9]*$"
}

@test "unwritable -o fails before the command runs and leaves no file" {
	out=$BATS_TEST_TMPDIR/no/such/dir/out.txt
	run -1 --separate-stderr "$PERFEX" -o "$out" -e page-faults touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "cannot open '$out': No such file or directory"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	[ ! -e "$out" ]
	run -1 --separate-stderr "$PERFEX" -o /proc/perfex-out -e page-faults touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "cannot open '/proc/perfex-out'"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	run -1 --separate-stderr "$PERFEX" -o "$BATS_TEST_TMPDIR" -e page-faults touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "it is a directory"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "-o leaves no partial file when the command cannot run" {
	mkdir "$BATS_TEST_TMPDIR/d"
	run -127 --separate-stderr "$PERFEX" -o "$BATS_TEST_TMPDIR/d/out" -e page-faults no-such-command-xyz
	run -0 ls -A "$BATS_TEST_TMPDIR/d"
	assert_output ""
}

@test "-o keeps an old file whole when the command cannot run" {
	mkdir "$BATS_TEST_TMPDIR/d"
	echo old >"$BATS_TEST_TMPDIR/d/out"
	run -127 --separate-stderr "$PERFEX" -o "$BATS_TEST_TMPDIR/d/out" -e page-faults no-such-command-xyz
	assert_equal "$(cat "$BATS_TEST_TMPDIR/d/out")" old
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/d")" out
}

@test "no command: usage status and the synopsis" {
	run -2 --separate-stderr "$PERFEX"
	assert_regex "$stderr" "no command given"
	assert_regex "$stderr" "Try 'perfex --help'"
	run -2 --separate-stderr "$PERFEX" -e page-faults
	assert_regex "$stderr" "no command given"
}

@test "bad option: named, usage status" {
	run -2 --separate-stderr "$PERFEX" --no-such-option true
	assert_regex "$stderr" "--no-such-option: unknown option"
	assert_regex "$stderr" "Try 'perfex --help'"
	run -2 --separate-stderr "$PERFEX" -e
	assert_regex "$stderr" "missing argument"
}

@test "-r 0 and -r -1 are usage errors; -r x is not a number" {
	run -2 --separate-stderr "$PERFEX" -r 0 touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "--repeat must be between 1 and 1000000, not 0"
	run -2 --separate-stderr "$PERFEX" -r -1 touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "--repeat must be between 1 and 1000000, not negative"
	run -2 --separate-stderr "$PERFEX" -r x touch "$BATS_TEST_TMPDIR/ran"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "-x with an empty separator, and -x with --json, are usage errors" {
	run -2 --separate-stderr "$PERFEX" -x '' true
	assert_regex "$stderr" "field separator must not be empty"
	run -2 --separate-stderr "$PERFEX" -x , --json true
	assert_regex "$stderr" "choose one of -x and --json"
}

@test "--backend=module without /dev/perfmon says what to do" {
	[ -e /dev/perfmon ] && skip "/dev/perfmon exists: the module is loaded here"
	run -1 --separate-stderr "$PERFEX" --backend=module -e page-faults touch "$BATS_TEST_TMPDIR/ran"
	assert_regex "$stderr" "the perfmon kernel module is not loaded \(/dev/perfmon is missing\)"
	assert_regex "$stderr" "--backend=perf"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "an unknown backend is refused" {
	run --separate-stderr "$PERFEX" --backend=nope true
	[ "$status" -ne 0 ]
	assert_regex "$stderr" "nope"
}

@test "-l with a pattern that matches nothing fails" {
	run -1 --separate-stderr "$PERFEX" -l zzz-no-such-event
	assert_regex "$stderr" "no event matches 'zzz-no-such-event'"
}
