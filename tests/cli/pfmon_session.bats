#!/usr/bin/env bats
# Sampling goes wherever counting goes, through the one session engine:
# an attached task, the session timeout (with and without a command),
# --print-interval while sampling, and Ctrl-C from a terminal.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	T=$(mktemp -d)
}

teardown() {
	px_end_background
	rm -rf "$T"
}

# The task calls counted_function 1000 times, waits while pfmon attaches,
# calls it 5000 times, waits while pfmon gets SIGINT and leaves, then
# calls it 700 times and exits: pfmon samples exactly the 5000.
@test "attach sampling at a uprobe gets exactly the calls made while attached; the task survives detach" {
	stages_start 6 c1000 w c5000 w c700
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" -x, -e "uprobe:$W/stages:counted_function" \
		--long-smpl-periods=1 --smpl-outfile="$T/a.txt"
	stages_go
	stages_wait "wait 2"
	kill -INT "$MON"
	wait "$MON"	# 0: SIGINT ended the session
	# detached and untraced, waiting as before
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$STAGES_PID/status"
	stages_go
	st=0
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 6 ]
	out=$(<"$BATS_TEST_TMPDIR/out")
	echo "$out"
	[ "$(summary "$out" samples)" -eq 5000 ]
	[ "$(summary "$out" lost)" -eq 0 ]
	# every sample is at counted_function, which the profile names
	run -0 csv_get "$out" symbol,value profile position=1
	assert_output "counted_function,5000"
	[ "$(grep -c '^[0-9]' "$T/a.txt")" -eq 5000 ]
}

@test "attach sampling ends with the task" {
	stages_start 3 w 200
	stages_wait "wait 1"
	pfmon_attach "$STAGES_PID" -x, -e cpu-clock --long-smpl-periods=1000000
	stages_go
	wait "$MON"
	st=0
	wait "$STAGES_PID" || st=$?
	[ "$st" -eq 3 ]
	out=$(<"$BATS_TEST_TMPDIR/out")
	# 200 ms of CPU at one sample per ms of it
	n=$(summary "$out" samples)
	echo "samples $n"
	(( n >= 150 && n <= 260 ))
	run -0 csv_get "$out" module profile position=1
	assert_output "$W/stages"
}

@test "attach sampling of a task that does not exist is a clear error" {
	run -1 --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=1000000 --attach-task=999999999
	[[ $stderr == *"cannot attach to task 999999999"* ]]
}

# The command spins until told; the timeout ends the session, pfmon
# reports and leaves, and the command runs on to its own end.
@test "session timeout while sampling a command: pfmon reports, the command runs on" {
	fifo=$T/fifo
	mkfifo "$fifo"
	"$PFMON" -v -x, --session-timeout=1 -e cpu-clock --long-smpl-periods=1000000 \
		-- "$W/stages" "$fifo" 4 s >"$T/out" 2>"$T/err" 3>&- &
	mon=$!
	px_background "$mon"
	wait_for_line "$T/err" '^pfmon: sampling started on task [0-9]+$' "$mon"
	task=$(sed -n 's/^pfmon: sampling started on task \([0-9]*\)$/\1/p' "$T/err")
	px_background "$task"
	wait "$mon"
	out=$(<"$T/out")
	echo "$out"
	(( $(summary "$out" samples) > 100 ))
	# the command was let go and spins on, untraced
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$task/status"
	echo go 1<>"$fifo"
	for _ in $(seq 500); do [ -e "/proc/$task" ] || break; sleep 0.02; done
	[ ! -e "/proc/$task" ]
}

@test "session timeout without a command: system-wide sampling for the time given" {
	start=$(date +%s%N)
	run -0 --separate-stderr "$PFMON" -x, --system-wide --cpu-list=0 --session-timeout=1 \
		-e cpu-clock --long-smpl-periods=1000000
	wall_ms=$((($(date +%s%N) - start) / 1000000))
	n=$(summary "$output" samples)
	l=$(summary "$output" lost)
	echo "samples $n lost $l in $wall_ms ms"
	# the session ran for the timeout; CPU 0's clock overflowed at most
	# once per ms of it.  (Not "at least": the kernel's cpu-clock timer
	# skips the periods it fires late for without a trace, and a starved
	# host got 463 of a second once.)
	(( wall_ms >= 1000 && n > 0 && n + l <= wall_ms ))
	run -0 schema_awk 'v("record") == "profile" { n++ } END { print (n > 0) }' <<<"$output"
	assert_output 1
}

# spin burns 450 ms of its own CPU time, so the run lasts at least that:
# four 100 ms intervals at least, then the last, partial one.
@test "intervals while sampling add up to the summary" {
	run -0 --separate-stderr "$PFMON" -x, --print-interval=100 -e cpu-clock \
		--long-smpl-periods=100000 "$W/spin" 450
	# each interval row gives its change: the changes add up to the total
	read -r n l k < <(schema_awk 'v("record") == "interval" && v("name") == "samples" { n += v("value"); k++ }
		v("record") == "interval" && v("name") == "lost" { l += v("value") }
		END { print n + 0, l + 0, k + 0 }' <<<"$output")
	echo "$k intervals: samples $n lost $l"
	(( k >= 5 ))
	[ "$n" -eq "$(summary "$output" samples)" ]
	[ "$l" -eq "$(summary "$output" lost)" ]
	# and the time it ends, never earlier than the last one's
	csv_get "$output" seconds interval name=samples |
		awk 'NR > 1 && $1 + 0 < last + 0 { bad = 1 } { last = $1 } END { exit bad }'
}

@test "--print-interval while sampling in text and JSON" {
	run -0 --separate-stderr "$PFMON" --print-interval=100 -e cpu-clock \
		--long-smpl-periods=100000 "$W/spin" 250
	assert_line --regexp '^ +[0-9]+\.[0-9]{6} +[0-9]+  samples$'
	run -0 --separate-stderr "$PFMON" --json --print-interval=100 -e cpu-clock \
		--long-smpl-periods=100000 "$W/spin" 250
	run -0 python3 -c 'import json, sys
lines = [json.loads(l) for l in sys.stdin if l.strip()]
assert all(l["schema"] == 3 for l in lines), lines
iv = [l for l in lines if l.get("record") == "interval"]
last = lines[-1]["summary"]
print(sum(l["value"] for l in iv if l["name"] == "samples") == last["samples"], len(iv) >= 4)' <<<"$output"
	assert_output "True True"
}

# A terminal's Ctrl-C: the kernel signals the whole foreground process
# group, pfmon and its command alike; pfmon must not send another, and the
# command must not have it blocked (pfmon reads its own signals from a
# signalfd with them blocked).
@test "Ctrl-C from a terminal under pfmon sampling reaches the command once" {
	run -0 --separate-stderr "$BATS_TEST_DIRNAME/pty_ctrl_c.py" "$PFMON" -e cpu-clock \
		--long-smpl-periods=1000000 -- "$W/sigints"
	assert_output "SIGINT 1 0"
}

@test "Ctrl-C from a terminal under perfex reaches the command once" {
	run -0 --separate-stderr "$BATS_TEST_DIRNAME/pty_ctrl_c.py" "$PERFEX" -e task-clock -- "$W/sigints"
	assert_output "SIGINT 1 0"
}

@test "Ctrl-C from a terminal under pfmon counting reaches the command once" {
	run -0 --separate-stderr "$BATS_TEST_DIRNAME/pty_ctrl_c.py" "$PFMON" -e task-clock -- "$W/sigints"
	assert_output "SIGINT 1 0"
	run -0 --separate-stderr "$BATS_TEST_DIRNAME/pty_ctrl_c.py" "$PFMON" --system-wide \
		--cpu-list=0 -e cpu-clock -- "$W/sigints"
	assert_output "SIGINT 1 0"
}

# A command that does not end on the SIGTERM passed on to it (it ignores
# it, or its sampling interrupts starve it): a second SIGTERM ends the
# session at once with what it has: the counters stopped, the command
# killed, the results printed.  spin would run ten minutes.
@test "a second SIGTERM ends a command that outlived the first at once, with the results so far" {
	local tool opts pid st
	for tool in pfmon perfex; do
		opts=(-x, -e cpu-clock -o "$T/out")
		[ "$tool" = pfmon ] && opts=(-x, -e cpu-clock --long-smpl-periods=1000000 --outfile="$T/out")
		"$BIN/$tool" "${opts[@]}" -- bash -c 'trap "" TERM; exec "$0" 600000' "$W/spin" \
			2>"$T/err" &
		pid=$!
		# the command exec'd spin: its signals are set
		for ((i = 0; i < 600; i++)); do
			pgrep -P "$pid" -x spin >/dev/null && break
			sleep 0.1
		done
		pgrep -P "$pid" -x spin >/dev/null || fail "$tool: the command never started"
		kill -TERM "$pid"
		sleep 0.5
		kill -0 "$pid" || fail "$tool ended on the first SIGTERM, which its command ignores"
		kill -TERM "$pid"
		st=0
		wait "$pid" || st=$?
		cat "$T/err"
		[ "$st" -eq 137 ] || fail "$tool: status $st, not 137 (the command killed by SIGKILL)"
		grep -q "^$tool: the command was killed by signal 9" "$T/err"
		grep -q ',cpu-clock,' "$T/out"
		[ "$tool" = perfex ] || (($(summary "$(<"$T/out")" samples) > 0))
	done
}
