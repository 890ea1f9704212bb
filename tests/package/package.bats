#!/usr/bin/env bats
# The Debian packages (debian/): pfmon-perfex and perfmon-dkms build with
# dpkg-buildpackage from a copy of the tree (build_packages in
# packages.bash; arm64.bats cross-builds them for arm64), hold what they
# should, the installed tools, man pages and completions work, and DKMS
# builds the modules of perfmon-dkms against Debian's kernel headers.
#
# Needs root (dpkg -i, dkms), the packaging tools scripts/install-deps.sh
# installs, linux-headers-amd64 (the running kernel may have no headers:
# the modules are built for Debian's) and zsh (the zsh completion tests).
# Whatever a test installs is removed in teardown, even when it fails.
bats_require_minimum_version 1.5.0

setup_file() {
	load packages
	# the native build, shared with arm64.bats (which compares perfmon-dkms)
	build_packages amd64 || return 1
	STAGE=$BATS_FILE_TMPDIR/root
	export STAGE
	mkdir -p "$STAGE"
	dpkg -x "$PKG/pfmon-perfex_${VERSION}_amd64.deb" "$STAGE"
}

setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	load packages
	PERFEX_DEB=$PKG/pfmon-perfex_${VERSION}_amd64.deb
	DKMS_DEB=$PKG/perfmon-dkms_${VERSION}_all.deb
	ZSHCOMP=$STAGE/usr/share/zsh/vendor-completions
}

@test "both packages are built at the tree's VERSION" {
	run -0 dpkg-deb -f "$PERFEX_DEB" Package Version
	assert_output "Package: pfmon-perfex
Version: $VERSION"
	run -0 dpkg-deb -f "$DKMS_DEB" Package Version Architecture
	assert_output "Package: perfmon-dkms
Version: $VERSION
Architecture: all"
	# the test suites are not run by the package build (debian/rules
	# overrides dh_auto_test with nothing, which dh then skips)
	run grep -E 'dh_auto_test|run-all|^(ok|not ok) [0-9]' "$PKG/build.log"
	assert_output ""
}

@test "pfmon-perfex holds the tools, their man pages and the bash and zsh completions" {
	local f want=(/usr/bin/perfex /usr/bin/pfmon
		/usr/share/man/man1/perfex.1.gz /usr/share/man/man1/pfmon.1.gz
		/usr/share/man/man1/pfmon-report.1.gz)
	# every front end, man page and completion of the tree
	for f in "$ROOT"/cmd/*.c; do
		[[ $f == */cli.c ]] || want+=("/usr/bin/$(basename "$f" .c)")
	done
	for f in "$ROOT"/man/*.1.scd; do
		want+=("/usr/share/man/man1/$(basename "$f" .scd).gz")
	done
	for f in "$ROOT"/completions/*.bash; do
		want+=("/usr/share/bash-completion/completions/$(basename "$f" .bash)")
	done
	for f in "$ROOT"/completions/_*; do
		want+=("/usr/share/zsh/vendor-completions/$(basename "$f")")
	done
	local files
	files=$(deb_files "$PERFEX_DEB")
	for f in "${want[@]}"; do
		grep -qxF "$f" <<<"$files" || fail "pfmon-perfex lacks $f"
	done
	# its library dependencies come from dpkg-shlibdeps
	run -0 dpkg-deb -f "$PERFEX_DEB" Depends
	assert_output --regexp 'libc6 \(>= [^)]+\)'
	assert_output --partial 'libpopt0'
}

@test "libpx0 holds libpx's shared library, libpx-dev its headers, static library and pkg-config file" {
	local ma lib dev
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	lib=$(deb_files "$PKG/libpx0_${VERSION}_amd64.deb")
	dev=$(deb_files "$PKG/libpx-dev_${VERSION}_amd64.deb")
	grep -qxF "/usr/lib/$ma/libpx.so.0" <<<"$lib"
	for f in /usr/include/px_counters.h /usr/include/px_region.h "/usr/lib/$ma/libpx.so" \
		"/usr/lib/$ma/libpx.a" "/usr/lib/$ma/pkgconfig/libpx.pc"; do
		grep -qxF "$f" <<<"$dev" || fail "libpx-dev lacks $f"
	done
	run -0 dpkg-deb -f "$PKG/libpx-dev_${VERSION}_amd64.deb" Depends
	assert_output --partial "libpx0 (= $VERSION)"
	# the tools' package holds none of it (its docs/libpx.md is the
	# guide, not the library)
	run grep -E '^/usr/lib/.*libpx|^/usr/include' <<<"$(deb_files "$PERFEX_DEB")"
	assert_output ""
	# a program builds against the unpacked packages with pkg-config
	dpkg -x "$PKG/libpx0_${VERSION}_amd64.deb" "$BATS_TEST_TMPDIR/root"
	dpkg -x "$PKG/libpx-dev_${VERSION}_amd64.deb" "$BATS_TEST_TMPDIR/root"
	run -0 env PKG_CONFIG_SYSROOT_DIR="$BATS_TEST_TMPDIR/root" PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 \
		PKG_CONFIG_LIBDIR="$BATS_TEST_TMPDIR/root/usr/lib/$ma/pkgconfig" pkg-config --libs libpx
	# shellcheck disable=SC2086  # words
	cc -DPX_REGIONS -I"$BATS_TEST_TMPDIR/root/usr/include" -o "$BATS_TEST_TMPDIR/regions" \
		"$ROOT/examples/regions.c" $output -lpthread
	run -0 --separate-stderr env LD_LIBRARY_PATH="$BATS_TEST_TMPDIR/root/usr/lib/$ma" \
		PX_REGIONS_EVENTS=page-faults PX_REGIONS_FORMAT=csv "$BATS_TEST_TMPDIR/regions" 5 0
	assert_regex "$stderr" "3,region,,,[0-9]+,,,page-faults,50,"
}

@test "perfmon-dkms holds the modules' source where kernel/dkms.conf says, at VERSION" {
	local f src=/usr/src/perfmon-$VERSION files
	files=$(deb_files "$DKMS_DEB")
	for f in dkms.conf kernel/Makefile kernel/Kbuild kernel/pfm_dev.c \
		kernel/uapi/perfmon.h \
		formats/default/kernel/Kbuild formats/default/perfmon_dfl_smpl.h \
		formats/double-buffer/kernel/Kbuild formats/callchain/kernel/Kbuild; do
		grep -qxF "$src/$f" <<<"$files" || fail "perfmon-dkms lacks $src/$f"
	done
	# the version DKMS sees is VERSION, in the package and in the tree
	run -0 bash -c "dpkg-deb --fsys-tarfile '$DKMS_DEB' | tar -xOf - .$src/dkms.conf"
	assert_line "PACKAGE_VERSION=\"$VERSION\""
	run -0 grep '^PACKAGE_VERSION=' "$ROOT/kernel/dkms.conf"
	assert_output "PACKAGE_VERSION=\"$VERSION\""
	# no build output of the tree, no user-space code
	run grep -E '\.(o|ko|mod\.c)$|/lib/' <<<"$files"
	assert_output ""
}

@test "the installed front ends run" {
	local f name
	run -0 "$STAGE/usr/bin/perfex" --version
	assert_output "perfex $VERSION"
	# every front end of the tree (perfex, pfmon, pfmon-report)
	for f in "$ROOT"/cmd/*.c; do
		[[ $f == */cli.c ]] && continue
		name=$(basename "$f" .c)
		run -0 "$STAGE/usr/bin/$name" --version
		assert_output "$name $VERSION"
	done
	# and count (the results go to -o's file)
	run -0 "$STAGE/usr/bin/perfex" -x , -o "$BATS_TEST_TMPDIR/counts.csv" -e task-clock true
	# one count row of task-clock, with its value (schema 3: docs/schema.md)
	run -0 awk -F, '
		$1 == "schema" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$(col["record"]) == "count" && $(col["name"]) == "task-clock" && $(col["value"]) != "" { n++ }
		END { print n + 0 }' "$BATS_TEST_TMPDIR/counts.csv"
	assert_output 1
}

@test "each installed man page renders: its NAME line, and no warning" {
	local page name n=0
	for page in "$STAGE"/usr/share/man/man1/*.1.gz; do
		name=$(basename "$page" .1.gz)
		run -0 env MANWIDTH=80 man -l "$page"
		# the NAME section's text: "perfex - count ..."
		assert_line --regexp "^ +$name - [a-z]"
		run -0 bash -c "man --warnings -l '$page' 2>&1 >/dev/null"
		assert_output ""
		n=$((n + 1))
	done
	assert_equal "$n" "$(ls "$ROOT"/man/*.1.scd | wc -l)"
}

@test "zsh loads each installed completion file after compinit, without a word on stderr" {
	command -v zsh >/dev/null || fail "zsh is not installed (apt-get install zsh)"
	local tool
	for tool in perfex pfmon pfmon-report; do
		run -0 --separate-stderr zsh -f -c "autoload -U compinit
			compinit -u -d '$BATS_TEST_TMPDIR/zcompdump'
			source '$ZSHCOMP/_$tool'
			print -r -- \$_comps[$tool]"
		assert_output "_$tool"
		assert_equal "$stderr" ""
	done
	# found in $fpath by compinit from their #compdef lines (and the
	# helpers file is not taken for a completion function)
	run -0 --separate-stderr zsh -f -c "fpath=('$ZSHCOMP' \$fpath)
		autoload -U compinit
		compinit -u -d '$BATS_TEST_TMPDIR/zcompdump2'
		print -r -- \$_comps[perfex] \$_comps[pfmon] \$_comps[pfmon-report] \${#_comps[(R)_perfex_helpers]}"
	assert_output "_perfex _pfmon _pfmon-report 0"
	assert_equal "$stderr" ""
}

# zsh_complete LINE: the matches zsh offers at the end of LINE, with the
# installed tools and completions
zsh_complete() {
	PATH=$STAGE/usr/bin:$PATH zsh -f "$BATS_TEST_DIRNAME/zsh-complete.zsh" "$ZSHCOMP" "$1"
}

@test "zsh completes options, events, values and the command from the installed tools" {
	command -v zsh >/dev/null || fail "zsh is not installed (apt-get install zsh)"
	run -0 zsh_complete 'perfex --ver'
	assert_output $'--verbose\n--version'
	run -0 zsh_complete 'perfex -e page-fau'
	assert_output 'page-faults'
	# the last item of a comma list, the items before it kept
	run -0 zsh_complete 'perfex -e task-clock,page-fau'
	assert_output 'task-clock,page-faults'
	run -0 zsh_complete 'perfex --event=perf::PERF_COUNT_SW_TASK'
	assert_output '--event=perf::PERF_COUNT_SW_TASK_CLOCK'
	run -0 zsh_complete 'perfex --backend m'
	assert_output 'module'
	run -0 zsh_complete 'perfex -o /et'
	assert_line 'etc'
	# after the command, its own completion: not perfex's options
	run -0 zsh_complete 'perfex -e page-faults lsbl'
	assert_line 'lsblk'
	run -0 zsh_complete 'perfex -e page-faults ls --backe'
	assert_output ''
	# pfmon: each -e is a set, and its options' values
	run -0 zsh_complete 'pfmon -e cpu-clock -e task-clock,context-sw'
	assert_output 'task-clock,context-switches'
	run -0 zsh_complete 'pfmon --profile-by l'
	assert_output 'line'
	run -0 zsh_complete 'pfmon --smpl-module d'
	assert_output $'default\ndouble-buffer'
	run -0 zsh_complete 'pfmon --follow-all --outfile /et'
	assert_line 'etc'
	# pfmon-report reads files
	run -0 zsh_complete 'pfmon-report /et'
	assert_line 'etc'
}

@test "the installed bash completion of pfmon-report completes files" {
	source "$STAGE/usr/share/bash-completion/completions/pfmon-report"
	run -0 complete -p pfmon-report
	assert_output --partial '_pfmon_report'
	COMP_WORDS=(pfmon-report --json /et)
	COMP_CWORD=2
	_pfmon_report
	assert_equal "${COMPREPLY[*]}" "/etc"
	COMP_WORDS=(pfmon-report -o /et)
	_pfmon_report
	assert_equal "${COMPREPLY[*]}" "/etc"
}

# Debian's kernel headers (linux-headers-amd64): the newest version
headers_kernel() {
	local d
	d=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && echo "${d#/usr/src/linux-headers-}"
}

# What DKMS and dpkg leave that the DKMS test did not find there: depmod's
# indexes of the kernel it installed into, and the key dkms makes to sign
# modules.  Listed before the test, removed after.
dkms_leftovers() {
	ls -d /lib/modules/"$1"/modules.* /var/lib/dkms/mok.key /var/lib/dkms/mok.pub 2>/dev/null || true
}

# dkms_cleanup: remove perfmon-dkms and all its traces, whatever state the
# test left them in
dkms_cleanup() {
	[ -e "$BATS_FILE_TMPDIR/dkms.kver" ] || return 0
	local kver f
	kver=$(cat "$BATS_FILE_TMPDIR/dkms.kver")
	if dpkg-query -W perfmon-dkms >/dev/null 2>&1; then
		# the prerm removes the modules from DKMS; should it fail, do so
		# here and purge again
		if ! dpkg --purge perfmon-dkms >>"$BATS_FILE_TMPDIR/dkms-cleanup.log" 2>&1; then
			dkms remove -m perfmon -v "$VERSION" --all >>"$BATS_FILE_TMPDIR/dkms-cleanup.log" 2>&1 || true
			dpkg --purge --force-remove-reinstreq perfmon-dkms >>"$BATS_FILE_TMPDIR/dkms-cleanup.log" 2>&1 || true
		fi
	fi
	if [ -n "$(dkms status -m perfmon -v "$VERSION" 2>/dev/null)" ]; then
		dkms remove -m perfmon -v "$VERSION" --all >>"$BATS_FILE_TMPDIR/dkms-cleanup.log" 2>&1 || true
	fi
	rm -rf "/var/lib/dkms/perfmon/$VERSION"
	rmdir /var/lib/dkms/perfmon 2>/dev/null || true
	for f in $(dkms_leftovers "$kver"); do
		grep -qxF "$f" "$BATS_FILE_TMPDIR/dkms.before" || rm -f "$f"
	done
	rmdir "/lib/modules/$kver/updates/dkms" "/lib/modules/$kver/updates" 2>/dev/null || true
	rm -f "$BATS_FILE_TMPDIR/dkms.kver"
}

@test "perfmon-dkms installs, and DKMS builds the four modules against Debian's headers, and for no kernel outside the supported ones" {
	[ "$(id -u)" = 0 ] || fail "needs root: dpkg -i and dkms"
	local kver log=$BATS_TEST_TMPDIR/dkms.log mod f
	kver=$(headers_kernel) || fail "no /usr/src/linux-headers-*-amd64: apt-get install linux-headers-amd64"
	if dpkg-query -W -f='${Status}' perfmon-dkms 2>/dev/null | grep -q installed; then
		fail "perfmon-dkms is installed already: dpkg --purge perfmon-dkms first"
	fi
	dkms_leftovers "$kver" >"$BATS_FILE_TMPDIR/dkms.before"
	echo "$kver" >"$BATS_FILE_TMPDIR/dkms.kver"

	# the postinst adds the source to DKMS and builds for the kernels with
	# headers; the running kernel, without headers here, is passed by
	dpkg -i "$DKMS_DEB" >"$log" 2>&1 || { show_log "$log"; fail "dpkg -i perfmon-dkms failed"; }
	run -0 dkms status -m perfmon -v "$VERSION"
	assert_output --partial "perfmon/$VERSION"

	# the postinst built and installed them for that kernel (the newest
	# with headers): checked, not built again (a second build of the
	# four modules took this test past its 120 s on a loaded machine)
	run -0 dkms status -m perfmon -v "$VERSION" -k "$kver"
	assert_output --regexp ": installed"
	for mod in perfmon perfmon_dfl perfmon_dbl perfmon_cc; do
		f=$(ls /var/lib/dkms/perfmon/"$VERSION/$kver"/*/module/"$mod".ko* 2>/dev/null | head -n 1)
		[ -n "$f" ] || { show_log "$log"; fail "dkms built no $mod.ko for $kver"; }
		# built for that kernel
		run -0 modinfo -F vermagic "$f"
		# (its first word: a release may hold a '+', 6.12.111+deb12)
		assert_equal "${output%% *}" "$kver"
	done

	# a kernel outside kernel/README.md's table: DKMS says why and
	# builds nothing (BUILD_EXCLUSIVE_KERNEL), whatever its headers
	mkdir -p "$BATS_TEST_TMPDIR/ksrc"
	run dkms build -m perfmon -v "$VERSION" -k 6.5.0-0-amd64 \
		--kernelsourcedir "$BATS_TEST_TMPDIR/ksrc"
	assert_output --partial "BUILD_EXCLUSIVE"
	[ "$status" -ne 0 ]
	[ -z "$(ls /var/lib/dkms/perfmon/"$VERSION"/6.5.0-0-amd64/*/module/ 2>/dev/null)" ] ||
		fail "dkms built modules for 6.5.0-0-amd64"

	# removing the package removes the modules from DKMS
	dpkg --purge perfmon-dkms >"$log" 2>&1 || { show_log "$log"; fail "dpkg --purge perfmon-dkms failed"; }
	run -0 dkms status -m perfmon
	assert_output ""
	[ ! -e "/usr/src/perfmon-$VERSION" ] || fail "/usr/src/perfmon-$VERSION is left"
}

teardown() {
	dkms_cleanup
}

teardown_file() {
	dkms_cleanup
}
