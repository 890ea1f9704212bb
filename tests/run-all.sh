#!/bin/bash
# shellcheck disable=SC2119,SC2120  # the suites are also called by name, with "$@"
# Run the test suites: the C unit tests, the bats CLI suite, the package
# suite (the Debian packages built, installed and checked, DKMS included)
# and, when it exists, the module suite in a VM (scripts/vm-test.sh), then
# the hardware-counter suite and the module suite in the arm64 VM.
#
#   tests/run-all.sh                   every suite (what `make check` runs)
#   tests/run-all.sh unit [TEST...]    the unit tests (all, or test_x ...)
#   tests/run-all.sh cli [BATS...]     the bats suite (tests/cli, or files)
#   tests/run-all.sh san [BATS...]     the unit and CLI suites against the
#                                      sanitizers' build (build/san)
#   tests/run-all.sh fuzz              the fuzzers (tests/fuzz) built with
#                                      clang and their corpora and past
#                                      findings replayed (scripts/fuzz.sh)
#   tests/run-all.sh package [BATS...] the package suite (tests/package)
#   tests/run-all.sh module            the module suite in the x86-64 guest
#   tests/run-all.sh hw-arm64          the hardware-counter suite (tests/hw)
#                                      in the arm64 guest, both backends
#   tests/run-all.sh module-arm64      the module suite in the arm64 guest
#                                      (its tests not tagged breakpoint,
#                                      x86 or nopmu: docs/arm64.md)
#   tests/run-all.sh module-6.12 | hw-arm64-6.12 | module-arm64-6.12
#                                      the same three in guests booted with
#                                      Debian 12's Linux 6.12
#   tests/run-all.sh hw [BATS...]      the hardware-counter suite on this
#                                      machine's own PMU (`make check-hw`)
#
# PFM_VM_TESTS="NAME ..." runs only those files (.bats, without the
# suffix) of a guest's suite.
#
# Every suite runs one after the other, except in `make check`: there the
# unit tests, the fuzzers' replay and the CLI suite run alone (the CLI
# suite times and counts things on the host), then two lanes side by
# side: the sanitizers' suites, the package suite and the x86-64 guests
# (6.1, 6.12) in one, the four arm64 guests (hardware and module suites,
# 6.1 and 6.12) in the other, which builds `make ARCH=arm64` alone.  Each suite's TAP output is
# shown as it runs (a lane's when the lane ends), under a line
# "# ---- NAME: COMMAND", and its time after it; make check then prints
# each suite's time and the ten slowest tests.  The last line is the sum
# over the suites run:
#   N passed, N failed[, N skipped]
# and the exit status is non-zero when anything failed.
#
# Time limits, in seconds (set in the environment to change them):
#   UNIT_TEST_TIMEOUT=300   each unit test binary (timeout(1)); a binary
#                           that runs longer fails by name
#   BATS_TEST_TIMEOUT=120   each bats test: bats fails it as "not ok N NAME
#                           # timeout after 120s" and goes on (with the
#                           watchdog in tests/cli/helpers.bash)
#   CLI_SUITE_TIMEOUT=1800  the whole bats run, for what no test's limit
#                           covers (setup_file, a process a test left
#                           behind holding bats' output)
#   PACKAGE_SUITE_TIMEOUT=900  the whole package suite (its setup_file
#                           builds both packages)
# The module suite keeps its own limit (vm-test.sh runs qemu under one).
set -u
cd "$(dirname "$0")/.." || exit 1

: "${UNIT_TEST_TIMEOUT:=300}" "${BATS_TEST_TIMEOUT:=120}" "${CLI_SUITE_TIMEOUT:=1800}"
: "${PACKAGE_SUITE_TIMEOUT:=900}"
export BATS_TEST_TIMEOUT

usage() {
	echo "usage: tests/run-all.sh [unit [TEST...] | cli [BATS...] | san [BATS...] | fuzz | package [BATS...] | module[-6.12] | hw-arm64[-6.12] | module-arm64[-6.12] | hw [BATS...]]" >&2
	exit 2
}

log=$(mktemp)
times=$(mktemp)
lanes=$(mktemp -d)
trap 'rm -rf "$log" "$times" "$lanes"' EXIT
# The suites run under timeout(1), in a process group of their own that a
# terminal's Ctrl-C does not reach: limited() passes it on, and we stop
# (the lanes of the guests too).
trap 'echo "# interrupted" >&2; kill $(jobs -p) 2>/dev/null; exit 130' INT TERM HUP

# limited SECONDS CMD...: CMD under timeout(1); its status (124 when it
# ran out of time).  An interrupt ends CMD too.  CMD runs as a background
# job, which would make it ignore SIGINT and SIGQUIT: tests of Ctrl-C need
# the default disposition a terminal gives.
limited() {
	local limit=$1 pid rc
	shift
	env --default-signal=INT,QUIT timeout -k 10 "$limit" "$@" </dev/null &
	pid=$!
	trap 'kill -TERM "$pid" 2>/dev/null' INT TERM HUP
	wait "$pid" 2>/dev/null
	rc=$?
	# a trap ends the wait early: wait again until CMD has gone
	while kill -0 "$pid" 2>/dev/null; do
		wait "$pid" 2>/dev/null
		rc=$?
	done
	return "$rc"
}

# failed_as OUT NAME WHAT: one failed test, "not ok - NAME WHAT", shown
# and added to the suite's output OUT.
failed_as() {
	echo "not ok - $2 $3" | tee -a "$1"
}

# run_suite NAME SECONDS CMD...: show its output, keep its standard output
# (the TAP) for the count.  SECONDS (0: none) is CMD's time limit.  Running
# out of time, reporting fewer tests than its plan, or a failing exit with
# no "not ok" line each count as one failed test, named.  Standard error
# is progress for the reader, never counted.
run_suite() {
	local name=$1 limit=$2 out rc plan results start=$SECONDS
	shift 2
	echo "# ---- $name: $*"
	out=$(mktemp)
	if [ "$limit" -gt 0 ]; then
		limited "$limit" "$@" | tee "$out"
	else
		"$@" | tee "$out"
	fi
	rc=${PIPESTATUS[0]}
	# 124: timeout(1) ended it; 137: it had to be killed after that
	if [ "$limit" -gt 0 ] && { [ "$rc" -eq 124 ] ||
		{ [ "$rc" -eq 137 ] && [ $((SECONDS - start)) -ge "$limit" ]; }; }; then
		failed_as "$out" "$name" "timed out after ${limit}s"
	fi
	plan=$(grep -Em1 '^1\.\.[0-9]+' "$out" | cut -d. -f3)
	plan=${plan%% *}
	results=$(grep -Ec '^(not )?ok [0-9]+' "$out")
	if [ -n "$plan" ] && [ "$results" -lt "$plan" ]; then
		failed_as "$out" "$name" "reported $results of the $plan tests it planned"
	fi
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
		failed_as "$out" "$name" "exited with status $rc and reported no failing test"
	fi
	cat "$out" >>"$log"
	rm -f "$out"
}

# timed SUITE [ARG...]: run one of the *_suite functions below and say
# what it took: what each part of make check costs, for CI's 90 minutes.
timed() {
	local start=$SECONDS
	"${1}_suite" "${@:2}"
	echo "# ---- $1 took $((SECONDS - start)) s"
	echo "$1 $((SECONDS - start))" >>"$times"
}

# lane NAME SUITE...: the suites one after the other in the background,
# their output kept until the lane ends (two lanes' lines would mix).
# The guests run under TCG, a core each: two lanes of them side by side
# take the time of the longer, on these 2-CPU machines.
lane() {
	local name=$1
	shift
	(
		# shellcheck disable=SC2030 # each lane counts into its own log
		log=$lanes/$name.log
		for s; do
			timed "$s"
		done
	) >"$lanes/$name.out" 2>&1 &
}

# lanes_end: wait for every lane, then show each one's output and count
# its tests.
lanes_end() {
	local f
	wait
	for f in "$lanes"/*.out; do
		[ -e "$f" ] || continue
		cat "$f"
		cat "${f%.out}.log" >>"$log" 2>/dev/null
	done
}

# The ten slowest tests of the bats suites run here (bats --timing: "...
# in Nms"), and each suite's time: what to look at first when make check
# grows.
print_costs() {
	echo "# ---- time per suite (s):$(sort -k2 -rn "$times" | awk '{ printf " %s %s,", $1, $2 }' | sed 's/,$//')"
	echo "# ---- the ten slowest tests:"
	sed -nE 's/^((not )?ok [0-9]+ .*) in ([0-9]+)ms$/\3 \1/p' "$log" | sort -rn | head -10 |
		awk '{ ms = $1; $1 = ""; printf "#   %6.1f s %s\n", ms / 1000, substr($0, 2) }'
}

unit_suite() {
	local t tests=()
	if [ $# -eq 0 ]; then
		for t in build/tests/unit/test_*; do
			[ -x "$t" ] && tests+=("$t")
		done
	fi
	for t; do
		case $t in */*) ;; *) t=build/tests/unit/$t ;; esac
		tests+=("$t")
	done
	for t in "${tests[@]}"; do
		run_suite "unit $(basename "$t")" "$UNIT_TEST_TIMEOUT" "$t"
	done
}

# bats_suite NAME SECONDS DIR [BATS...]: the bats files given, or DIR's.
bats_suite() {
	local name=$1 limit=$2 dir=$3
	shift 3
	[ $# -gt 0 ] || set -- "$dir"
	if command -v bats >/dev/null; then
		run_suite "$name" "$limit" bats --timing --formatter tap \
			${BATS_FILTER:+--filter-tags "$BATS_FILTER"} "$@"
	else
		echo "not ok - bats is not installed (scripts/install-deps.sh installs it)" | tee -a "$log"
	fi
}

cli_suite() {
	bats_suite cli "$CLI_SUITE_TIMEOUT" tests/cli "$@"
}

# The fuzzers, built (make fuzzers: clang, the library again with the
# sanitizers), each replaying the inputs kept in the tree.
fuzz_suite() {
	if ! make -s fuzzers >/dev/null; then
		echo "not ok - the fuzzers did not build (make fuzzers; clang: scripts/install-deps.sh)" | tee -a "$log"
		return
	fi
	run_suite "fuzz" 0 scripts/fuzz.sh replay
}

# The library, the front ends and the unit tests built with AddressSanitizer
# and UndefinedBehaviorSanitizer (make SAN=1 sanitized: build/san), the
# unit suite and the CLI suite run against them (the workloads stay the
# plain build's: they are what is measured).  Each report the sanitizers
# write (log_path: a file per report, leaks included) fails as a test of
# its own, whatever the exit status of the run that wrote it: a test that
# expects a tool to fail would otherwise pass on a crash.  Leaks are
# looked for everywhere; suppressions (tests/san.supp) only for a
# system library's own, each explained.
san_suite() {
	local logs r
	if ! make -s SAN=1 sanitized >/dev/null; then
		echo "not ok - the sanitizers' build failed (make SAN=1 sanitized)" | tee -a "$log"
		return
	fi
	# the unit tests find the workloads beside their own folder
	ln -sfn ../../tests/workloads build/san/tests/workloads
	logs=$(mktemp -d)
	# UBSan's reports, with ASan's run-time, go to standard error
	# whatever log_path says: their exit status (86) fails any test
	# that expects another
	export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:exitcode=86"
	export UBSAN_OPTIONS="print_stacktrace=1:exitcode=86"
	export LSAN_OPTIONS="suppressions=$PWD/tests/san.supp:print_suppressions=0"
	for t in build/san/tests/unit/test_*; do
		[ -x "$t" ] && run_suite "san unit $(basename "$t")" "$UNIT_TEST_TIMEOUT" "$t"
	done
	# not the tests tagged timing (a rate, a share or a statistic over
	# many runs: their code paths run in other tests, and the sanitizers'
	# slow-down is all they would add) or repeated (a reader run over a
	# file cut at each of its bytes: the fuzzers replay those readers
	# under ASan in one process, scripts/fuzz.sh)
	PX_BIN=build/san/bin BATS_FILTER='!timing,!repeated' \
		bats_suite "san cli" "$CLI_SUITE_TIMEOUT" tests/cli "$@"
	for r in "$logs"/*; do
		[ -e "$r" ] || continue
		echo "not ok - sanitizer report $(basename "$r"):"
		sed 's/^/# /' "$r"
	done | tee -a "$log"
	unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
	rm -rf "$logs"
}

# The Debian packages: built from a copy of the tree, installed (dpkg -x,
# and dpkg -i for perfmon-dkms, purged after), checked (tests/package).
package_suite() {
	bats_suite package "$PACKAGE_SUITE_TIMEOUT" tests/package "$@"
}

module_suite() {
	run_suite "module suite" 0 bash scripts/vm-test.sh module
}

module_612_suite() {
	run_suite "module-6.12 suite" 0 env VM_KERNEL=6.12 bash scripts/vm-test.sh module
}

# The arm64 guest (qemu-system-aarch64 with an emulated PMUv3): the
# hardware-counter suite, and the module suite on hardware events.  Each
# builds `make ARCH=arm64` first.
hw_arm64_suite() {
	run_suite "hw-arm64 suite" 0 env VM_ARCH=arm64 bash scripts/vm-test.sh hw
}

# Its guest runs some 7 minutes on this 2-CPU machine: the harness's
# 900 s leaves too little room on a slower or busier one.
module_arm64_suite() {
	run_suite "module-arm64 suite" 0 env VM_ARCH=arm64 VM_TIMEOUT="${VM_TIMEOUT:-1800}" \
		bash scripts/vm-test.sh module
}

hw_arm64_612_suite() {
	run_suite "hw-arm64-6.12 suite" 0 env VM_ARCH=arm64 VM_KERNEL=6.12 \
		bash scripts/vm-test.sh hw
}

module_arm64_612_suite() {
	run_suite "module-arm64-6.12 suite" 0 env VM_ARCH=arm64 VM_KERNEL=6.12 \
		VM_TIMEOUT="${VM_TIMEOUT:-1800}" bash scripts/vm-test.sh module
}

# The hardware-counter suite on this machine (make check-hw): perf backend,
# and the module's where /dev/perfmon exists.
hw_suite() {
	bats_suite hw 0 tests/hw "$@"
}

case ${1-} in
"")
	timed unit
	timed fuzz
	timed cli
	# then the rest in two lanes side by side: none times anything on
	# the host (the sanitizers' run leaves the timing tests out, the
	# guests' clocks are their own), and the CLI suite, which does, ran
	# alone
	if [ -e scripts/vm-test.sh ]; then
		lane x86 san package module module_612
		lane arm64 hw_arm64 module_arm64 hw_arm64_612 module_arm64_612
		lanes_end
	else
		timed san
		timed package
	fi
	print_costs
	;;
unit|cli|san|fuzz|package|module|hw|hw-arm64|module-arm64|module-6.12|hw-arm64-6.12|module-arm64-6.12)
	suite=${1//-/_}
	suite=${suite//./}
	shift
	timed "$suite" "$@"
	;;
*)
	usage
	;;
esac

# "ok N ... # skip reason" is a skipped test, not a pass
skipped=$(grep -Eci '^ok\b.*#[[:space:]]*skip' "$log")
okays=$(grep -Ec '^ok\b' "$log")
failed=$(grep -Ec '^not ok\b' "$log")
passed=$((okays - skipped))

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
