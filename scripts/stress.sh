#!/bin/bash
# Run one test suite many times, optionally on a loaded host, and count the
# failures of each test: a test that fails one run in ten is a defect.
#
#   scripts/stress.sh [--load] [--runs N] [--out DIR] unit|cli|module [ARG...]
#
# Each run is `tests/run-all.sh SUITE ARG...` (so the same tests, time
# limits and failure rules as `make check`), e.g.
#   scripts/stress.sh --runs 30 --load cli tests/cli/pfmon.bats
#   scripts/stress.sh --runs 5 unit test_sampler
# --runs N   how many runs (default 10)
# --load     keep two busy loops running on the host meanwhile (ended on
#            exit, Ctrl-C included)
# --out DIR  where each run's output is kept: run-N.tap (standard output,
#            the TAP), run-N.err (standard error) and summary.txt; by
#            default a new directory under /tmp, printed at the start
# The end is, for each test that failed at least once, "FAILS/RUNS name"
# (RUNS: the runs that reported it), then "suite S: R runs, F failures".
# The exit status is non-zero when anything failed.  Build first (make all).
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	echo "usage: scripts/stress.sh [--load] [--runs N] [--out DIR] unit|cli|module [ARG...]" >&2
	exit 2
}

runs=10 load=0 out=
while [ $# -gt 0 ]; do
	case $1 in
	--load) load=1 ;;
	--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
	--runs=*) runs=${1#--runs=} ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	-h|--help) usage ;;
	-*) echo "stress.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage
suite=$1
shift
case $suite in unit|cli|module) ;; *) usage ;; esac
case $runs in ''|*[!0-9]*|0) echo "stress.sh: --runs wants a positive number" >&2; exit 2 ;; esac

if [ -n "$out" ]; then
	mkdir -p "$out" || exit 1
else
	out=$(mktemp -d "/tmp/stress-$suite.XXXXXX") || exit 1
fi

loops=()
stop_load() {
	[ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null
	loops=()
}
interrupted=0
trap stop_load EXIT
trap 'interrupted=1' INT TERM HUP

if [ "$load" -eq 1 ]; then
	for _ in 1 2; do
		while :; do :; done &
		loops+=($!)
	done
fi

echo "# stress: suite $suite${*:+ ($*)}, $runs runs$([ "$load" -eq 1 ] && echo ", host loaded by 2 busy loops")"
echo "# each run's output: $out/run-N.tap (and run-N.err)"

files=()
for ((i = 1; i <= runs; i++)); do
	rc=0
	tests/run-all.sh "$suite" "$@" >"$out/run-$i.tap" 2>"$out/run-$i.err" || rc=$?
	# 130: the run was interrupted (Ctrl-C), its output is partial
	[ "$rc" -eq 130 ] && { interrupted=1; break; }
	files+=("$out/run-$i.tap")
	echo "run $i/$runs: $(tail -n1 "$out/run-$i.tap")"
	awk '/^# ---- / { cur = substr($0, 8); sub(/: .*/, "", cur) }
		/^not ok/ { print "  " cur ": " $0 }' "$out/run-$i.tap"
	# a run that failed with no failing test in its output still counts
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out/run-$i.tap"; then
		echo "not ok - tests/run-all.sh exited with status $rc" | tee -a "$out/run-$i.tap"
	fi
	[ "$interrupted" -eq 0 ] || break
done
stop_load
[ "$interrupted" -eq 1 ] && echo "# interrupted: counting the ${#files[@]} runs that finished"

# Per test: the runs it was reported in, the runs it failed in.  A test is
# named by its suite ("# ---- NAME: COMMAND") and its description, less
# the number and any "# skip"/"# timeout" directive; a line that is the
# suite's own failure ("not ok - NAME WHAT", no number) names itself.
summarise() {
	awk -v suite="$suite" -v nruns="${#files[@]}" '
	FNR == 1 { for (k in seen) { runs[k]++; if (k in bad) fails[k]++ }
		delete seen; delete bad; cur = "" }
	/^# ---- / { cur = substr($0, 8); sub(/: .*/, "", cur); next }
	/^(not )?ok( |$)/ {
		failed = /^not ok/
		line = $0
		sub(/^(not )?ok/, "", line)
		if (line ~ /^ [0-9]+/) {
			sub(/^ [0-9]+( -)? ?/, "", line)
			name = (cur != "" ? cur ": " : "") line
		} else {
			sub(/^ -? ?/, "", line)
			name = line
		}
		sub(/[ \t]+#[ \t]*([Ss][Kk][Ii][Pp]|[Tt][Oo][Dd][Oo]|timeout)([ \t].*)?$/, "", name)
		seen[name] = 1
		if (failed) { bad[name] = 1; total++ }
	}
	END {
		for (k in seen) { runs[k]++; if (k in bad) fails[k]++ }
		for (k in fails) printf "%d/%d %s\n", fails[k], runs[k], k | "sort -t/ -k1,1nr -k2"
		close("sort -t/ -k1,1nr -k2")
		printf "suite %s: %d runs, %d failures\n", suite, nruns, total
		exit (total > 0)
	}' "${files[@]}"
}

status=0
if [ ${#files[@]} -gt 0 ]; then
	summarise | tee "$out/summary.txt"
	status=${PIPESTATUS[0]}
else
	echo "suite $suite: 0 runs, 0 failures" | tee "$out/summary.txt"
fi
echo "# output kept in $out"
[ "$interrupted" -eq 1 ] && exit 130
exit "$status"
