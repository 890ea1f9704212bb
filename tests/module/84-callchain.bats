#!/usr/bin/env bats
# The callchain sampling format (perfmon_cc.ko, formats/callchain/kernel):
# the kernel and user call chains walked in the overflow handler, on
# cc_nest (main -> nest_a -> nest_b -> nest_leaf with frame pointers, one
# page fault per call of the leaf, every fault sampled), read back with
# px_cc_read() and resolved with lib/symbols by tests/module/cc_smpl.c:
# the chains of user-mode and kernel-mode faults, max_frames, the
# argument's refusals, garbage frame pointers, and the library's module
# sampler.  The suite's last test checks the guest's kernel log.
bats_require_minimum_version 1.5.0

CC_UUID=5732f060-78d7-4fea-9faa-84db11b0ff11

setup() {
	load helpers
	pfm_setup
	# one address layout for every run: two runs' totals, start-up
	# faults included, are compared, and they differed once with the
	# file run alone (the whole suite had turned ASLR off in 20-counting
	# before it)
	pfm_no_aslr
}

# field NAME: the value of NAME=VALUE in $output
field() {
	tr ' ' '\n' <<<"$output" | sed -n "s/^$1=//p"
}

# same_counts: samples = overflows, nothing lost
same_counts() {
	[ "$(field samples)" = "$(field ovfls)" ]
	[ "$(field lost)" = 0 ]
}

@test "the callchain format registers with its UUID and 24-byte argument" {
	run -0 pfm_test fmts 8
	assert_line "callchain $CC_UUID flags=0x0 arg=24"
	run -0 cat /sys/class/misc/perfmon/formats
	assert_line "callchain $CC_UUID"
}

# bats test_tags=x86
@test "the callchain format refuses every bad argument with EINVAL (too big a buffer: ENOMEM, too long an argument: E2BIG)" {
	run -0 cc_smpl args
	assert_line "ok OK 1048576"
	assert_line "kernel-only OK 1048576"
	assert_line "user-only OK 1048576"
	assert_line "frames-1 OK 1048576"
	assert_line "frames-512 OK 1048576"
	assert_line "buf-min OK 4096"
	for c in no-flags unknown-flag high-flag user-stack user-stack-only \
		 user-stack-no-bytes frames-0 frames-513 frames-65535 stack-bytes \
		 reserved1 reserved2 buf-small buf-odd buf-zero arg-short; do
		assert_line "$c EINVAL"
	done
	assert_line "buf-huge ENOMEM"
	assert_line "arg-long E2BIG"
}

# bats test_tags=x86
@test "faults in user mode: every chain in the leaf is nest_leaf, nest_b, nest_a, main" {
	run -0 cc_smpl run touch 50
	assert_output --regexp 'bad=0 leaf=50 chain=50 kernel=0 '
	assert_output --partial 'trunc=0 '
	same_counts
}

# bats test_tags=x86
@test "faults in the kernel: the kernel chain through read() first, then the user chain from the leaf" {
	run -0 cc_smpl run read 50 callchain 127 uk
	assert_output --regexp 'bad=0 leaf=50 chain=50 kernel=50 kfirst=50 kcall=50 trunc=0 '
	same_counts
}

# bats test_tags=x86
@test "context switches (the caller's registers, not an interrupt's): the scheduler's chain through nanosleep(), then the user chain" {
	run -0 cc_smpl run sleep 20 callchain 127 uk
	echo "$output"
	assert_output --partial 'bad=0 '
	leaf=$(field leaf)
	[ "$leaf" -ge 20 ]
	[ "$(field chain)" = "$leaf" ]
	[ "$(field kernel)" = "$leaf" ]
	[ "$(field kfirst)" = "$leaf" ]
	[ "$(field kcall)" -ge 20 ]
	same_counts
}

# bats test_tags=x86
@test "max_frames bounds the chain, kernel and user together, and sets TRUNCATED" {
	run -0 cc_smpl run touch 30 callchain 2
	assert_output --regexp 'bad=0 leaf=30 chain=30 kernel=0 kfirst=0 kcall=0 trunc=30 '
	assert_output --partial 'nuser=2 nframes=2 '
	same_counts
	run -0 cc_smpl run touch 30 callchain 1
	assert_output --regexp 'bad=0 leaf=30 chain=30 kernel=0 kfirst=0 kcall=0 trunc=30 '
	assert_output --partial 'nuser=1 nframes=1 '
	# the kernel part fills the chain: no user frame, so no leaf sample
	run -0 cc_smpl run read 30 callchain 3 uk
	assert_output --regexp 'bad=0 leaf=0 '
	[ "$(field kall)" -ge 30 ]
	[ "$(field kall)" = "$(field ktrunc)" ]
	same_counts
}

# bats test_tags=x86
@test "the callchain format records as many samples as the default format" {
	run -0 cc_smpl run touch 40 default
	assert_output --regexp 'bad=0 leaf=40 '
	same_counts
	dfl=$(field samples)
	run -0 cc_smpl run touch 40 callchain
	assert_output --regexp 'bad=0 leaf=40 chain=40 '
	same_counts
	[ "$(field samples)" = "$dfl" ]
}

# bats test_tags=x86
@test "garbage frame pointers cut the user chain (USER_CUT) where they go wrong, never a non-user frame; 0 ends it" {
	run -0 cc_smpl run fp-zero 20
	assert_output --regexp 'bad=0 leaf=20 .* trunc=0 cut=0 nuser=1 '
	same_counts
	for m in fp-kernel fp-odd fp-low fp-kret; do
		run -0 cc_smpl run "$m" 20
		assert_output --regexp 'bad=0 leaf=20 .* trunc=0 cut=20 nuser=1 '
		same_counts
	done
	for m in fp-self fp-unmapped; do
		run -0 cc_smpl run "$m" 20
		assert_output --regexp 'bad=0 leaf=20 .* trunc=0 cut=20 nuser=2 nframes=2 frame1=0x1234'
		same_counts
	done
}

# bats test_tags=x86
@test "an unprivileged user's context records the user chains" {
	run -0 as_user cc_smpl run touch 20
	assert_output --regexp 'bad=0 leaf=20 chain=20 kernel=0 '
	same_counts
}

# bats test_tags=x86
@test "the library's module sampler records call chains (--call-graph=fp)" {
	run -0 cc_smpl lib touch 60
	assert_output --regexp 'bad=0 leaf=60 chain=60 kernel=0 '
	[ "$(field samples)" = "$(field overflows)" ]
	assert_output --partial ' lost=0 dropped=0 '
	[ "$(field notifications)" -ge 3 ]
	run -0 cc_smpl lib touch 30 fp 2
	assert_output --regexp 'bad=0 leaf=30 chain=30 kernel=0 kfirst=0 kcall=0 trunc=30 '
}

# bats test_tags=x86
@test "the library's module sampler refuses --call-graph=dwarf: the perf backend's" {
	run -0 cc_smpl lib touch 5 dwarf
	assert_output --partial "open EOPNOTSUPP: --call-graph=dwarf needs the perf backend"
}
