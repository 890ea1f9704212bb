# bash completion for pfmon-report.  Options come from
# `pfmon-report --list-opts`, so this file never goes stale; the words
# that are not options are the per-rank output files it reads.

_pfmon_report() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local tool=${words[0]}

	case $prev in
	-o|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-x|--field-separator|--top)
		return ;;
	esac

	case $cur in
	--output=*)
		COMPREPLY=($(compgen -f -- "${cur#--output=}"))
		return ;;
	-*)
		COMPREPLY=($(compgen -W "$("$tool" --list-opts 2>/dev/null)" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _pfmon_report pfmon-report
