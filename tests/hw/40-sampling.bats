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

# summary CSV KEY: a summary row's value
summary() {
	awk -F, -v k="$2" '$1 == "summary" && $2 == k { print $3 }' "$1"
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
	local b p f row samples count ref_cyc
	ref_cyc=$(ref cycles nops $N)
	for b in $PFM_HW_BACKENDS; do
		for f in default double-buffer; do
			for p in 100000 99991; do
				pfmon_csv "$b" -e cycles:u --smpl-module=$f --long-smpl-periods=$p \
					--smpl-outfile="$T/s" nops $N >"$T/out.csv"
				# samples,EVENT,SET,RAW,SCALED,ACTIVE_PCT,CI95_PCT,COUNT
				row=$(awk -F, '$1 == "samples" && $2 == "cycles:u" { print $4, $8 }' "$T/out.csv")
				samples=${row% *} count=${row#* }
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
