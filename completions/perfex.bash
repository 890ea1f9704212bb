# bash completion for perfex.  Options come from `perfex --list-opts` and
# event names from `perfex --raw-dump`, so this file never goes stale.

_perfex_events() {
	# complete the last item of a comma list: keep what precedes it
	local cur=$1 prefix="" item=$1
	if [[ $cur == *,* ]]; then
		prefix=${cur%,*},
		item=${cur##*,}
	fi
	local names
	names=$("$2" --raw-dump 2>/dev/null)
	# libpfm4 spells perf's names in capitals; perf users type them in
	# lower case (page-faults): offer both for the names without a PMU
	names+=$'\n'$(grep -v '::' <<<"$names" | tr '[:upper:]' '[:lower:]')
	local IFS=$'\n'
	COMPREPLY=($(compgen -P "$prefix" -W "$names" -- "$item"))
	# a comma list goes on: no space after the name
	compopt -o nospace 2>/dev/null || :
}

# _perfex_after_command TOOL: when an earlier word is the measured
# command, complete that command's own arguments and succeed.  The words
# of options taking a separate argument are skipped; TOOL names them
# itself (--list-arg-opts), so the list never goes stale.
_perfex_after_command() {
	local i arg_opts
	arg_opts=$'\n'$("$1" --list-arg-opts 2>/dev/null)$'\n'
	for ((i = 1; i < cword; i++)); do
		if [[ $arg_opts == *$'\n'"${words[i]}"$'\n'* ]]; then
			((i++))
			continue
		fi
		case ${words[i]} in
		-*) ;;
		*)
			if declare -F _command_offset >/dev/null; then
				_command_offset "$i"
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return 0 ;;
		esac
	done
	return 1
}

# _perfex_word TOOL: --events=/--event=, --backend= and option names.
_perfex_word() {
	case $cur in
	--event=*|--events=*)
		_perfex_events "${cur#*=}" "$1"
		return ;;
	--backend=*)
		COMPREPLY=($(compgen -W "auto perf module" -- "${cur#--backend=}"))
		return ;;
	-*)
		COMPREPLY=($(compgen -W "$("$1" --list-opts 2>/dev/null)" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -c -- "$cur"))
}

# Fill the caller's cur, prev, words and cword, with bash-completion's
# _init_completion when it is there.
_perfex_init_words() {
	if declare -F _init_completion >/dev/null; then
		_init_completion -n =:
		return
	fi
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
}

_perfex() {
	local cur prev words cword
	_perfex_init_words || return
	local perfex=${words[0]}

	# after the command, complete the command's own arguments
	_perfex_after_command "$perfex" && return

	case $prev in
	-e|--event)
		_perfex_events "$cur" "$perfex"
		return ;;
	-o|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--backend)
		COMPREPLY=($(compgen -W "auto perf module" -- "$cur"))
		return ;;
	-x|--field-separator|-r|--repeat)
		return ;;
	esac

	_perfex_word "$perfex"
}

complete -F _perfex perfex
