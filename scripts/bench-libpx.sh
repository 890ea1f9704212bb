#!/bin/bash
# libpx's costs on this machine, figures only (not a test): a read of a
# counter with libpx against a bare read(2) of the same software event
# (the fallback path: goal within 10%), and a region marker's begin + end
# (tests/bench/libpx_cost.c).  Then the user-space read of a hardware
# counter against read(2) of it, which needs a PMU: in the arm64 guest
# (qemu -icount shift=0, where a guest nanosecond is one instruction, so
# the costs are deterministic), goal at least 20x faster.  The guest
# boots in about a minute; BENCH_LIBPX_GUEST=0 leaves it out.
set -eu
cd "$(dirname "$0")/.."
make -s build/tests/bench/libpx_cost >/dev/null
echo "== libpx: ns a call, median of 5 rounds of 200000 (task-clock, read with read(2) here)"
out=$(build/tests/bench/libpx_cost task-clock 200000)
sed 's/^/  /' <<<"$out"
awk '$1 == "bare_read" { b = $2 } $1 == "px_read" { p = $2 }
	END { if (b > 0) printf "  ratio px_read / bare_read   %.3f   (goal <= 1.10: %s)\n", p / b, p / b <= 1.10 ? "met" : "not met" }' <<<"$out"

[ "${BENCH_LIBPX_GUEST:-1}" = 1 ] || exit 0
echo "== libpx in the arm64 guest: ns a call (qemu -icount shift=0: an instruction a ns), instructions:u"
guest=$(
	VM_ARCH=arm64
	. scripts/vm/lib.sh
	kver=$(vm_kernel_release)
	vm_build_module "$kver"
	vmlinuz=$(vm_fetch_kernel "$kver")
	img=$(vm_initramfs bench-libpx "$kver")
	vm_boot bench-libpx "$vmlinuz" "$img" || vm_log "qemu failed"
	[ "$(vm_guest_rc bench-libpx)" = 0 ] || vm_log "the guest's benchmark failed"
	vm_results bench-libpx
)
sed 's/^/  /' <<<"$guest"
awk '/^# user/ { part = "user" } /^# syscall/ { part = "sys" }
	$1 == "bare_read" && part == "user" { b = $2 }
	$1 == "px_read" { p[part] = $2 }
	$1 == "px_read_value" { v[part] = $2 }
	END {
		if (!(b > 0 && p["user"] > 0 && v["user"] > 0)) { print "  no figures from the guest"; exit 1 }
		printf "  ratio bare read(2) / px_read_value in user space   %.1f   (goal >= 20: %s)\n", b / v["user"], (b / v["user"] >= 20 ? "met" : "not met")
		printf "  ratio bare read(2) / px_read in user space (with times)   %.1f\n", b / p["user"]
		if (p["sys"] > 0)
			printf "  ratio px_read with read(2) / bare read(2)    %.3f\n", p["sys"] / b
	}' <<<"$guest"
