#!/usr/bin/env bats
# pfmon --backend=module --call-graph=fp: call chains recorded by the
# kernel (perfmon_cc.ko) end to end, on cc_nest (main -> nest_a ->
# nest_b -> nest_leaf with frame pointers, one page fault per call of the
# leaf, every fault sampled): folded stacks, the call graph, the sample
# file, kernel frames, --call-graph-depth, the same leaf paths as the
# perf backend, system-wide contexts, and --call-graph=dwarf refused.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	pfm_setup
	T=$(mktemp -d)
	SMPL=(-e page-faults:u --long-smpl-periods=1 --call-graph=fp)
}

teardown() {
	rm -rf "$T"
}

# stacks FOLDED REGEX: the samples of the folded stacks that match REGEX
# (awk -v takes escapes: write \\[ for a literal [)
stacks() {
	awk -v re="$2" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s) }
		s ~ re { n += c } END { print n + 0 }' "$1"
}

# callgraph CSV FUNCTION COLUMN: the call graph row of FUNCTION's samples
# with its callees (COLUMN value) or its own (self)
callgraph() {
	csv_rows - "$3" record=callgraph symbol="$2" <<<"$1"
}

# bats test_tags=x86
@test "pfmon --backend=module --call-graph=fp: every fault of the leaf has the path main, nest_a, nest_b, nest_leaf" {
	run -0 --separate-stderr pfmon --backend=module -x, "${SMPL[@]}" \
		--profile-top=0 --folded="$T/f" cc_nest touch 50
	[ "$(summary "$output" samples)" = "$(summary "$output" overflows)" ]
	[ "$(summary "$output" lost)" = 0 ]
	[ "$(stacks "$T/f" '(^|;)main;nest_a;nest_b;nest_leaf$')" = 50 ]
	[ "$(stacks "$T/f" 'nest_leaf')" = 50 ]
	[ "$(callgraph "$output" nest_leaf self)" = 50 ]
	[ "$(callgraph "$output" nest_leaf value)" = 50 ]
	[ "$(callgraph "$output" main value)" -ge 50 ]
	# the folded stacks add up to the samples
	[ "$(awk '{ s += $NF } END { print s }' "$T/f")" = "$(summary "$output" samples)" ]
}

# bats test_tags=x86
@test "the sample file carries the kernel's chains, resolved" {
	run -0 pfmon --backend=module "${SMPL[@]}" --resolve-addresses \
		--smpl-outfile="$T/s" cc_nest touch 20
	[ "$(grep -c ' | chain: nest_leaf <- nest_b <- nest_a <- main <- ' "$T/s")" = 20 ]
}

# bats test_tags=x86
@test "faults in the kernel: the kernel frames under the leaf's path, through read()" {
	run -0 --separate-stderr pfmon --backend=module -x, -e page-faults \
		--long-smpl-periods=1 --call-graph=fp --folded="$T/f" cc_nest read 20
	[ "$(stacks "$T/f" '(^|;)main;nest_a;nest_b;nest_leaf;entry_SYSCALL_64[a-z_]*;.*ksys_read;.*read_zero;')" = 20 ]
	[ "$(callgraph "$output" ksys_read value)" -ge 20 ]
}

# bats test_tags=x86
@test "--call-graph-depth=2 keeps the leaf and its caller, the rest [truncated]" {
	run -0 --separate-stderr pfmon --backend=module -x, "${SMPL[@]}" \
		--call-graph-depth=2 --folded="$T/f" cc_nest touch 30
	[ "$(stacks "$T/f" '^\\[truncated\\];nest_b;nest_leaf$')" = 30 ]
	[ "$(summary "$output" cut_chains)" -ge 30 ]
}

# bats test_tags=x86
@test "the module and the perf backend give the leaf the same path" {
	run -0 --separate-stderr pfmon --backend=module "${SMPL[@]}" --folded="$T/m" cc_nest touch 40
	run -0 --separate-stderr pfmon --backend=perf "${SMPL[@]}" --folded="$T/p" cc_nest touch 40
	[ "$(stacks "$T/m" '(^|;)main;nest_a;nest_b;nest_leaf$')" = 40 ]
	[ "$(stacks "$T/p" '(^|;)main;nest_a;nest_b;nest_leaf$')" = 40 ]
}

# bats test_tags=x86
@test "system-wide: every task's chains, the command's leaf path whole, the idle task's kernel only" {
	run -0 --separate-stderr pfmon --backend=module -x, --system-wide -e page-faults \
		--long-smpl-periods=1 --call-graph=fp --folded="$T/f" cc_nest touch 50
	[ "$(summary "$output" lost)" = 0 ]
	[ "$(stacks "$T/f" '(^|;)main;nest_a;nest_b;nest_leaf$')" = 50 ]
	# the idle task has no user part: nothing to cut
	run -0 --separate-stderr pfmon --backend=module -x, --system-wide --cpu-list=0 \
		-e cpu-clock --long-smpl-periods=1000000 --call-graph=fp \
		--folded="$T/g" cc_nest sleep 200
	[ "$(stacks "$T/g" '^swapper;')" -gt 0 ]
	[ "$(stacks "$T/g" '^swapper;.*\\[truncated\\]')" = 0 ]
}

# bats test_tags=x86
@test "pfmon --backend=module --call-graph=dwarf: refused, the perf backend's" {
	run -1 --separate-stderr pfmon --backend=module -e page-faults:u \
		--long-smpl-periods=1 --call-graph=dwarf cc_nest touch 3
	[[ "$stderr" == *"--call-graph=dwarf needs the perf backend"* ]]
}
