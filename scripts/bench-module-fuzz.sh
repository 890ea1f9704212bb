#!/bin/bash
# The module fuzzer's sequence mode at length (`make bench`; figures, not
# a test): PFM_FUZZ_CALLS calls (1,000,000 by default) of `pfm_fuzz -s`
# (create, program, load, start, switch, read, stop, unload, close in
# random order from two threads and a forked child on shared contexts,
# tests/module/pfm_fuzz.c) as root in the x86-64 guest, which boots with
# slub_debug=FZPU (scripts/vm/lib.sh); prints the calls, the seconds,
# calls/s, the errno summary and the count of kernel reports (oops, BUG,
# WARNING, slub or KFENCE reports, hung tasks: vm_kernel_trouble; 0
# expected, each shown on stderr).  Under TCG the x86 guest ran 2,200
# calls/s here (100,000 in 45 s): a million take about 8 minutes.
# BENCH_FUZZ_ARM64=1 runs the same in the arm64 guest too (about 700
# calls/s in 60-fuzz: 25 minutes); BENCH_FUZZ_ARM64_CALLS sets its count.
# Run from the repository root after `make all`.  A failed guest is said
# and leaves the figures out; the script fails only when nothing ran.
set -euo pipefail
cd "$(dirname "$0")/.."

calls=${PFM_FUZZ_CALLS:-1000000}

# bench_guest ARCH CALLS: one guest's run, its figures on stdout
bench_guest() {
	local arch=$1 n=$2
	(
		VM_ARCH=$arch
		# the run, the boot and the power-off, with room to spare
		VM_TIMEOUT=${VM_TIMEOUT:-$((600 + n / 200))}
		. scripts/vm/lib.sh
		kver=$(vm_kernel_release)
		vm_build_module "$kver"
		vm_build_helpers
		vmlinuz=$(vm_fetch_kernel "$kver")
		img=$(PFM_FUZZ_CALLS=$n vm_initramfs bench-fuzz "$kver")
		start=$(date +%s)
		qemu_rc=0
		vm_boot bench-fuzz "$vmlinuz" "$img" || qemu_rc=$?
		vm_log "guest ran for $(( $(date +%s) - start ))s (qemu status $qemu_rc)"
		rc=$(vm_guest_rc bench-fuzz)
		res=$(vm_results bench-fuzz)
		trouble=$(vm_kernel_trouble bench-fuzz)
		[ -z "$trouble" ] || sed 's/^/dmesg: /' <<<"$trouble" >&2
		vm_guest_finished bench-fuzz || vm_log "the $arch guest did not finish (qemu status $qemu_rc)"
		[ "$rc" = 0 ] || vm_log "pfm_fuzz in the $arch guest failed (status ${rc:-none})"
		sed 's/^/  /' <<<"$res"
		awk -v arch="$arch" -v reports="$(grep -c . <<<"$trouble" || true)" '
			/^calls=/ { n = substr($1, 7) }
			$1 == "seconds" { s = $2 }
			END {
				if (n == "" || s == "") {
					printf "  %s: no figures from the guest\n", arch
				} else {
					printf "  %s: %d calls in %d s: %.0f calls/s\n", arch, n, s, (s > 0 ? n / s : 0)
				}
				printf "  %s: kernel reports %d (0 expected)\n", arch, reports
			}' <<<"$res"
		[ -n "$res" ]
	)
}

echo "== perfmon.ko under the sequence fuzzer (pfm_fuzz -s, root, slub_debug=FZPU), qemu TCG"
ok=0
bench_guest x86_64 "$calls" && ok=1
if [ "${BENCH_FUZZ_ARM64:-0}" = 1 ]; then
	bench_guest arm64 "${BENCH_FUZZ_ARM64_CALLS:-$calls}" && ok=1
fi
[ "$ok" = 1 ]
