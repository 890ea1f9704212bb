#!/bin/sh
# Build the call-graph workload (tests/workloads/callgraph/) twice into
# OUTDIR (default build/tests/workloads/callgraph):
#   fp/    with frame pointers (-fno-omit-frame-pointer)
#   nofp/  without them (-fomit-frame-pointer): only DWARF unwinds it
# each with cgmain (PIE, linked with libcgshared.so, dlopens libcgdl.so).
# Does nothing when the outputs are newer than the sources.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
src=$here/tests/workloads/callgraph
out=${1:-$here/build/tests/workloads/callgraph}
CC=${CC:-cc}
BASE="-O2 -g -fno-ipa-icf -Wall -Wextra -Werror"

if [ -f "$out/.done" ]; then
	stale=$(find "$src" -newer "$out/.done" -type f)
	[ -z "$stale" ] && [ "$0" -ot "$out/.done" ] && exit 0
fi

build() {
	dir=$out/$1
	flags="$BASE $2"
	mkdir -p "$dir"
	$CC $flags -fPIC -shared -o "$dir/libcgshared.so" "$src/cgshared.c"
	$CC $flags -fPIC -shared -o "$dir/libcgdl.so" "$src/cgdl.c"
	$CC $flags -fPIE -pie -Wl,-rpath,'$ORIGIN' -o "$dir/cgmain" \
		"$src/cgmain.c" -L"$dir" -lcgshared -ldl
}

build fp "-fno-omit-frame-pointer"
build nofp "-fomit-frame-pointer"
touch "$out/.done"
