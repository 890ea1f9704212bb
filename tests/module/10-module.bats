#!/usr/bin/env bats
# The module loads, describes its PMU and answers the queries that need
# no context.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

@test "/dev/perfmon is a character device anyone may open" {
	[ -c /dev/perfmon ]
	run -0 stat -c %a /dev/perfmon
	assert_output 666
}

@test "sysfs describes the logical PMU" {
	run -0 cat /sys/class/misc/perfmon/version
	assert_output 1.0
	run -0 cat /sys/class/misc/perfmon/num_counters
	assert_output 64
	run -0 cat /sys/class/misc/perfmon/pmcs
	assert_line "PMC0 evtsel PMD0"
	assert_line "PMC64-127 ext1 PMD0-63"
	assert_line "PMC192-255 ext3 PMD0-63"
	run -0 cat /sys/class/misc/perfmon/pmds
	assert_line "PMD63 counter64 PMD63"
}

@test "PFM_GET_CONFIG gives the version, 64 64-bit counters and the limits" {
	run -0 pfm_test config
	assert_output --regexp '^OK version=1\.0 counters=64 width=64 arg_size_max=[0-9]+ pmds0=0xffffffffffffffff$'
}

@test "PFM_GETINFO_PMCS and PMDS describe registers and refuse unimplemented ones" {
	run -0 pfm_test getinfo pmc 0
	assert_output "OK type=3 flags=0x1 counter=0 index=0xffffffffffffffff"
	run -0 pfm_test getinfo pmc 130
	assert_output "OK type=3 flags=0x2 counter=2 index=0xffffffffffffffff"
	run -0 pfm_test getinfo pmd 63
	assert_output "OK type=3 flags=0x4 counter=63 index=0xffffffffffffffff"
	run -0 pfm_test getinfo pmc 193
	assert_output "OK type=3 flags=0x2 counter=1 index=0xffffffffffffffff"
	run -0 pfm_test getinfo pmc 256
	assert_output "EINVAL NOTAVAIL"
	run -0 pfm_test getinfo pmd 64
	assert_output "EINVAL NOTAVAIL"
}

@test "the module reports its interface in the kernel log" {
	run -0 dmesg
	assert_output --partial "perfmon: interface 1.0, 64 counters"
}
