#!/bin/sh
# Install every Debian package the build, the test suites and the benchmarks
# need.  As root it installs what is missing; otherwise it prints the
# apt-get line to run and fails.  chromium runs headless for the flame
# graph check (tests/cli/flamegraph_render.py).  Open MPI and Slurm (with
# munge) run the per-rank tests; their daemons are started by the tests'
# own set-up (scripts/slurm.sh), not here.  golang-go gives go tool
# pprof, which reads pfmon's --pprof profiles in their tests.  scdoc builds the man pages;
# dkms, debhelper, dpkg-dev and fakeroot build and test the packages; zsh
# checks its completions.
#
# The npm packages that check pfmon's --speedscope and --perf-script files
# (tests/cli/pfmon_exports.bats: speedscope's file schema and viewer, the
# ajv validator) are installed from the npm registry into
# tests/npm/node_modules, at the versions of tests/npm/package-lock.json
# (npm ci), never globally; as any user, once node and npm are there.
#
# The arm64 part (ARM64_PACKAGES) cross-builds everything for arm64
# (`make ARCH=arm64`) and boots the arm64 guest of the hardware-counter
# suite: the cross compiler, qemu-system-arm, and Debian's multiarch
# :arm64 builds of the libraries the tools link.  The cross-built Debian
# packages (dpkg-buildpackage -a arm64, tests/package/arm64.bats) also
# need pkg-config:arm64 (its aarch64-linux-gnu-pkg-config reads the arm64
# .pc files) and run the arm64 programs under qemu-user.  The :arm64
# packages need the arm64 architecture added to dpkg (dpkg
# --add-architecture arm64), done here before the one apt-get update.
# The guest's kernel, headers, busybox and bash are fetched with apt-get
# download by the build and the harness (scripts/build-guest-modules.sh,
# scripts/vm/lib.sh), not installed.
set -eu

PACKAGES="build-essential pkg-config python3
libpfm4-dev libelf-dev libdw-dev libpopt-dev libc6-dbg binutils
bats bats-assert bats-support chromium
linux-perf hyperfine time strace procps
qemu-system-x86 linux-headers-amd64 busybox-static cpio kmod xz-utils dwarves
libjson-c-dev openmpi-bin libopenmpi-dev slurm-wlm munge
scdoc dkms debhelper dpkg-dev fakeroot man-db zsh golang-go clang"

ARM64_PACKAGES="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-arm
libpfm4-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 libpopt-dev:arm64
libjson-c-dev:arm64 zlib1g-dev:arm64 libc6-dev:arm64 pkg-config:arm64 qemu-user"

# on an arm64 machine the native packages are the arm64 ones
[ "$(dpkg --print-architecture)" = arm64 ] && ARM64_PACKAGES=""

missing=""
for pkg in $PACKAGES $ARM64_PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $pkg"
	fi
done

# node and npm: from the nodejs and npm packages unless a node that
# bundles npm is installed already
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	missing="$missing nodejs npm"
fi

# (again only when package-lock.json changed since: npm ci starts over)
npm_packages() {
	local dir
	dir=$(dirname "$0")/../tests/npm
	[ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] ||
		npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
}

if [ -z "$missing" ]; then
	npm_packages
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	if [ -n "$ARM64_PACKAGES" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "install-deps: run as root: dpkg --add-architecture arm64 && apt-get update && apt-get install -y$missing" >&2
	else
		echo "install-deps: run as root: apt-get update && apt-get install -y$missing" >&2
	fi
	exit 1
fi

echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if [ -n "$ARM64_PACKAGES" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y -qq --no-install-recommends $missing >/dev/null
npm_packages
