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

# bats test_tags=breakpoint
@test "a set switches after its trigger PMD's overflow count" {
	run -0 pfm_test sets_ovfl
	assert_output "active 1 set1 5 runs 1 1 switch_pmds 1"
}

# pfmon -x, output $1: the value (or $3: another column) of the count row
# of event $2 over every unit (unit all).
pfmon_all() {
	csv_rows - "${3:-value}" record=count unit=all name="$2" <<<"$1"
}

within_pct() { # value reference percent
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= r * p / 100) }'
}

# bats test_tags=breakpoint
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
	rows=$(csv_rows - value record=count unit=cpu name=cpu-clock <<<"$output" |
		awk '$1 > 500000000' | wc -l)
	[ "$rows" -eq 2 ]
}

# Scaling against truth: refault takes one page fault per write at a
# steady rate, with next to nothing to free at exit.  (touch_pages is not
# used for this: its exit frees every page it touched, CPU time without a
# fault that lands in whichever set is active then and skews that set's
# estimate; with 30,000 pages that was 5-10% in the guest.)  The
# page-faults go in the last of K sets, which the kernel switches every
# millisecond of the thread's CPU time (pfmon opens a unit's sets in one
# context with PFM_SETFL_TIME_SWITCH): the estimate is checked within TOL
# percent.  (Not a breakpoint: in the TCG guest a breakpoint that is
# disabled and enabled again from another CPU while its thread runs misses
# hits, with perf_event_open(2) alone as well; see kernel/README.md.)
SCALE_PAGES=30000
SCALE_FAULTS=360000
TOL=5

# The runs of each set in pfmon's text header ("..., runs 5 4 4, ...").
header_runs() {
	sed -n 's/^# pfmon: .* runs \([0-9 ]*\),.*/\1/p' <<<"$1"
}

@test "pfmon --backend=module: the kernel switches the sets, on the thread's CPU time" {
	local runs r total=0
	run -0 --separate-stderr pfmon --backend=module --switch-timeout=1 \
		-e cpu-clock -e task-clock -e page-faults "$W/touch_pages" $SCALE_PAGES
	echo "$output"
	runs=$(header_runs "$output")
	echo "runs: $runs"
	[ "$(wc -w <<<"$runs")" -eq 3 ]
	for r in $runs; do [ "$r" -gt 1 ]; done
	# a sleeping command uses next to no CPU time: the kernel's timeout on
	# the thread's CPU time hardly switches, where a timer in pfmon would
	# switch some 300 times in 0.3 s
	run -0 --separate-stderr pfmon --backend=module --switch-timeout=1 \
		-e cpu-clock -e task-clock /bin/sleep 0.3
	echo "$output"
	runs=$(header_runs "$output")
	echo "runs: $runs"
	[ "$(wc -w <<<"$runs")" -eq 2 ]
	for r in $runs; do total=$((total + r)); done
	[ "$total" -lt 50 ]
}

# scale_check K: the median of five estimates of page-faults in the last
# of K sets within TOL% of the count alone, and every run's set shares
# adding up to 100 within 2 points.  The time a set is charged is the
# thread's CPU time as the guest's clock sees it, which runs on while the
# host does not run the guest's CPU (TCG has no steal time): every such
# stall lands in one set.  Runs of 360,000 faults share the stalls out
# over enough switches, and the median drops the run that got the most:
# under two busy loops on the host, single runs landed within 6%, the
# medians within 3.2% (90,000 faults per run: medians up to 10.5% off).
scale_check() {
	local k=$1 others=(cpu-clock task-clock context-switches) s r alone est sum ests=()
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/refault" $SCALE_FAULTS
	alone=$(pfmon_all "$output" page-faults)
	echo "alone: $alone"
	[ "$alone" -ge $SCALE_FAULTS ]
	sets=()
	for ((s = 0; s < k - 1; s++)); do sets+=(-e "${others[s]}"); done
	sets+=(-e page-faults)
	for r in 1 2 3 4 5; do
		run -0 --separate-stderr pfmon --backend=module -x, --switch-timeout=1 \
			"${sets[@]}" "$W/refault" $SCALE_FAULTS
		echo "$k sets, run $r:"
		echo "$output"
		[ "$(pfmon_all "$output" page-faults raw)" -gt 0 ]
		ests+=("$(pfmon_all "$output" page-faults)")
		sum=$(csv_rows - active_pct record=count unit=all <<<"$output" |
			awk '{ s += $1 } END { print s }')
		within_pct "$sum" 100 2
	done
	est=$(printf '%s\n' "${ests[@]}" | sort -n | sed -n 3p)
	echo "estimates ${ests[*]}, median $est, alone $alone"
	within_pct "$est" "$alone" $TOL
}

@test "pfmon --backend=module scales page-faults in the last of 2 sets, shares add up to 100%" {
	scale_check 2
}

@test "pfmon --backend=module scales page-faults in the last of 3 sets, shares add up to 100%" {
	scale_check 3
}

@test "pfmon --backend=module scales page-faults in the last of 4 sets, shares add up to 100%" {
	scale_check 4
}

@test "pfmon --backend=module: per-set raw page-faults of one event in every set add up to its count alone" {
	local k s alone sum
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/touch_pages" $SCALE_PAGES
	alone=$(pfmon_all "$output" page-faults)
	for k in 2 3 4; do
		sets=()
		for ((s = 0; s < k; s++)); do sets+=(-e page-faults); done
		run -0 --separate-stderr pfmon --backend=module -x, --switch-timeout=5 \
			"${sets[@]}" "$W/touch_pages" $SCALE_PAGES
		echo "$k sets:"
		echo "$output"
		[ "$(pfmon_all "$output" page-faults raw | wc -l)" -eq "$k" ]
		sum=$(pfmon_all "$output" page-faults raw | awk '{ s += $1 } END { print s }')
		echo "alone $alone sum $sum"
		within_pct "$sum" "$alone" 1
	done
}

# The kernel keeps each counter's sums over its set's activations
# (pfarg_pmd.reg_act_*), so the module's scaled counts get their 95%
# interval too.  A steady fault loop in 3 sets, each counting a fault
# event: every value has an interval, and the count alone falls inside
# most of them (the guest's stalls land in whichever set is active, so
# its rates spread and its intervals are wider than the host's; the
# coverage is measured on the host, tests/cli/pfmon.bats).  With the
# loop's second half burning CPU without faults (as long as its faults
# took, however slow the guest) the interval widens.  60000 faults a run:
# the arm64 guest takes some 100 s over 100000 (ten runs), near its 120 s
# a test.
@test "pfmon --backend=module: each scaled count has its 95% interval, wider when the rate changes" {
	local n inside=0 total=0 steady=() bursty=()
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults "$W/refault" 60000
	alone=$(pfmon_all "$output" page-faults)
	for n in 1 2 3 4 5; do
		run -0 --separate-stderr pfmon --backend=module -x, --switch-timeout=2 \
			-e page-faults -e minor-faults -e page-faults "$W/refault" 60000
		echo "$output"
		rows=$(csv_rows - value,ci95_pct record=count unit=all <<<"$output" |
			awk -F, -v a="$alone" '{
			d = $1 - a; if (d < 0) d = -d
			print ($2 != "" && d <= $1 * $2 / 100) ? "in" : "out", $2 }')
		[ "$(awk '$2 != ""' <<<"$rows" | wc -l)" -eq 3 ]
		# grep -c says 0 with status 1 when a run has none inside
		inside=$((inside + $(grep -c '^in' <<<"$rows" || true)))
		total=$((total + 3))
		steady+=("$(pfmon_all "$output" minor-faults ci95_pct)")
		run -0 --separate-stderr pfmon --backend=module -x, --switch-timeout=2 \
			-e page-faults -e minor-faults -e page-faults "$W/refault" 60000 64 100%
		bursty+=("$(pfmon_all "$output" minor-faults ci95_pct)")
	done
	s=$(printf '%s\n' "${steady[@]}" | sort -g | sed -n 3p)
	b=$(printf '%s\n' "${bursty[@]}" | sort -g | sed -n 3p)
	echo "alone $alone: inside $inside of $total; median +- $s% steady, +- $b% with the change" >&3
	(( inside * 2 > total ))
	# the change's own spread (some +- 10% here) adds to the host's noise
	# about as squares do: twice the steady width failed once steady was
	# past 5.8% (+- 5.42% against 10.84%, on CI's run of both guests side
	# by side), 3 points more holds up to a steady +- 15%
	awk -v s="$s" -v b="$b" 'BEGIN { exit !(b > s + 3) }'
}
