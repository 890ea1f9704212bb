#!/usr/bin/env bats
# Call chains on each backend (the module's through the callchain format,
# perfmon_cc.ko, whose arm64 walk reads the frame records of the kernel
# and user stacks): sampling cycles:u in tests/hw/nest, where the run's
# cycles are spent in nest_leaf under main, nest_a, nest_b; and page
# faults taken in the kernel under that path (nest read).
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	hw_setup
}

teardown() {
	hw_teardown
}

# stacks FOLDED REGEX: the samples of the folded stacks that match REGEX
stacks() {
	awk -v re="$2" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s) }
		s ~ re { n += c } END { print n + 0 }' "$1"
}

@test "pfmon --call-graph=fp: every sample in nest_leaf has the path main, nest_a, nest_b, nest_leaf" {
	local b leaf path total
	for b in $PFM_HW_BACKENDS; do
		pfmon_csv "$b" -e cycles:u --long-smpl-periods=100000 --call-graph=fp \
			--folded="$T/f" nest 2000000 >"$T/out.csv"
		cat "$T/f"
		total=$(awk '{ s += $NF } END { print s + 0 }' "$T/f")
		leaf=$(stacks "$T/f" 'nest_leaf$')
		path=$(stacks "$T/f" '(^|;)main;nest_a;nest_b;nest_leaf$')
		echo "$b: $total samples, $leaf in nest_leaf, $path with the whole path"
		# 10 million cycles of the loop: about 100 samples, nearly all there
		[ "$leaf" -ge 90 ]
		[ "$path" = "$leaf" ]
		[ "$leaf" -ge $((total * 9 / 10)) ]
	done
}

@test "faults in the kernel: the kernel's frames under the leaf's path, through read()" {
	local b
	for b in $PFM_HW_BACKENDS; do
		pfmon_csv "$b" -e page-faults --long-smpl-periods=1 --call-graph=fp \
			--folded="$T/f" nest read 20 >"$T/out.csv"
		cat "$T/f"
		# the fault's function, a leaf in asm (__arch_clear_user on
		# arm64), keeps its return address in a register: its
		# caller, read_zero, is not in any frame-pointer chain
		[ "$(stacks "$T/f" '(^|;)main;nest_a;nest_b;nest_leaf;.*ksys_read;vfs_read;')" = 20 ]
	done
}
