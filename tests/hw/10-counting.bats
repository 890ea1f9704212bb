#!/usr/bin/env bats
# Hardware events count, on each backend: instructions of a program whose
# instruction count is known (tests/hw/nops.S: 5 per turn of its loop plus
# a few to start and exit), against hw_ref, a plain perf_event_open
# counter enabled at the program's exec.
#
# pfmon attaches its counters to the command when it execs; perfex
# attaches them to its held child before the exec, armed to start there:
# the counts of both equal the reference (perfex's used to hold the
# child's own last instructions before the exec too: 653 in the arm64
# guest).
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	hw_setup
}

teardown() {
	hw_teardown
}

@test "the reference counts nops' instructions exactly as its code says" {
	local n
	for n in 0 7 1000 1000000; do
		run ref instructions nops "$n"
		[ "$status" -eq 0 ] || {
			echo "this machine's PMU does not count instructions: $output" >&2
			false
		}
		near "$output" "$(nops_count "$n")"
	done
}

@test "the reference's cycles: one per instruction under qemu -icount, else between 1/8 and 4 per instruction" {
	local n=1000000 ins
	ins=$(nops_count $n)
	run -0 ref cycles nops $n
	if [ "${PFM_HW_EXACT:-}" = 1 ]; then
		[ "$output" -eq "$ins" ]
	else
		[ "$output" -ge $((ins / 8)) ] && [ "$output" -le $((ins * 4)) ]
	fi
}

@test "pfmon instructions:u equals the reference, on each backend" {
	local b n want
	for b in $PFM_HW_BACKENDS; do
		for n in 0 1000 1000000; do
			want=$(ref instructions nops $n)
			run -0 pfmon_value "$b" instructions:u nops $n
			near "$output" "$want"
		done
	done
}

@test "perfex instructions:u equals the reference, from the command's exec, on each backend" {
	local b n want
	for b in $PFM_HW_BACKENDS; do
		for n in 0 1000 1000000; do
			want=$(ref instructions nops $n)
			run -0 perfex_value "$b" instructions:u nops $n
			near "$output" "$want"
		done
	done
}

@test "cycles:u counts as the reference on both front ends and backends" {
	local b want got n=1000000 pct=''
	[ "${PFM_HW_EXACT:-}" = 1 ] || pct=10
	for b in $PFM_HW_BACKENDS; do
		want=$(ref cycles nops $n)
		run -0 pfmon_value "$b" cycles:u nops $n
		near "$output" "$want" $pct
		got=$(perfex_value "$b" cycles:u nops $n)
		near "$got" "$want" $pct
	done
}

@test "libpfm4's names for this PMU count as the reference" {
	local b ins cyc pct=''
	hw_pmu_names
	echo "names: $PMU_INSTRUCTIONS $PMU_CYCLES"
	[ "${PFM_HW_EXACT:-}" = 1 ] || pct=10
	ins=$(ref instructions nops 1000000)
	cyc=$(ref cycles nops 1000000)
	for b in $PFM_HW_BACKENDS; do
		run -0 with_pmu pfmon_value "$b" "$PMU_INSTRUCTIONS:u" nops 1000000
		near "$output" "$ins"
		run -0 with_pmu pfmon_value "$b" "$PMU_CYCLES:u" nops 1000000
		near "$output" "$cyc" $pct
		run -0 with_pmu perfex_value "$b" "$PMU_INSTRUCTIONS:u" nops 1000000
		near "$output" "$ins"
	done
}

@test "raw codes (rHEX and 0xHEX) count as the events they encode" {
	local b ins cyc pct='' raw_cyc
	[ "${PFM_HW_EXACT:-}" = 1 ] || pct=10
	raw_cyc=0x${RAW_CYCLES#r}
	ins=$(ref instructions nops 1000000)
	cyc=$(ref cycles nops 1000000)
	# the reference agrees: the raw codes are the generic events
	run -0 ref "$RAW_INSTRUCTIONS" nops 1000000
	near "$output" "$ins"
	for b in $PFM_HW_BACKENDS; do
		run -0 pfmon_value "$b" "$RAW_INSTRUCTIONS:u" nops 1000000
		near "$output" "$ins"
		run -0 pfmon_value "$b" "$raw_cyc:u" nops 1000000
		near "$output" "$cyc" $pct
		run -0 perfex_value "$b" "$RAW_INSTRUCTIONS:u" nops 1000000
		near "$output" "$ins"
		# without :u the kernel's part of the run counts too (the rest
		# of the exec, the faults, the exit): thousands more
		run -0 perfex_value "$b" "$RAW_INSTRUCTIONS" nops 1000000
		[ "$output" -gt $((ins + 1000)) ]
	done
}

# The module's inherited counters on a hardware event: perf enables and
# disables a kernel counter's event alone, never the copies in the tasks
# its target creates, so the module refuses what they would ignore (a
# stop while a child's copy counts, a start that a child created while
# stopped would miss, event sets on an inheriting context;
# kernel/README.md).  Only the module has kernel counters: the perf
# backend's inherited events follow perf's own enable and disable, so
# this is the module's test, run where the module is a backend (the
# guest; a host with perfmon.ko loaded).
@test "module: with inherited counters of instructions:u, a stop children would ignore, a start they would miss, two sets: EOPNOTSUPP" {
	local b
	for b in $PFM_HW_BACKENDS; do
		[ "$b" = module ] || continue
		run -0 pfm_test inherit_rules instructions
		assert_output "stop:EOPNOTSUPP:counting restop:OK start:EOPNOTSUPP:still sets:EOPNOTSUPP"
	done
}
