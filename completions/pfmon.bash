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
	_perfex_init_words || return
	local pfmon=${words[0]}

	# after the command, complete the command's own arguments
	_perfex_after_command "$pfmon" && return

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
	--profile-by)
		COMPREPLY=($(compgen -W "function inlined line comm pid cpu" -- "$cur"))
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

	_perfex_word "$pfmon"
}

complete -F _pfmon pfmon
