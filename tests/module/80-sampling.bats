#!/usr/bin/env bats
# Sampling formats in the module: creation with a format and its
# argument, the read-only mapping, and recording on a breakpoint whose
# calls are counted exactly, so every count here is exact: the default
# format with notification (the child blocked until each restart) and
# saturation, the double-buffer format, randomised resets.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
}

# adds_up N: pfm_test smpl_bp's $output says N overflows (ovfls), each a
# sample read or counted lost: lost while masked or without room (lost),
# or recorded and overwritten by the double buffer's cycling (cyclelost).
# "adds_up -N": at most N overflows (a restart discards the part of a
# period counted while masked).
adds_up() {
	local f samples lost ovfls cyclelost=0
	read -ra f <<<"$output"
	for ((i = 0; i + 1 < ${#f[@]}; i += 2)); do
		case ${f[i]} in
		samples) samples=${f[i + 1]} ;;
		lost) lost=${f[i + 1]} ;;
		ovfls) ovfls=${f[i + 1]} ;;
		cyclelost) cyclelost=${f[i + 1]} ;;
		esac
	done
	echo "overflows $ovfls: samples $samples + lost $lost + overwritten $cyclelost"
	if [ "$1" -lt 0 ]; then
		[ "$ovfls" -le $((-$1)) ] && [ "$ovfls" -gt 0 ]
	else
		[ "$ovfls" -eq "$1" ]
	fi
	[ $((samples + lost + cyclelost)) -eq "$ovfls" ]
}

@test "create with a format: name, argument size, buffer size, flags, reserved fields" {
	run -0 pfm_test smpl_create default 16 65536
	assert_output "OK 65536"
	run -0 pfm_test smpl_create double-buffer 16 5000
	assert_output "OK 8192"
	run -0 pfm_test smpl_create default 16 592	# header + one 552-byte sample
	assert_output "OK 4096"
	run -0 pfm_test smpl_create default 16 584
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create double-buffer 16 1200	# 120 + 2 x 552 = 1224
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 16 65540	# not a multiple of 8
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create nosuch 16 65536
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create long 16 65536
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create - 16 65536
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 8 65536
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 24 65536
	assert_output "E2BIG 0"
	run -0 pfm_test smpl_create default 16 65536 4
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 16 65536 3	# NO_HDR with IIP_HDR
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 16 65536 1
	assert_output "OK 65536"
	run -0 pfm_test smpl_create default 16 65536 2
	assert_output "OK 65536"
	run -0 pfm_test smpl_create double-buffer 16 65536 2
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create double-buffer 16 65536 1
	assert_output "OK 65536"
	run -0 pfm_test smpl_create default 16 65536 0 1	# reserved1
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 16 65536 0 0 3	# NOTIFY_BLOCK + SYSTEM_WIDE
	assert_output "EINVAL 0"
	run -0 pfm_test smpl_create default 16 65536 0 0 1	# NOTIFY_BLOCK
	assert_output "OK 65536"
}

@test "buffers are bounded by smpl_buf_size_max, all of them together" {
	p=/sys/module/perfmon/parameters/smpl_buf_size_max
	[ "$(cat $p)" = 67108864 ]
	run -0 pfm_test smpl_create default 16 $((1 << 30))
	assert_output "ENOMEM 0"
	run -0 pfm_test smpl_create default 16 $((64 << 20))
	assert_output "OK 67108864"
	echo 16384 > $p
	run -0 pfm_test smpl_create default 16 16384
	assert_output "OK 16384"
	run -0 pfm_test smpl_create default 16 16392
	s=$output
	echo 67108864 > $p
	[ "$s" = "ENOMEM 0" ]
	[ "$(contexts)" -eq 0 ]
}

# bats test_tags=breakpoint
@test "mmap: read-only, shared, whole buffer at offset 0, zeroed; anything else refused" {
	run -0 pfm_test smpl_mmap ok
	assert_output "OK map 8192 count 0 offs 40 size 5000 version 0x10000 nonzero 0"
	for k in write exec mprotect_write; do
		run -0 pfm_test smpl_mmap $k
		assert_output EACCES
	done
	for k in private size small offset none nofmt; do
		run -0 pfm_test smpl_mmap $k
		assert_output EINVAL
	done
	run -0 pfm_test smpl_mmap new
	assert_output EBADF
}

# bats test_tags=breakpoint
@test "default format, notification: exactly N/P samples at the function, none lost" {
	run -0 pfm_test smpl_bp default 1000 1 100 notify
	assert_output "end 1 samples 1000 bad 0 notes 10 lost 0 ovfls 1000 overflows 10"
	run -0 pfm_test smpl_bp default 777 7 100 notify
	assert_output "end 1 samples 111 bad 0 notes 1 lost 0 ovfls 111 overflows 1"
	run -0 pfm_test smpl_bp default 3000 1000 100 notify
	assert_output "end 1 samples 3 bad 0 notes 0 lost 0 ovfls 3 overflows 0"
}

# bats test_tags=breakpoint
@test "default format: the body holds the sampled PMDs' values" {
	run -0 pfm_test smpl_bp default 500 5 30 notify 1
	assert_output "end 1 samples 100 bad 0 notes 3 lost 0 ovfls 100 overflows 3"
}

# bats test_tags=breakpoint
@test "default format, saturation: exactly the buffer's capacity, the rest counted lost" {
	run -0 pfm_test smpl_bp default 1000 1 100 saturate
	assert_output "end 1 samples 100 bad 0 notes 0 lost 900 ovfls 1000 overflows 1"
	run -0 pfm_test smpl_bp default 1000 3 50 saturate
	assert_output "end 1 samples 50 bad 0 notes 0 lost 283 ovfls 333 overflows 1"
}

# bats test_tags=breakpoint
@test "default format, notification without blocking: recorded plus lost is N/P" {
	run -0 pfm_test smpl_bp default 3000 1 100 noblock
	echo "$output"
	[[ "$output" =~ ^end\ 1\ samples\ [0-9]+\ bad\ 0\  ]]
	adds_up 3000
	run -0 pfm_test smpl_bp default 3000 3 100 noblock
	echo "$output"
	[[ "$output" =~ ^end\ 1\ samples\ [0-9]+\ bad\ 0\  ]]
	adds_up -1000
}

# The target runs on while the tool takes each full buffer and restarts:
# 200 restarts race with its calls (a restart that let calls through
# between its read of the count and the unmask once left the PMD past
# its reset value, not armed to wrap: the rest of the calls vanished).
# bats test_tags=breakpoint
@test "at one sample per call without blocking, every call is a sample or counted lost" {
	for fmt in default double-buffer; do
		run -0 pfm_test smpl_bp $fmt 20000 1 100 noblock
		echo "$fmt: $output"
		[[ "$output" =~ ^end\ 1\ samples\ [0-9]+\ bad\ 0\  ]]
		adds_up 20000
	done
}

# bats test_tags=breakpoint
@test "double-buffer: halves handed over while recording goes on; recorded plus overwritten is N/P" {
	run -0 pfm_test smpl_bp double-buffer 3000 1 500 notify
	echo "$output"
	[[ "$output" =~ ^end\ 1\ samples\ [0-9]+\ bad\ 0\ notes\ ([0-9]+)\ lost\ 0\  ]]
	[ "${BASH_REMATCH[1]}" -ge 1 ]
	adds_up 3000
}

# bats test_tags=breakpoint
@test "double-buffer without a tool: it cycles in its own half" {
	run -0 pfm_test smpl_bp double-buffer 1000 1 100 cycle
	assert_output "end 1 samples 100 bad 0 notes 0 lost 0 ovfls 1000 overflows 1 cycles 9 cyclelost 900"
}

# bats test_tags=breakpoint
@test "double-buffer MASK_WHEN_FULL: recorded plus lost while masked is N/P" {
	run -0 pfm_test smpl_bp double-buffer 3000 1 100 saturate
	echo "$output"
	[[ "$output" =~ ^end\ 1\ samples\ [0-9]+\ bad\ 0\ .*\ cycles\ 0\ cyclelost\ 0$ ]]
	adds_up 3000
}

# bats test_tags=breakpoint
@test "randomised resets in samples: the generator's series, each in [base, base+mask]" {
	run -0 pfm_test smpl_bp default 3000 100 10 notify 0 31 7
	echo "$output"
	assert_output --regexp '^end 1 samples [1-9][0-9]* bad 0 .* inrange 1 generator 1$'
	run -0 pfm_test smpl_bp double-buffer 3000 50 1000 notify 0 0x1f 12345
	echo "$output"
	assert_output --regexp '^end 1 samples [1-9][0-9]* bad 0 .* inrange 1 generator 1$'
}

@test "sampling contexts leave nothing behind" {
	[ "$(contexts)" -eq 0 ]
	run -0 pfm_test smpl_create default 16 65536
	[ "$(contexts)" -eq 0 ]
}
