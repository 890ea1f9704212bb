#!/usr/bin/env bats
# Thousands of random ioctls, reads and polls as root and as an
# unprivileged user; afterwards the module still counts exactly (the
# harness checks the guest's dmesg for oopses and warnings).
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	pfm_no_aslr
}

@test "fuzz as root: 6000 random calls" {
	run -0 pfm_fuzz 6000 0x1234567
	echo "$output"
	assert_output --regexp '^calls=6000 '
}

@test "fuzz as an unprivileged user: 6000 random calls" {
	run -0 as_user pfm_fuzz 6000 0x7654321
	echo "$output"
	assert_output --regexp '^calls=6000 '
}

# Sequences: the steps of a context's life in random order from two
# threads and a forked child sharing the contexts (pfm_fuzz.c).  The
# sizes keep the x86 guest's run of this file under a minute longer;
# make bench runs a million calls (scripts/bench-module-fuzz.sh).
@test "fuzz sequences as root: 30000 calls from two threads and a child" {
	start=$SECONDS
	run -0 pfm_fuzz -s 30000 0x2468ace
	echo "# sequences as root: $((SECONDS - start)) s: $output" >&3
	assert_output --regexp '^calls=30000 '
}

@test "fuzz sequences as an unprivileged user: 30000 calls" {
	start=$SECONDS
	run -0 as_user pfm_fuzz -s 30000 0x1357bdf
	echo "# sequences as the user: $((SECONDS - start)) s: $output" >&3
	assert_output --regexp '^calls=30000 '
}

# bats test_tags=breakpoint
@test "after fuzzing: no context left behind and counting still exact" {
	[ "$(contexts)" -eq 0 ]
	run -0 count module "mem:$PFM_COUNTED_FUNCTION:x" "$W/calls" 9999
	assert_output 9999
	run -0 count module page-faults "$W/touch_pages" 500
	m=$output
	run -0 count perf page-faults "$W/touch_pages" 500
	assert_output "$m"
}
