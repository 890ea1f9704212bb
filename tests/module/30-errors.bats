#!/usr/bin/env bats
# Every command's error paths: wrong state, bad register numbers,
# non-zero reserved fields and padding, wrong sizes, vectors over the
# limit.  pfm_test prints the errno (and the failing element's
# PFM_REG_RETFL_* bits).
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

@test "commands before PFM_CREATE_CONTEXT: EBADF" {
	run -0 pfm_test before_create
	assert_output "EBADF EBADF EBADF EBADF"
}

@test "PFM_CREATE_CONTEXT: twice EBUSY, bad flags and reserved EINVAL" {
	run -0 pfm_test create_twice
	assert_output EBUSY
	run -0 pfm_test create 0x100
	assert_output EINVAL
	run -0 pfm_test create 0 1
	assert_output EINVAL
	run -0 pfm_test create 0 0 1
	assert_output EINVAL
	run -0 pfm_test create 0 0 0 1	# a format UUID without PFM_FL_SMPL_FMT
	assert_output EINVAL
	run -0 pfm_test create 3	# NOTIFY_BLOCK with SYSTEM_WIDE (Table 3.2)
	assert_output EINVAL
}

@test "PFM_CREATE_CONTEXT: notification blocking accepted; a format flag without a name or UUID EINVAL" {
	run -0 pfm_test create 1
	assert_output OK
	run -0 pfm_test create 4
	assert_output EINVAL
	run -0 pfm_test create 8
	assert_output OK
}

@test "start, stop, unload of an unloaded context: EBUSY" {
	run -0 pfm_test start_unloaded
	assert_output "EBUSY EBUSY EBUSY"
}

@test "PFM_LOAD_CONTEXT twice, or onto a thread that has a context: EBUSY" {
	run -0 pfm_test load_twice
	assert_output EBUSY
	run -0 pfm_test load_busy_thread
	assert_output EBUSY
}

@test "PFM_LOAD_CONTEXT: bad set, flags, reserved, CPU and pid fields" {
	run -0 pfm_test load_fields 0 1		# set 1 does not exist
	assert_output EINVAL
	run -0 pfm_test load_fields 0 0 0x10	# unknown flag
	assert_output EINVAL
	run -0 pfm_test load_fields 0 0 0 1	# reserved word
	assert_output EINVAL
	run -0 pfm_test load_fields 0 0 0 0 1	# a CPU for a per-thread context
	assert_output EINVAL
	run -0 pfm_test load_fields 2 0 0 0 9999	# no such CPU
	assert_output EINVAL
	run -0 pfm_test load_fields 2 0 0 0 0 1	# a pid for a system-wide context
	assert_output EINVAL
	run -0 pfm_test load_fields 2 0 1	# inherit on a CPU
	assert_output EINVAL
	run -0 pfm_test load_pid 999999
	assert_output ESRCH
}

@test "PFM_START: restart when not masked EBUSY; bad set, flags, reserved EINVAL" {
	run -0 pfm_test start_flags 2
	assert_output EBUSY
	run -0 pfm_test start_flags 1 1
	assert_output EINVAL
	run -0 pfm_test start_flags 0 1
	assert_output EINVAL
	run -0 pfm_test start_flags 4
	assert_output EINVAL
	run -0 pfm_test start_flags 0 0 1
	assert_output EINVAL
	run -0 pfm_test start_flags 1 0
	assert_output OK
}

@test "PFM_STOP and PFM_UNLOAD_CONTEXT: flags and reserved must be zero" {
	run -0 pfm_test stop_flags 1
	assert_output "EINVAL EINVAL"
	run -0 pfm_test stop_flags 0 1
	assert_output "EINVAL EINVAL"
	run -0 pfm_test stop_flags
	assert_output "OK OK"
}

@test "PFM_WRITE_PMCS: bad register numbers, set, values, flags, reserved" {
	run -0 pfm_test pmc 256
	assert_output "EINVAL NOTAVAIL"
	run -0 pfm_test pmc 65535
	assert_output "EINVAL NOTAVAIL"
	run -0 pfm_test pmc 0 0 1
	assert_output "EINVAL NOSET"
	run -0 pfm_test pmc 0 0x8000080000000000	# reserved bit 43
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0x8000010700000000	# no type 7
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0x8000010200000000	# tracepoints are not offered
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0x80000101000000ff	# no such software event
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0x8000010500000808	# breakpoint access 8
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0x8000010500000304	# breakpoint length 3
	assert_output "EINVAL BADVALUE"
	# an execute breakpoint of 8 bytes: arm64 steps over a hit only for
	# perf's own handler, so with the module's the task would hit it
	# again for ever (kernel/README.md): refused there
	run -0 pfm_test pmc 0 0x8000010500000804
	if [ "$(uname -m)" = aarch64 ]; then
		assert_output "EOPNOTSUPP NOTSUPP"
	else
		assert_output OK
	fi
	run -0 pfm_test pmc 0 0 0 2
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0 0 0 1
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmc 0 0 0 1	# NO_EMUL64
	assert_output "EOPNOTSUPP NOTSUPP"
	run -0 pfm_test pmc 0 0x8000010100000001
	assert_output OK
	run -0 pfm_test pmc 191 0x1234
	assert_output OK
}

@test "PFM_WRITE_PMDS: bad register, set, flags, reserved; sampling fields refused" {
	run -0 pfm_test pmd write none 64
	assert_output "EINVAL NOTAVAIL"
	run -0 pfm_test pmd write set
	assert_output "EINVAL NOSET"
	run -0 pfm_test pmd write badflags
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write act	# an output field: ignored
	assert_output OK
	run -0 pfm_test pmd write reserved1
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd write smpl_pmds
	assert_output "EOPNOTSUPP NOTSUPP"
	for f in flags short_reset random_seed; do
		run -0 pfm_test pmd write $f
		assert_output OK
	done
	run -0 pfm_test pmd write none 63
	assert_output OK
}

@test "PFM_READ_PMDS: bad register, set, flags, reserved" {
	run -0 pfm_test pmd read none 64
	assert_output "EINVAL NOTAVAIL"
	run -0 pfm_test pmd read set
	assert_output "EINVAL NOSET"
	run -0 pfm_test pmd read flags
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd read reserved1
	assert_output "EINVAL BADVALUE"
	run -0 pfm_test pmd read act
	assert_output OK
	run -0 pfm_test pmd read none 0
	assert_output OK
}

@test "vector arguments: sizes, element sizes, pointers, reserved" {
	for k in zero not_multiple elem_small elem_odd reserved; do
		run -0 pfm_test vec $k
		echo "$k: $output"
		assert_output EINVAL
	done
	run -0 pfm_test vec elem_big_nonzero
	assert_output E2BIG
	run -0 pfm_test vec elem_big_zero
	assert_output OK
	run -0 pfm_test vec bad_ptr
	assert_output EFAULT
	run -0 pfm_test vec kernel_ptr
	assert_output EFAULT
}

@test "vectors over the limit: E2BIG, following PFM_SET_CONFIG" {
	run -0 pfm_test vec too_big 1048576
	assert_output E2BIG
	run -0 pfm_test config set 4096
	assert_output OK
	run -0 pfm_test vec too_big 8192
	assert_output E2BIG
	run -0 pfm_test vec too_big 4096
	assert_output OK
	run -0 pfm_test config set 100
	assert_output EINVAL
	run -0 pfm_test config set 16384
	assert_output OK
}

@test "fixed-size arguments: short EINVAL, longer with non-zero tail E2BIG" {
	run -0 pfm_test ioctl small
	assert_output EINVAL
	run -0 pfm_test ioctl big_nonzero
	assert_output E2BIG
	run -0 pfm_test ioctl big_zero
	assert_output OK
	run -0 pfm_test ioctl bad_ptr
	assert_output EFAULT
}

@test "unknown commands ENOTTY; event sets need a context; an empty format vector EINVAL" {
	for k in unknown_nr wrong_magic wrong_dir; do
		run -0 pfm_test ioctl $k
		assert_output ENOTTY
	done
	run -0 pfm_test ioctl evtsets
	assert_output EBADF
	run -0 pfm_test ioctl fmts
	assert_output EINVAL
}

@test "read(2) of messages: partial size EINVAL, empty queue EAGAIN, poll idle" {
	run -0 pfm_test msg size
	assert_output EINVAL
	run -0 pfm_test msg empty
	assert_output EAGAIN
	run -0 pfm_test msg poll
	assert_output 0
}

# A generic event's perf config is 64 bits: on a hybrid CPU bits 32..63
# name the PMU (the E-core's).  PMC 192 + i holds them; only generic
# hardware and cache events take them.  (This guest has no hardware PMU,
# so a cycles event is refused as not supported either way; that the
# config reaches perf whole needs a hybrid CPU: untested here.)
@test "PMC 192 + i carries bits 32..63 of a generic event's config" {
	run -0 pfm_test pmc 192 8
	assert_output OK
	run -0 pfm_test pmc_ext3 8 0x8000010100000001		# task-clock
	assert_output "OK EINVAL BADVALUE"
	run -0 pfm_test pmc_ext3 0x100000000 0x8000010000000000	# cycles, 33 bits
	assert_output "OK EINVAL BADVALUE"
	run -0 pfm_test pmc_ext3 8 0x1234			# raw
	assert_output "OK EINVAL BADVALUE"
	run -0 pfm_test pmc_ext3 8 0x8000010000000000		# cycles of PMU 8
	assert_output "OK EOPNOTSUPP NOTSUPP"
	run -0 pfm_test pmc_ext3 0 0x8000010100000001		# task-clock alone
	assert_output "OK OK"
}
