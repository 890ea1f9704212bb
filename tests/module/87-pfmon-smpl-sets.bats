#!/usr/bin/env bats
# pfmon --backend=module sampling several event sets: one context with
# every set, switched by the kernel on the thread's CPU time or after a
# trigger's overflows; a breakpoint on each of two_calls' functions counts
# their calls exactly.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	pfm_no_aslr
	FIRST="mem:$PFM_FIRST_FUNCTION:x"
	SECOND="mem:$PFM_SECOND_FUNCTION:x"
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# samples_and_count OUTPUT EVENT SET: the samples of EVENT in SET and its
# count there, "SAMPLES COUNT" (the raw of its samples row and of its
# count row) in pfmon -x, output
samples_and_count() {
	local s c
	s=$(csv_cell - raw record=samples name="$2" set="$3" <<<"$1") &&
		c=$(csv_cell - raw record=count unit=all name="$2" set="$3" <<<"$1") &&
		echo "$s $c"
}

# runs FILE: the sets of a text sample file's samples in the order the
# kernel recorded them (one context, one buffer: the file's order; their
# timestamps are each CPU's clock, which the guest's vCPUs do not keep in
# step, so a task that moved between CPUs would sort out of order), as
# "SET LENGTH" runs
runs() {
	awk 'NR > 1 && !/^#/ { print $5 }' "$1" | uniq -c | awk '{ print $2, $1 }'
}

# bats test_tags=breakpoint
@test "module: two sets sampling a breakpoint each on a timeout: samples equal their counts, each in its set's turns" {
	run -0 --separate-stderr pfmon --backend=module -x, -e "$FIRST" --long-smpl-periods=1 \
		-e "$SECOND" --long-smpl-periods=1 --switch-timeout=2 \
		--smpl-outfile="$T/s" "$W/two_calls" 20000
	echo "$output"
	[ "$(summary "$output" lost)" = 0 ]
	r0=$(csv_cell - value record=summary name=set_runs set=0 <<<"$output")
	r1=$(csv_cell - value record=summary name=set_runs set=1 <<<"$output")
	(( r0 >= 2 && r1 >= 2 ))
	# period 1, so the samples are what the event counted in its set's
	# turns: the samples equal the count
	s0=$(samples_and_count "$output" "$FIRST" 0 | awk '$1 == $2 && $1 > 0 { print $1 }')
	s1=$(samples_and_count "$output" "$SECOND" 1 | awk '$1 == $2 && $1 > 0 { print $1 }')
	[ -n "$s0" ] && [ -n "$s1" ]
	# one of each pair of calls, give or take one at each switch
	d=$((s0 + s1 - 20000))
	(( ${d#-} <= r0 + r1 ))
	# every sample at its set's function, no more runs of a set than turns
	awk -v a="$(printf '0x%x' $((PFM_FIRST_FUNCTION)))" -v b="$(printf '0x%x' $((PFM_SECOND_FUNCTION)))" '
		NR > 1 && !/^#/ && tolower($9) != ($5 == 0 ? a : b) { bad++ }
		END { exit bad > 0 }' "$T/s"
	runs "$T/s" > "$T/runs"
	(( $(awk '$1 == 0' "$T/runs" | wc -l) <= r0 ))
	(( $(awk '$1 == 1' "$T/runs" | wc -l) <= r1 ))
	(( $(wc -l < "$T/runs") >= 3 ))
}

# bats test_tags=breakpoint
@test "module: sets switched after 3 and 2 overflows record exactly 3 and 2 samples per turn" {
	run -0 --separate-stderr pfmon --backend=module -x, -e "$FIRST" --long-smpl-periods=1 --switch-ovfls=3 \
		-e "$SECOND" --long-smpl-periods=1 --switch-ovfls=2 --smpl-outfile="$T/s" "$W/two_calls" 1000
	echo "$output"
	runs "$T/s" > "$T/runs"
	cat "$T/runs"
	# 1000 pairs of calls: 250 turns of each set, 750 + 500 samples
	[ "$(awk '$1 == 0 && $2 == 3' "$T/runs" | wc -l)" = 250 ]
	[ "$(awk '$1 == 1 && $2 == 2' "$T/runs" | wc -l)" = 250 ]
	[ "$(wc -l < "$T/runs")" = 500 ]
	[ "$(csv_cell - raw record=samples name="$FIRST" set=0 <<<"$output")" = 750 ]
	[ "$(csv_cell - raw record=samples name="$SECOND" set=1 <<<"$output")" = 500 ]
}

@test "module: a steady fault loop in 3 sets: each set's scaled samples within its interval of the samples alone, mostly" {
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults --long-smpl-periods=10 "$W/refault" 60000
	alone=$(csv_cell - raw record=samples name=page-faults <<<"$output")
	inside=0 n=0
	for r in 1 2 3 4 5; do
		run -0 --separate-stderr pfmon --backend=module -x, --switch-timeout=2 \
			-e page-faults --long-smpl-periods=10 -e minor-faults --long-smpl-periods=10 \
			-e page-faults --long-smpl-periods=10 "$W/refault" 60000
		while IFS=, read -r raw scaled ci; do
			[ -n "$ci" ] || continue
			echo "run $r: raw $raw scaled $scaled +- $ci%"
			n=$((n + 1))
			inside=$((inside + $(awk -v s="$scaled" -v a="$alone" -v c="$ci" \
				'BEGIN { d = s - a; if (d < 0) d = -d; print (d <= s * c / 100) }')))
		done < <(csv_rows - raw,value,ci95_pct record=samples <<<"$output")
	done
	echo "alone $alone samples: inside $inside of $n"
	# the guest's stalls land whole in one set's turns (70-sets.bats):
	# most, not 95%, of the intervals hold the count there
	(( n == 15 && inside >= 9 ))
}
