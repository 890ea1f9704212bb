#!/usr/bin/env bats
# Stripped programs: the code no symbol covers is profiled per function,
# each named MODULE+0xSTART after the function its .eh_frame describes
# (lib/symbols/cfifuncs.c), START the address nm gives the function in
# the unstripped file; never one ?? row for the whole program.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# user_pct OUTPUT SYMBOL: the share (percent) of SYMBOL's samples among
# the samples in user space of pfmon -x, output OUTPUT, and the number of
# those samples: the kernel's share grows with the host's load
# (interrupts charged to the task's clock), what runs in user space is
# the workload's own.  The share reads "none" when SYMBOL has no row.
user_pct() {
	schema_awk -v f="$2" '
		v("record") == "profile" && v("module") != "[kernel]" {
			u += v("value"); if (v("symbol") == f) { n += v("value"); seen = 1 } }
		END { printf "%s %d\n", seen ? sprintf("%.2f", 100 * n / u) : "none", u }' <<<"$1"
}

# split spends 70% of its work in heavy_function and 30% in
# light_function: 7 and 3 times the same loop, called in turn about every
# 0.2 ms, so the split of its CPU time holds however loaded the host is.
# It runs until it has had 3.2 s of user time: at a sample every 100 us
# of the task's clock, 32,000 user samples a run on any machine (sized by
# the samples, not the work: where a sampling interrupt costs 45 us, a
# fixed amount of work sampled every 50 us took ten times as long).  A
# share p of N samples has a standard error of sqrt(p (1 - p) / N); for
# p = 0.7 (or 0.3) and N = 30,000 (the least asked for) the difference of
# two runs has one of sqrt(2 * 0.21 / 30000) = 0.37 points, so 2 points
# are 5.4 of them.
# bats test_tags=timing
@test "stripped split: a row per hot function, split+0xSTART, with the unstripped build's shares within 2 points" {
	objcopy --strip-all "$W/split" "$T/split"
	run -0 readelf -S "$T/split"
	refute_output --partial .symtab

	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 \
		--profile-top=0 "$W/split" -u 3200
	named=$output
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 \
		--profile-top=0 "$T/split" -u 3200
	stripped=$output

	# ?? is left only to code no FDE describes, the few instructions of
	# crtstuff's start-up and exit code: under 1% of the samples (all of
	# the program's were ?? before), not none, as a sample there is
	# possible
	read -r unknown _ <<<"$(user_pct "$stripped" ??)"
	echo "stripped split: the share of ?? in the user samples: $unknown"
	[ "$unknown" = none ] || awk -v p="$unknown" 'BEGIN { exit !(p < 1) }'
	for f in heavy_function light_function; do
		start=$(nm "$W/split" | awk -v f="$f" '$3 == f { print $1 }')
		name=$(printf 'split+0x%x' "0x$start")
		read -r want n1 <<<"$(user_pct "$named" "$f")"
		read -r got n2 <<<"$(user_pct "$stripped" "$name")"
		echo "$f: $want% of $n1 user samples; stripped, $name: $got% of $n2"
		[ "$want" != none ] && [ "$got" != none ]
		[ "$n1" -ge 30000 ] && [ "$n2" -ge 30000 ]
		# the row holds the function's module
		run -0 csv_get "$stripped" module profile symbol="$name"
		assert_output "$T/split"
		awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(d <= 2 && d >= -2) }'
	done
}

@test "Debian's stripped gzip: its functions are gzip+0x... rows, ?? no longer the whole program" {
	gzip=$(readlink -f "$(command -v gzip)")
	run -0 readelf -S "$gzip"
	if [[ $output == *.symtab* ]]; then
		skip "$gzip is not stripped here"
	fi
	seq 1 2000000 >"$T/in"	# 15 MB of text: about a second of deflate
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=100000 \
		--profile-top=0 --resolve-addresses "$gzip" -f "$T/in"
	[ -s "$T/in.gz" ]
	run -0 schema_awk -v m="$gzip" '
		v("record") == "profile" && v("module") == m {
			n += v("value")
			if (v("symbol") == "??") unknown += v("value")
			else if (v("symbol") ~ /^gzip\+0x[0-9a-f]+$/) { rows++; named += v("value") } }
		END { print n + 0, named + 0, rows + 0, unknown + 0 }' <<<"$output"
	read -r total named rows unknown <<<"$output"
	echo "$total gzip samples: $named in $rows gzip+0x... rows, $unknown in ??"
	[ "$total" -ge 1000 ]
	[ "$rows" -ge 3 ]
	# nearly all in those rows (the rest: its PLT stubs, NAME@plt); ??
	# only for code no FDE describes: the few instructions of crtstuff's
	# start-up and exit code (a sample there is possible, not likely)
	[ $((100 * named)) -ge $((95 * total)) ]
	[ $((100 * unknown)) -lt "$total" ]
}
