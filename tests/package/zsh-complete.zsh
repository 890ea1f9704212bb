#!/usr/bin/zsh -f
# zsh-complete.zsh DIR LINE: print, one a line, the matches zsh's completion
# offers at the end of LINE, with the completion functions of DIR first in
# $fpath (compinit reads their #compdef lines).  Completion runs only in the
# line editor of an interactive shell, so one is started on a pseudo
# terminal (zpty), LINE is typed there followed by TAB, and a compadd that
# prints what it adds reports the matches between two marker lines.
# Exits 2 when the completion does not end within 20 seconds.
emulate -L zsh
setopt err_return no_unset

if (( $# != 2 )); then
	print -u2 "usage: zsh-complete.zsh DIR LINE"
	exit 2
fi
dir=${1:A} line=$2
tmp=$(mktemp -d)
trap 'zpty -d px 2>/dev/null; rm -rf $tmp' EXIT

# The interactive shell's set-up: no prompt, the completion system, TAB
# completes, Enter never runs anything, and the hooks that mark the start
# and the end of one completion (then the shell exits).
cat >$tmp/setup.zsh <<EOF
PS1= PROMPT= RPROMPT=
fpath=(${(q)dir} \$fpath)
autoload -U compinit
compinit -u -d ${(q)tmp}/zcompdump
bindkey '^I' complete-word
bindkey '^M' undefined-key
bindkey '^J' undefined-key
px_start() { print -r -- '<<px-start>>' }
px_end() { print -r -- '<<px-end>>' }
compprefuncs=(px_start)
comppostfuncs=(px_end exit)
# every match added is printed as "match: PREFIX+MATCH" (IPREFIX: what
# compset -P moved out of the word, as the items before a comma); the
# completion system's own calls that only collect (-O, -A, -D) are left
# alone
compadd() {
	if [[ \${(j: :)@} == (|* )-[OAD]* ]]; then
		builtin compadd "\$@"
		return
	fi
	local -a px_m
	builtin compadd -O px_m "\$@"
	local m
	for m in \$px_m; do print -r -- "match: \$IPREFIX\$m"; done
	builtin compadd "\$@"
}
print -r -- '<<px-ready>>'
EOF

zmodload zsh/zpty
zpty px zsh -f -i
zpty -w px "source ${(q)tmp}/setup.zsh"

# px_read_until MARK: read the terminal's lines until one holds MARK,
# printing the matches met on the way (after the start marker)
px_read_until() {
	local out l started=0
	integer deadline=$(( SECONDS + 20 ))
	while (( SECONDS < deadline )); do
		if zpty -rt px out 2>/dev/null; then
			for l in ${(f)out//$'\r'/}; do
				[[ $l == *$1* ]] && return 0
				[[ $l == *'<<px-start>>'* ]] && started=1
				(( started )) && [[ $l == match:\ * ]] && print -r -- ${l#match: }
			done
		else
			sleep 0.05
		fi
	done
	print -u2 "zsh-complete.zsh: no '$1' after 20 s"
	return 2
}

px_read_until '<<px-ready>>' >/dev/null
zpty -n -w px "$line"$'\t'
px_read_until '<<px-end>>'
