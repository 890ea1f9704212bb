#!/bin/sh
# Build the symbol-resolution workload (tests/workloads/symbols/) into
# OUTDIR (default tests/workloads/symbols/build):
#   symwork          PIE, linked with libsymshared.so, dlopens libsymdl.so
#   symwork-nopie    the same as a fixed-address executable
#   stripped/        the same three files with everything stripped; their
#                    debug information is found through
#                      debug/.build-id/xx/yyyy.debug  (symwork, by build-id)
#                      stripped/.debug/NAME.debug     (the libraries, by debuglink)
#                    and, with no debug file at all (their functions
#                    named from their CFI alone), symwork-nopie stripped
#                    and symwork-debugframe, symwork built with its CFI in
#                    .debug_frame only, stripped of all but that section
# Does nothing when the outputs are newer than the sources.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
src=$here/tests/workloads/symbols
out=${1:-$src/build}
CC=${CC:-cc}
CFLAGS="-O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror"

if [ -f "$out/.done" ]; then
	stale=$(find "$src" -maxdepth 1 \( -name '*.c' -o -name '*.h' \) -newer "$out/.done")
	[ -z "$stale" ] && [ "$0" -ot "$out/.done" ] && exit 0
fi

mkdir -p "$out/stripped/.debug" "$out/debug"
cd "$out"
$CC $CFLAGS -fPIC -shared -Wl,--build-id -o libsymshared.so "$src/symshared.c"
$CC $CFLAGS -fPIC -shared -Wl,--build-id -o libsymdl.so "$src/symdl.c" \
	-L. -lsymshared
$CC $CFLAGS -fPIE -pie -Wl,--build-id -Wl,-rpath,'$ORIGIN' -o symwork \
	"$src/symwork.c" -L. -lsymshared -ldl
$CC $CFLAGS -fno-pie -no-pie -Wl,--build-id -Wl,-rpath,'$ORIGIN' \
	-o symwork-nopie "$src/symwork.c" -L. -lsymshared -ldl
$CC $CFLAGS -fno-asynchronous-unwind-tables -fPIE -pie -Wl,--build-id \
	-Wl,-rpath,'$ORIGIN' -o symwork-debugframe "$src/symwork.c" -L. -lsymshared -ldl

build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'
}

# The executable: debug file by build-id only (no debuglink).
id=$(build_id symwork)
mkdir -p "debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug symwork \
	"debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
objcopy --strip-all symwork stripped/symwork
objcopy --strip-all symwork-nopie stripped/symwork-nopie
objcopy --strip-all --keep-section=.debug_frame symwork-debugframe \
	stripped/symwork-debugframe

# The libraries: debug files by debuglink, in stripped/.debug/.
for lib in libsymshared.so libsymdl.so; do
	objcopy --only-keep-debug "$lib" "stripped/.debug/$lib.debug"
	objcopy --strip-all --add-gnu-debuglink="stripped/.debug/$lib.debug" \
		"$lib" "stripped/$lib"
done
touch .done
