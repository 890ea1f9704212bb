#!/usr/bin/env bats
# As an unprivileged user: no loading onto other users' processes or
# onto anything but yourself and your stopped ptrace children, no
# system-wide contexts, no kernel-level counting, no configuration.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	pfm_no_aslr
}

teardown() {
	[ -z "${victim:-}" ] || kill "$victim" 2>/dev/null || true
	[ -z "${saved_paranoid:-}" ] || echo "$saved_paranoid" > /proc/sys/kernel/perf_event_paranoid
	echo 256 > /sys/module/perfmon/parameters/ctx_per_user_max
	echo 4294967295 > /sys/module/perfmon/parameters/thread_gid
	echo "$PFM_UNPRIV_UID" > /sys/module/perfmon/parameters/dev_gid
	echo 1024 > /sys/module/perfmon/parameters/events_per_user_max
	echo 16777216 > /sys/module/perfmon/parameters/smpl_buf_per_user_max
	echo 1024 > /sys/module/perfmon/parameters/sets_per_user_max
}

@test "unprivileged: cannot load onto another user's process" {
	sleep 300 &
	victim=$!
	run -0 as_user pfm_test load_pid "$victim"
	assert_output EPERM
	run -0 as_user pfm_test load_pid 1
	assert_output EPERM
}

@test "unprivileged: cannot load onto its own child unless it is ptrace-stopped" {
	run -0 as_user pfm_test load_child running
	assert_output EPERM
	run -0 as_user pfm_test load_child traced
	assert_output OK
}

# The access is checked again at every event created on a loaded
# context, under the target's exec lock, as perf checks it at every open.
@test "a context loaded onto a stopped child gets no new event once the child is let go" {
	run -0 as_user pfm_test pmcs_after_detach
	assert_output "EPERM EPERM"
	run -0 pfm_test pmcs_after_detach
	assert_output "EPERM EPERM"
}

@test "even root loads only onto itself or a stopped ptrace child" {
	sleep 300 &
	victim=$!
	run -0 pfm_test load_pid "$victim"
	assert_output EPERM
}

@test "unprivileged: no system-wide context" {
	run -0 as_user pfm_test create 2
	assert_output EPERM
	run -0 as_user pfm_test syswide
	assert_output EPERM
}

@test "unprivileged: kernel-level counting refused with EACCES" {
	run -0 as_user pfm_test pmc 0 0x8000030100000001
	assert_output "EACCES PERM"
	run -0 pfm_test pmc 0 0x8000030100000001
	assert_output OK
}

@test "unprivileged: PFM_SET_CONFIG is refused" {
	run -0 as_user pfm_test config set 8192
	assert_output EPERM
}

@test "unprivileged: can monitor itself" {
	run -0 as_user pfm_test self 300
	[ "$output" -ge 300 ]
}

# bats test_tags=breakpoint
@test "unprivileged: perfex counts its command at user level, breakpoints exactly" {
	run -0 as_user perfex --backend=module -x , -o /tmp/unpriv.csv \
		-e "mem:$PFM_COUNTED_FUNCTION:x" "$W/calls" 2500
	run -0 csv_rows /tmp/unpriv.csv name,value record=count unit=all
	assert_line --regexp '^mem:0x[0-9a-f]+:x,2500$'
	run -0 as_user perfex --backend=module -x , -o /tmp/unpriv.csv \
		-e page-faults "$W/touch_pages" 400
	run -0 csv_rows /tmp/unpriv.csv name,value record=count unit=all
	assert_line --regexp '^page-faults,[0-9]+$'
	n=$(csv_cell /tmp/unpriv.csv value record=count unit=all name=page-faults)
	[ "$n" -ge 400 ]
}

@test "contexts per user are limited by ctx_per_user_max" {
	echo 3 > /sys/module/perfmon/parameters/ctx_per_user_max
	run -0 as_user pfm_test open_many 10
	assert_output "EMFILE after 3"
	run -0 pfm_test open_many 10		# root is exempt
	assert_output "OK 10"
}

@test "thread_gid restricts who may create per-thread contexts" {
	echo 4242 > /sys/module/perfmon/parameters/thread_gid
	run -0 as_user pfm_test create 0
	assert_output EPERM
	echo 4294967295 > /sys/module/perfmon/parameters/thread_gid
	run -0 as_user pfm_test create 0
	assert_output OK
}

# The module's kernel counters skip perf_event_paranoid and the LSM hook,
# which 6.1 does not export to modules: /dev/perfmon opens for
# CAP_PERFMON and the group the administrator grants (dev_gid), no one
# else by default (4294967294).
@test "/dev/perfmon opens only for CAP_PERFMON and the group in dev_gid" {
	echo 4294967294 > /sys/module/perfmon/parameters/dev_gid
	run -0 as_user pfm_test open_many 1
	assert_output "EACCES after 0"
	run -0 pfm_test open_many 1
	assert_output "OK 1"
	echo 4242 > /sys/module/perfmon/parameters/dev_gid
	run -0 as_user pfm_test open_many 1
	assert_output "EACCES after 0"
	echo "$PFM_UNPRIV_UID" > /sys/module/perfmon/parameters/dev_gid
	run -0 as_user pfm_test open_many 1
	assert_output "OK 1"
	echo 4294967295 > /sys/module/perfmon/parameters/dev_gid
	run -0 as_user pfm_test open_many 1
	assert_output "OK 1"
}

# auto is the module only for whom it lets in: the others keep perf's
# counters (with perf_event_paranoid's leave), not an EACCES.
@test "--backend=auto: a user the module does not let in counts on perf; one it lets in, on the module" {
	saved_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 > /proc/sys/kernel/perf_event_paranoid
	echo 4294967294 > /sys/module/perfmon/parameters/dev_gid
	run -0 --separate-stderr as_user perfex -v -x , -e task-clock:u true
	[[ $stderr == *"backend perf"* ]]
	echo "$PFM_UNPRIV_UID" > /sys/module/perfmon/parameters/dev_gid
	run -0 --separate-stderr as_user perfex -v -x , -e task-clock:u true
	[[ $stderr == *"backend module"* ]]
}

@test "the events of a user's contexts are bounded by events_per_user_max" {
	echo 100 > /sys/module/perfmon/parameters/events_per_user_max
	run -0 as_user pfm_test load_events 100
	assert_output OK
	run -0 as_user pfm_test load_events 101
	assert_output EMFILE
	run -0 pfm_test load_events 101		# CAP_SYS_ADMIN is exempt
	assert_output OK
	echo 1024 > /sys/module/perfmon/parameters/events_per_user_max
	run -0 as_user pfm_test load_events 101
	assert_output OK
}

@test "a user's sampling buffers are bounded by smpl_buf_per_user_max" {
	echo 65536 > /sys/module/perfmon/parameters/smpl_buf_per_user_max
	run -0 as_user pfm_test smpl_create default 16 65536
	assert_output "OK 65536"
	run -0 as_user pfm_test smpl_create default 16 131072
	assert_output "ENOMEM 0"
	run -0 pfm_test smpl_create default 16 131072	# CAP_SYS_ADMIN is exempt
	assert_output "OK 131072"
}

# An event set is some 20 KiB of kernel memory, and each of a user's 256
# contexts could hold 64 of them (300 MiB) before sets were charged.
@test "a user's event sets are bounded by sets_per_user_max, and given back at delete and close" {
	echo 4 > /sys/module/perfmon/parameters/sets_per_user_max
	run -0 as_user pfm_test sets_create 5
	assert_output "ENOSPC@5 OK"
	# the last run's sets were given back when its context closed
	run -0 as_user pfm_test sets_create 4
	assert_output OK
	run -0 pfm_test sets_create 5		# CAP_SYS_ADMIN is exempt
	assert_output OK
}

# The group ids the administrator writes (dev_gid, thread_gid) are the
# initial user namespace's.  Any user can make a user namespace of its own
# and map its own group to any id there: read in the caller's namespace,
# dev_gid would then name the user's own group, and /dev/perfmon, whose
# counters skip perf_event_paranoid, would open for everyone.
@test "a user namespace mapping the user's own group to dev_gid or thread_gid passes neither" {
	[ ! -e /proc/sys/kernel/unprivileged_userns_clone ] ||
		echo 1 > /proc/sys/kernel/unprivileged_userns_clone
	# the namespace itself works: its group mapped to the one granted
	run -0 runas -n "$PFM_UNPRIV_UID" "$PFM_UNPRIV_UID" "$PFM_UNPRIV_UID" pfm_test open_many 1
	assert_output "OK 1"
	echo 4242 > /sys/module/perfmon/parameters/dev_gid
	run -0 runas -n 4242 "$PFM_UNPRIV_UID" "$PFM_UNPRIV_UID" pfm_test open_many 1
	assert_output "EACCES after 0"
	echo "$PFM_UNPRIV_UID" > /sys/module/perfmon/parameters/dev_gid
	echo 4242 > /sys/module/perfmon/parameters/thread_gid
	run -0 runas -n 4242 "$PFM_UNPRIV_UID" "$PFM_UNPRIV_UID" pfm_test create 0
	assert_output EPERM
}

# A context opened in a pid namespace names tasks by that namespace's
# pids, as perf does an event's: before the fix its messages and samples
# carried the initial namespace's pids, which mean nothing there (and
# tell a container the host's).
@test "messages and samples of a context opened in a pid namespace carry that namespace's pids" {
	run -0 pfm_test pidns
	assert_output "msg 1/1 smpl 1/1 self 1"
}
