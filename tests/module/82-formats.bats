#!/usr/bin/env bats
# Sampling formats as modules of their own that register with perfmon.ko
# (spec sections 3.5.1, 3.5.2): the registry's listing, choosing a format
# by name or UUID, module references that keep a format in use loaded,
# and a format that refuses event sets other than set 0.
bats_require_minimum_version 1.5.0

DFL_UUID=4d72bec0-0664-4143-82b4-d3fd27243c97
DBL_UUID=e6fb9edd-a20e-4b08-9670-8993147d0a5a
CC_UUID=5732f060-78d7-4fea-9faa-84db11b0ff11
NOSET_UUID=2f0cbd1e-8a53-4c57-b2e4-1d0b6f3a9c77

setup() {
	load helpers
	pfm_setup
}

teardown() {
	[ -z "${holder:-}" ] || kill -9 "$holder" 2>/dev/null || true
	wait 2>/dev/null || true
	grep -q '^perfmon_test_noset ' /proc/modules && rmmod perfmon_test_noset
	pfm_load_modules
}

@test "PFM_GETINFO_FMTS and sysfs list the default, double-buffer and callchain formats" {
	run -0 pfm_test fmts 8
	assert_line --index 0 "EINVAL 3"
	assert_line --index 1 "default $DFL_UUID flags=0x0 arg=16"
	assert_line --index 2 "double-buffer $DBL_UUID flags=0x0 arg=16"
	assert_line --index 3 "callchain $CC_UUID flags=0x0 arg=24"
	assert_line --index 4 "retflags 0x80000000"
	run -0 pfm_test fmts 2
	assert_line --index 0 "OK 2"
	run -0 pfm_test fmts 1 reserved
	assert_line --index 0 "EINVAL 0"
	assert_line --index 1 "retflags 0x40000000"
	run -0 cat /sys/class/misc/perfmon/formats
	assert_output "default $DFL_UUID
double-buffer $DBL_UUID
callchain $CC_UUID"
}

@test "a context names its format by UUID, by name, or both when they agree" {
	run -0 pfm_test smpl_uuid "$DFL_UUID"
	assert_output "OK 65536"
	run -0 pfm_test smpl_uuid "$DBL_UUID" double-buffer
	assert_output "OK 65536"
	run -0 pfm_test smpl_uuid "$DBL_UUID" default
	assert_output "EINVAL 0"
	# an unknown UUID: EINVAL, as for any bad argument of the creation
	run -0 pfm_test smpl_uuid 00112233-4455-6677-8899-aabbccddeeff
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create nosuchformat 16 65536
	assert_output "EINVAL 0"
}

@test "a format in use cannot be unloaded; once unused it can, and it is gone" {
	pfm_test smpl_hold double-buffer > "$BATS_TEST_TMPDIR/out" &
	holder=$!
	for _ in $(seq 100); do
		grep -q ready "$BATS_TEST_TMPDIR/out" && break
		sleep 0.1
	done
	run rmmod perfmon_dbl
	[ "$status" -ne 0 ]
	grep -q '^perfmon_dbl ' /proc/modules
	kill -9 "$holder"
	wait "$holder" || true
	holder=
	run -0 rmmod perfmon_dbl
	run -0 pfm_test fmts 8
	assert_line --index 0 "EINVAL 2"
	refute_line --partial double-buffer
	run -0 pfm_test smpl_create double-buffer 16 65536
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_uuid "$DBL_UUID"
	assert_output "EINVAL 0"
	run -0 insmod /opt/pfm/perfmon_dbl.ko
	run -0 pfm_test smpl_create double-buffer 16 65536
	assert_output "OK 65536"
}

@test "a NOSET format refuses event sets other than set 0" {
	run -0 insmod "$PFM_TEST_FORMAT"
	run -0 pfm_test fmts 8
	assert_line "test-noset $NOSET_UUID flags=0x1 arg=16"
	run -0 cat /sys/class/misc/perfmon/formats
	assert_line "test-noset $NOSET_UUID noset"
	run -0 pfm_test smpl_sets test-noset
	assert_output "set1 EINVAL set0 OK"
	run -0 pfm_test smpl_sets default
	assert_output "set1 OK set0 OK"
}

@test "a format whose name or UUID is registered already is refused" {
	run insmod "$PFM_TEST_FORMAT" clash=1
	[ "$status" -ne 0 ]
	! grep -q '^perfmon_test_noset ' /proc/modules
	run -0 pfm_test fmts 8
	assert_line --index 0 "EINVAL 3"
	assert_line --index 1 "default $DFL_UUID flags=0x0 arg=16"
}

@test "pfmon --smpl-module-info lists the formats the kernel has loaded" {
	run -0 pfmon --smpl-module-info
	assert_line "loaded in the kernel (perfmon.ko, --backend=module): 3 formats"
	assert_line "  default          $DFL_UUID"
	assert_line "  double-buffer    $DBL_UUID"
	assert_line "  callchain        $CC_UUID"
	run -0 insmod "$PFM_TEST_FORMAT"
	run -0 pfmon --smpl-module-info
	assert_line "  test-noset       $NOSET_UUID  set 0 only"
}
