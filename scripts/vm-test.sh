#!/bin/bash
# Run the module test suite (tests/module/) inside a qemu guest booted with
# Debian's kernel, with perfmon.ko, the front ends and the workloads in its
# initramfs.  Run from the repository root after `make all`.  Prints only
# TAP on stdout (the guest's bats results plus one test for the guest's
# kernel log); diagnostics go to stderr.  Exits 0 only when every test
# passed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vm/lib.sh

tap_fail_all() {
	echo "1..2"
	echo "not ok 1 guest ran the module suite # $1"
	echo "not ok 2 guest dmesg has no oops, BUG or WARNING # not checked"
	exit 1
}

kver=$(vm_kernel_release) || tap_fail_all "no linux-headers-amd64"
vm_build_module "$kver" || tap_fail_all "perfmon.ko did not build"
vm_build_helpers || tap_fail_all "the tests/module helpers did not build"
vmlinuz=$(vm_fetch_kernel "$kver") || tap_fail_all "no kernel image for $kver"
[ -x build/bin/perfex ] || vm_log "build/bin/perfex is missing: run 'make all' first"
img=$(vm_initramfs module)

start=$(date +%s)
qemu_rc=0
vm_boot module "$vmlinuz" "$img" || qemu_rc=$?
vm_log "guest ran for $(( $(date +%s) - start ))s (qemu status $qemu_rc)"

results=$(vm_results module 2>/dev/null || true)
# everything that is not a plan or a test line is a diagnostic
grep -Ev '^(1\.\.[0-9]+|(not )?ok [0-9]+)' <<<"$results" | sed 's/^/guest: /' >&2 || true

plan=$(grep -Em1 '^1\.\.[0-9]+$' <<<"$results" | cut -d. -f3 || true)
lines=$(grep -E '^(not )?ok [0-9]+' <<<"$results" || true)
if [ -z "$plan" ]; then
	vm_log "no TAP plan from the guest; console tail:"
	tail -30 "$VM_DIR/console-module.log" 2>/dev/null | tr -d '\r' >&2 || true
	tap_fail_all "no results from the guest (qemu status $qemu_rc, guest status $(vm_guest_rc module))"
fi

got=$(grep -c . <<<"$lines" || true)
total=$((plan + 1))
[ "$got" -lt "$plan" ] && total=$((plan + 1))
echo "1..$total"
failed=0
[ -n "$lines" ] && echo "$lines"
grep -q '^not ok' <<<"$lines" && failed=1
for ((i = got + 1; i <= plan; i++)); do
	echo "not ok $i guest suite ended before this test (qemu status $qemu_rc)"
	failed=1
done

if [ "$qemu_rc" = 124 ] || ! vm_guest_finished module; then
	vm_log "the guest did not finish (qemu status $qemu_rc); its console ends with:"
	tail -40 "$VM_DIR/console-module.log" 2>/dev/null | tr -d '\r' | sed 's/^/console: /' >&2 || true
fi

reports=$(vm_console_reports module)
if [ -n "$reports" ]; then
	vm_log "the guest's console reports stuck tasks:"
	sed 's/^/console: /' <<<"$reports" >&2
fi

trouble=$(vm_kernel_trouble module)
if [ -n "$trouble" ] || ! vm_guest_finished module; then
	echo "not ok $total guest dmesg has no oops, BUG or WARNING"
	[ -n "$trouble" ] && echo "$trouble" | sed 's/^/dmesg: /' >&2
	vm_guest_finished module || vm_log "the guest did not finish: no final dmesg"
	failed=1
else
	echo "ok $total guest dmesg has no oops, BUG or WARNING"
fi
exit $failed
