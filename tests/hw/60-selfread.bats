#!/usr/bin/env bats
# libpx's reads of a program's own counters (include/px_counters.h):
# selfread counts instructions at user level over N turns of a loop of
# five instructions between two reads, in user space (the perf mmap page
# and the counter: kernel.perf_user_access=1 on arm64, rdpmc on x86-64)
# and, with PX_COUNTERS_READ=syscall, with read(2).  Each way gives the
# loop's count exactly plus a constant: the instructions of one read
# itself.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	hw_setup
	# arm64 grants user access to the counters only when asked
	if [ -e /proc/sys/kernel/perf_user_access ]; then
		OLD_USER_ACCESS=$(cat /proc/sys/kernel/perf_user_access)
		echo 1 > /proc/sys/kernel/perf_user_access
	fi
	hw_pmu_names
}

teardown() {
	[ -z "${OLD_USER_ACCESS:-}" ] || echo "$OLD_USER_ACCESS" > /proc/sys/kernel/perf_user_access
	hw_teardown
}

# selfread_delta N [ENV...]: the instructions between selfread's two reads
selfread_delta() {
	local n=$1
	shift
	run -0 with_pmu env "$@" selfread "$PMU_INSTRUCTIONS:u" "$n"
	DELTA=$(awk '$1 == "delta" { print $2 }' <<<"$output")
	VDELTA=$(awk '$1 == "value_delta" { print $2 }' <<<"$output")
	PATH_TAKEN=$(awk '$1 == "path" { print $2 }' <<<"$output")
}

@test "libpx reads a hardware counter in user space: the loop's count plus the read's own, as with read(2)" {
	local n base vbase user sys
	for how in user syscall; do
		if [ $how = user ]; then selfread_delta 0; else selfread_delta 0 PX_COUNTERS_READ=syscall; fi
		assert_equal "$PATH_TAKEN" $how
		base=$DELTA
		vbase=$VDELTA
		echo "$how: one read costs $base instructions at user level, $vbase for the count alone" >&3
		for n in 1000 100000; do
			if [ $how = user ]; then selfread_delta $n; else selfread_delta $n PX_COUNTERS_READ=syscall; fi
			near "$((DELTA - base))" $((5 * n))
			near "$((VDELTA - vbase))" $((5 * n))
		done
		[ $how = user ] && user=$base || sys=$base
	done
	# the user-space read runs its instructions at user level; read(2)
	# only the system call's wrapper there
	[ "$user" -gt 0 ] && [ "$sys" -gt 0 ]
}

# selfovf: counter 0 in interrupt mode every 100,000 events, over two
# loops of 500,000 instructions with a resume between.  Counter 0 counts
# cycles: qemu raises the cycle counter's overflow interrupt on time, an
# event counter's only at the next timer tick (40-sampling.bats); under
# -icount a cycle is an instruction.
@test "libpx interrupt mode: the signal names the counter, counting stops at the overflow, resume restarts it" {
	run -0 with_pmu selfovf "$PMU_CYCLES:u,$PMU_INSTRUCTIONS:u" 100000 100000
	echo "$output" >&3
	read -r _ sig1 mask1 cyc1 ins1 < <(grep '^first ' <<<"$output")
	read -r _ sig2 mask2 cyc2 ins2 < <(grep '^second ' <<<"$output")
	read -r _ code at_signal < <(grep '^signal ' <<<"$output")
	assert_equal "$sig1 $mask1" "1 1"
	assert_equal "$sig2 $mask2" "2 1"
	# the kernel stopped it at the overflow (its event limit): the
	# handler reads what the loop's end reads, the period give or take
	# the interrupt's skid, not the loop's 500,000
	assert_equal "$code" POLL_HUP
	assert_equal "$at_signal" "$cyc1"
	[ "$cyc1" -ge 100000 ] && [ "$cyc1" -lt 100100 ]
	[ "$cyc2" -ge 200000 ] && [ "$cyc2" -lt 200200 ]
	# the instructions stopped with it, the whole state being suspended
	[ "$ins1" -le "$cyc1" ] && [ "$ins2" -gt "$ins1" ] && [ "$ins2" -le "$cyc2" ]
}

# selfregion: a program linked with libpx's pkg-config flags (the shared
# library) marks region "loop" around N turns of the five-instruction
# loop, 10 calls; perfex --regions counts instructions at user level per
# call: 5 N plus the markers' own, the same every call
@test "a program linked with pkg-config --libs libpx counts its own region: 5 N instructions a call plus the markers' own" {
	local n row base=
	for n in 0 1000 100000; do
		run -0 with_pmu perfex --regions -x, -o "$BATS_TEST_TMPDIR/r.csv" \
			-e "$PMU_INSTRUCTIONS:u" selfregion $n 10
		row=$(awk -F, '$2 == "region" && $25 == "loop"' "$BATS_TEST_TMPDIR/r.csv")
		echo "N=$n: $row" >&3
		[ -n "$row" ] || { echo "$output"; cat "$BATS_TEST_TMPDIR/r.csv"; false; }
		# calls, min and max per call (fields 14, 16, 17)
		read -r calls min max < <(awk -F, '{ print $14, $16, $17 }' <<<"$row")
		assert_equal "$calls" 10
		near "$max" "$min"
		[ -n "$base" ] || base=$min
		near "$((min - base))" $((5 * n))
	done
	echo "the markers' own: $base instructions at user level a call" >&3
}
