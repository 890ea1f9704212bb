#!/usr/bin/env bats
# More hardware events than the PMU has counters (7 in the arm64 guest: 6
# event counters and the cycle counter; at most 8 + 3 fixed on x86): the
# kernel multiplexes them, perfex and pfmon print each count scaled with
# the share of the time it ran, and the estimate is within 3% of the count
# measured alone (the nop loop's rate is steady, so the estimate is good).
bats_require_minimum_version 1.5.0

N=40000000	# 200 million instructions: 50 switches of the kernel's 4 ms timer
EVENTS=16

setup() {
	load helpers
	hw_setup
	LIST=$(printf 'instructions:u,%.0s' $(seq $EVENTS))
	LIST=${LIST%,}
}

teardown() {
	hw_teardown
}

# check_scaled CSV WANT: every aggregate count row of instructions:u
# (record count, unit all) is scaled, ran part of the time, and is within
# 3% of WANT; prints how many rows it checked
check_scaled() {
	csv_rows "$1" value,active_pct,status record=count unit=all name=instructions:u |
		awk -F, -v want="$2" '
		{
			n++
			v = $1; p = $2; s = $3
			d = (v - want) / want
			if (d < 0) d = -d
			if (s != "scaled" || p <= 0 || p >= 100 || d > 0.03) {
				printf "row %d: %s %s %s%%: %.2f%% off %d\n", n, s, v, p, d * 100, want > "/dev/stderr"
				bad++
			}
		}
		END { print n + 0; exit bad > 0 }'
}

@test "perfex: $EVENTS instructions:u multiplexed, each scaled from its share of time, within 3% of the count alone" {
	local b want
	want=$(ref instructions nops $N)
	for b in $PFM_HW_BACKENDS; do
		perfex_csv "$b" -e "$LIST" nops $N >"$T/out.csv"
		run -0 check_scaled "$T/out.csv" "$want"
		[ "$output" = $EVENTS ]
	done
}

@test "pfmon: $EVENTS instructions:u in one set, multiplexed by the kernel, each scaled, within 3% of the count alone" {
	local b want
	want=$(ref instructions nops $N)
	for b in $PFM_HW_BACKENDS; do
		pfmon_csv "$b" -e "$LIST" nops $N >"$T/out.csv"
		run -0 check_scaled "$T/out.csv" "$want"
		[ "$output" = $EVENTS ]
	done
}
