# bash completion for pfmon.  Options come from `pfmon --list-opts` and
# event names from `pfmon --raw-dump`; the comma-list event completion is
# perfex's, loaded from beside this file.

if ! declare -F _perfex_events >/dev/null; then
	for _f in "${BASH_SOURCE[0]%/*}/perfex" "${BASH_SOURCE[0]%/*}/perfex.bash"; do
		[ -r "$_f" ] && . "$_f" && break
	done
	unset _f
fi

_pfmon() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n =: || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local pfmon=${words[0]} i

	# after the command, complete the command's own arguments
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-e|--events|--outfile|-x|--field-separator|--backend|--cpu-list|\
		--switch-timeout|--session-timeout|--attach-task|--priv-levels|--print-interval)
			((i++)) ;;
		-*) ;;
		*)
			if declare -F _command_offset >/dev/null; then
				_command_offset "$i"
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return ;;
		esac
	done

	case $prev in
	-e|--events)
		_perfex_events "$cur" "$pfmon"
		return ;;
	--outfile)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--backend)
		COMPREPLY=($(compgen -W "auto perf module" -- "$cur"))
		return ;;
	--attach-task)
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return ;;
	--priv-levels)
		COMPREPLY=($(compgen -W "u k uk" -- "${cur##*,}"))
		return ;;
	-x|--field-separator|--cpu-list|--switch-timeout|--session-timeout|--print-interval)
		return ;;
	esac

	case $cur in
	--events=*)
		_perfex_events "${cur#--events=}" "$pfmon"
		return ;;
	--backend=*)
		COMPREPLY=($(compgen -W "auto perf module" -- "${cur#--backend=}"))
		return ;;
	-*)
		COMPREPLY=($(compgen -W "$("$pfmon" --list-opts 2>/dev/null)" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -c -- "$cur"))
}

complete -F _pfmon pfmon
