#!/usr/bin/env bats
# pfmon's bash completion: options from pfmon itself, events as perfex's.
bats_require_minimum_version 1.5.0

setup() {
	load helpers
	source "$ROOT/completions/pfmon.bash"
}

complete_words() {
	COMP_WORDS=("$BIN/pfmon" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_pfmon
}

@test "pfmon options come from --list-opts" {
	complete_words --follow-p
	assert_equal "${COMPREPLY[*]}" "--follow-pthread"
	complete_words --system
	assert_equal "${COMPREPLY[*]}" "--system-wide"
}

@test "pfmon event lists after -e complete their last item" {
	complete_words -e task-clock,page-fau
	assert_equal "${COMPREPLY[*]}" "task-clock,page-faults"
}

@test "pfmon --priv-levels, --backend and --profile-by values" {
	complete_words --priv-levels u
	assert_equal "${COMPREPLY[*]}" "u uk"
	complete_words --backend p
	assert_equal "${COMPREPLY[*]}" "perf"
	complete_words --profile-by c
	assert_equal "${COMPREPLY[*]}" "comm cpu"
}

@test "a completion is registered for pfmon" {
	run -0 complete -p pfmon
}

@test "pfmon: an option's separate argument is not taken for the command" {
	# --smpl-outfile's argument is a file, not the command: completing
	# after it still offers pfmon's own options
	complete_words --smpl-outfile out.txt --resolve-addr
	assert_equal "${COMPREPLY[*]}" "--resolve-addresses"
	complete_words -e task-clock ls /et
	[[ " ${COMPREPLY[*]} " == *" /etc "* ]]
}
