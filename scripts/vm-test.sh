#!/bin/bash
# Run a test suite inside a qemu guest booted with Debian's kernel, with
# perfmon.ko, the front ends and the workloads in its initramfs:
#
#   scripts/vm-test.sh [module]           the module suite (tests/module/)
#                                         in the x86-64 guest
#   VM_ARCH=arm64 scripts/vm-test.sh hw   the hardware-counter suite
#                                         (tests/hw/) in the arm64 guest,
#                                         whose emulated PMU counts
#   VM_ARCH=arm64 scripts/vm-test.sh module   the module suite there
#
# PFM_VM_TESTS="NAME ..." keeps only those .bats files (without .bats).
# Run from the repository root after `make all` (the arm64 guest builds
# its own: `make ARCH=arm64`).  Prints only TAP on stdout (the guest's bats
# results plus one test for the guest's kernel log); diagnostics go to
# stderr.  Exits 0 only when every test passed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vm/lib.sh

suite=${1:-module}
case $suite in
module|hw) ;;
*) echo "usage: [VM_ARCH=arm64] scripts/vm-test.sh [module|hw]" >&2; exit 2 ;;
esac

tap_fail_all() {
	echo "1..2"
	echo "not ok 1 $VM_ARCH guest ran the $suite suite # $1"
	echo "not ok 2 $VM_ARCH guest dmesg has no oops, BUG or WARNING: not checked"
	exit 1
}

kver=$(vm_kernel_release) || tap_fail_all "no linux-headers-amd64"
vm_build_module "$kver" || tap_fail_all "perfmon.ko did not build"
vm_build_helpers || tap_fail_all "the tests/module helpers did not build"
vmlinuz=$(vm_fetch_kernel "$kver") || tap_fail_all "no kernel image for $kver"
[ -x "$VM_BUILD/bin/perfex" ] || vm_log "$VM_BUILD/bin/perfex is missing: run 'make all' first"
img=$(vm_initramfs "$suite" "$kver") || tap_fail_all "the initramfs was not made"

start=$(date +%s)
qemu_rc=0
vm_boot "$suite" "$vmlinuz" "$img" || qemu_rc=$?
vm_log "guest ran for $(( $(date +%s) - start ))s (qemu status $qemu_rc)"

results=$(vm_results "$suite" 2>/dev/null || true)
# everything that is not a plan or a test line is a diagnostic
grep -Ev '^(1\.\.[0-9]+|(not )?ok [0-9]+)' <<<"$results" | sed 's/^/guest: /' >&2 || true

plan=$(grep -Em1 '^1\.\.[0-9]+$' <<<"$results" | cut -d. -f3 || true)
lines=$(grep -E '^(not )?ok [0-9]+' <<<"$results" || true)
if [ -z "$plan" ]; then
	vm_log "no TAP plan from the guest; console tail:"
	tail -30 "$VM_DIR/console-$suite.log" 2>/dev/null | tr -d '\r' >&2 || true
	tap_fail_all "no results from the guest (qemu status $qemu_rc, guest status $(vm_guest_rc "$suite"))"
fi

got=$(grep -c . <<<"$lines" || true)
total=$((plan + 1))
# arm64: one more test, that the kernel ran the PMU driver the suite needs
[ "$VM_ARCH" = arm64 ] && total=$((plan + 2))
echo "1..$total"
failed=0
[ -n "$lines" ] && echo "$lines"
grep -q '^not ok' <<<"$lines" && failed=1
for ((i = got + 1; i <= plan; i++)); do
	echo "not ok $i guest suite ended before this test (qemu status $qemu_rc)"
	failed=1
done

if [ "$qemu_rc" = 124 ] || ! vm_guest_finished "$suite"; then
	vm_log "the guest did not finish (qemu status $qemu_rc); its console ends with:"
	tail -40 "$VM_DIR/console-$suite.log" 2>/dev/null | tr -d '\r' | sed 's/^/console: /' >&2 || true
fi

reports=$(vm_console_reports "$suite")
if [ -n "$reports" ]; then
	vm_log "the guest's console reports stuck tasks:"
	sed 's/^/console: /' <<<"$reports" >&2
fi

if [ "$VM_ARCH" = arm64 ]; then
	pmu=$(vm_guest_dmesg "$suite" | grep -m1 'hw perfevents: enabled with armv8_pmuv3' || true)
	if [ -n "$pmu" ]; then
		echo "ok $((plan + 1)) arm64 guest: ${pmu#*] }"
	else
		echo "not ok $((plan + 1)) arm64 guest: the kernel did not say 'hw perfevents: enabled with armv8_pmuv3'"
		failed=1
	fi
fi

# x86: "guest dmesg ..." as it always was; arm64: named so
what="guest dmesg has no oops, BUG or WARNING"
[ "$VM_ARCH" = arm64 ] && what="arm64 guest dmesg has no oops, BUG, WARNING, KFENCE or slub report"
trouble=$(vm_kernel_trouble "$suite")
if [ -n "$trouble" ] || ! vm_guest_finished "$suite"; then
	echo "not ok $total $what"
	[ -n "$trouble" ] && echo "$trouble" | sed 's/^/dmesg: /' >&2
	vm_guest_finished "$suite" || vm_log "the guest did not finish: no final dmesg"
	failed=1
else
	echo "ok $total $what"
fi
exit $failed
