#!/usr/bin/env bats
# pfmon-report --diff: two groups of sampling runs of the shift workload,
# which moves ten points of the time from moving_from to moving_to (50%
# and 20% in the base runs, 40% and 30% in the new ones) and leaves
# steady at 30%: the diff finds that move, significant, and nothing else;
# in text, CSV and JSON; per stack from folded stacks, with their
# differential flame graph checked in headless Chromium; and refuses what
# it cannot compare.

bats_require_minimum_version 1.5.0

setup_file() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	BIN=$(cd "$ROOT" && realpath "${PX_BIN:-build/bin}")
	D=$BATS_FILE_TMPDIR
	mkdir -p "$D/base" "$D/new" "$D/fbase" "$D/fnew"
	# five runs a side, some 3,500 samples each: the moved shares' p
	# comes out near 1e-8, far below the report's 0.001 / functions; each
	# run's call chains as folded stacks too.  User time alone (:u): the
	# kernel's share, the interrupts charged to the task's clock, grows
	# and varies with the host's load (2 to 7% a run beside a busy qemu,
	# more in a run that failed), which spread the runs' shares until the
	# move was no longer significant
	for i in 1 2 3 4 5; do
		for side in base new; do
			pct=50
			[ $side = new ] && pct=40
			"$BIN/pfmon" --json --profile-top=0 -e cpu-clock:u \
				--long-smpl-periods=100000 --outfile="$D/$side/run$i.json" \
				--call-graph=fp --folded="$D/f$side/run$i.folded" \
				"$ROOT/build/tests/workloads/shift" 3000 $pct >/dev/null
		done
	done
	export D
}

setup() {
	load helpers
	REPORT=$BIN/pfmon-report
}

@test "--diff finds the ten points moved from moving_from to moving_to, and nothing else significant" {
	run -0 --separate-stderr "$REPORT" --diff --json --top=0 "$D/base" "$D/new"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert (d["schema"], d["tool"], d["kind"], len(d["base"]), len(d["new"])) == (3, "pfmon-report", "diff", 5, 5), d
rows = {r["symbol"]: r for r in d["diff"]}
sig = sorted(r["symbol"] for r in d["diff"] if r["status"] == "significant")
assert sig == ["moving_from", "moving_to"], sig
for name, base, change in (("moving_from", 50, -10), ("moving_to", 20, 10)):
    r = rows[name]
    assert abs(r["base_pct"] - base) < 3 and abs(r["change_pct"] - change) < 3, r
    assert abs(r["share_pct"] - r["base_pct"] - r["change_pct"]) < 0.02, r
    assert r["p_value"] < d["alpha"] / d["tested"], r
assert rows["steady"]["status"] == "not significant", rows["steady"]
assert abs(rows["steady"]["change_pct"]) < 2, rows["steady"]
# most significant first
assert [r["symbol"] for r in d["diff"][:2]] in (["moving_from", "moving_to"], ["moving_to", "moving_from"]), d["diff"][:3]
' "$output"
}

@test "--diff in text and CSV: the same rows, the module by its file name in text" {
	run -0 --separate-stderr "$REPORT" --diff --top=3 "$D/base" "$D/new"
	assert_line --regexp '^# significant: p < 0.001 / [0-9]+ functions tested$'
	assert_line --regexp '^cpu-clock:u +[0-9.]+ +[0-9.]+ +-[0-9.]+ +[0-9.e-]+ +significant +moving_from +shift$'
	assert_line --regexp '^cpu-clock:u +[0-9.]+ +[0-9.]+ +\+[0-9.]+ +[0-9.e-]+ +significant +moving_to +shift$'
	assert_line --regexp '^# [0-9]+ more \(--top=0: all\)$'
	run -0 --separate-stderr "$REPORT" --diff -x, --top=0 "$D/base" "$D/new"
	run -0 schema_awk 'v("record") == "diff" && v("status") == "significant" { print v("symbol") }' <<<"$output"
	assert_equal "$(sort <<<"$output" | tr '\n' ' ')" "moving_from moving_to "
}

@test "--diff takes single reports as well as folders" {
	run -0 --separate-stderr "$REPORT" --diff --json "$D/base/run1.json" "$D/new/run1.json"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert (len(d["base"]), len(d["new"])) == (1, 1), d
# one run a side: shares, no test
assert all(r["status"] == "not tested" and r["p_value"] is None for r in d["diff"]), d["diff"][:2]
' "$output"
}

@test "--diff of folded stacks: per stack, and a differential flame graph red where the share grew, blue where it shrank" {
	local svg=$BATS_TEST_TMPDIR/diff.svg
	run -0 --separate-stderr "$REPORT" --diff --json --top=0 --flamegraph="$svg" "$D/fbase" "$D/fnew"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
sig = sorted(r["symbol"].split(";")[-1] for r in d["diff"] if r["status"] == "significant")
assert sig == ["moving_from", "moving_to"], [(r["symbol"], r["p_value"]) for r in d["diff"][:4]]
assert all(r["name"] == "stacks" for r in d["diff"]), d["diff"][0]
' "$output"
	# the boxes: moving_to grew (red), moving_from shrank (blue), steady
	# held (near white); widths from the new runs
	python3 -c '
import re, sys
svg = open(sys.argv[1]).read()
box = {}
for g in re.finditer(r"<g class=\"f\"[^>]*data-change=\"([-+0-9.]+)\"><title>([^<(]+) \(", svg):
    rest = svg[g.end():svg.index("</g>", g.end())]
    fill = re.search(r"fill=\"rgb\((\d+),(\d+),(\d+)\)\"", rest).groups()
    box[g.group(2)] = (float(g.group(1)), tuple(map(int, fill)))
c, (r, _, b) = box["moving_to"]
assert 7 < c < 13 and r == 250 and b < 100, box["moving_to"]
c, (r, _, b) = box["moving_from"]
assert -13 < c < -7 and b == 250 and r < 100, box["moving_from"]
c, (r, gr, b) = box["steady"]
assert abs(c) < 2 and min(r, gr, b) > 200, box["steady"]
' "$svg"
	# in headless Chromium: moving_to's box with the new runs' samples under
	# it, its title, hover, zoom and search
	n=$(cat "$D"/fnew/*.folded | awk '{ s = $0; sub(/ [0-9]+$/, "", s) }
		s == "__libc_start_call_main;moving_to" || index(s, "__libc_start_call_main;moving_to;") == 1 { t += $NF }
		END { print t }')
	run -0 "$ROOT/tests/cli/flamegraph_render.py" "$svg" moving_to "$n" "$BATS_TEST_TMPDIR/render"
	run -1 --separate-stderr "$REPORT" --diff --flamegraph="$svg.2" "$D/base" "$D/new"
	assert_regex "$stderr" "is not folded stacks: --flamegraph with --diff draws pfmon --folded files"
	[ ! -e "$svg.2" ]
	run -2 --separate-stderr "$REPORT" --flamegraph="$svg.3" "$D/base/run1.json"
	assert_regex "$stderr" "--flamegraph draws a --diff"
}

@test "--diff refuses what it cannot compare, saying why" {
	run -2 --separate-stderr "$REPORT" --diff "$D/base"
	assert_regex "$stderr" "two groups: pfmon-report --diff BASE NEW"
	mkdir "$BATS_TEST_TMPDIR/empty"
	run -1 --separate-stderr "$REPORT" --diff "$D/base" "$BATS_TEST_TMPDIR/empty"
	assert_regex "$stderr" "has no report"
	"$PERFEX" -e page-faults --json -o "$BATS_TEST_TMPDIR/counts.json" true
	run -1 --separate-stderr "$REPORT" --diff "$D/base" "$BATS_TEST_TMPDIR/counts.json"
	assert_regex "$stderr" "counts.json is a perfex counts report: --diff compares pfmon's sampling reports"
	"$BIN/pfmon" --json -e task-clock --long-smpl-periods=1000000 \
		--outfile="$BATS_TEST_TMPDIR/other.json" "$W/shift" 100 >/dev/null
	run -1 --separate-stderr "$REPORT" --diff -o "$BATS_TEST_TMPDIR/out" "$D/base" "$BATS_TEST_TMPDIR/other.json"
	assert_regex "$stderr" "compare runs of the same events"
	[ ! -e "$BATS_TEST_TMPDIR/out" ]
	printf 'main;work 3\nmain;idle\n' > "$BATS_TEST_TMPDIR/bad.folded"
	run -1 --separate-stderr "$REPORT" --diff "$D/fbase" "$BATS_TEST_TMPDIR/bad.folded"
	assert_regex "$stderr" "bad.folded:2: not a folded stack \\(frame;frame;... COUNT\\)"
}
