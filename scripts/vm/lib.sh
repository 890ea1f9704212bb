# Shared by scripts/vm-test.sh and scripts/bench-module.sh: build
# perfmon.ko against Debian's linux-headers-amd64, fetch the matching
# kernel image, assemble an initramfs and boot it under qemu (TCG).
# Diagnostics go to stderr; callers keep stdout for their results.
# Sourced from the repository root, with set -eu.

VM_DIR=${VM_DIR:-build/vm}
VM_TIMEOUT=${VM_TIMEOUT:-900}
HELPERS="pfm_test pfm_fuzz pfm_bench runas swkeys"

vm_log() {
	echo "vm: $*" >&2
}

# The kernel release of Debian's installed linux-headers-amd64,
# e.g. 6.1.0-56-amd64.
vm_kernel_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
		vm_log "linux-headers-amd64 is not installed: run scripts/install-deps.sh"
		return 1
	}
	dep=${dep%% *}
	echo "${dep#linux-headers-}"
}

vm_build_module() {
	local kver=$1
	local kdir
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || { vm_log "no $kdir"; return 1; }
	vm_log "building perfmon.ko and its formats against $kver"
	make -s -C kernel KDIR="$kdir" >&2 &&
	make -s -C "$kdir" M="$PWD/tests/module/fmt_noset" \
		KBUILD_EXTRA_SYMBOLS="$PWD/kernel/Module.symvers" modules >&2
}

# The modules the guest loads, in order: the core, then its formats.
VM_MODULES="kernel/perfmon.ko formats/default/kernel/perfmon_dfl.ko
	formats/double-buffer/kernel/perfmon_dbl.ko
	formats/callchain/kernel/perfmon_cc.ko"

# The workloads of tests/module/: cc_nest, the call-chain tests' nest of
# calls, with frame pointers and no inlining, static so that its frames
# and their symbols are its own whatever the guest's libc.
VM_WORKLOADS="cc_nest"

# Build the C helpers and workloads of tests/module/ into $VM_DIR/bin.
vm_build_helpers() {
	local h
	mkdir -p "$VM_DIR/bin"
	for h in $HELPERS; do
		cc -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
			-Ikernel/uapi -Iformats -o "$VM_DIR/bin/$h" "tests/module/$h.c" >&2
	done
	for h in $VM_WORKLOADS; do
		cc -O1 -g -fno-omit-frame-pointer -fno-inline -static -Wall -Wextra \
			-Werror -o "$VM_DIR/bin/$h" "tests/module/$h.c" >&2
	done
}

# Unpack the kernel image package once; print the vmlinuz path.
vm_fetch_kernel() {
	local kver=$1
	local dir vmlinuz
	dir=$VM_DIR/linux-image-$kver
	vmlinuz=$dir/boot/vmlinuz-$kver
	if [ ! -f "$vmlinuz" ]; then
		vm_log "fetching linux-image-$kver"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		if ! (cd "$dir.tmp" && apt-get download "linux-image-$kver" >&2 </dev/null); then
			# stale or missing package lists: refresh them once
			vm_log "apt-get download failed; running apt-get update"
			apt-get update -qq >&2 </dev/null || true
			(cd "$dir.tmp" && apt-get download "linux-image-$kver" >&2 </dev/null) || {
				vm_log "apt-get download linux-image-$kver failed"
				return 1
			}
		fi
		dpkg-deb -x "$dir.tmp"/linux-image-*.deb "$dir.tmp/root"
		rm -rf "$dir" && mv "$dir.tmp/root" "$dir" && rm -rf "$dir.tmp"
	fi
	echo "$vmlinuz"
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
	for lib in $(ldd "$bin" 2>/dev/null | awk '/=> \//{print $3} /^\t\//{print $1}'); do
		[ -e "$root$lib" ] || vm_copy "$root" "$lib"
	done
}

# Assemble the initramfs for a suite ("module" or "bench"); print its path.
vm_initramfs() {
	local suite=$1
	local root=$VM_DIR/root-$suite img=$VM_DIR/initrd-$suite.cpio.gz
	local f app addr

	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,usr/bin,usr/sbin,opt/pfm/bin}
	cp /bin/busybox "$root/bin/busybox"
	for app in $(/bin/busybox --list-full); do
		mkdir -p "$root/$(dirname "$app")"
		[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
	done
	vm_copy_bin "$root" /bin/bash /bin/bash
	rm -f "$root/bin/sh" && ln -s busybox "$root/bin/sh"

	# bats and its helper libraries
	vm_copy "$root" /usr/bin/bats
	for f in /usr/lib/bats-core /usr/libexec/bats-core /usr/lib/bats; do
		mkdir -p "$root$(dirname $f)" && cp -a "$f" "$root$f"
	done

	# the module, the front ends, the helpers, the workloads, the tests
	cp $VM_MODULES tests/module/fmt_noset/perfmon_test_noset.ko "$root/opt/pfm/"
	for f in build/bin/perfex build/bin/pfmon; do
		[ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/bin/${f##*/}"
	done
	for f in $HELPERS $VM_WORKLOADS; do
		vm_copy_bin "$root" "$VM_DIR/bin/$f" "/opt/pfm/bin/$f"
	done
	# the helpers built with the library by `make all`
	for f in build/tests/module/*; do
		[ -f "$f" ] && [ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/bin/${f##*/}"
	done
	mkdir -p "$root/opt/pfm/workloads" "$root/opt/pfm/tests"
	for f in build/tests/workloads/*; do
		[ -f "$f" ] && [ -x "$f" ] && vm_copy_bin "$root" "$f" "/opt/pfm/workloads/${f##*/}"
	done
	cp -a tests/module "$root/opt/pfm/tests/"
	rm -rf "$root"/opt/pfm/tests/module/*.c "$root"/opt/pfm/tests/module/fmt_noset
	# PFM_VM_TESTS="70-sets ...": only these files of the suite (a
	# developer's shortcut; the full suite runs without it)
	if [ -n "${PFM_VM_TESTS:-}" ]; then
		for f in "$root"/opt/pfm/tests/module/*.bats; do
			case " $PFM_VM_TESTS " in
			*" $(basename "$f" .bats) "*) ;;
			*) rm -f "$f" ;;
			esac
		done
	fi
	if command -v perf >/dev/null; then
		f=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | head -1)
		vm_copy_bin "$root" "${f:-/usr/bin/perf}" /usr/bin/perf
	fi

	addr=$(nm build/tests/workloads/calls 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	faddr=$(nm build/tests/workloads/fork_calls 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	saddr=$(nm build/tests/workloads/stages 2>/dev/null | awk '$3 == "counted_function" {print $1}')
	t1addr=$(nm build/tests/workloads/two_calls 2>/dev/null | awk '$3 == "first_function" {print $1}')
	t2addr=$(nm build/tests/workloads/two_calls 2>/dev/null | awk '$3 == "second_function" {print $1}')
	{
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
		# seconds a test may run (scripts/vm/init)
		echo "PFM_TEST_TIMEOUT=${PFM_TEST_TIMEOUT:-120}"
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

# Boot the image; the guest's second serial port lands in $VM_DIR/out-$suite.
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
vm_boot() {
	local suite=$1 vmlinuz=$2 img=$3
	local out console
	out=$VM_DIR/out-$suite.log
	console=$VM_DIR/console-$suite.log
	rm -f "$out" "$console"
	vm_log "booting $vmlinuz under qemu (TCG, timeout ${VM_TIMEOUT}s)"
	nice -n "${VM_NICE:--10}" timeout --kill-after=10 "$VM_TIMEOUT" qemu-system-x86_64 \
		-accel tcg -m 512 -smp 2 -nographic -no-reboot \
		-kernel "$vmlinuz" -initrd "$img" \
		-append "console=ttyS0 panic=-1 loglevel=4" \
		-serial "file:$console" -serial "file:$out" -monitor none \
		</dev/null >&2
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
# a hung task, a test the watchdog found stuck...
vm_kernel_trouble() {
	{ vm_guest_dmesg "$1"; tr -d '\r' < "$VM_DIR/console-$1.log" 2>/dev/null; } |
		grep -E 'Oops|BUG:|WARNING:|Call Trace|Kernel panic|general protection|KASAN|UBSAN|kmemleak|refcount_t:|blocked for more than|pfm-watchdog: test' || true
}

# What the console says from the first report of a stuck test or a hung
# task on (the guest's watchdog, sysrq task dumps, hung_task), at most
# 3000 lines: the state of every task when a test hung.
vm_console_reports() {
	tr -d '\r' < "$VM_DIR/console-$1.log" 2>/dev/null |
		awk '/pfm-watchdog:|blocked for more than/ { on = 1 } on && n++ < 3000' || true
}
