#!/usr/bin/env bats
# The bash completion asks perfex itself for options and event names.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	source "$ROOT/completions/perfex.bash"
}

# complete WORD...: set COMP_WORDS to the words, the cursor on the last
# one, run the completion function and leave the candidates in COMPREPLY.
complete_words() {
	COMP_WORDS=("$PERFEX" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_perfex
}

@test "options come from --list-opts" {
	complete_words --ver
	assert_equal "${COMPREPLY[*]}" "--verbose --version"
	complete_words --fie
	assert_equal "${COMPREPLY[*]}" "--field-separator"
}

@test "event names come from --raw-dump after -e" {
	complete_words -e page-fau
	assert_equal "${COMPREPLY[*]}" "page-faults"
	complete_words -e perf::PERF_COUNT_SW_TASK
	assert_equal "${COMPREPLY[*]}" "perf::PERF_COUNT_SW_TASK_CLOCK"
}

@test "the last item of a comma list is completed, the others kept" {
	complete_words -e task-clock,page-fau
	assert_equal "${COMPREPLY[*]}" "task-clock,page-faults"
	complete_words --event page-faults,context-sw
	assert_equal "${COMPREPLY[*]}" "page-faults,context-switches"
}

@test "--backend values" {
	complete_words --backend ""
	assert_equal "${COMPREPLY[*]}" "auto perf module"
	complete_words --backend m
	assert_equal "${COMPREPLY[*]}" "module"
}

@test "a completion is registered for perfex" {
	run -0 complete -p perfex
	assert_output --partial "_perfex"
}

@test "after the command, its own arguments are completed, not perfex's" {
	complete_words -e page-faults ls /et
	[[ " ${COMPREPLY[*]} " == *" /etc "* ]]
	complete_words -o out.txt ls --ver
	[[ " ${COMPREPLY[*]} " != *" --verbose "* ]]
}
