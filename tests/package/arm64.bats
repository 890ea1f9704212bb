#!/usr/bin/env bats
# The Debian packages cross-built for arm64 on this amd64 machine
# (dpkg-buildpackage -a arm64 -Pcross,nocheck, from the same copy of the
# tree as package.bats's native build): pfmon-perfex is an arm64 package
# of AArch64 programs that depend on the arm64 libraries they load, and
# its programs run under qemu-user; perfmon-dkms, the modules' source, is
# Architecture all and the native build's, byte for byte.
#
# What qemu-user (qemu-aarch64, Debian 12's qemu 7.2) can and cannot do:
# it runs an arm64 program's user code and passes most system calls to this
# machine's kernel, the arm64 libraries loaded from the multiarch root
# (/lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu:
# QEMU_LD_PREFIX=/), and its uname says aarch64.  It has no
# perf_event_open: it answers ENOSYS ("Function not implemented") without
# asking the kernel (`qemu-aarch64 -d unimp` says "Unsupported syscall:
# 241"; ptrace, 117, too, which perfex's child outlives: it then stops
# itself plainly), so nothing can be counted.  Nor could an arm64
# workload run under perfex: an arm64 program exec'ed by an emulated one
# goes to this machine's kernel, which refuses it (ENOEXEC) unless
# binfmt_misc hands it to qemu, which is not set up here (it would change
# the whole machine).  So perfex --version, -l and -i run, a count fails
# with perf_event_open's ENOSYS, said as on any kernel without it, and
# pfmon-report merges rank files; counting on arm64 is tested in the arm64
# guest (tests/run-all.sh hw-arm64).
#
# Needs what scripts/install-deps.sh installs: the cross compiler, the
# arm64 -dev libraries, pkg-config:arm64 and qemu-user.  Time on this
# 2-CPU machine: the cross build takes 35 s, 70 s when the machine is busy
# (the native one as long; it is shared with package.bats: each is built
# once per bats run), the tests 4 s.
bats_require_minimum_version 1.5.0

setup_file() {
	load packages
	# the native build, to compare perfmon-dkms with
	build_packages amd64 || return 1
	NATIVE=$PKG
	build_packages arm64 || return 1
	ARM=$PKG
	STAGE=$BATS_FILE_TMPDIR/root
	export NATIVE ARM STAGE
	mkdir -p "$STAGE"
	dpkg -x "$ARM/pfmon-perfex_${VERSION}_arm64.deb" "$STAGE"
}

setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	load packages
	PERFEX_DEB=$ARM/pfmon-perfex_${VERSION}_arm64.deb
	DKMS_DEB=$ARM/perfmon-dkms_${VERSION}_all.deb
}

# on_arm64 PROG ARG...: the arm64 PROG run by qemu-user, its libraries
# from the multiarch root
on_arm64() {
	if ! command -v qemu-aarch64 >/dev/null; then
		echo "qemu-aarch64 is not installed (scripts/install-deps.sh installs qemu-user)"
		return 127
	fi
	QEMU_LD_PREFIX=/ qemu-aarch64 "$@"
}

# front_ends: the installed front ends' paths, one a line (perfex, pfmon,
# pfmon-report: every program of cmd/)
front_ends() {
	local f
	for f in "$ROOT"/cmd/*.c; do
		[[ $f == */cli.c ]] || echo "$STAGE/usr/bin/$(basename "$f" .c)"
	done
}

@test "the arm64 build: pfmon-perfex for arm64 with amd64's files, perfmon-dkms for all and amd64's byte for byte" {
	run -0 dpkg-deb -f "$PERFEX_DEB" Package Version Architecture
	assert_output "Package: pfmon-perfex
Version: $VERSION
Architecture: arm64"
	# the same paths: programs, man pages and completions
	assert_equal "$(deb_files "$PERFEX_DEB")" \
		"$(deb_files "$NATIVE/pfmon-perfex_${VERSION}_amd64.deb")"
	run -0 dpkg-deb -f "$DKMS_DEB" Package Version Architecture
	assert_output "Package: perfmon-dkms
Version: $VERSION
Architecture: all"
	cmp "$DKMS_DEB" "$NATIVE/perfmon-dkms_${VERSION}_all.deb" ||
		fail "perfmon-dkms differs between the arm64 and the amd64 build"
}

@test "the arm64 front ends are AArch64 executables" {
	local f
	for f in $(front_ends); do
		run -0 readelf -h "$f"
		assert_line --regexp '^ +Class: +ELF64$'
		assert_line --regexp '^ +Machine: +AArch64$'
	done
}

@test "pfmon-perfex depends on the arm64 package of every library its programs load" {
	local deps libs lib dir owners owner
	run -0 dpkg-deb -f "$PERFEX_DEB" Depends
	deps=$output
	assert_output --regexp '(^|, )libc6 \(>= [^)]+\)'
	# each DT_NEEDED library of the programs is a file of an arm64 package
	# installed here, and Depends names that package.  One dpkg -S for
	# all (each reads dpkg's whole file list): "libdw1:arm64: PATH"
	libs=$(for f in $(front_ends); do
		readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
	done | sort -u)
	[ -n "$libs" ] || fail "the programs load no library"
	owners=$(for lib in $libs; do
		for dir in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib; do
			echo "$dir/$lib"
		done
	done | xargs dpkg -S 2>/dev/null || true)
	for lib in $libs; do
		owner=$(awk -v lib="$lib" '{ n = split($NF, p, "/") } p[n] == lib { print; exit }' <<<"$owners")
		[ -n "$owner" ] || fail "the programs load $lib, which no installed package holds in the arm64 library folders"
		owner=${owner%%: *}
		[[ $owner == *:arm64 ]] || fail "the programs load $lib, of $owner, not an arm64 package"
		[[ ", $deps" == *", ${owner%:arm64} ("* ]] ||
			fail "Depends lacks ${owner%:arm64}, whose $lib the programs load: $deps"
	done
	# dpkg-shlibdeps found every library, in the arm64 packages, and
	# said nothing
	run grep 'dpkg-shlibdeps:' "$ARM/build.log"
	assert_output ""
}

@test "the arm64 perfex runs under qemu-user: --version, -l and -i" {
	run -0 on_arm64 "$STAGE/usr/bin/perfex" --version
	assert_output "perfex $VERSION"
	# libpfm4's names of the software events
	run -0 on_arm64 "$STAGE/usr/bin/perfex" -l
	assert_line 'perf::PERF_COUNT_SW_TASK_CLOCK'
	assert_line 'perf::PAGE-FAULTS'
	# emulated: the kernel it sees is an aarch64 one
	run -0 on_arm64 "$STAGE/usr/bin/perfex" -i
	assert_line --regexp '^kernel +Linux .* aarch64$'
}

@test "the arm64 perfex cannot count under qemu-user, which has no perf_event_open, and says so" {
	run -1 --separate-stderr on_arm64 "$STAGE/usr/bin/perfex" -e task-clock true
	assert_equal "$stderr" "perfex: cannot open a counter for 'task-clock': Function not implemented"
	run -1 --separate-stderr on_arm64 "$STAGE/usr/bin/perfex" -e page-faults true
	assert_equal "$stderr" "perfex: cannot open a counter for 'page-faults': Function not implemented"
}

@test "the arm64 pfmon and pfmon-report run under qemu-user on the arm64 libraries; pfmon-report merges ranks" {
	local name r v
	for name in pfmon pfmon-report; do
		run -0 on_arm64 "$STAGE/usr/bin/$name" --version
		assert_output "$name $VERSION"
	done
	# two ranks' perfex --json files (schema 3, read with json-c): 100
	# and 300 page faults
	for r in 0 1; do
		v=$(((2 * r + 1) * 100))
		printf '{"schema":3,"tool":"perfex","rank":%d,"size":2,"host":"node%d","job":"42","command":["true"],"backend":"perf","runs":1,"exit_status":0,"elapsed_seconds":0.5,"elapsed_stddev":0.0,"events":[{"name":"page-faults","encoding":"perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=1:excl=0:mg=0:mh=1","set":0,"status":"counted","value":%d,"raw":%d,"active_pct":100.00,"ci95_pct":0.00,"user_only":false,"runs":1,"stddev":0.00,"min":%d,"max":%d}],"metrics":[]}\n' \
			"$r" "$r" "$v" "$v" "$v" "$v" >"$BATS_TEST_TMPDIR/rank$r.json"
	done
	run -0 on_arm64 "$STAGE/usr/bin/pfmon-report" "$BATS_TEST_TMPDIR/rank0.json" "$BATS_TEST_TMPDIR/rank1.json"
	assert_line '# pfmon-report: perfex counts of 2 ranks (the job has 2) on 2 hosts, job 42'
	# sum, min and its rank, mean, max and its rank, max/mean
	assert_line --regexp '^page-faults +400 +100 +0 +200\.00 +300 +1 +1\.500$'
}
