#!/bin/bash
# Cross-build perfmon.ko, its three sampling formats and the module suite's
# test format for arm64 (`make ARCH=arm64` runs it), all under build/arm64:
#
#   build/arm64/kdir/  Debian's linux-headers-RELEASE-arm64 and the
#                      linux-headers-RELEASE-common it includes, fetched
#                      with apt-get download and unpacked once (a cache);
#                      their scripts/ and tools/ links resolve to the
#                      host's linux-kbuild-6.1, whose programs run here
#   build/arm64/src/   copies of kernel/, formats/ and tests/module/fmt_noset
#                      (sources only), built there: the tree's own kernel/
#                      and formats/ keep the native build's objects.  A
#                      file is copied only when it changed, so kbuild
#                      rebuilds only what changed.
#
# RELEASE is the native guest's (scripts/vm/lib.sh, vm_kernel_release):
# both guests run the same kernel version.  Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
VM_ARCH=arm64
. scripts/vm/lib.sh

kver=$(vm_kernel_release)
kdir_root=build/arm64/kdir
kdir=$kdir_root/usr/src/linux-headers-$kver
src=build/arm64/src

# the headers, once
if [ ! -f "$kdir_root/.done-$kver" ]; then
	vm_log "fetching linux-headers-$kver and linux-headers-${kver%-arm64}-common"
	rm -rf "$kdir_root" "$kdir_root.debs"
	vm_apt_download "$kdir_root.debs" "linux-headers-$kver" "linux-headers-${kver%-arm64}-common"
	for deb in "$kdir_root.debs"/*.deb; do
		dpkg-deb -x "$deb" "$kdir_root"
	done
	rm -rf "$kdir_root.debs"
	# the packages' relative scripts/tools links point at
	# usr/lib/linux-kbuild-6.1 beside them: the host's; the arm64
	# Makefile includes the common tree by its installed path: this one
	mkdir -p "$kdir_root/usr/lib"
	kbuild=$(readlink "$kdir/scripts")
	kbuild=${kbuild%/scripts}
	kbuild=/usr/lib/${kbuild##*/}
	[ -d "$kbuild" ] || { vm_log "$kbuild is missing: install it (scripts/install-deps.sh)"; exit 1; }
	ln -sfn "$kbuild" "$kdir_root/usr/lib/${kbuild##*/}"
	echo "include $PWD/$kdir_root/usr/src/linux-headers-${kver%-arm64}-common/Makefile" > "$kdir/Makefile"
	touch "$kdir_root/.done-$kver"
fi

# sync DIR...: copy each source file of DIR that changed into $src;
# "changed" counts them
changed=0
sync_sources() {
	local f
	while IFS= read -r f; do
		mkdir -p "$src/$(dirname "$f")"
		cmp -s "$f" "$src/$f" && continue
		cp "$f" "$src/$f"
		changed=$((changed + 1))
	done < <(find "$@" -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) \
		! -name '*.mod.c')
}
sync_sources kernel formats tests/module/fmt_noset
# nothing changed since the last build that succeeded: nothing to do
# (kbuild's own no-op run takes seconds: modpost runs every time)
stamp=$src/.built-$kver
[ "$changed" -eq 0 ] && [ -f "$stamp" ] && exit 0
rm -f "$stamp"

# kbuild, quiet but for what matters: there is no vmlinux to take BTF from
kmake() {
	make -s ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@" \
		> >(grep -v 'Skipping BTF generation' >&2) 2>&1
}
kmake -C "$src/kernel" KDIR="$PWD/$kdir"
kmake -C "$kdir" M="$PWD/$src/tests/module/fmt_noset" \
	KBUILD_EXTRA_SYMBOLS="$PWD/$src/kernel/Module.symvers" modules
touch "$stamp"
