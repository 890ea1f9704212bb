#!/usr/bin/env bats
# Kernel samples when /proc/kallsyms cannot name them (kptr_restrict shows
# zeroed addresses, or the file cannot be read): they still count, under
# module [kernel] with function ??.  PX_KALLSYMS (lib/symbols/symbols.c) names the
# file read in place of /proc/kallsyms, so the fallback is tested whatever
# this machine's kptr_restrict is.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	PFMON=$BIN/pfmon
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# "share-of-[kernel]-with-??  rows-of-[kernel]-named" in pfmon -x, output $1
kernel_rows() {
	schema_awk 'v("record") == "profile" && v("module") == "[kernel]" {
			if (v("symbol") == "??") p += v("share_pct"); else named++ }
		END { printf "%.2f %d\n", p, named }' <<<"$1"
}

@test "zeroed kallsyms (kptr_restrict): kernel samples count as [kernel] ??" {
	printf '0000000000000000 T _stext\n0000000000000000 t do_page_fault\n0000000000000000 T _etext\n' >"$T/kallsyms"
	PX_KALLSYMS=$T/kallsyms run -0 --separate-stderr "$PFMON" -x, -e cpu-clock \
		--long-smpl-periods=50000 --profile-top=0 "$W/touch_pages" 20000
	read -r share named <<<"$(kernel_rows "$output")"
	echo "[kernel] ?? share $share, named kernel rows $named"
	[ "$named" = 0 ]
	# touch_pages spends most of its time faulting pages in
	awk -v p="$share" 'BEGIN { exit !(p > 10) }'
}

@test "unreadable kallsyms: kernel samples count as [kernel] ??" {
	PX_KALLSYMS=$T/does-not-exist run -0 --separate-stderr "$PFMON" -x, -e cpu-clock \
		--long-smpl-periods=50000 --profile-top=0 "$W/touch_pages" 20000
	read -r share named <<<"$(kernel_rows "$output")"
	echo "[kernel] ?? share $share, named kernel rows $named"
	[ "$named" = 0 ]
	awk -v p="$share" 'BEGIN { exit !(p > 10) }'
}

@test "PX_KALLSYMS is the table kernel samples are named from" {
	[ -r /proc/kallsyms ] && awk '$1 != "0000000000000000" { ok = 1; exit } END { exit !ok }' /proc/kallsyms ||
		skip "kallsyms shows no addresses to this user"
	# the real table with every text symbol renamed
	awk '$2 ~ /^[tTwW]$/ { sub(/ [tTwW] /, "&pxtest_") } { print }' /proc/kallsyms >"$T/kallsyms"
	PX_KALLSYMS=$T/kallsyms run -0 --separate-stderr "$PFMON" -x, -e cpu-clock \
		--long-smpl-periods=50000 --profile-top=0 "$W/touch_pages" 20000
	run -0 schema_awk 'v("record") == "profile" && v("module") == "[kernel]" && v("symbol") != "??" {
			n++; if (v("symbol") !~ /^pxtest_/) bad++ }
		END { print (n > 0), bad + 0 }' <<<"$output"
	assert_output "1 0"
}
