#!/usr/bin/env bats
# Sampling cycles:u, on each backend and in each sampling format: one
# sample every PERIOD cycles, so exactly count / PERIOD samples, each
# recording PERIOD as its reset value.  qemu raises the cycle counter's
# overflow interrupt on time (an event counter's only at the next timer
# tick), so the guest samples cycles and lets the other counters count.
bats_require_minimum_version 1.5.0

N=2000000	# 10 million instructions

setup() {
	load helpers
	hw_setup
}

teardown() {
	hw_teardown
}

# check_file FILE N PERIOD: N samples in order, each with the last reset
# value 2^64 - PERIOD; prints the count and the bad lines
check_file() {
	local reset
	reset=$(printf '0x%x' $((-$3)))
	awk -v reset="$reset" '
		/^#/ { next }
		{ if ($1 != k++ || $7 != reset) bad++ }
		END { print k + 0, bad + 0 }' "$1"
}

@test "cycles:u sampled every PERIOD: count / PERIOD samples exactly, none lost, each recording PERIOD (both formats)" {
	local b p f samples count ref_cyc
	ref_cyc=$(ref cycles nops $N)
	for b in $PFM_HW_BACKENDS; do
		for f in default double-buffer; do
			for p in 100000 99991; do
				pfmon_csv "$b" -e cycles:u --smpl-module=$f --long-smpl-periods=$p \
					--smpl-outfile="$T/s" nops $N >"$T/out.csv"
				# the samples taken (record samples, raw) and the
				# count (record count, raw)
				samples=$(csv_cell "$T/out.csv" raw record=samples name=cycles:u)
				count=$(csv_cell "$T/out.csv" raw record=count unit=all name=cycles:u)
				echo "$b $f $p: $samples samples, count $count, reference $ref_cyc"
				[ "$samples" -gt 0 ]
				[ "$samples" = $((count / p)) ]
				[ "$(summary "$T/out.csv" samples)" = "$samples" ]
				[ "$(summary "$T/out.csv" lost)" = 0 ]
				run -0 check_file "$T/s" "$samples" $p
				assert_output "$samples 0"
				# the sampled count is the command's: the
				# reference's, and on the module what the context
				# counted from its start to the command's exec
				# (1359 in the guest)
				[ "$count" -ge $((ref_cyc - ref_cyc / 10000 - 100)) ]
				[ "$count" -le $((ref_cyc + 2000 + ref_cyc / 10000)) ]
			done
		done
	done
}

# An event counter whose overflow interrupt comes late (qemu's come at the
# next timer tick; a real PMU's when an interrupt is held off) has
# counted more periods by then than the one it interrupts for.  The
# module counts the whole periods from the PMD's value: the ones with no
# interrupt in time are lost_late, never a buffer's losses.  The reset at
# the interrupt carries what was counted past the last whole period into
# the next one: exactly count / PERIOD overflows.  (Without the carry, as
# before, each late interrupt dropped up to a period: fewer.)  In the
# guest most periods of instructions:u end with no interrupt (a timer
# tick is some 4 million instructions under -icount shift=0, a period
# 10,000).
@test "module: instructions:u sampled every PERIOD: late periods are lost_late, no buffer losses" {
	local b p=10000 samples count late o
	for b in $PFM_HW_BACKENDS; do
		[ "$b" = module ] || continue
		pfmon_csv module -e instructions:u --long-smpl-periods=$p \
			--smpl-outfile="$T/s" nops $N >"$T/out.csv"
		samples=$(csv_cell "$T/out.csv" raw record=samples name=instructions:u)
		count=$(csv_cell "$T/out.csv" raw record=count unit=all name=instructions:u)
		late=$(summary "$T/out.csv" lost_late)
		echo "$samples samples, $late late, count $count, overflows $(summary "$T/out.csv" overflows)"
		[ "$samples" -gt 0 ]
		o=$(summary "$T/out.csv" overflows)
		[ $((samples + late)) = "$o" ]
		[ "$o" = $((count / p)) ]
		[ "$(summary "$T/out.csv" lost)" = "$late" ]
		[ "$(summary "$T/out.csv" lost_ring)" = 0 ]
		[ "$(summary "$T/out.csv" lost_saturated)" = 0 ]
		[ "${PFM_HW_EXACT:-}" != 1 ] || [ "$late" -gt 0 ]
	done
}

# A period of a few cycles asks for an interrupt every few instructions:
# perf throttles the event (kernel.perf_event_max_sample_rate) and starts
# it again at the next tick.  On the module, a period set at an overflow
# is written into the counter from an irq_work, which must leave a
# throttled counter alone: arm64's driver only disables it, and starting
# it again made an interrupt storm that held the CPU (the guest's fuzz
# test hung there).  The command ends, and every overflow is a sample or
# counted lost.
@test "cycles:u sampled every 4 cycles: perf throttles it, the command ends, every overflow accounted for (both backends)" {
	local b o s l
	for b in $PFM_HW_BACKENDS; do
		pfmon_csv "$b" -e cycles:u --long-smpl-periods=4 --smpl-outfile="$T/s" \
			nops 200000 >"$T/out.csv"
		o=$(summary "$T/out.csv" overflows) s=$(summary "$T/out.csv" samples)
		l=$(summary "$T/out.csv" lost)
		echo "$b: overflows $o, samples $s, lost $l, throttled $(summary "$T/out.csv" throttled)"
		[ "$s" -gt 0 ]
		[ $((s + l)) = "$o" ]
	done
}
