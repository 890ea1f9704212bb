#!/usr/bin/env bats
# Lifecycle: the monitored process exits mid-run, the controlling
# process is killed, many create/close cycles, module unload with open
# contexts.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

teardown() {
	[ -z "${holder:-}" ] || kill -9 "$holder" 2>/dev/null || true
	[ -z "${child:-}" ] || kill -9 "$child" 2>/dev/null || true
	pfm_load_modules
}

# start_holder: a process holding a loaded, started context on its
# sleeping child; sets holder and child.
start_holder() {
	local out=$BATS_TEST_TMPDIR/holder
	pfm_test hold > "$out" &
	holder=$!
	for _ in $(seq 100); do
		grep -q ready "$out" 2>/dev/null && break
		sleep 0.1
	done
	child=$(awk '/ready/ {print $2}' "$out")
	[ -n "$child" ]
}

@test "the monitored process exits mid-run: counts readable, END message, unloaded" {
	run -0 pfm_test exit_midrun 1000
	echo "$output"
	read -r faults msg start <<<"$output"
	[ "$faults" -ge 1000 ]
	[ "$msg" = END ]
	[ "$start" = EBUSY ]
}

@test "a read(2) blocked on the context wakes up with END when the target ends" {
	run -0 pfm_test end_wake 200
	assert_output "END counted"
}

@test "the controlling process is killed: its context is reclaimed" {
	base=$(contexts)
	start_holder
	[ "$(contexts)" -eq $((base + 1)) ]
	kill -9 "$holder"
	wait "$holder" || true
	holder=
	for _ in $(seq 50); do
		[ "$(contexts)" -eq "$base" ] && break
		sleep 0.1
	done
	[ "$(contexts)" -eq "$base" ]
	kill -0 "$child"	# the monitored task goes on
}

# total active slab objects, and the perfmon_context cache's
slab_objs() {
	awk 'NR > 2 { total += $2 } $1 == "perfmon_context" { ctx = $2 }
	     END { print total, ctx + 0 }' /proc/slabinfo
}

@test "10,000 create/close cycles leave slab use where it started" {
	pfm_test churn 100 >/dev/null		# warm the caches
	echo 3 > /proc/sys/vm/drop_caches
	read -r total0 ctx0 < <(slab_objs)
	base=$(contexts)
	run -0 pfm_test churn 10000
	echo 3 > /proc/sys/vm/drop_caches
	read -r total1 ctx1 < <(slab_objs)
	echo "slab objects $total0 -> $total1, perfmon_context $ctx0 -> $ctx1"
	[ "$(contexts)" -eq "$base" ]
	[ "$ctx1" -le "$ctx0" ]
	[ $((total1 - total0)) -lt 1000 ]
}

@test "rmmod is refused while a context is open, and works after" {
	start_holder
	run rmmod perfmon
	[ "$status" -ne 0 ]
	[ -e /dev/perfmon ]
	grep -q '^perfmon ' /proc/modules
	kill -9 "$holder"
	wait "$holder" || true
	holder=
	# the formats use perfmon.ko: they go first
	run rmmod perfmon
	[ "$status" -ne 0 ]
	run -0 rmmod perfmon_cc perfmon_dbl perfmon_dfl
	run -0 rmmod perfmon
	[ ! -e /dev/perfmon ]
	run -0 insmod "$PFM_MODULE"
	[ -c /dev/perfmon ]
	pfm_load_modules
	run -0 count module page-faults "$W/touch_pages" 10
}

# A set switch is a task work queued on the target; one still queued when
# its context is closed must keep the module's code until it has run, and
# must not hold a module reference it drops itself (its last call would
# return into freed code): rmmod waits for it.
@test "rmmod waits for a task work still queued on a target, which holds no module reference" {
	run -0 rmmod perfmon_cc perfmon_dbl perfmon_dfl
	run -0 pfm_test tw_pending
	assert_output "refs 0 rmmod waits rmmod 0 target 0"
	[ ! -e /dev/perfmon ]
	pfm_load_modules
	run -0 count module page-faults "$W/touch_pages" 10
}

# A command copies its argument before it takes the context's lock and
# writes it back after: a copy that waits on a fault (userfaultfd here,
# FUSE or NFS elsewhere) must not hold the target, whose set switches take
# that lock in its task work; before the fix the target waited on it,
# uninterruptibly, for as long as the fault lasted (target exited 0).
@test "a command whose argument waits on a page fault does not hold the target" {
	run -0 pfm_test uffd_copy
	assert_output "target exited 1 read OK"
}
