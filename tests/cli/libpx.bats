#!/usr/bin/env bats
# libpx for programs: the examples (examples/), perfex --regions in text,
# CSV and JSON, and the installed library found with pkg-config.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	EX=$ROOT/build/examples
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

@test "count_self counts its own page faults exactly, and says how each counter was read" {
	run -0 "$EX/count_self" task-clock,page-faults 1000
	assert_line --regexp '^page-faults +1000  \(read from read\(2\)\)$'
	assert_line --regexp '^task-clock +[1-9][0-9]*  \(read from read\(2\)\)$'
	run -1 "$EX/count_self" no-such-event
	assert_output --partial "count_self: control: unknown event 'no-such-event'"
}

@test "the markers do nothing outside a measuring run" {
	run -0 --separate-stderr "$EX/regions" 10 2
	assert_output ""
	assert_equal "$stderr" ""
}

@test "perfex --regions: per thread and region, calls and each event's sum, min, mean and max per call" {
	run -0 --separate-stderr "$PERFEX" --regions -x, -e page-faults,task-clock "$EX/regions" 30 2
	# the main thread's region: 10 calls of 30 fresh pages
	run -0 schema_awk 'v("record") == "region" && v("name") == "page-faults" {
		print v("symbol"), v("runs"), v("value"), v("min"), v("mean"), v("max"), v("status") }' <<<"$stderr"
	assert_line "touch 10 300 30 30.00 30 counted"
	# each worker thread's, on its own thread id
	[ "$(grep -c '^worker 10 300 30 30.00 30 counted$' <<<"$output")" = 2 ]
	run -0 schema_awk 'v("record") == "region" && v("symbol") == "worker" { print v("tid") }' <<<"$stderr"
	[ "$(sort -u <<<"$output" | wc -l)" = 2 ]
	# the command's own counts follow, and the elapsed row ends the file
	run -0 schema_awk 'v("record") == "count" && v("name") == "page-faults" { print (v("value") >= 900) }' <<<"$stderr"
	assert_output 1
	[ "$(tail -n 1 <<<"$stderr" | cut -d, -f2)" = elapsed ]
}

@test "perfex --regions in text and JSON" {
	run -0 --separate-stderr "$PERFEX" --regions -e page-faults "$EX/regions" 20 1
	assert_regex "$stderr" "# regions of thread [0-9]+"
	assert_regex "$stderr" "touch +10  page-faults +200 +20 +20.00 +20"
	run -0 --separate-stderr "$PERFEX" --regions --json -e page-faults "$EX/regions" 20 1
	python3 - "$stderr" <<'PY'
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines()]
regions = [l for l in lines if l.get("record") == "region"]
doc = lines[-1]
assert doc["schema"] == 3 and doc["tool"] == "perfex", doc
assert {(r["symbol"], r["runs"], r["value"], r["min"], r["max"]) for r in regions} == \
       {("touch", 10, 200, 20, 20), ("worker", 10, 200, 20, 20)}, regions
assert all(r["schema"] == 3 and r["name"] == "page-faults" and r["tid"] > 0 for r in regions), regions
PY
}

@test "perfex --regions over a command without markers says so" {
	run -0 --separate-stderr "$PERFEX" --regions -e page-faults true
	assert_regex "$stderr" "perfex: warning: --regions: the command marked no region"
	assert_regex "$stderr" "page-faults"
}

@test "make install puts libpx where pkg-config finds it, and a program builds and runs with it" {
	make -s -C "$ROOT" install DESTDIR="$T/root" PREFIX=/opt/px >/dev/null
	[ -f "$T/root/opt/px/include/px_counters.h" ] && [ -f "$T/root/opt/px/include/px_region.h" ]
	[ -f "$T/root/opt/px/lib/libpx.a" ] && [ -L "$T/root/opt/px/lib/libpx.so" ]
	run -0 env PKG_CONFIG_SYSROOT_DIR="$T/root" PKG_CONFIG_PATH="$T/root/opt/px/lib/pkgconfig" \
		pkg-config --cflags --libs libpx
	flags=$output
	# shellcheck disable=SC2086  # the flags are words
	cc -DPX_REGIONS -o "$T/regions" "$ROOT/examples/regions.c" $flags -lpthread
	run -0 --separate-stderr env LD_LIBRARY_PATH="$T/root/opt/px/lib" PX_REGIONS_EVENTS=page-faults \
		PX_REGIONS_FORMAT=csv "$T/regions" 5 0
	assert_regex "$stderr" "^schema,record,"
	assert_regex "$stderr" "3,region,,,[0-9]+,,,page-faults,50,"
	# the shared library exports the public API alone
	run -0 sh -c "nm -D --defined-only '$T/root/opt/px/lib/libpx.so.0' | awk '\$2 == \"T\" { print \$3 }' | sort"
	refute_line --regexp '^px_(event|fail|row|perf)'
	assert_line px_region_begin
	assert_line px_counters_read
}
