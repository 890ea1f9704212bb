#!/bin/bash
# The fuzzers of tests/fuzz (libFuzzer; `make fuzzers` builds them into
# build/fuzz):
#
#   scripts/fuzz.sh replay        every input of tests/fuzz/corpus/NAME and
#                                 tests/fuzz/crashes/NAME run once through
#                                 fuzzer NAME; TAP, one test per fuzzer
#                                 (make check)
#   scripts/fuzz.sh run SECONDS   each fuzzer for SECONDS from its corpus
#                                 (a working copy in build/fuzz/corpus);
#                                 a table of executions, coverage and
#                                 findings (make fuzz)
#
# A finding (crash, sanitizer report, leak, timeout) is written to
# build/fuzz/findings/NAME/; to keep it as a regression input, copy it to
# tests/fuzz/crashes/NAME/ once it is fixed (docs/testing.md, "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_B=build/fuzz
names() {
	for f in tests/fuzz/fuzz_*.c; do
		basename "$f" .c | sed 's/^fuzz_//'
	done
}

# the inputs of fuzzer $1 kept in the tree
inputs() {
	local d
	for d in "tests/fuzz/corpus/$1" "tests/fuzz/crashes/$1"; do
		if [ -d "$d" ]; then find "$d" -type f; fi
	done | sort
}

replay() {
	local n=0 name bin out count
	echo "1..$(names | wc -l)"
	for name in $(names); do
		n=$((n + 1))
		bin=$FUZZ_B/fuzz_$name
		count=$(inputs "$name" | wc -l)
		if [ ! -x "$bin" ]; then
			echo "not ok $n fuzz $name: $bin is missing (make fuzzers)"
			continue
		fi
		# each input once; libFuzzer stops at the first that fails
		if out=$(inputs "$name" | xargs -r "$bin" -runs=1 -timeout=10 2>&1); then
			echo "ok $n fuzz $name: its $count inputs replay without a finding"
		else
			echo "not ok $n fuzz $name: an input of its $count fails"
			grep -E 'ERROR|runtime error|Running:|SUMMARY' <<<"$out" | tail -8 | sed 's/^/# /'
		fi
	done
}

run() {
	local seconds=$1 name bin work findings log execs cov ft crashes
	printf '%-10s %12s %10s %8s %8s %9s\n' fuzzer executions "per s" cov ft findings
	for name in $(names); do
		bin=$FUZZ_B/fuzz_$name
		work=$FUZZ_B/corpus/$name
		findings=$FUZZ_B/findings/$name
		log=$FUZZ_B/$name.log
		mkdir -p "$work" "$findings"
		inputs "$name" | xargs -r cp -t "$work"
		# -fork runs on after a finding, each kept in findings/
		"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="$findings/" \
			-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
			"$work" >"$log" 2>&1 || true
		# fork mode's last status line: "#EXECS: cov: C ft: F ..."
		read -r execs cov ft < <(grep -E '^#[0-9]+: cov:' "$log" | tail -1 |
			sed -E 's/^#([0-9]+): cov: ([0-9]+) ft: ([0-9]+).*/\1 \2 \3/' || true)
		crashes=$(find "$findings" -type f | wc -l)
		printf '%-10s %12s %10.0f %8s %8s %9s\n' "$name" "${execs:-0}" \
			"$(awk -v e="${execs:-0}" -v s="$seconds" 'BEGIN { print e / s }')" "${cov:-0}" "${ft:-0}" "$crashes"
	done
	echo "(findings in $FUZZ_B/findings/NAME, logs in $FUZZ_B/NAME.log)"
}

case ${1:-} in
replay) replay ;;
run) run "${2:-60}" ;;
*) echo "usage: scripts/fuzz.sh replay | run SECONDS" >&2; exit 2 ;;
esac
