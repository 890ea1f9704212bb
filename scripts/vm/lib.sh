# Shared by scripts/vm-test.sh and scripts/bench-module.sh: build
# perfmon.ko against Debian's kernel headers, fetch the matching kernel
# image, assemble an initramfs and boot it under qemu (TCG).  Diagnostics
# go to stderr; callers keep stdout for their results.  Sourced from the
# repository root, with set -eu.
#
# VM_ARCH, set before sourcing, picks the guest:
#   x86_64 (the default)  qemu-system-x86_64, Debian's amd64 kernel, the
#                         host's own binaries; no hardware PMU (TCG has
#                         none): software events carry the tests
#   arm64                 qemu-system-aarch64 -M virt -cpu max, Debian's
#                         arm64 kernel, whose armv8_pmuv3 driver runs the
#                         emulated PMUv3: hardware events count; the tools
#                         are `make ARCH=arm64`'s (build/arm64), the
#                         guest's busybox, bash and libraries are Debian's
#                         arm64 packages, fetched and unpacked, not installed
#
# VM_KERNEL picks the guest's kernel, Debian 12's in both cases:
#   6.1 (the default)     the release of the installed linux-headers-amd64
#   6.12                  the release linux-headers-6.12-amd64 depends on
#                         in the package lists (bookworm-security), its
#                         headers fetched and unpacked, not installed
# Each (VM_ARCH, VM_KERNEL) guest has folders of its own, so two guests
# can run side by side.

VM_ARCH=${VM_ARCH:-x86_64}
VM_KERNEL=${VM_KERNEL:-6.1}
VM_TIMEOUT=${VM_TIMEOUT:-900}

case $VM_KERNEL in
6.1 | 6.12) ;;
*)
	echo "vm: VM_KERNEL must be 6.1 or 6.12, not '$VM_KERNEL'" >&2
	return 1
	;;
esac

# Per architecture: where its outputs go (VM_DIR), where its build is
# (VM_BUILD: bin/, tests/), the tree its modules are built in (VM_SRC),
# where the headers they are built against are unpacked (VM_KDIR_ROOT;
# empty: the installed ones, in place), the compiler, and the libraries
# a dynamic binary may need.
case $VM_ARCH in
x86_64)
	VM_BUILD=build
	VM_CC=cc
	if [ "$VM_KERNEL" = 6.1 ]; then
		VM_DIR=${VM_DIR:-build/vm}
		VM_SRC=.
		VM_KDIR_ROOT=
	else
		VM_DIR=${VM_DIR:-build/vm-$VM_KERNEL}
		VM_SRC=$VM_DIR/src
		VM_KDIR_ROOT=$VM_DIR/kdir
	fi
	;;
arm64)
	VM_BUILD=build/arm64
	if [ "$VM_KERNEL" = 6.1 ]; then
		VM_DIR=${VM_DIR:-build/arm64/vm}
		VM_SRC=build/arm64/src
		VM_KDIR_ROOT=build/arm64/kdir
	else
		VM_DIR=${VM_DIR:-build/arm64/vm-$VM_KERNEL}
		VM_SRC=$VM_DIR/src
		VM_KDIR_ROOT=$VM_DIR/kdir
	fi
	VM_CC=aarch64-linux-gnu-gcc
	[ "$(uname -m)" = aarch64 ] && VM_CC=cc
	# where the libraries of an arm64 binary are found (vm_copy_bin):
	# the build's libpx, the packages unpacked for the guest, then the
	# host's multiarch ones
	VM_LIBPATH="$VM_BUILD/lib $VM_DIR/sysroot/lib/aarch64-linux-gnu
		$VM_DIR/sysroot/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu"
	# the guest's own programs: Debian's arm64 packages, unpacked in
	# $VM_DIR/sysroot (bash needs libtinfo)
	VM_DEBS="busybox-static:arm64 bash:arm64 libtinfo6:arm64"
	;;
*)
	echo "vm: VM_ARCH must be x86_64 or arm64, not '$VM_ARCH'" >&2
	return 1
	;;
esac

vm_log() {
	echo "vm: $*" >&2
}

# The kernel release of the guest's kernel: for 6.1 the installed
# linux-headers-amd64's (e.g. 6.1.0-57-amd64), for 6.12 the one
# linux-headers-6.12-amd64 depends on in the package lists (e.g.
# 6.12.117+deb12-amd64; one apt-get update when they have none); for
# arm64 the same release's arm64 flavour (6.1.0-57-arm64), so both
# architectures run the same kernel version.
vm_kernel_release() {
	local dep
	if [ "$VM_KERNEL" = 6.1 ]; then
		dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
			vm_log "linux-headers-amd64 is not installed: run scripts/install-deps.sh"
			return 1
		}
	else
		dep=$(vm_package_depends "linux-headers-$VM_KERNEL-amd64") || return 1
	fi
	dep=${dep%%[ ,]*}
	dep=${dep#linux-headers-}
	case $VM_ARCH in
	arm64) echo "${dep%-amd64}-arm64" ;;
	*) echo "$dep" ;;
	esac
}

# vm_package_depends PACKAGE: its Depends in the package lists, with one
# apt-get update when they do not have it.
vm_package_depends() {
	local dep
	dep=$(apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p')
	if [ -z "$dep" ]; then
		vm_log "$1 is not in the package lists; running apt-get update"
		apt-get update -qq >&2 </dev/null || true
		dep=$(apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p')
	fi
	[ -n "$dep" ] || { vm_log "$1 is not in Debian's package lists"; return 1; }
	echo "$dep"
}

# The version part of a release, as the -common headers package names
# it: 6.1.0-57-amd64 -> 6.1.0-57, 6.12.117+deb12-arm64 -> 6.12.117+deb12.
vm_kernel_version() {
	echo "${1%-*}"
}

# vm_apt_download DIR PACKAGE...: the packages' .deb files into DIR
# (apt-get download, which installs nothing), with one apt-get update
# when the package lists are stale or missing.
vm_apt_download() {
	local dir=$1
	shift
	mkdir -p "$dir"
	if ! (cd "$dir" && apt-get download "$@" >&2 </dev/null); then
		vm_log "apt-get download failed; running apt-get update"
		apt-get update -qq >&2 </dev/null || true
		(cd "$dir" && apt-get download "$@" >&2 </dev/null) || {
			vm_log "apt-get download $* failed"
			return 1
		}
	fi
}

vm_build_module() {
	local kver=$1
	local kdir
	if [ "$VM_ARCH" = arm64 ]; then
		vm_log "building the arm64 tools"
		make -s ARCH=arm64 all >&2 || return 1
	fi
	if [ -n "$VM_KDIR_ROOT" ]; then
		# copies of the sources under $VM_SRC, against the fetched
		# headers, with fmt_noset
		vm_log "building perfmon.ko and its formats against $kver"
		scripts/build-guest-modules.sh >&2
		return
	fi
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || { vm_log "no $kdir"; return 1; }
	vm_log "building perfmon.ko and its formats against $kver"
	make -s -C kernel KDIR="$kdir" >&2 &&
	make -s -C "$kdir" M="$PWD/tests/module/fmt_noset" \
		KBUILD_EXTRA_SYMBOLS="$PWD/kernel/Module.symvers" modules >&2
}

# The modules the guest loads, in order: the core, then its formats.
VM_MODULES="$VM_SRC/kernel/perfmon.ko $VM_SRC/formats/default/kernel/perfmon_dfl.ko
	$VM_SRC/formats/double-buffer/kernel/perfmon_dbl.ko
	$VM_SRC/formats/callchain/kernel/perfmon_cc.ko"

# The workloads of tests/module/: cc_nest, the call-chain tests' nest of
# calls, with frame pointers and no inlining, static so that its frames
# and their symbols are its own whatever the guest's libc.
VM_WORKLOADS="cc_nest"

# Build the workloads of tests/module/ into $VM_DIR/bin (x86-64 only:
# cc_nest's system calls are x86 asm, and so are the tests that use it).
# The C helpers (pfm_test and the others) are built by `make all`, into
# $VM_BUILD/tests/module.
vm_build_helpers() {
	local h
	mkdir -p "$VM_DIR/bin"
	[ "$VM_ARCH" = x86_64 ] || return 0
	for h in $VM_WORKLOADS; do
		$VM_CC -O1 -g -fno-omit-frame-pointer -fno-inline -static -Wall -Wextra \
			-Werror -o "$VM_DIR/bin/$h" "tests/module/$h.c" >&2
	done
}

# Unpack the kernel image package once; print the vmlinuz path.  The
# arm64 package is Debian's -unsigned one (the signed one is for secure
# boot and has the same kernel).
vm_fetch_kernel() {
	local kver=$1
	local dir vmlinuz pkg=linux-image-$1
	[ "$VM_ARCH" = arm64 ] && pkg=$pkg-unsigned
	dir=$VM_DIR/linux-image-$kver
	vmlinuz=$dir/boot/vmlinuz-$kver
	if [ ! -f "$vmlinuz" ]; then
		vm_log "fetching $pkg"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		vm_apt_download "$dir.tmp" "$pkg" || return 1
		dpkg-deb -x "$dir.tmp"/linux-image-*.deb "$dir.tmp/root"
		rm -rf "$dir" && mv "$dir.tmp/root" "$dir" && rm -rf "$dir.tmp"
	fi
	echo "$vmlinuz"
}

# arm64: unpack the guest's own programs (VM_DEBS) once into
# $VM_DIR/sysroot.
vm_fetch_sysroot() {
	local dir=$VM_DIR/sysroot deb
	[ -n "${VM_DEBS:-}" ] || return 0
	[ -f "$dir/.done" ] && return 0
	vm_log "fetching $VM_DEBS"
	rm -rf "$dir" "$dir.debs"
	# shellcheck disable=SC2086 # a list of package names
	vm_apt_download "$dir.debs" $VM_DEBS || return 1
	for deb in "$dir.debs"/*.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
	rm -rf "$dir.debs"
	touch "$dir/.done"
}

# Copy a file with its parent directories under $root.
vm_copy() {
	local root=$1 f=$2
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
}

# Copy an executable and every shared library it needs.
vm_copy_bin() {
	local root=$1 bin=$2 dest=${3:-$2} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$bin" "$root$dest"
	if [ "$VM_ARCH" != x86_64 ]; then
		vm_copy_needed "$root" "$bin"
		return
	fi
	for lib in $(ldd "$bin" 2>/dev/null | awk '/=> \//{print $3} /^\t\//{print $1}'); do
		[ -e "$root$lib" ] || vm_copy "$root" "$lib"
	done
}

# vm_copy_needed ROOT ELF: a foreign binary's libraries, which ldd cannot
# run: each DT_NEEDED name (readelf -d) found in VM_LIBPATH and copied to
# /lib/aarch64-linux-gnu of the guest, then its own, recursively; the
# program interpreter (readelf -l) to the path the binary names.
vm_copy_needed() {
	local root=$1 elf=$2 name dir found interp
	interp=$(readelf -lW "$elf" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "/usr/lib/aarch64-linux-gnu/$(basename "$interp")" "$root$interp"
	fi
	for name in $(readelf -dW "$elf" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$root/lib/aarch64-linux-gnu/$name" ] && continue
		found=
		for dir in $VM_LIBPATH; do
			if [ -e "$dir/$name" ]; then
				found=$dir/$name
				break
			fi
		done
		[ -n "$found" ] || { vm_log "$elf needs $name, found in none of $VM_LIBPATH"; return 1; }
		mkdir -p "$root/lib/aarch64-linux-gnu"
		cp -L "$found" "$root/lib/aarch64-linux-gnu/$name"
		vm_copy_needed "$root" "$found"
	done
}

# Assemble the initramfs for a suite ("module", "hw" or "bench"); print
# its path.  KVER (arm64 only) is the kernel release whose virtio
# modules the init loads.
vm_initramfs() {
	local suite=$1 kver=${2:-}
	local root=$VM_DIR/root-$suite img=$VM_DIR/initrd-$suite.cpio.gz
	local f app addr busybox=/bin/busybox bash=/bin/bash kmods

	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,usr/bin,usr/sbin,opt/pfm/bin}
	if [ "$VM_ARCH" = arm64 ]; then
		vm_fetch_sysroot || return 1
		busybox=$VM_DIR/sysroot/bin/busybox
		bash=$VM_DIR/sysroot/bin/bash
	fi
	cp "$busybox" "$root/bin/busybox"
	# the applets of the host's busybox (the same Debian version: an
	# arm64 busybox cannot run here to list its own)
	for app in $(/bin/busybox --list-full); do
		mkdir -p "$root/$(dirname "$app")"
		[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
	done
	vm_copy_bin "$root" "$bash" /bin/bash
	rm -f "$root/bin/sh" && ln -s busybox "$root/bin/sh"

	# bats and its helper libraries
	vm_copy "$root" /usr/bin/bats
	for f in /usr/lib/bats-core /usr/libexec/bats-core /usr/lib/bats; do
		mkdir -p "$root$(dirname $f)" && cp -a "$f" "$root$f"
	done

	# the module, the front ends, the helpers, the workloads, the tests
	cp $VM_MODULES "$VM_SRC/tests/module/fmt_noset/perfmon_test_noset.ko" "$root/opt/pfm/"
	for f in "$VM_BUILD/bin/perfex" "$VM_BUILD/bin/pfmon"; do
		[ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/bin/${f##*/}"
	done
	for f in $VM_WORKLOADS; do
		[ "$VM_ARCH" = x86_64 ] || continue
		vm_copy_bin "$root" "$VM_DIR/bin/$f" "/opt/pfm/bin/$f"
	done
	# the helpers built by `make all`, and the hardware suite's programs
	for f in "$VM_BUILD"/tests/module/* "$VM_BUILD"/tests/hw/*; do
		[ -f "$f" ] && [ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/bin/${f##*/}"
	done
	mkdir -p "$root/opt/pfm/workloads" "$root/opt/pfm/tests"
	for f in "$VM_BUILD"/tests/workloads/*; do
		[ -f "$f" ] && [ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/workloads/${f##*/}"
	done
	cp -a tests/module tests/hw tests/lib "$root/opt/pfm/tests/"
	rm -rf "$root"/opt/pfm/tests/module/*.c "$root"/opt/pfm/tests/module/fmt_noset \
		"$root"/opt/pfm/tests/hw/*.[cS]
	# PFM_VM_TESTS="70-sets ...": only these files of the suite (a
	# developer's shortcut; the full suite runs without it)
	if [ -n "${PFM_VM_TESTS:-}" ]; then
		for f in "$root"/opt/pfm/tests/module/*.bats "$root"/opt/pfm/tests/hw/*.bats; do
			case " $PFM_VM_TESTS " in
			*" $(basename "$f" .bats) "*) ;;
			*) rm -f "$f" ;;
			esac
		done
	fi
	if [ "$VM_ARCH" = x86_64 ] && command -v perf >/dev/null; then
		f=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | head -1)
		vm_copy_bin "$root" "${f:-/usr/bin/perf}" /usr/bin/perf
	fi
	# arm64: the guest's result channel is a virtio console (the virt
	# machine has one UART, the kernel's console), whose drivers are
	# modules in Debian's kernel (6.12: virtio_console built in, and
	# modules xz-compressed, which busybox's insmod does not read: they
	# are unpacked here): the init loads them first
	kmods=
	if [ "$VM_ARCH" = arm64 ]; then
		local mdir=$VM_DIR/linux-image-$kver/lib/modules/$kver
		mkdir -p "$root/opt/pfm/boot"
		for f in drivers/virtio/virtio_mmio.ko drivers/char/virtio_console.ko; do
			if grep -qx "kernel/$f" "$mdir/modules.builtin" 2>/dev/null; then
				continue
			elif [ -f "$mdir/kernel/$f" ]; then
				cp "$mdir/kernel/$f" "$root/opt/pfm/boot/" || return 1
			elif [ -f "$mdir/kernel/$f.xz" ]; then
				xz -dc "$mdir/kernel/$f.xz" > "$root/opt/pfm/boot/${f##*/}" || return 1
			else
				vm_log "$kver has no $f"
				return 1
			fi
			kmods="$kmods /opt/pfm/boot/${f##*/}"
		done
	fi

	addr=$(nm "$VM_BUILD/tests/workloads/calls" 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	faddr=$(nm "$VM_BUILD/tests/workloads/fork_calls" 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	saddr=$(nm "$VM_BUILD/tests/workloads/stages" 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	t1addr=$(nm "$VM_BUILD/tests/workloads/two_calls" 2>/dev/null | awk '$3 == "first_function" {print $1}')
	t2addr=$(nm "$VM_BUILD/tests/workloads/two_calls" 2>/dev/null | awk '$3 == "second_function" {print $1}')
	{
		# the init's result channel, and the drivers it needs first
		case $VM_ARCH in
		arm64) echo "PFM_OUT=/dev/hvc0 PFM_BOOT_MODULES=\"$kmods\"" ;;
		*) echo "PFM_OUT=/dev/ttyS1 PFM_BOOT_MODULES=" ;;
		esac
		echo "export PFM_MODULE=/opt/pfm/perfmon.ko"
		echo "export PFM_FORMATS=\"/opt/pfm/perfmon_dfl.ko /opt/pfm/perfmon_dbl.ko /opt/pfm/perfmon_cc.ko\""
		echo "export PFM_TEST_FORMAT=/opt/pfm/perfmon_test_noset.ko"
		echo "export PFM_WORKLOADS=/opt/pfm/workloads"
		echo "export PFM_COUNTED_FUNCTION=0x${addr:-0}"
		echo "export PFM_FORK_CALLS_FUNCTION=0x${faddr:-0}"
		echo "export PFM_STAGES_FUNCTION=0x${saddr:-0}"
		echo "export PFM_FIRST_FUNCTION=0x${t1addr:-0}"
		echo "export PFM_SECOND_FUNCTION=0x${t2addr:-0}"
		echo "export PFM_UNPRIV_UID=1000"
		# calls of the fuzzer's bench (scripts/bench-module-fuzz.sh)
		echo "PFM_FUZZ_CALLS=${PFM_FUZZ_CALLS:-1000000}"
		# the hardware suite's settings (tests/hw/helpers.bash)
		echo "export PFM_HW_BACKENDS=\"perf module\""
		[ "$VM_ARCH" != arm64 ] ||
			echo "export PFM_HW_EXACT=1 PFM_HW_ONE_CPU=1 PFM_HW_FORCE_PMU=arm_ac57"
		# the module suite in the arm64 guest leaves out the tests
		# tagged breakpoint (qemu flushes all its translated code at
		# each debug register write, and arm64 steps over a breakpoint
		# hit with two: a hit costs milliseconds, a test of 54321 hits
		# an hour), x86 (cc_nest's x86 system calls) and nopmu (a
		# machine without a PMU): docs/arm64.md
		[ "$VM_ARCH" != arm64 ] || echo "PFM_MODULE_TAGS='!breakpoint,!x86,!nopmu'"
		# seconds a test may run (scripts/vm/init): the arm64 guest
		# (TCG without -icount for the module suite) runs the scaling
		# tests' six runs of 360,000 faults in 100 to 140 s on these
		# machines, so it gets 300
		if [ "$VM_ARCH" = arm64 ]; then
			echo "PFM_TEST_TIMEOUT=${PFM_TEST_TIMEOUT:-300}"
		else
			echo "PFM_TEST_TIMEOUT=${PFM_TEST_TIMEOUT:-120}"
		fi
	} > "$root/opt/pfm/env"
	echo "$suite" > "$root/opt/pfm/suite"
	cat > "$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
pfmuser:x:1000:1000:pfmuser:/tmp:/bin/sh
other:x:1001:1001:other:/tmp:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
	cat > "$root/etc/group" <<'GR'
root:x:0:
pfmuser:x:1000:
other:x:1001:
nogroup:x:65534:
GR
	cp scripts/vm/init "$root/init"
	cp scripts/vm/bench-sets.sh "$root/opt/pfm/bench-sets.sh"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$img"
	echo "$img"
}

# Boot the image; the guest's result channel (x86: its second serial
# port) lands in $VM_DIR/out-$suite.
# Returns qemu's status (124 on timeout).
#
# qemu runs at nice VM_NICE (-10; where that is not allowed nice says so
# and it runs at the current priority).  Under TCG the guest has no steal
# time: while the host does not run a virtual CPU, the guest's clocks run
# on, and a task there is charged the time as if it ran.  With two busy
# loops on this 2-CPU host and qemu at nice 0, that put the estimate of
# page-faults in the last of 4 kernel-switched sets 11% off as the median
# of five runs; at nice -10 the host takes far less time from the guest
# and the medians stayed within 3.2%.
#
# arm64: qemu-system-aarch64's virt machine with the "max" CPU, whose
# PMUv3 the kernel's armv8_pmuv3 driver runs (7 event counters and the
# cycle counter); pauth-impdef=on makes pointer authentication cheap to
# emulate.  The hardware suite's guest runs with -icount shift=0: a guest
# instruction takes 1 ns of the guest's time and every count is
# deterministic (cycles then advance one per instruction); so does libpx's
# benchmark guest (bench-libpx), whose costs are then instructions.  The module
# suite's guest runs without it, each virtual CPU in its own host thread
# (thread=multi), its clocks on the host's time as the x86 guest's: under
# -icount qemu runs the virtual CPUs in turns on one thread and the
# guest's clock advances with the instructions of both, so a thread is
# charged the other CPU's work as its own CPU time (measured there: 120
# million instructions of a loop took 128 ms of task-clock with the other
# CPU idle, 209 to 306 ms while it ran a loop), which skewed the module
# suite's shares of time between event sets.  Without -icount qemu
# emulates no instruction counter (INST_RETIRED is not advertised); the
# cycle counter counts.  The results come over a virtio console (-device
# virtconsole), the guest's /dev/hvc0.
#
# Both guests: 1 GB, as slub_debug's red zones and padding take room (the
# x86 guest had 512 MB before it ran with slub_debug), and
# slub_debug=FZPU, which checks the slab allocator's objects (sanity, red
# zones, poisoning, owner tracking) so that a use after free or an
# overrun in the module is reported (vm_kernel_trouble: "BUG kmalloc-64
# (...): Redzone overwritten"); kfence.sample_interval=100 samples
# allocations for KFENCE where the kernel has it (Debian 6.1's amd64 and
# arm64 kernels are built without CONFIG_KFENCE: there the option does
# nothing).
vm_boot() {
	local suite=$1 vmlinuz=$2 img=$3
	local out console
	out=$VM_DIR/out-$suite.log
	console=$VM_DIR/console-$suite.log
	rm -f "$out" "$console"
	vm_log "booting $vmlinuz under qemu (TCG, timeout ${VM_TIMEOUT}s)"
	case $VM_ARCH in
	arm64)
		local clock="-accel tcg,thread=multi"
		case $suite in
		hw|bench-libpx) clock="-accel tcg -icount shift=0" ;;
		esac
		# shellcheck disable=SC2086 # $clock is two or three words
		nice -n "${VM_NICE:--10}" timeout --kill-after=10 "$VM_TIMEOUT" qemu-system-aarch64 \
			-M virt -cpu max,pauth-impdef=on $clock -m 1024 -smp 2 \
			-nographic -no-reboot \
			-kernel "$vmlinuz" -initrd "$img" \
			-append "console=ttyAMA0 panic=-1 loglevel=4 slub_debug=FZPU kfence.sample_interval=100" \
			-serial "file:$console" -monitor none \
			-device virtio-serial-device -chardev "file,id=out,path=$out" \
			-device virtconsole,chardev=out \
			</dev/null >&2
		;;
	*)
		nice -n "${VM_NICE:--10}" timeout --kill-after=10 "$VM_TIMEOUT" qemu-system-x86_64 \
			-accel tcg -m 1024 -smp 2 -nographic -no-reboot \
			-kernel "$vmlinuz" -initrd "$img" \
			-append "console=ttyS0 panic=-1 loglevel=4 slub_debug=FZPU kfence.sample_interval=100" \
			-serial "file:$console" -serial "file:$out" -monitor none \
			</dev/null >&2
		;;
	esac
}

# Lines of the guest output between "@@BEGIN" and "@@DMESG".
vm_results() {
	tr -d '\r' < "$VM_DIR/out-$1.log" | sed -n '/^@@BEGIN/,/^@@DMESG/{/^@@/d;p}'
}

vm_guest_rc() {
	tr -d '\r' < "$VM_DIR/out-$1.log" | sed -n 's/^@@RC //p' | head -1
}

vm_guest_dmesg() {
	tr -d '\r' < "$VM_DIR/out-$1.log" | sed -n '/^@@DMESG/,/^@@END/{/^@@/d;p}'
}

vm_guest_finished() {
	grep -q '^@@END' "$VM_DIR/out-$1.log" 2>/dev/null
}

# Kernel trouble in the guest's dmesg or console: oops, BUG, WARNING,
# KFENCE and slub reports (slub_debug: "BUG kmalloc-64 (...): Redzone
# overwritten"), arm64's "Internal error" and "Call trace:",
# a hung task, a test the watchdog found stuck...
vm_kernel_trouble() {
	{ vm_guest_dmesg "$1"; tr -d '\r' < "$VM_DIR/console-$1.log" 2>/dev/null; } |
		grep -E 'Oops|BUG:|BUG [^ ]+ \(|WARNING:|Call Trace|Call trace:|Kernel panic|general protection|KASAN|KFENCE|UBSAN|kmemleak|refcount_t:|blocked for more than|pfm-watchdog: test|INFO: .*(corrupt|poison|Redzone|Freepointer)|Object padding|Padding overwritten|Internal error:|Unable to handle kernel' || true
}

# What the console says from the first report of a stuck test or a hung
# task on (the guest's watchdog, sysrq task dumps, hung_task), at most
# 3000 lines: the state of every task when a test hung.
vm_console_reports() {
	tr -d '\r' < "$VM_DIR/console-$1.log" 2>/dev/null |
		awk '/pfm-watchdog:|blocked for more than/ { on = 1 } on && n++ < 3000' || true
}
