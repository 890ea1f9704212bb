#!/usr/bin/env bats
# Overflow processing: 64-bit overflow of the PMDs, short and long reset
# values, randomisation, notification messages, masking and restart.  A
# breakpoint on a function counts its calls exactly, so every count here
# is exact.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

# bats test_tags=breakpoint
@test "notify: exactly N/P overflow messages, each well formed, read with read(2)" {
	run -0 pfm_test ovfl_notify 1000 100
	assert_output "msgs 10 bad 0 pmd -100"
	run -0 pfm_test ovfl_notify 777 7
	assert_output "msgs 111 bad 0 pmd -7"
	run -0 pfm_test ovfl_notify 50 1
	assert_output "msgs 50 bad 0 pmd -1"
}

# bats test_tags=breakpoint
@test "a notification masks until restart; restart reloads the long reset value" {
	run -0 pfm_test ovfl_mask 10 1000
	assert_output "before EBUSY masked 1 ovfl 1 pmd0 0 faults frozen msgs O restart OK pmd0 -1000 then -997 masked 0 again EBUSY"
}

@test "restart in the wrong state: EBUSY" {
	run -0 pfm_test restart_state
	assert_output "unloaded EBUSY loaded EBUSY started EBUSY"
	run -0 pfm_test start_flags 3 1
	assert_output EINVAL
}

# bats test_tags=breakpoint
@test "64-bit emulation: a PMD near 2^64 overflows, reloads its short reset, keeps counting" {
	run -0 pfm_test ovfl_sim 1000 -100 0
	assert_output "pmd 900 last 0 ovfls 1 match"
	run -0 pfm_test ovfl_sim 1000 -100 5
	assert_output "pmd 905 last 5 ovfls 1 match"
	# short reset -P: a period of P after the first overflow
	run -0 pfm_test ovfl_sim 1010 -300 -70
	assert_output "pmd -60 last -70 ovfls 11 match"
}

# bats test_tags=breakpoint
@test "randomised short resets in the kernel follow the generator exactly" {
	run -0 pfm_test ovfl_sim 5000 -50 -50 15 42
	echo "$output"
	assert_output --regexp ' match$'
	run -0 pfm_test ovfl_sim 5000 -1000 -1000 0x7fffffff 123456
	echo "$output"
	assert_output --regexp ' match$'
}

# bats test_tags=breakpoint
@test "randomised long resets: same seed same series, every value in [base, base+mask]" {
	run -0 pfm_test ovfl_random 3000 100 31 7
	first=$output
	echo "$first"
	assert_line --regexp '^resets [1-9][0-9]* inrange 1 generator 1$'
	run -0 pfm_test ovfl_random 3000 100 31 7
	[ "$output" = "$first" ]
	run -0 pfm_test ovfl_random 3000 100 31 8
	[ "$output" != "$first" ]
	assert_line --regexp '^resets [1-9][0-9]* inrange 1 generator 1$'
}

# bats test_tags=breakpoint
@test "a full message queue drops the new message and counts the drop" {
	run -0 pfm_test ovfl_drop 12
	assert_output "queued 8 dropped 4 read 8"
	run -0 pfm_test ovfl_drop 5
	assert_output "queued 5 dropped 0 read 5"
}

# bats test_tags=breakpoint
@test "poll(2) and a blocked read(2) wake on an overflow of another process" {
	run -0 pfm_test ovfl_poll 5
	assert_output "POLLIN OVFL"
	run -0 pfm_test ovfl_poll 5 read
	assert_output "read OVFL"
}

@test "randomisation and sampling fields are checked when written" {
	run -0 pfm_test pmd write seed0
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write seed0 0 0x7fffffff
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write seed0 0 0x80000000
	assert_output OK
	run -0 pfm_test pmd write mask32
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write reset_hi
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write smpl_flag
	assert_output "EOPNOTSUPP NOTSUPP"
}

# The handler resets PMD1 on the faulting CPU while another thread
# replaces PMD1's event (PFM_WRITE_PMCS while loaded): the release and the
# creation publish the event and the value together with the handler's
# lock, so no reset is lost and no handler follows a pointer that is
# going (the dmesg check of the suite would show that).
@test "a counter replaced while loaded keeps every reset the overflow handler makes meanwhile" {
	run --separate-stderr pfm_test reattach 100
	echo "$stderr"
	[ "$status" -eq 0 ]
	assert_output "consistent 100 of 100"
}

# A close from another thread while the monitored thread faults: the
# unload's IPI does not wait for a software event's handler (it runs with
# interrupts on), so the context must outlive a grace period after its
# close; a handler that reached freed memory would leave a slub_debug or
# KFENCE report, which the suite's dmesg check fails on.
@test "closing a context while its overflow handler runs on another CPU frees nothing in use" {
	run --separate-stderr pfm_test close_race 2000
	echo "$stderr"
	[ "$status" -eq 0 ]
	assert_output "closes 2000"
	run -0 count module page-faults "$W/touch_pages" 10
}

# The block of PFM_FL_NOTIFY_BLOCK belongs to one load: a target whose
# overflow came while it slept in read(2) has the block's work queued
# still when the context moves on; before the fix the next target,
# seeing the work queued, was not blocked (b_early 1).
@test "a notify-block context reloaded on another target blocks the new one, not the old" {
	run -0 pfm_test block_reload
	assert_output "b_early 0 b 1 a 1"
}

# Inherited counts and the overflow path: a child that faults and exits
# adds its count to the event (perf's child_count), which the overflow
# path reads with the event's own: the child's faults are in PMD1's value
# frozen at the mask that the target's own overflow makes, and stay after
# the restart.  Before the fix the overflow path read the event's own
# count only, and a mask and restart dropped the children's counts.
@test "an inheriting context's overflows and masks count the children that exited" {
	run -0 pfm_test inherit_mask 5000
	assert_output "masked 1 final 1 pmcs EBUSY"
}
