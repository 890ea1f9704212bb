#!/bin/sh
# Install every Debian package the build, the test suites and the benchmarks
# need.  As root it installs what is missing; otherwise it prints the
# apt-get line to run and fails.  chromium runs headless for the flame
# graph check (tests/cli/flamegraph_render.py).  Open MPI and Slurm (with
# munge) run the per-rank tests; their daemons are started by the tests'
# own set-up (scripts/slurm.sh), not here.  scdoc builds the man pages;
# dkms, debhelper, dpkg-dev and fakeroot build and test the packages; zsh
# checks its completions.
set -eu

PACKAGES="build-essential pkg-config python3
libpfm4-dev libelf-dev libdw-dev libpopt-dev libc6-dbg binutils
bats bats-assert bats-support chromium
linux-perf hyperfine time strace procps
qemu-system-x86 linux-headers-amd64 busybox-static cpio kmod
libjson-c-dev openmpi-bin libopenmpi-dev slurm-wlm munge
scdoc dkms debhelper dpkg-dev fakeroot man-db zsh"

missing=""
for pkg in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $pkg"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi

echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y -qq --no-install-recommends $missing >/dev/null
