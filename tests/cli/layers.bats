#!/usr/bin/env bats
# lib/'s layers point one way (scripts/check-layers.py): base <- event <-
# backend <- session <- symbols <- profile <- report <- merge.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "no file of lib/ includes a header of a layer above its own" {
	run -0 "$ROOT/scripts/check-layers.py" "$ROOT"
	[ -z "$output" ]
}

@test "the check names an include that points up, and a folder in no layer" {
	mkdir -p "$BATS_TEST_TMPDIR/lib"
	cp -r "$ROOT/lib/base" "$ROOT/lib/session" "$ROOT/lib/report" "$BATS_TEST_TMPDIR/lib/"
	printf '#include "report.h"\n' >>"$BATS_TEST_TMPDIR/lib/base/grow.c"
	run -1 "$ROOT/scripts/check-layers.py" "$BATS_TEST_TMPDIR"
	[ "$output" = "lib/base/grow.c: includes report.h (report)" ]
	mkdir "$BATS_TEST_TMPDIR/lib/extra"
	: >"$BATS_TEST_TMPDIR/lib/extra/x.c"
	run -1 "$ROOT/scripts/check-layers.py" "$BATS_TEST_TMPDIR"
	[ "$output" = "check-layers: folders of lib/ in no layer: extra" ]
}
