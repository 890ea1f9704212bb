# Shell helpers of the CLI suite (tests/cli) and the module suite
# (tests/module, in the test guests): background processes driven by the
# lines they print, never by durations.  The caller sets W (the
# workloads' folder) and, for pfmon_attach, PFMON or a pfmon in PATH;
# its teardown calls px_end_background.

# Waiting for events instead of durations.  A test that lets a background
# process reach some point (pfmon attached, a workload idle) waits for the
# line that process prints there, never for a time it assumes enough.
#
# px_alive PID: the process exists and has not ended (a zombie has).
px_alive() {
	local stat
	{ read -r stat </proc/"$1"/stat; } 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != [ZX] ]]
}

# px_state PID: the process's state letter (R, S, T, t, Z...).
px_state() {
	local stat
	read -r stat </proc/"$1"/stat || return 1
	stat=${stat##*) }
	echo "${stat%% *}"
}

# wait_for_line FILE ERE [PID [LIMIT]]: until a line of FILE matches ERE.
# Fails, showing FILE, when PID ends without printing it, or after LIMIT
# seconds (default 60; only a bound on a hang, no test relies on it).
wait_for_line() {
	local file=$1 re=$2 pid=${3:-} limit=${4:-60} start=$SECONDS
	until grep -qE -- "$re" "$file" 2>/dev/null; do
		if [[ -n $pid ]] && ! px_alive "$pid"; then
			grep -qE -- "$re" "$file" 2>/dev/null && return 0
			echo "# process $pid ended without printing /$re/ to $file:" >&2
			sed 's/^/#   /' "$file" >&2
			return 1
		fi
		if ((SECONDS - start > limit)); then
			echo "# no line /$re/ in $file after ${limit}s:" >&2
			sed 's/^/#   /' "$file" >&2
			return 1
		fi
		sleep 0.02
	done
}

# Background processes a test starts: px_background PID records one,
# px_end_background (from teardown) kills those still there, so that a
# failed test leaves nothing waiting on a FIFO or holding bats' output.
PX_BACKGROUND=()
px_background() {
	PX_BACKGROUND+=("$@")
}
px_end_background() {
	local p
	for p in "${PX_BACKGROUND[@]}"; do
		px_alive "$p" && kill -KILL "$p" 2>/dev/null
	done
	PX_BACKGROUND=()
	return 0
}

# tests/workloads/stages in the background, driven by the test:
# stages_start STATUS STEP... (STEP: MS of CPU, w: wait, s: spin until
# told) sets STAGES_PID; stages_wait "wait N" (or "spin N") waits until it
# has reached its Nth w or s step; stages_go lets it go on from there.
stages_start() {
	STAGES_FIFO=$BATS_TEST_TMPDIR/stages.fifo
	STAGES_OUT=$BATS_TEST_TMPDIR/stages.out
	rm -f "$STAGES_FIFO" "$STAGES_OUT"
	mkfifo "$STAGES_FIFO"
	"$W/stages" "$STAGES_FIFO" "$@" >"$STAGES_OUT" 3>&- &
	STAGES_PID=$!
	px_background "$STAGES_PID"
}
stages_wait() {
	wait_for_line "$STAGES_OUT" "^$1\$" "$STAGES_PID"
}
stages_go() {
	# opened read-write: never waits for a reader, even one that has ended
	echo go 1<>"$STAGES_FIFO"
}

# pfmon -v --attach-task PID ARG... in the background ($PFMON, default
# the pfmon in PATH), its output in $BATS_TEST_TMPDIR/out and err; sets MON and
# returns once pfmon says it is attached and counting or sampling.
pfmon_attach() {
	local pid=$1
	shift
	"${PFMON:-pfmon}" -v --attach-task "$pid" "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	MON=$!
	px_background "$MON"
	wait_for_line "$BATS_TEST_TMPDIR/err" "^pfmon: (counting|sampling) started on task $pid\$" "$MON"
}
