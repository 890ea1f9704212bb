#!/usr/bin/env bats
# pfmon event sets of hardware events, on each backend: switched on a
# timeout (the perf backend switches them from the tool, the module in
# the kernel), each set's estimate within 3% of the count measured alone;
# switched after N overflows of a sampling set, exactly N samples there.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	hw_setup
}

teardown() {
	hw_teardown
}

# col CSV UNIT SET EVENT COLUMN: a column of pfmon -x, 's count row
col() {
	csv_cell "$1" "$5" record=count unit="$2" set="$3" name="$4"
}

@test "three sets switched every 5 ms: each estimate within 3% of the count alone, the shares add up to 100%" {
	local b ins cyc n=20000000 pct=3
	ins=$(ref instructions nops $n)
	cyc=$(ref cycles nops $n)
	[ "${PFM_HW_EXACT:-}" = 1 ] || pct=10	# cycles on a real CPU vary from run to run
	for b in $PFM_HW_BACKENDS; do
		pfmon_csv "$b" --switch-timeout=5 -e instructions:u -e cycles:u \
			-e "$RAW_INSTRUCTIONS:u" nops $n >"$T/out.csv"
		cat "$T/out.csv"
		near "$(col "$T/out.csv" all 0 instructions:u value)" "$ins" 3
		near "$(col "$T/out.csv" all 1 cycles:u value)" "$cyc" $pct
		near "$(col "$T/out.csv" all 2 "$RAW_INSTRUCTIONS:u" value)" "$ins" 3
		for s in 0 1 2; do
			[ "$(col "$T/out.csv" all $s "$(sed -n "$((s + 1))p" <<<"instructions:u
cycles:u
$RAW_INSTRUCTIONS:u")" status)" = scaled ]
		done
		run -0 awk -F, '{ s += $1 } END { printf "%.1f\n", s }' \
			<(csv_rows "$T/out.csv" active_pct record=count unit=all)
		assert_output 100.0
	done
}

@test "a sampling set switched after 50 overflows records exactly 50 samples of 10000 cycles" {
	local b samples count
	for b in $PFM_HW_BACKENDS; do
		pfmon --backend="$b" -x , -e cycles:u --long-smpl-periods=100000 \
			-e cycles:u,instructions:u --long-smpl-periods=10000 --switch-ovfls=50 \
			nops 20000000 >"$T/out.csv" 2>"$T/err" || { cat "$T/err"; false; }
		cat "$T/out.csv"
		# the samples (record samples, raw) and the count (record
		# count, raw) of each set's sampling event
		samples=$(csv_cell "$T/out.csv" raw record=samples set=1 name=cycles:u)
		count=$(csv_cell "$T/out.csv" raw record=count unit=all set=1 name=cycles:u)
		[ "$samples" = 50 ]
		near "$count" 500000
		# set 0 samples its whole count at 100000 a sample
		samples=$(csv_cell "$T/out.csv" raw record=samples set=0 name=cycles:u)
		count=$(csv_cell "$T/out.csv" raw record=count unit=all set=0 name=cycles:u)
		[ "$samples" = $((count / 100000)) ]
		[ "$(summary "$T/out.csv" lost)" = 0 ]
	done
}
