#!/usr/bin/env bats
# Sampling with event sets: one context with the default format and two
# sets, each sampling a breakpoint on a function of its own, so that
# every count is exact.  A set switched after N overflows records exactly
# N samples per activation (the target switches before it runs on), each
# sample carries the set whose PMD overflowed and is decoded by it, and
# a switch held back by a full buffer happens at the restart, before the
# blocked target runs again.  Then the library's module backend (a
# sampling group of both sets: open, read, activations, set_runs) on the
# same measurement.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

# 1000 calls of counted() and counted2() in turn, set 0 switched after 3
# samples of counted(), set 1 after 2 of counted2(): 250 runs of each,
# 750 + 500 samples (set 0's 251st activation begins after the last call)
# bats test_tags=breakpoint
@test "a set switched after 3 overflows records exactly 3 samples per activation, each with its set" {
	run -0 pfm_test smpl_switch 3 ovfl:2 1000
	assert_output "end 1 samples 1250 bad 0 runs 250 250 runs_bad 0 body_bad 0 notes 0 lost 0 ovfls 1250 seq exact setruns exact switch_pmds 1"
}

# bats test_tags=breakpoint
@test "other trigger counts: 1 and 1, 5 and 3" {
	run -0 pfm_test smpl_switch 1 ovfl:1 600
	assert_output --regexp '^end 1 samples ([0-9]+) bad 0 runs [0-9]+ [0-9]+ runs_bad 0 body_bad 0 notes 0 lost 0 ovfls \1 seq exact setruns exact switch_pmds 1$'
	run -0 pfm_test smpl_switch 5 ovfl:3 800
	assert_output --regexp '^end 1 samples ([0-9]+) bad 0 runs [0-9]+ [0-9]+ runs_bad 0 body_bad 0 notes 0 lost 0 ovfls \1 seq exact setruns exact switch_pmds 1$'
}

# a buffer of 7 of set 0's samples: the one that fills it masks, the
# child waits; when it is also the trigger's last, the switch waits for
# the restart, which makes it before the child runs again
# bats test_tags=breakpoint
@test "with notifications and a blocked target: exact runs across every full buffer, nothing lost" {
	run -0 pfm_test smpl_switch 3 ovfl:2 1000 7 notify
	echo "$output"
	assert_output --regexp '^end 1 samples 1250 bad 0 runs 250 250 runs_bad 0 body_bad 0 notes [1-9][0-9]+ lost 0 ovfls 1250 seq exact setruns exact switch_pmds 1$'
	run -0 pfm_test smpl_switch 3 ovfl:2 1000 3 notify
	echo "$output"
	assert_output --regexp '^end 1 samples 1250 bad 0 runs 250 250 runs_bad 0 body_bad 0 notes [1-9][0-9]+ lost 0 ovfls 1250 seq exact setruns exact switch_pmds 1$'
}

# set 1 switches on 1 ms of the child's CPU time: its runs have any
# length, set 0's are exactly 3 (or several of 3 when a run of set 1
# recorded nothing)
# bats test_tags=breakpoint
@test "a trigger set alternating with a set switched on a timeout" {
	run -0 pfm_test smpl_switch 3 time:1 3000
	echo "$output"
	assert_output --regexp '^end 1 samples ([0-9]+) bad 0 runs [0-9]+ ([2-9]|[1-9][0-9]+) runs_bad 0 body_bad 0 notes 0 lost 0 ovfls \1 switch_pmds 1$'
}

# bats test_tags=breakpoint
@test "the library's module backend: a sampling group's sets, read, activations and set_runs" {
	run -0 smpl_ops 1000 16
	assert_output "samples 1250 bad 0 runs 250 250 runs_bad 0 seq exact stats whole notes some evcount exact count exact enabled both read kernel's acts kernel's setruns exact"
	run -0 smpl_ops 1000 2000
	assert_output "samples 1250 bad 0 runs 250 250 runs_bad 0 seq exact stats whole notes none evcount exact count exact enabled both read kernel's acts kernel's setruns exact"
}
