#!/usr/bin/env bats
# pfmon on the perf backend: per-thread counting and following, event
# sets multiplexed with scaling, system-wide per-CPU counting, attach.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
}

teardown() {
	px_end_background
}

# pfmon -x, output: the value (or $3: another column) of the count row
# whose unit is $2 ("all", or a tid) and event is $4 (default page-faults).
pfmon_csv() {
	schema_awk -v unit="$2" -v col="${3:-value}" -v ev="${4:-page-faults}" '
		v("record") == "count" && (v("unit") == unit || v("tid") == unit) && v("name") == ev {
			print v(col) }' <<<"$1"
}

# Sum of the active_pct of every count row of unit all: one event per set.
active_sum() {
	schema_awk 'v("record") == "count" && v("unit") == "all" { s += v("active_pct") }
		END { printf "%.2f", s }' <<<"$1"
}

within_pct() { # value reference percent
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= r * p / 100) }'
}

@test "pfmon counts the page faults of a command" {
	run -0 --separate-stderr "$PFMON" -x, -e page-faults "$W/touch_pages" 3000
	v=$(pfmon_csv "$output" all)
	(( v >= 3000 && v <= 3000 + STARTUP_FAULTS ))
}

@test "pfmon returns the command's exit status" {
	run -3 "$PFMON" -e task-clock "$W/spin" 10 3
	run -127 "$PFMON" -e task-clock /nonexistent/cmd
	assert_output --partial "cannot run '/nonexistent/cmd'"
}

@test "pfmon --follow-all counts every thread and child exactly" {
	run -0 --separate-stderr "$PFMON" --follow-all -x, -e page-faults "$W/family" 3 2000
	rows=$(csv_get "$output" tid count unit=thread name=page-faults | wc -l)
	[ "$rows" -eq 7 ]	# the main thread, 3 threads, 3 children
	big=$(csv_get "$output" value count unit=thread name=page-faults |
		awk '$1 >= 2000 && $1 <= 2000 + 50' | wc -l)
	[ "$big" -eq 6 ]
	all=$(pfmon_csv "$output" all)
	(( all >= 6 * 2000 && all <= 6 * 2000 + 6 * 50 + STARTUP_FAULTS ))
	run -0 --separate-stderr "$PFMON" --follow-all --aggregate-results -e page-faults "$W/family" 3 2000
	assert_output --partial "aggregate of 7 threads"
}

@test "pfmon without --follow options counts the first thread only" {
	run -0 --separate-stderr "$PFMON" -x, -e page-faults "$W/family" 2 2000
	rows=$(csv_get "$output" tid count unit=thread name=page-faults | wc -l)
	[ "$rows" -eq 1 ]
	v=$(pfmon_csv "$output" all)
	(( v < 2000 ))
}

@test "pfmon --follow-exec counts the program a task executes" {
	run -0 --separate-stderr "$PFMON" --follow-exec -x, -e page-faults sh -c "exec $W/touch_pages 3000"
	(( $(pfmon_csv "$output" all) >= 3000 ))
	run -0 --separate-stderr "$PFMON" -x, -e page-faults sh -c "exec $W/touch_pages 3000"
	(( $(pfmon_csv "$output" all) < 3000 ))
}

# The exact count of a steady workload alone, then with its event in the
# last of K sets: the scaled estimate within 5%, the sets' shares adding
# up to 100% within 2 points.  refault faults at a steady rate to its end
# (touch_pages would end by freeing all its pages, CPU time without faults
# that skews the estimate of whichever set is active then).
# The estimate is a statistical one: it assumes the event's rate does not
# depend on which set is active, and on a loaded host a stall can fall on
# one set's turns (one run in 60 landed 8.7% low under two busy loops and
# two VMs).  So the median of five runs' estimates must be within 5%,
# as the module suite does it; every run's shares must add up.
check_scaling() {
	local k=$1 args=() i ests=()
	run -0 --separate-stderr "$PFMON" -x, -e page-faults "$W/refault" 250000
	alone=$(pfmon_csv "$output" all)
	for (( i = 1; i < k; i++ )); do args+=(-e task-clock); done
	for i in 1 2 3 4 5; do
		run -0 --separate-stderr "$PFMON" -x, --switch-timeout=5 "${args[@]}" -e page-faults "$W/refault" 250000
		est=$(pfmon_csv "$output" all)
		raw=$(pfmon_csv "$output" all raw)
		(( raw < est ))
		sum=$(active_sum "$output")
		within_pct "$sum" 100 2
		ests+=("$est")
	done
	est=$(printf '%s\n' "${ests[@]}" | sort -n | sed -n 3p)
	echo "k=$k alone=$alone estimates=${ests[*]} median=$est" >&3
	within_pct "$est" "$alone" 5
}

# bats test_tags=timing
@test "pfmon scales an event multiplexed in 2 sets to within 5%" {
	check_scaling 2
}

# bats test_tags=timing
@test "pfmon scales an event multiplexed in 3 sets to within 5%" {
	check_scaling 3
}

# bats test_tags=timing
@test "pfmon scales an event multiplexed in 4 sets to within 5%" {
	check_scaling 4
}

# The 95% interval of a scaled count, from the spread of its rate over its
# set's activations.  A steady fault loop in 3 sets, each set counting a
# fault event (page-faults, minor-faults, page-faults), so that every set
# costs the faults the same (a set without one lets them run faster, and
# its time would be unlike the others'), run by refault (no loader and
# no C library, whose start-up faults slower, all in the first set's first
# turn: the other sets never see it; the exec's own 0.1 ms is left, 0.2%
# of the run, well inside intervals of +- 3 to 5%): the count alone must fall inside
# the interval in at least 9 of 10 cases.  A 95% interval misses 1 case
# in 20, so 10 runs would fail that 1 time in 11 by chance; over 100 runs
# (300 values, some 15 misses expected) the 9-in-10 bar fails by chance
# about once in 10^5 suites, and a real loss of coverage still fails it.
# bats test_tags=timing
@test "pfmon's 95% interval of a scaled count holds the count alone in 9 cases of 10" {
	# 25000 faults a run (0.4 s here): 100 runs of 100000 took 130 s on
	# this machine, past the test's 120 s; the intervals are wider
	# (+- 4.5% against 1.3%) and hold the count as often
	run -0 --separate-stderr "$PFMON" -x, -e page-faults "$W/refault" 25000
	alone=$(pfmon_csv "$output" all)
	for n in $(seq 100); do
		"$PFMON" -x, --switch-timeout=2 -e page-faults -e minor-faults \
			-e page-faults "$W/refault" 25000 2>/dev/null
	done | interval_coverage "$alone" count 300 >&3
}

# The same loop whose second half burns CPU without faults: its sets'
# rates differ from one activation to the next, and the interval widens.
# The burn is as long as the faults took (refault's "100%"): a fixed
# 400 ms burn was 1/7 of the run on a machine where faults are slow
# (CI: +- 3.6% against +- 1% steady, under the test's bar), half of it
# on a fast one.  5 runs each: a steady run's interval is +- 0.2% to 1%
# on a quiet host; 1 run in 12 or so meets a real stretch of slower
# faults (the host's) and reports it, up to +- 5% (its estimate 2% off);
# on a host whose both CPUs are busy the fault rate varies and every
# steady run says so, +- 3.5% to 3.9%; the loop with the change gives
# +- 12% to 14% either way.  So: every run with the change is wider than
# every steady run (by chance 1 in 252), and their median above 3%.
# bats test_tags=timing
@test "pfmon's interval widens when the rate changes during the run" {
	args=(-x, --switch-timeout=5 -e page-faults -e minor-faults -e page-faults)
	steady=() bursty=()
	for n in 1 2 3 4 5; do
		run -0 --separate-stderr "$PFMON" "${args[@]}" "$W/refault" 100000
		steady+=("$(pfmon_csv "$output" all ci95_pct minor-faults)")
		run -0 --separate-stderr "$PFMON" "${args[@]}" "$W/refault" 100000 64 100%
		bursty+=("$(pfmon_csv "$output" all ci95_pct minor-faults)")
	done
	s=$(printf '%s\n' "${steady[@]}" | sort -g | sed -n 5p)
	b=$(printf '%s\n' "${bursty[@]}" | sort -g | sed -n 1p)
	m=$(printf '%s\n' "${bursty[@]}" | sort -g | sed -n 3p)
	echo "minor-faults: at most +- $s% steady (${steady[*]}), at least +- $b% with the change (${bursty[*]})" >&3
	awk -v s="$s" -v b="$b" -v m="$m" 'BEGIN { exit !(b > s && m > 3) }'
}

# pfmon switches the perf backend's sets with two ioctls, each an
# interrupt to the command's CPU; between them the command runs and no
# set counts.  Those gaps were left out of the time the sets stood for:
# task-clock, whose rate never changes, was +- 0.00% and short of the
# command's own task-clock (by 0.2% to 1.3% of 200 ms at a 1 ms switch
# here; on a loaded machine the switches mostly find the command off its
# CPU, and there is little to miss).  The interval's top must reach the task-clock
# the command counted on itself (selfclock: perf's clock, as pfmon's, over
# a part of pfmon's stretch, so never more; the CPU time burnt is not
# that: it leaves out the interrupts, the switches' own among them).
@test "pfmon's interval allows for the moments between two sets: task-clock's reaches the command's own" {
	# task-clock in every set: a set of another event would lend it its
	# spread (the pool), and selfclock's few faults come in bursts
	run -0 --separate-stderr "$PFMON" -x, --switch-timeout=1 -e task-clock -e task-clock \
		-e task-clock "$W/selfclock" 200
	self=$(sed -n 's/^task-clock \([0-9]*\)$/\1/p' <<<"$stderr")
	[ -n "$self" ]
	for set in 0 1 2; do
		row=$(csv_get "$output" value,ci95_pct count unit=all name=task-clock set=$set)
		echo "set $set: task-clock,ci95_pct $row, the command's own $self" >&3
		# the printed interval's top, its 2 decimals' rounding included
		awk -v r="$row" -v self="$self" 'BEGIN { split(r, v, ",")
			exit !(v[1] * (1 + (v[2] + 0.005) / 100) >= self) }'
	done
}

@test "pfmon prints the interval: +- X% in text, ci95_pct in CSV and JSON" {
	args=(--switch-timeout=5 -e task-clock -e page-faults "$W/refault" 20000)
	run -0 --separate-stderr "$PFMON" "${args[@]}"
	assert_output --regexp ' page-faults  \+- [0-9]+\.[0-9]{2}%  \(set 1, raw [0-9]+, active '
	run -0 --separate-stderr "$PFMON" -x, "${args[@]}"
	assert_line --index 0 "$SCHEMA_HEADER"
	[ -n "$(pfmon_csv "$output" all ci95_pct)" ]
	run -0 --separate-stderr "$PFMON" --json "${args[@]}"
	python3 -c 'import json, sys
d = json.loads(sys.stdin.read())
assert d["schema"] == 3, d
ev = [e for e in d["events"] if e["name"] == "page-faults"][0]
assert ev["status"] == "scaled" and ev["ci95_pct"] >= 0, ev' <<<"$output"
	# one set, counted whole: no interval to print
	run -0 --separate-stderr "$PFMON" -e page-faults "$W/refault" 2000
	refute_output --partial "+-"
}

@test "pfmon prints <not counted> for a set that never ran" {
	run -0 --separate-stderr "$PFMON" --switch-timeout=10000 -e task-clock -e page-faults "$W/spin" 20
	assert_output --regexp '<not counted> +page-faults'
}

# Each CPU counts the whole session, whose length pfmon measures (the
# seconds column): at least the 1 s timeout, more when pfmon's timer is
# served late on a loaded host (1.13 s seen), which is not the counters'
# error.
# bats test_tags=timing
@test "pfmon --system-wide counts about one second of cpu-clock on each CPU" {
	run -0 --separate-stderr "$PFMON" --system-wide --session-timeout=1 -x, -e cpu-clock
	n=0
	while IFS=, read -r cpu value secs; do
		n=$((n + 1))
		echo "CPU$cpu cpu-clock $value in a session of $secs s" >&3
		awk -v s="$secs" 'BEGIN { exit !(s >= 1) }'
		within_pct "$value" "$(awk -v s="$secs" 'BEGIN { printf "%.0f", s * 1e9 }')" 5
	done < <(csv_get "$output" cpu,value,seconds count unit=cpu)
	[ "$n" -eq "$(nproc)" ]
}

@test "pfmon --cpu-list selects the CPUs" {
	run -0 --separate-stderr "$PFMON" --system-wide --cpu-list=1 -x, -e cpu-clock sleep 0.2
	[ "$(csv_get "$output" cpu count unit=cpu | wc -l)" -eq 1 ]
	[ "$(csv_get "$output" cpu count unit=cpu)" -eq 1 ]
	run -2 "$PFMON" --system-wide --cpu-list=1-x -e cpu-clock true
	assert_output --partial "bad CPU list"
}

@test "pfmon --system-wide needs privilege, and says so" {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ] || skip "perf_event_paranoid allows everyone"
	run -1 setpriv --reuid=65534 --regid=65534 --clear-groups "$PFMON" --system-wide --session-timeout=1 -e cpu-clock
	assert_output --partial "system-wide counting needs root, CAP_PERFMON"
}

# The task burns 400 ms of CPU, waits while pfmon attaches, and once
# pfmon says it counts, burns 600 ms more: the attached interval holds
# those 600 ms and not the 400 before.  task-clock runs from perf's
# switch-in to switch-out of the task, a little less than the scheduler
# charges it (66 us less over 600 ms seen on a loaded host): 10 ms of room.
TASK_CLOCK_SHORT=10000000
@test "pfmon --attach-task counts only the attached interval and leaves the task unharmed" {
	stages_start 7 400 w 600
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" -x, -e task-clock
	stages_go
	wait "$MON"	# pfmon ends with the task
	st=0
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 7 ]
	v=$(pfmon_csv "$(<"$BATS_TEST_TMPDIR/out")" all value task-clock)
	echo "attached task-clock $v" >&3
	(( v >= 600000000 - TASK_CLOCK_SHORT && v < 1000000000 ))
}

# pfmon attaches while the task waits; the task burns 300 ms, then spins
# until told to end, and pfmon gets SIGINT while it spins: pfmon reports
# and leaves, the task runs on untraced and ends with its own status.
@test "pfmon detaches on SIGINT and the task runs on" {
	stages_start 5 w 300 s
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" -x, -e task-clock
	stages_go
	stages_wait "spin 2"
	kill -INT "$MON"
	wait "$MON"	# 0: SIGINT ended the session, not pfmon
	state=$(px_state "$STAGES_PID")
	[[ $state == [RS] ]]	# still running after pfmon left, not stopped
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$STAGES_PID/status"
	stages_go
	st=0
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 5 ]
	v=$(pfmon_csv "$(<"$BATS_TEST_TMPDIR/out")" all value task-clock)
	echo "task-clock until SIGINT $v" >&3
	(( v >= 300000000 - TASK_CLOCK_SHORT ))
}

@test "pfmon counter formats" {
	run -0 --separate-stderr "$PFMON" --us-counter-format -e page-faults "$W/touch_pages" 2000
	assert_output --regexp '2,[0-9]{3} +page-faults'
	run -0 --separate-stderr "$PFMON" --eu-counter-format -e page-faults "$W/touch_pages" 2000
	assert_output --regexp '2\.[0-9]{3} +page-faults'
	run -0 --separate-stderr "$PFMON" --hex-counter-format -e page-faults "$W/touch_pages" 2000
	assert_output --regexp '0x[0-9a-f]+ +page-faults'
}

@test "pfmon JSON parses and agrees with CSV totals" {
	run -0 --separate-stderr "$PFMON" --json --follow-all -e page-faults "$W/forker" 2 1000
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == 3, d
agg = d["events"][0]["value"]
per = sum(u["events"][0]["value"] for u in d["units"])
assert agg == per, (agg, per)
assert len(d["units"]) == 3
' "$output"
}

@test "pfmon --outfile and --append" {
	f=$BATS_TEST_TMPDIR/res.txt
	run -0 "$PFMON" --outfile "$f" -e page-faults "$W/touch_pages" 10
	[ "$(grep -c 'page-faults' "$f")" -eq 1 ]
	run -0 "$PFMON" --outfile "$f" --append -e page-faults "$W/touch_pages" 10
	[ "$(grep -c 'page-faults' "$f")" -eq 2 ]
	run -1 "$PFMON" --outfile /nonexistent/dir/x -e page-faults touch "$BATS_TEST_TMPDIR/ran"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "pfmon --priv-levels and -u/-k" {
	run -0 --separate-stderr "$PFMON" --check-events-only -u -e page-faults
	assert_output --partial "page-faults"
	# The command runs on CPU 0 and sleeps there, so CPU 0 switches at
	# least twice: an idle or busy CPU 0 alone may not switch in 0.2 s.
	run -0 --separate-stderr "$PFMON" -x, --system-wide --cpu-list=0 -k -e context-switches taskset -c 0 sleep 0.2
	echo "$output"
	(( $(pfmon_csv "$output" all value context-switches) > 0 ))
	run -0 --separate-stderr "$PFMON" -x, --system-wide --cpu-list=0 --priv-levels=u -e context-switches taskset -c 0 sleep 0.2
	(( $(pfmon_csv "$output" all value context-switches) == 0 ))
	run -2 "$PFMON" --priv-levels=x -e page-faults true
	assert_output --partial "bad privilege level"
	run -2 "$PFMON" --priv-levels=u,k -e page-faults true
}

@test "pfmon usage errors exit 2" {
	run -2 "$PFMON"
	assert_output --partial "no command given"
	run -2 "$PFMON" --bogus true
	run -2 "$PFMON" -e no-such-event true
	assert_output --partial "unknown event"
	run -2 "$PFMON" --attach-task 1 true
	run -2 "$PFMON" --cpu-list=0 true
}

@test "pfmon fails clearly when no event can be counted" {
	have_hw_pmu && skip "this machine has a hardware PMU"
	run -1 "$PFMON" -e cycles touch "$BATS_TEST_TMPDIR/ran"
	assert_output --partial "none of the events can be counted"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "pfmon --print-interval prints each interval's change" {
	run -0 --separate-stderr "$PFMON" -x, --print-interval=100 -e task-clock "$W/spin" 600
	[ "$(head -1 <<<"$output")" = "$SCHEMA_HEADER" ]	# one header first
	[ "$(grep -c '^schema,' <<<"$output")" -eq 1 ]
	n=$(csv_get "$output" value interval name=task-clock | wc -l)
	(( n >= 4 ))
	# changes, not totals: none negative, and with the last, partial
	# interval they add up to the total exactly (how much CPU time each
	# interval gets depends on the machine's load, and is not checked)
	csv_get "$output" value interval name=task-clock | awk '{ if ($1 < 0) bad = 1 } END { exit bad }'
	sum=$(csv_get "$output" value interval name=task-clock | awk '{ s += $1 } END { printf "%d", s }')
	final=$(pfmon_csv "$output" all value task-clock)
	(( sum == final ))
}

@test "pfmon --session-timeout stops counting and leaves the command running" {
	marker=$BATS_TEST_TMPDIR/survived
	run -0 --separate-stderr "$PFMON" --session-timeout=1 -x, -e task-clock sh -c "exec >/dev/null 2>&1; sleep 2; echo yes > $marker"
	(( $(pfmon_csv "$output" all seconds task-clock | cut -d. -f1) == 1 ))
	[ ! -e "$marker" ]	# pfmon returned before the command ended
	for _ in $(seq 40); do [ -e "$marker" ] && break; sleep 0.1; done
	[ "$(cat "$marker")" = yes ]
}

@test "pfmon passes the command's own signals on to it" {
	run -0 --separate-stderr "$PFMON" -e task-clock sh -c 'trap "echo trapped" TRAP; trap "echo usr1" USR1; kill -TRAP $$; kill -USR1 $$; echo done'
	assert_output --partial "trapped"
	assert_output --partial "usr1"
	assert_output --partial "done"
}
