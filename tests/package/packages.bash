# Shared by the package suite's files (`load packages`, in setup_file or
# setup): the Debian packages built from a copy of the tree, once per bats
# run and architecture, and what the tests read of them.  Sets ROOT (the
# tree) and VERSION (its VERSION file), exported.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
VERSION=$(cat "$ROOT/VERSION")
export ROOT VERSION

# tree_snapshot: the tree's files, copied once per bats run into
# $BATS_RUN_TMPDIR/tree (its path on standard output): what git tracks or
# would (not build/ nor other ignored build outputs); outside git, all but
# build/ and .git.  Every build of the run starts from this one copy, so
# the native and the cross build are of the same sources even while the
# tree is being edited.
tree_snapshot() {
	local snap=$BATS_RUN_TMPDIR/tree
	if [ ! -e "$snap.done" ]; then
		rm -rf "$snap"
		mkdir -p "$snap"
		if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
			(cd "$ROOT" && git ls-files --cached --others --exclude-standard |
				while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
				tar -cf - -T -) | tar -xf - -C "$snap" || return 1
		else
			tar -C "$ROOT" --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$snap" || return 1
		fi
		touch "$snap.done"
	fi
	echo "$snap"
}

# build_packages ARCH: the packages built for ARCH with dpkg-buildpackage
# -b, natively when ARCH is this machine's architecture, else cross-built
# (-a ARCH -Pcross,nocheck, as sbuild cross-builds: nocheck only silences
# dh's warning that tests cannot run, since debian/rules runs none).
# Sets and exports PKG, the folder that holds the .debs and build.log.
# dpkg-buildpackage writes the packages beside the tree it builds: the
# copy in $PKG/src, so they land in $PKG.  Each ARCH is built once per bats
# run, whichever file asks first; a second call reuses that build, or
# fails again with its log.
build_packages() {
	local arch=$1 snap opts=()
	PKG=$BATS_RUN_TMPDIR/pkg-$arch
	export PKG
	[ "$arch" = "$(dpkg --print-architecture)" ] || opts=(-a "$arch" "-Pcross,nocheck")
	if [ ! -e "$PKG/build.log" ]; then
		snap=$(tree_snapshot) || return 1
		mkdir -p "$PKG/src"
		cp -a "$snap/." "$PKG/src/"
		if (cd "$PKG/src" &&
			DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage "${opts[@]}" -us -uc -b) \
			>"$PKG/build.log" 2>&1; then
			touch "$PKG/built"
		fi
	fi
	if [ ! -e "$PKG/built" ]; then
		echo "# dpkg-buildpackage ${opts[*]} -us -uc -b failed; the end of $PKG/build.log:" >&2
		tail -n 40 "$PKG/build.log" | sed 's/^/#   /' >&2
		return 1
	fi
}

# deb_files DEB: the paths in DEB, one a line, without the leading "."
deb_files() {
	dpkg-deb -c "$1" | awk '{ sub(/^\./, "", $6); print $6 }'
}

# show_log FILE: the end of FILE, for a failure
show_log() {
	echo "# the end of $1:"
	tail -n 30 "$1" | sed 's/^/#   /'
}
