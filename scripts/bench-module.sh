#!/bin/bash
# Boot the test guest and print the module benchmark: the cost of reading
# counters and of a start/stop pair through /dev/perfmon against perf_event
# fds for the same software events, as ratios (tests/module/pfm_bench.c);
# then the slowdown from switching event sets every 1, 10 and 100 ms with
# pfmon on both backends against perf stat (scripts/vm/bench-sets.sh).
# Run from the repository root after `make all`; figures on stdout,
# diagnostics on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vm/lib.sh

kver=$(vm_kernel_release)
vm_build_module "$kver"
vm_build_helpers
vmlinuz=$(vm_fetch_kernel "$kver")
img=$(vm_initramfs bench)
vm_boot bench "$vmlinuz" "$img" || { vm_log "qemu failed"; exit 1; }
rc=$(vm_guest_rc bench)
echo "# perfmon.ko against perf_event fds, in a qemu TCG guest ($kver)"
vm_results bench | grep -v '^# [^0-9]' || true
trouble=$(vm_kernel_trouble bench)
if [ -n "$trouble" ]; then
	echo "$trouble" >&2
	exit 1
fi
[ "$rc" = 0 ]
