# Shared set-up of the hardware-counter suite (tests/hw): runs in the arm64
# guest (scripts/vm-test.sh hw, with VM_ARCH=arm64), whose emulated PMUv3
# counts, and on any machine with a PMU (`make check-hw`).
#
# The backends each test runs on: PFM_HW_BACKENDS (the guest sets "perf
# module"); by default perf, and module too when /dev/perfmon exists.  A
# backend named there that cannot run fails the test: nothing is skipped.
#
# The guest (scripts/vm/lib.sh writes its /opt/pfm/env) also sets:
#   PFM_HW_EXACT=1       counts are deterministic (qemu -icount): the
#                        assertions are exact where a real PMU's are held
#                        to a tolerance (interrupts at user level add an
#                        instruction now and then on real CPUs), and
#                        cycles equal instructions
#   PFM_HW_ONE_CPU=1     take every CPU but 0 offline for the suite: under
#                        -icount qemu keeps one instruction count for all
#                        vCPUs, so a counter on one vCPU also counts what
#                        another runs meanwhile (a process reading the
#                        test's output: thousands of instructions)
#   PFM_HW_FORCE_PMU=arm_ac57  libpfm4 has no table for qemu's "max" CPU:
#                        the architected PMUv3 events (INST_RETIRED 0x08,
#                        CPU_CYCLES 0x11) are named with the Cortex-A57's

hw_setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	if [ -z "${PFM_HW_BACKENDS:-}" ]; then
		# on the host: the native build's programs
		local top
		top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
		PATH=$top/build/bin:$top/build/tests/hw:$top/build/tests/module:$PATH
		PFM_HW_BACKENDS=perf
		[ -e /dev/perfmon ] && PFM_HW_BACKENDS="perf module"
	fi
	[ -z "${PFM_MODULE:-}" ] || [ -e /dev/perfmon ] || insmod "$PFM_MODULE"
	[ "${PFM_HW_ONE_CPU:-}" != 1 ] || hw_one_cpu
	T=$(mktemp -d)
	# for the guest's watchdog (scripts/vm/init): which test runs, since when
	printf '%s %s %s\n%s\n' "$$" "$(date +%s)" "${BATS_SUITE_TEST_NUMBER:-?}" \
		"$BATS_TEST_DESCRIPTION" > /tmp/pfm-test
	hw_arch_events
}

hw_teardown() {
	rm -rf "$T"
}

# every CPU but 0 offline (the guest's PFM_HW_ONE_CPU)
hw_one_cpu() {
	local c
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -e "$c" ] || continue
		[ "$(cat "$c")" = 0 ] || echo 0 > "$c"
	done
}

# near GOT WANT [PCT]: GOT is WANT, exactly where counts are exact
# (PFM_HW_EXACT), else within PCT percent (default: 0.01%, at least 100:
# a real CPU counts an interrupt's return at user level now and then).
# Says what it compared when it fails.
near() {
	local got=$1 want=$2 pct=${3:-} tol
	if [ "${PFM_HW_EXACT:-}" = 1 ] && [ -z "$pct" ]; then
		tol=0
	elif [ -z "$pct" ]; then
		tol=$((want / 10000))
		[ "$tol" -ge 100 ] || tol=100
	else
		tol=$(awk -v w="$want" -v p="$pct" 'BEGIN { printf "%d", w * p / 100 }')
	fi
	local d=$((got - want))
	[ "${d#-}" -le "$tol" ] || {
		echo "got $got, want $want (within $tol)" >&2
		return 1
	}
}

# Per architecture: the exact instruction count of `nops N` (tests/hw/nops.S)
# and the raw codes of instructions retired and cycles.
hw_arch_events() {
	case $(uname -m) in
	aarch64)
		RAW_INSTRUCTIONS=r08	# INST_RETIRED
		RAW_CYCLES=r11		# CPU_CYCLES
		;;
	x86_64)
		RAW_INSTRUCTIONS=r00c0	# INST_RETIRED.ANY_P (Intel), RETIRED_INSTRUCTIONS (AMD)
		if grep -q AuthenticAMD /proc/cpuinfo; then
			RAW_CYCLES=r0076	# CPU_CLK_UNHALTED (AMD)
		else
			RAW_CYCLES=r003c	# CPU_CLK_UNHALTED.THREAD_P (Intel)
		fi
		;;
	esac
}

# The names libpfm4 gives instructions retired and cycles on this
# machine's PMU (PMU_INSTRUCTIONS, PMU_CYCLES), the first of its known
# spellings that `perfex -l` lists (with_pmu: under PFM_HW_FORCE_PMU).
# Fails when it lists none: a PMU this suite does not know yet.
hw_pmu_names() {
	local list
	list=$(with_pmu perfex -l) || return 1
	PMU_INSTRUCTIONS=$(grep -v '^perf' <<<"$list" |
		grep -Em1 '::(INST_RETIRED|INST_RETIRED:ANY_P|RETIRED_INSTRUCTIONS)$') || {
		echo "libpfm4 lists no instructions-retired event of this PMU" >&2
		return 1
	}
	PMU_CYCLES=$(grep -v '^perf' <<<"$list" |
		grep -Em1 '::(CPU_CYCLES|UNHALTED_CORE_CYCLES|CYCLES_NOT_IN_HALT)$') || {
		echo "libpfm4 lists no cycles event of this PMU" >&2
		return 1
	}
}

# with_pmu COMMAND...: COMMAND with LIBPFM_FORCE_PMU=$PFM_HW_FORCE_PMU
# when that is set (the tools then look that PMU's names up first, and
# perf's generic names and raw codes after them)
with_pmu() {
	if [ -n "${PFM_HW_FORCE_PMU:-}" ]; then
		LIBPFM_FORCE_PMU=$PFM_HW_FORCE_PMU "$@"
	else
		"$@"
	fi
}

# nops_count N: the instructions `nops N` retires at user level
nops_count() {
	local n=$1 d=${#1}
	case $(uname -m) in
	aarch64) echo $((5 * n + 6 * d + 9)) ;;
	x86_64) echo $((5 * n + 8 * d + 13)) ;;
	esac
}

# ref EVENT COMMAND...: hw_ref's count (plain perf_event_open, enabled at
# exec, never multiplexed)
ref() {
	hw_ref "$@" 2>"$T/ref.err" || {
		cat "$T/ref.err" >&2
		return 1
	}
}

# perfex_csv BACKEND ARGS...: perfex -x, 's CSV (schema 3, docs/schema.md: the
# header, then count, metric and elapsed rows) on standard output; fails
# with perfex
perfex_csv() {
	local backend=$1
	shift
	perfex --backend="$backend" -x , -o "$T/perfex.csv" "$@" >/dev/null 2>"$T/perfex.err" || {
		echo "perfex --backend=$backend $* failed:" >&2
		cat "$T/perfex.err" >&2
		return 1
	}
	cat "$T/perfex.csv"
}

source "$BATS_TEST_DIRNAME/../lib/schema.bash"

# summary CSV KEY: the value of pfmon's sampling summary figure KEY
# (record summary, name KEY) in the file CSV
summary() {
	csv_cell "$1" value record=summary name="$2"
}

# perfex_value BACKEND EVENT COMMAND...: perfex's count of EVENT
perfex_value() {
	local backend=$1 event=$2
	shift 2
	perfex_csv "$backend" -e "$event" "$@" >"$T/pv.csv" || return 1
	csv_cell "$T/pv.csv" value record=count unit=all name="$event"
}

# pfmon_value BACKEND EVENT COMMAND...: pfmon's total of EVENT
pfmon_value() {
	local backend=$1 event=$2
	shift 2
	pfmon_csv "$backend" -e "$event" "$@" >"$T/pm.csv" || return 1
	csv_cell "$T/pm.csv" value record=count unit=all name="$event"
}

# pfmon_csv BACKEND ARGS...: pfmon -x, 's output (schema 3, docs/schema.md);
# fails with pfmon
pfmon_csv() {
	local backend=$1
	shift
	pfmon --backend="$backend" -x , "$@" >"$T/pfmon.csv" 2>"$T/pfmon.err" || {
		echo "pfmon --backend=$backend $* failed:" >&2
		cat "$T/pfmon.err" >&2
		return 1
	}
	cat "$T/pfmon.csv"
}
