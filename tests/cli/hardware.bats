#!/usr/bin/env bats
# Hardware events: these need a PMU, which perf stat is asked about.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	have_hw_pmu || skip "no hardware PMU on this machine"
}

@test "cycles and instructions count a CPU-bound workload" {
	run -0 --separate-stderr "$PERFEX" -x, -e cycles,instructions "$W/spin" 100
	c=$(csv_value "$stderr" cycles)
	i=$(csv_value "$stderr" instructions)
	[ "$c" -gt 10000000 ]
	[ "$i" -gt 10000000 ]
}

@test "instructions agree with perf stat within 5%" {
	run -0 --separate-stderr "$PERFEX" -x, -e instructions:u "$W/calls" 1000000
	ours=$(csv_value "$stderr" instructions:u)
	theirs=$(perf_stat_value instructions:u "$W/calls" 1000000)
	d=$((ours - theirs))
	[ $((${d#-} * 20)) -le "$theirs" ]
}

@test "IPC and CPI are printed when cycles and instructions are counted" {
	run -0 --separate-stderr "$PERFEX" -e cycles,instructions "$W/spin" 50
	assert_regex "$stderr" "[0-9]+\.[0-9]{3}  IPC +# instructions per cycle"
	assert_regex "$stderr" "[0-9]+\.[0-9]{3}  CPI +# cycles per instruction"
}
