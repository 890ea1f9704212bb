#!/usr/bin/env bats
# System-wide sampling names every process: the ones running before the
# session started (their mappings and names read at the start, as perf
# record -a does), the ones started and ended during it (the kernel's
# records), each profile row with its process; --profile-by.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	T=$(mktemp -d)
	BG=
}

teardown() {
	[ -z "$BG" ] || kill "$BG" 2>/dev/null || true
	[ -z "$BG" ] || wait "$BG" 2>/dev/null || true
	rm -rf "$T"
}

# The heavy share (percent of heavy + light) of process split in a
# pfmon -x, profile ($1), and the samples of split counted.
pfmon_split_share() {
	schema_awk 'v("record") == "profile" && v("process") == "split" {
			if (v("symbol") == "heavy_function") h += v("value")
			else if (v("symbol") == "light_function") l += v("value")
		}
		END { if (h + l) printf "%.2f %d\n", 100 * h / (h + l), h + l }' <<<"$1"
}

@test "system-wide: a process started before the session resolves as perf record -a resolves it, and no row of it is ??" {
	# split runs when both sessions start and is gone when they end (their
	# command waits for it), so only what was read at the start names it
	"$W/split" 5000 >/dev/null &
	BG=$!
	until [ "$(cat /proc/$BG/comm 2>/dev/null)" = split ]; do sleep 0.01; done
	# both tools sample the same second of the same machine, at 10 kHz:
	# about 10,000 samples of split each, so the difference of their
	# shares has a standard deviation under 0.7 points (3 is over 4 of it)
	perf record -q -a -e cpu-clock -c 100000 -o "$T/perf.data" -- \
		tail --pid="$BG" -s 0.05 -f /dev/null 2>"$T/perf.err" &
	perf_pid=$!
	run -0 --separate-stderr "$PFMON" -x, --system-wide -e cpu-clock \
		--long-smpl-periods=100000 --profile-top=0 -- tail --pid="$BG" -s 0.05 -f /dev/null
	wait "$perf_pid"
	ours=$(pfmon_split_share "$output")
	theirs=$(perf script -i "$T/perf.data" -F comm,ip,sym 2>/dev/null | awk '
		$1 == "split" && $3 == "heavy_function" { h++ }
		$1 == "split" && $3 == "light_function" { l++ }
		END { if (h + l) printf "%.2f %d\n", 100 * h / (h + l), h + l }')
	echo "pfmon: $ours (heavy %, samples); perf: $theirs"
	[ -n "$ours" ] && [ -n "$theirs" ]
	awk -v a="${ours% *}" -v b="${theirs% *}" -v n="${ours#* }" \
		'BEGIN { d = a - b; exit !(n >= 4000 && d <= 3 && d >= -3) }'
	# every sample of split is in a function of split's
	run -0 csv_get "$output" symbol profile process=split symbol=??
	assert_output ""
}

@test "system-wide: a process started and ended during the session resolves" {
	run -0 --separate-stderr "$PFMON" -x, --system-wide -e cpu-clock \
		--long-smpl-periods=250000 --profile-top=0 -- sh -c "'$W/split' 600 >/dev/null & wait"
	share=$(pfmon_split_share "$output")
	echo "split: $share"
	[ -n "$share" ]
	awk -v a="${share% *}" -v n="${share#* }" 'BEGIN { exit !(n >= 100 && a >= 60 && a <= 80) }'
	run -0 csv_get "$output" symbol profile process=split symbol=??
	assert_output ""
}

@test "system-wide text profile shows each row's process" {
	run -0 --separate-stderr "$PFMON" --system-wide -e cpu-clock \
		--long-smpl-periods=250000 --profile-top=0 -- "$W/split" 400
	assert_line --regexp '^ +samples +% +process +function +module$'
	assert_line --regexp '^ +[0-9]+ +[0-9.]+% +split +heavy_function +split$'
}

@test "--profile-by=comm, pid and cpu rank processes and CPUs" {
	run -0 --separate-stderr "$PFMON" -x, --system-wide --cpu-list=0 -e cpu-clock \
		--long-smpl-periods=250000 --profile-by=comm -- taskset -c 0 "$W/split" 400
	run -0 schema_awk 'v("record") == "profile" && v("symbol") == "split" { print (v("value") + 0 > 100) }' <<<"$output"
	assert_output 1
	run -0 --separate-stderr "$PFMON" -x, -e cpu-clock --long-smpl-periods=250000 \
		--profile-by=pid -- "$W/split" 200
	pid_row=$(csv_get "$output" symbol profile position=1)
	[[ $pid_row =~ ^[0-9]+:split$ ]]
	run -0 --separate-stderr "$PFMON" --json --system-wide --cpu-list=0 -e cpu-clock \
		--long-smpl-periods=250000 --profile-by=cpu -- taskset -c 0 "$W/split" 200
	run -0 python3 -c 'import json, sys
p = json.loads(sys.stdin.read())["profile"][0]
print(p["by"], sorted(e["symbol"] for e in p["entries"]))' <<<"$output"
	assert_output "cpus ['cpu 0']"
}

@test "--profile-by takes a known key, and only with sampling" {
	run -2 "$PFMON" -e cpu-clock --long-smpl-periods=250000 --profile-by=thread true
	assert_output --partial "--profile-by takes function, inlined, line, comm, pid or cpu"
	run -2 "$PFMON" -e cpu-clock --long-smpl-periods=250000 --profile-by=comm --profile-lines true
	assert_output --partial "choose one of --profile-by, --profile-lines and --profile-inlined"
	run -2 "$PFMON" -e cpu-clock --profile-by=comm true
	assert_output --partial "need sampling"
}
