#!/usr/bin/env bats
# Text, CSV and JSON output, read back with real parsers (python3's csv
# and json modules); -o; the listings and -i.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "CSV: python's csv module reads the header and one row per event, metric and elapsed" {
	run -0 "$PERFEX" -o "$BATS_TEST_TMPDIR/out.csv" -x, -e page-faults,task-clock,cycles "$W/touch_pages" 2000
	run -0 python3 - "$BATS_TEST_TMPDIR/out.csv" "$SCHEMA_HEADER" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = sys.argv[2].split(",")
assert rows[0] == head, rows[0]
assert all(len(r) == len(head) for r in rows), rows
rows = [dict(zip(head, r)) for r in rows[1:]]
assert all(r["schema"] == "3" for r in rows), rows
# no launcher: rank 0 of 1 on this host, no job
assert all((r["rank"], r["size"], r["host"]) == ("0", "1", rows[0]["host"]) and r["host"]
           and r["job"] == "" for r in rows), rows
ev = {r["name"]: r for r in rows if r["record"] == "count"}
assert all(r["unit"] == "all" and r["set"] == "0" for r in ev.values()), ev
pf = ev["page-faults"]
assert 2000 <= int(pf["value"]) <= 2100 and pf["value"] == pf["raw"], pf
assert pf["active_pct"] == "100.00" and pf["status"] == "counted" and pf["runs"] == "1", pf
assert float(ev["task-clock"]["value"]) > 0
cy = ev["cycles"]
assert cy["status"] in ("not-supported", "counted"), cy
if cy["status"] == "not-supported":
    assert cy["value"] == "" and cy["runs"] == "", cy
records = [r["record"] for r in rows]
assert records[-1] == "elapsed" and rows[-1]["name"] == "seconds" and float(rows[-1]["value"]) > 0
assert "metric" in records and any(r["name"] == "CPUs-utilized" for r in rows)
print("ok")
PY
	assert_output ok
}

@test "CSV: a separator found in a field quotes it, and the csv module reads it back" {
	run -0 --separate-stderr "$PERFEX" -x: -e perf::PERF_COUNT_SW_PAGE_FAULTS:u true
	run -0 python3 -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1]), delimiter=":"))
ev = [r for r in rows if r["record"] == "count"]
assert ev[0]["name"] == "perf::PERF_COUNT_SW_PAGE_FAULTS:u", ev
assert int(ev[0]["value"]) > 0
print("ok")' "$stderr"
	assert_output ok
	assert_regex "$stderr" '"perf::PERF_COUNT_SW_PAGE_FAULTS:u"'
}

@test "CSV: a multi-character separator" {
	run -0 --separate-stderr "$PERFEX" -x ' | ' -e page-faults true
	assert_regex "$stderr" "^schema \| record \| unit \| pid"
	assert_regex "$stderr" "3 \| count \| all \|  \|  \|  \| 0 \| page-faults \| [0-9]+ \| "
}

@test "CSV with -r: runs, stddev, min and max" {
	run -0 --separate-stderr "$PERFEX" -r 4 -x, -e page-faults "$W/touch_pages" 100
	run -0 python3 -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
pf = [r for r in rows if r["record"] == "count" and r["name"] == "page-faults"][0]
assert pf["runs"] == "4", pf
assert float(pf["min"]) <= float(pf["value"]) <= float(pf["max"]), pf
assert float(pf["stddev"]) >= 0
el = [r for r in rows if r["record"] == "elapsed"][0]
assert el["runs"] == "4" and float(el["min"]) <= float(el["value"]) <= float(el["max"]), el
print("ok")' "$stderr"
	assert_output ok
}

@test "JSON: python's json module reads every key" {
	run -3 "$PERFEX" -o "$BATS_TEST_TMPDIR/out.json" --json -e page-faults,task-clock,cycles "$W/spin" 20 3
	run -0 python3 - "$BATS_TEST_TMPDIR/out.json" "$W/spin" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 3 and d["tool"] == "perfex"
assert d["command"] == [sys.argv[2], "20", "3"], d["command"]
assert d["backend"] == "perf" and d["runs"] == 1 and d["exit_status"] == 3
assert d["elapsed_seconds"] > 0 and d["elapsed_stddev"] == 0
names = [e["name"] for e in d["events"]]
assert names == ["page-faults", "task-clock", "cycles"], names
pf = d["events"][0]
assert pf["encoding"].startswith("perf::PERF_COUNT_SW_PAGE_FAULTS"), pf
assert pf["status"] == "counted" and pf["value"] > 0 and pf["raw"] == pf["value"]
assert pf["set"] == 0 and pf["active_pct"] == 100 and pf["user_only"] is False and pf["runs"] == 1
assert pf["stddev"] == 0 and pf["min"] == pf["max"] == pf["value"]
assert d["events"][1]["value"] >= 20e6
cy = d["events"][2]
assert cy["status"] in ("not-supported", "counted")
if cy["status"] == "not-supported":
    assert cy["value"] is None, cy
m = {x["name"]: x for x in d["metrics"]}
assert "CPUs-utilized" in m and m["CPUs-utilized"]["value"] > 0
assert m["CPUs-utilized"]["description"]
print("ok")
PY
	assert_output ok
}

@test "JSON: the command's arguments are escaped" {
	run -0 "$PERFEX" -o "$BATS_TEST_TMPDIR/out.json" --json -e page-faults \
		true 'quote " back \ tab	nl
end' 'caf'$'\xc3\xa9'
	run -0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["command"] == ["true", "quote \" back \\ tab\tnl\nend", "caf\u00e9"], d["command"]
print("ok")' "$BATS_TEST_TMPDIR/out.json"
	assert_output ok
}

@test "text: one line per event, the elapsed time, the backend" {
	run -0 --separate-stderr "$PERFEX" -e page-faults,task-clock "$W/touch_pages" 10
	assert_regex "$stderr" "perfex: counts for '.*touch_pages 10' \(backend perf\):"
	assert_regex "$stderr" "[0-9]+  page-faults"
	# task-clock in msec, as perf stat prints it
	assert_regex "$stderr" "[0-9]+\.[0-9]{2} msec  task-clock"
	assert_regex "$stderr" "CPUs-utilized +# task-clock per wall-clock time"
	assert_regex "$stderr" "[0-9]+\.[0-9]{9} seconds elapsed"
}

@test "-o writes the results to the file, not to standard error" {
	run -0 --separate-stderr "$PERFEX" -o "$BATS_TEST_TMPDIR/out.txt" -e page-faults echo hi
	assert_output hi
	assert_equal "$stderr" ""
	grep -q "page-faults" "$BATS_TEST_TMPDIR/out.txt"
	# a second run replaces the file
	run -0 "$PERFEX" -o "$BATS_TEST_TMPDIR/out.txt" -x, -e task-clock true
	run -1 grep -q page-faults "$BATS_TEST_TMPDIR/out.txt"
}

@test "-v says which backend runs and how each event is encoded" {
	run -0 --separate-stderr "$PERFEX" -v -e page-faults true
	assert_regex "$stderr" "perfex: backend perf"
	assert_regex "$stderr" "perfex: event page-faults = perf::PERF_COUNT_SW_PAGE_FAULTS"
	run -0 --separate-stderr "$PERFEX" --backend=perf -v -e page-faults true
	assert_regex "$stderr" "perfex: backend perf"
}

@test "the default events: software counted, hardware counted or <not supported>" {
	run -0 --separate-stderr "$PERFEX" -x, true
	for ev in task-clock context-switches cpu-migrations page-faults; do
		assert_regex "$(csv_get "$stderr" value count name=$ev)" "^[0-9]+$"
	done
	for ev in cycles instructions branches branch-misses; do
		assert_regex "$(csv_get "$stderr" value,raw,active_pct,status count name=$ev)" \
			"^(,,,not-supported|[0-9]+,[0-9]+,[0-9.]+,(counted|scaled))$"
	done
}

@test "-l lists names, -L adds descriptions, a pattern filters" {
	run -0 "$PERFEX" -l
	assert_line "perf::PERF_COUNT_SW_PAGE_FAULTS"
	assert_line "perf::PAGE-FAULTS"
	run -0 "$PERFEX" -l fault
	assert_line "perf::PAGE-FAULTS"
	refute_line "perf::PERF_COUNT_SW_TASK_CLOCK"
	run -0 "$PERFEX" -L 'PAGE-FAULTS'
	assert_line "perf::PAGE-FAULTS"
	assert_line --regexp "^	alias of PERF_COUNT_SW_PAGE_FAULTS"
	run -0 "$PERFEX" --list '*CLOCK'
	assert_line "perf::PERF_COUNT_SW_TASK_CLOCK"
	refute_line "perf::PAGE-FAULTS"
}

@test "-i prints backends, PMUs and kernel settings" {
	run -0 "$PERFEX" -i
	assert_line --regexp "^backend-perf +available"
	assert_line --regexp "^backend-auto +(perf|module)"
	assert_line --regexp "^perf_event_paranoid +-?[0-9]+"
	assert_line --regexp "^libpfm4-pmu +perf"
}

@test "--version and --help" {
	run -0 "$PERFEX" --version
	assert_output "perfex $(cat "$ROOT/VERSION")"
	run -0 "$PERFEX" --help
	assert_line --partial "--event=EVENT"
	assert_line --partial "--field-separator=SEP"
	run -0 "$PERFEX" -h
	assert_line --partial "--repeat=N"
}
