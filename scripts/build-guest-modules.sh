#!/bin/bash
# Build perfmon.ko, its three sampling formats and the module suite's test
# format for a guest whose kernel is not the one this machine has headers
# installed for: the arm64 guests (`make ARCH=arm64` runs this for 6.1)
# and the 6.12 guests.  VM_ARCH (x86_64, arm64) and VM_KERNEL (6.1, 6.12)
# pick the guest, as for scripts/vm-test.sh; scripts/vm/lib.sh names the
# folders:
#
#   $VM_KDIR_ROOT  Debian's linux-headers-RELEASE, the
#                  linux-headers-...-common it includes and, unless this
#                  machine has it installed, the linux-kbuild package whose
#                  programs (fixdep, modpost) run here: fetched with
#                  apt-get download and unpacked once (a cache)
#   $VM_SRC        copies of kernel/, formats/ and tests/module/fmt_noset
#                  (sources only), built there: the tree's own kernel/ and
#                  formats/ keep the native build's objects.  A file is
#                  copied only when it changed, so kbuild rebuilds only
#                  what changed.
#
# Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vm/lib.sh

[ -n "$VM_KDIR_ROOT" ] || { vm_log "the $VM_ARCH $VM_KERNEL guest builds in place (make -C kernel)"; exit 1; }
kver=$(vm_kernel_release)
kdir_root=$VM_KDIR_ROOT
kdir=$kdir_root/usr/src/linux-headers-$kver
src=$VM_SRC
host_arch=$(dpkg --print-architecture)

# the headers, once
if [ ! -f "$kdir_root/.done-$kver" ]; then
	common=linux-headers-$(vm_kernel_version "$kver")-common
	vm_log "fetching linux-headers-$kver and $common"
	rm -rf "$kdir_root" "$kdir_root.debs"
	vm_apt_download "$kdir_root.debs" "linux-headers-$kver" "$common"
	for deb in "$kdir_root.debs"/*.deb; do
		dpkg-deb -x "$deb" "$kdir_root"
	done
	rm -rf "$kdir_root.debs"
	# the package's relative scripts/tools links point at
	# usr/lib/linux-kbuild-VERSION beside it: this machine's where it
	# is installed (6.1), else the package, fetched for this machine's
	# architecture and unpacked there
	kbuild=$(readlink "$kdir/scripts")
	kbuild=${kbuild%/scripts}
	kbuild=${kbuild##*/}
	mkdir -p "$kdir_root/usr/lib"
	if [ -d "/usr/lib/$kbuild" ]; then
		ln -sfn "/usr/lib/$kbuild" "$kdir_root/usr/lib/$kbuild"
	else
		vm_apt_download "$kdir_root.debs" "$kbuild:$host_arch"
		dpkg-deb -x "$kdir_root.debs"/*.deb "$kdir_root"
		rm -rf "$kdir_root.debs"
	fi
	# the Makefile includes the common tree by its installed path:
	# this one
	echo "include $PWD/$kdir_root/usr/src/$common/Makefile" > "$kdir/Makefile"
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
cross=
[ "$VM_ARCH" = arm64 ] && [ "$(uname -m)" != aarch64 ] && cross=aarch64-linux-gnu-
karch=x86
[ "$VM_ARCH" = arm64 ] && karch=arm64
kmake() {
	make -s ARCH=$karch CROSS_COMPILE=$cross "$@" \
		> >(grep -v 'Skipping BTF generation' >&2) 2>&1
}
kmake -C "$src/kernel" KDIR="$PWD/$kdir"
kmake -C "$kdir" M="$PWD/$src/tests/module/fmt_noset" \
	KBUILD_EXTRA_SYMBOLS="$PWD/$src/kernel/Module.symvers" modules
touch "$stamp"
