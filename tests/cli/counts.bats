#!/usr/bin/env bats
# Counts against exact values from the workloads and against perf stat.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "touch_pages N: page-faults between N and N + the start-up allowance" {
	for n in 0 1000 5000; do
		run -0 --separate-stderr "$PERFEX" -x, -e page-faults "$W/touch_pages" $n
		v=$(csv_value "$stderr" page-faults)
		echo "touch_pages $n: $v page faults (allowance $STARTUP_FAULTS)"
		[ -n "$v" ]
		[ "$v" -ge "$n" ]
		[ "$v" -le $((n + STARTUP_FAULTS)) ]
	done
}

@test "touch_pages: the count grows by exactly the pages touched, within the allowance" {
	run -0 --separate-stderr "$PERFEX" -x, -e page-faults "$W/touch_pages" 0
	base=$(csv_value "$stderr" page-faults)
	run -0 --separate-stderr "$PERFEX" -x, -e page-faults "$W/touch_pages" 3000
	v=$(csv_value "$stderr" page-faults)
	echo "base $base, with 3000 pages $v"
	d=$((v - base - 3000))
	[ "${d#-}" -le 10 ]
}

@test "touch_pages: page-faults agrees with perf stat within the start-up allowance" {
	run -0 --separate-stderr "$PERFEX" -x, -e page-faults "$W/touch_pages" 4000
	ours=$(csv_value "$stderr" page-faults)
	theirs=$(perf_stat_value page-faults "$W/touch_pages" 4000)
	echo "perfex $ours, perf stat $theirs"
	[ -n "$theirs" ] && [ "$theirs" -ge 4000 ]
	d=$((ours - theirs))
	[ "${d#-}" -le "$STARTUP_FAULTS" ]
}

@test "sleeper N: at least N context switches" {
	run -0 --separate-stderr "$PERFEX" -x, -e context-switches "$W/sleeper" 200
	v=$(csv_value "$stderr" context-switches)
	echo "sleeper 200: $v context switches"
	[ "$v" -ge 200 ]
}

@test "forker K N: the children's page faults are counted, at least K*N" {
	run -0 --separate-stderr "$PERFEX" -x, -e page-faults "$W/forker" 4 1000
	v=$(csv_value "$stderr" page-faults)
	echo "forker 4 1000: $v page faults"
	[ "$v" -ge 4000 ]
	[ "$v" -le $((4000 + 5 * STARTUP_FAULTS)) ]
}

@test "calls N: an execute breakpoint on counted_function agrees with perf stat" {
	addr=$(counted_function_addr)
	[ -n "$addr" ]
	run -0 --separate-stderr "$PERFEX" -x, -e "mem:$addr:x" "$W/calls" 54321
	ours=$(csv_value "$stderr" "mem:$addr:x")
	theirs=$(perf_stat_value "mem:$addr:x" "$W/calls" 54321)
	echo "perfex $ours, perf stat $theirs"
	[ -n "$ours" ] && [ "$ours" = "$theirs" ]
}

# Exact breakpoint counts (1 and 54321 calls, on both backends) are
# checked in the x86 guest (tests/module/20-counting.bats), whose debug
# registers fire: this project's build machines' hypervisor gives guests
# debug registers that never fire, where perf stat counts 0 as perfex does.

@test "task-clock of a CPU-bound workload covers its CPU time" {
	run -0 --separate-stderr "$PERFEX" -x, -e task-clock "$W/spin" 200
	v=$(csv_value "$stderr" task-clock)
	echo "spin 200: task-clock $v ns"
	[ "$v" -ge 200000000 ]
	[ "$v" -le 400000000 ]
}

@test "-r 3 reports 3 runs with min <= mean <= max" {
	run -0 --separate-stderr "$PERFEX" -r 3 -x, -e page-faults "$W/touch_pages" 1000
	IFS=, read -r value status runs min max < <(csv_get "$stderr" value,status,runs,min,max count name=page-faults)
	assert_equal "$runs" 3
	assert_equal "$status" counted
	[ "$min" -le "$value" ] && [ "$value" -le "$max" ]
	[ "$min" -ge 1000 ]
	run -0 --separate-stderr "$PERFEX" -r 3 -e page-faults "$W/touch_pages" 10
	assert_regex "$stderr" "3 runs"
}

@test "several -e options and comma lists count every event, in order" {
	run -0 --separate-stderr "$PERFEX" -x, -e page-faults,task-clock -e context-switches true
	names=$(csv_get "$stderr" name count | paste -sd' ')
	assert_equal "$names" "page-faults task-clock context-switches"
}

@test "libpfm4 full names and :u count" {
	run -0 --separate-stderr "$PERFEX" -x, -e perf::PERF_COUNT_SW_PAGE_FAULTS:u "$W/touch_pages" 500
	v=$(csv_value "$stderr" perf::PERF_COUNT_SW_PAGE_FAULTS:u)
	[ "$v" -ge 500 ]
	[ "$v" -le $((500 + STARTUP_FAULTS)) ]
}

@test "a uprobe on counted_function counts its calls exactly" {
	for n in 1 777 54321; do
		run -0 --separate-stderr "$PERFEX" -x, -e "uprobe:$W/calls:counted_function" "$W/calls" "$n"
		assert_equal "$(csv_value "$stderr" "uprobe:$W/calls:counted_function")" "$n"
	done
	run -2 --separate-stderr "$PERFEX" -e "uprobe:$W/calls:no_such_function" "$W/calls" 1
	[[ $stderr == *no_such_function* ]]
}

# The uprobe PMU's events read their path from a pointer into perfex at
# every copy, and fork copied them in the child, where that pointer means
# nothing: pthread_create and fork failed with EFAULT.  A tracefs probe
# inherits like any event: the command runs as without perfex, and every
# thread's and child's calls are counted.
@test "a uprobe counted over a command's threads and forked children: the command runs unchanged, every call counted" {
	for mode in thread fork; do
		run -0 --separate-stderr "$PERFEX" -x, -e "uprobe:$W/fork_calls:counted_function" \
			"$W/fork_calls" "$mode" 3 1000
		[[ $stderr != *"Bad address"* ]]
		assert_equal "$(csv_value "$stderr" "uprobe:$W/fork_calls:counted_function")" 3000
	done
}

@test "perfex's uprobes are removed when it ends, and those of a killed run by the next" {
	tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	run -0 --separate-stderr "$PERFEX" -x, -e "uprobe:$W/calls:counted_function" "$W/calls" 10
	[ -n "$tracefs" ]
	run -0 cat "$tracefs/uprobe_events"
	refute_output --partial "px_"
	# a run killed by SIGKILL leaves its probe ...
	"$PERFEX" -e "uprobe:$W/sleeper:main" "$W/sleeper" 100000 2>/dev/null &
	pid=$!
	for _ in $(seq 100); do grep -q "px_$pid/" "$tracefs/uprobe_events" && break; sleep 0.1; done
	run -0 grep "px_$pid/" "$tracefs/uprobe_events"
	kill -KILL "$pid"
	wait "$pid" || true
	pkill -KILL -f "$W/sleeper 100000" || true
	# ... and the next run removes it
	run -0 --separate-stderr "$PERFEX" -x, -e "uprobe:$W/calls:counted_function" "$W/calls" 10
	run -0 cat "$tracefs/uprobe_events"
	refute_output --partial "px_"
}

# LIBPFM_FORCE_PMU makes libpfm4 use one model's table as if it had been
# detected (to encode a machine's events elsewhere, or where libpfm4
# detects the wrong model).  It adds that model's names; every other name
# (perf's software and generic names, raw codes, breakpoints, uprobes)
# must encode and count as without it.  These once were unknown events.
@test "LIBPFM_FORCE_PMU=skl: every other event encodes and counts as without it, and skl's names are added" {
	addr=$(counted_function_addr)
	[ -n "$addr" ]
	up="uprobe:$W/calls:counted_function"
	evs=(task-clock page-faults cycles instructions:u 0x1234 r5300c0 "mem:$addr:x" "$up")
	list=$(IFS=,; echo "${evs[*]}")
	run -0 --separate-stderr "$PERFEX" -v -x, -e "$list" "$W/calls" 1000
	plain=$stderr
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -v -x, -e "$list" "$W/calls" 1000
	forced=$stderr
	for ev in "${evs[@]}"; do
		# libpfm4 gives perf's generic events the privilege levels of the
		# model it loads (h=, the hypervisor, is not one of skl's)
		a=$(grep -F "perfex: event $ev = " <<<"$plain" | sed 's/:h=[01]//')
		b=$(grep -F "perfex: event $ev = " <<<"$forced" | sed 's/:h=[01]//')
		[ -n "$a" ]
		assert_equal "$b" "$a"
	done
	# the same status for every event, the same exact counts
	statuses() { csv_get "$1" name,status count; }
	assert_equal "$(statuses "$forced")" "$(statuses "$plain")"
	assert_equal "$(csv_value "$forced" "$up")" 1000
	assert_equal "$(csv_value "$forced" "mem:$addr:x")" "$(csv_value "$plain" "mem:$addr:x")"

	# software events count the workload as without the variable
	run -0 --separate-stderr "$PERFEX" -x, -e task-clock,page-faults "$W/touch_pages" 3000
	plain=$stderr
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -x, -e task-clock,page-faults "$W/touch_pages" 3000
	forced=$stderr
	p=$(csv_value "$plain" page-faults)
	f=$(csv_value "$forced" page-faults)
	echo "page-faults: $p without, $f with LIBPFM_FORCE_PMU=skl"
	[ "$f" -ge 3000 ] && [ "$f" -le $((3000 + STARTUP_FAULTS)) ]
	d=$((f - p))
	[ "${d#-}" -le 10 ]
	[ "$(csv_value "$forced" task-clock)" -gt 0 ]

	# skl's names: encoded by skl's table, and listed beside perf's
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -v -e INST_RETIRED:ANY_P,task-clock true
	assert_regex "$stderr" "perfex: event INST_RETIRED:ANY_P = skl::INST_RETIRED:ANY_P"
	run -0 env LIBPFM_FORCE_PMU=skl "$PERFEX" -l
	assert_line "skl::INST_RETIRED"
	assert_line "perf::PAGE-FAULTS"
	assert_line --regexp "^perf_raw::"
	# ... and the environment the command gets is the one perfex was given
	run -0 --separate-stderr env LIBPFM_FORCE_PMU=skl "$PERFEX" -e task-clock printenv LIBPFM_FORCE_PMU
	assert_output "skl"
}
