# Shared set-up of the module suite (runs inside the test guest, as root).
# The guest's /opt/pfm/env sets PFM_MODULE, PFM_WORKLOADS,
# PFM_COUNTED_FUNCTION (calls' counted_function), PFM_FORK_CALLS_FUNCTION
# (fork_calls'), PFM_STAGES_FUNCTION (stages'), PFM_FIRST_FUNCTION and
# PFM_SECOND_FUNCTION (two_calls') and PFM_UNPRIV_UID.

pfm_setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	: "${PFM_WORKLOADS:=/opt/pfm/workloads}"
	: "${PFM_UNPRIV_UID:=1000}"
	W=$PFM_WORKLOADS
	pfm_load_modules
	# for the guest's watchdog (scripts/vm/init): which test runs, since when
	printf '%s %s %s\n%s\n' "$$" "$(date +%s)" "${BATS_SUITE_TEST_NUMBER:-?}" \
		"$BATS_TEST_DESCRIPTION" > /tmp/pfm-test
}

# perfmon.ko and its sampling formats, each unless loaded already.
pfm_load_modules() {
	local f
	[ -e /dev/perfmon ] || insmod "$PFM_MODULE"
	# the suite's unprivileged user opens /dev/perfmon through its group
	echo "${PFM_UNPRIV_UID:-1000}" > /sys/module/perfmon/parameters/dev_gid
	for f in $PFM_FORMATS; do
		grep -q "^$(basename "$f" .ko) " /proc/modules || insmod "$f"
	done
}

# Same address layout every run, so both backends see the same faults.
pfm_no_aslr() {
	echo 0 > /proc/sys/kernel/randomize_va_space
}

# count BACKEND EVENT COMMAND...: perfex's count of EVENT for COMMAND.
count() {
	local backend=$1 event=$2 out
	shift 2
	out=$(mktemp)
	perfex --backend="$backend" -x , -o "$out" -e "$event" "$@" >/dev/null || {
		echo "perfex --backend=$backend -e $event $* failed" >&2
		rm -f "$out"
		return 1
	}
	csv_rows "$out" value record=count name="$event" || {
		rm -f "$out"
		return 1
	}
	rm -f "$out"
}

source "$BATS_TEST_DIRNAME/../lib/schema.bash"

# summary OUTPUT KEY: the value of pfmon -x, 's sampling summary figure
# KEY (record summary, name KEY) in OUTPUT, pfmon's standard output
summary() {
	csv_cell - value record=summary name="$2" <<<"$1"
}

# as_user COMMAND...: run COMMAND as the unprivileged test user.
as_user() {
	runas "$PFM_UNPRIV_UID" "$PFM_UNPRIV_UID" "$@"
}

contexts() {
	cat /sys/class/misc/perfmon/contexts
}
