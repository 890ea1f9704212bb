#!/usr/bin/env bats
# libpx (include/px_counters.h) on the perfmon module, where a program
# asks for it (PX_COUNTERS_BACKEND=module or ctl.backend): the thread's
# own page faults exactly, as on perf events; preserved sums; what the
# module cannot do refused by name (tests/module/px_self.c).
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

@test "libpx on the module: a thread's own page faults exactly, preserved across a control, as on perf events" {
	for backend in module perf; do
		run -0 env PX_COUNTERS_BACKEND=$backend px_self page-faults,task-clock 300
		echo "$backend: $output"
		assert_line --regexp '^count 300 [1-9][0-9]*$'
		assert_line --regexp '^preserved 600 [1-9][0-9]*$'
		assert_line 'value 600'
	done
}

@test "libpx on the module: children's sums and interrupt mode need perf events, and say so" {
	run -1 env PX_COUNTERS_BACKEND=module px_self page-faults 10 inherit
	assert_output --partial "children's sums (inherit) need the perf backend"
	run -1 env PX_COUNTERS_BACKEND=modul px_self page-faults 10
	assert_output --partial "backend 'modul'"
}
