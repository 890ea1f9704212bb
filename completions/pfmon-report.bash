# bash completion for pfmon-report.  Options come from
# `pfmon-report --list-opts`, so this file never goes stale; the words
# that are not options are the per-rank output files it reads.

_pfmon_report() {
	# cword: set by _init_completion, kept local
	# shellcheck disable=SC2034
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
	fi
	local tool=${words[0]}

	# one match a line: file names may hold spaces
	case $prev in
	-o|--output)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	-x|--field-separator|--top)
		COMPREPLY=()
		return ;;
	esac

	case $cur in
	--output=*)
		mapfile -t COMPREPLY < <(compgen -f -- "${cur#--output=}")
		return ;;
	-*)
		mapfile -t COMPREPLY < <(compgen -W "$("$tool" --list-opts 2>/dev/null)" -- "$cur")
		return ;;
	esac
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -o filenames -F _pfmon_report pfmon-report
