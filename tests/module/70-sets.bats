#!/usr/bin/env bats
# Event sets in the kernel (create, delete, getinfo, switching on a
# timeout and on overflows), and pfmon --backend=module: counting equal to
# the perf backend, system-wide.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	pfm_no_aslr
	BP="mem:$PFM_COUNTED_FUNCTION:x"
}

@test "event set commands: create, modify, delete, getinfo, their rules and errnos" {
	run -0 pfm_test sets_errors
	assert_output "create5 OK create3 OK eff 10000 modify3 OK both EINVAL t0 EINVAL badflag EINVAL del0 EINVAL del9 EINVAL info9 EINVAL pmc9 EINVAL chain OK brokenload EINVAL load OK loadedcreate EBUSY loadeddelete EBUSY start4 EINVAL start5 OK runs5 1 runs0 1"
}

@test "sets switch on a timeout of the thread's CPU time, with fair shares and durations" {
	for k in 2 3; do
		run -0 pfm_test sets_timeout $k 10
		echo "$output"
		refute_output --partial few
		refute_output --partial unfair
		assert_line "sum covers clocks match"
	done
}

@test "a set switches after its trigger PMD's overflow count" {
	run -0 pfm_test sets_ovfl
	assert_output "active 1 set1 5 runs 1 1 switch_pmds 1"
}

# pfmon -x, output: the value (or $3: another column) of the "all" row of
# event $2.
pfmon_all() {
	awk -F, -v col="${3:-value}" -v ev="$2" '
		$1 == "unit" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		$1 == "all" && $6 == ev { print $idx[col] }' <<<"$1"
}

within_pct() { # value reference percent
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= r * p / 100) }'
}

@test "pfmon --backend=module equals --backend=perf on touch_pages and breakpoints" {
	pfmon -x, -e page-faults "$W/touch_pages" 2000 >/dev/null
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/touch_pages" 2000
	m=$(pfmon_all "$output" page-faults)
	run -0 --separate-stderr pfmon --backend=perf -x, -e page-faults "$W/touch_pages" 2000
	p=$(pfmon_all "$output" page-faults)
	echo "page faults: module $m perf $p"
	[ -n "$m" ] && [ "$m" -eq "$p" ]
	for be in module perf; do
		run -0 --separate-stderr pfmon --backend=$be -x, -e "$BP" "$W/calls" 4321
		[ "$(pfmon_all "$output" "$BP")" = 4321 ]
	done
}

@test "pfmon --backend=module --system-wide counts each CPU" {
	run -0 --separate-stderr pfmon --backend=module --system-wide -x, -e cpu-clock --session-timeout=1
	echo "$output"
	rows=$(awk -F, '$1 != "unit" && $1 != "all" && $6 == "cpu-clock" && $7 > 500000000' <<<"$output" | wc -l)
	[ "$rows" -eq 2 ]
}
