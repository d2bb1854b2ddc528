#!/usr/bin/env bash
# The zsh completion (completion/_ibvf.zsh with its generated table): zsh -n
# parses it, then zsh runs it with compsys' builtins shimmed (compadd records
# its words, compset strips as zsh's does, _files records a file request) on
# words/CURRENT as compsys sets them, and the offered words are checked:
# commands (all of `ibvf help`'s), subcommands, options, devices of a
# simulated node named on the line. Last, real zsh in a pseudo-terminal
# (zpty) with compinit and the file on its fpath: a TAB typed after a line
# completes it through compsys, and the line is read back.
# usage: zsh.sh COMPLETION_FILE IBVF
set -uo pipefail
comp=$1 ibvf=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

command -v zsh >/dev/null || { echo "skip: no zsh (scripts/install-deps installs it)"; exit 77; }
zsh -n "$comp" || { echo "FAIL: zsh -n $comp"; exit 1; }
echo "ok: zsh -n parses $comp"
"$ibvf" mkfixture "$tmp/n" >/dev/null || { echo "FAIL: mkfixture"; exit 1; }

# offered LINE: the words the completion offers for the cursor at LINE's end.
offered() {
	zsh -f -c '
		compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift; print -l -- "$@"; }
		compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=}; return 0; }
		_files() { print -- "<files $*>"; }
		words=(ibvf) CURRENT=1
		source "$1" >/dev/null 2>&1
		words=(${(z)2})
		[[ $2 == *" " ]] && words+=("")
		CURRENT=${#words} PREFIX=${words[-1]}
		_ibvf_main
	' zsh "$comp" "$1" 2>&1
}

expect() {
	local line=$1 got w
	shift
	got=$(offered "$line")
	for w in "$@"; do
		if ! grep -qxF -- "$w" <<<"$got"; then
			echo "FAIL: zsh '$line<TAB>' does not offer '$w'; it offers: $(echo $got)"
			fail=1
			return
		fi
	done
	echo "ok: zsh '$line<TAB>' offers $*"
}

mapfile -t cmds < <("$ibvf" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ ${#cmds[@]} -ge 10 ] || { echo "FAIL: 'ibvf help' lists ${#cmds[@]} commands"; fail=1; }
expect "ibvf " "${cmds[@]}"
expect "ibvf vf " create destroy rename guid state
expect "ibvf vf create --d" --dry-run
expect "ibvf bench client h --t" --test --timeout --tx-depth
expect "ibvf journal " undo
expect "ibvf --sim=$tmp/n vf create " 0000:18:00.0 18:00.1 ibp24s0 mlx5_0
expect "ibvf --sim=$tmp/n bench -d " mlx5_0
expect "ibvf persist --output " "<files -/>"
# A subcommand typed: only the options it takes (its option table).
expect "ibvf vf rename --a" --all
expect "ibvf bench client h --profile " validate
if grep -qxF -- --once <<<"$(offered "ibvf bench client h --o")"; then
	echo "FAIL: zsh 'ibvf bench client h --o<TAB>' offers --once (server's)"
	fail=1
else
	echo "ok: zsh 'ibvf bench client h --o<TAB>' does not offer --once"
fi
# tab LINE: the line zsh's editor holds after LINE and a TAB, in a pty.
mkdir "$tmp/fpath" && cp "$comp" "$tmp/fpath/_ibvf"
tab() {
	timeout 150 zsh -f -c '
		zmodload zsh/zpty
		zpty -b z zsh -f -i
		zpty -w z "PS1=\"> \"; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
		zpty -w z "zle -N show-buf; show-buf() { zle -I; print -r -- \"BUF[\$BUFFER]\" }; bindkey \"^X\" show-buf"
		zpty -wn z "$2"$'"'"'\t'"'"'
		zpty -wn z $'"'"'\x18'"'"'
		out=
		for i in {1..1200}; do
			if zpty -r -t z line; then out+=$line; else sleep 0.1; fi
			[[ $out == *"BUF[ibvf"*"]"* ]] && break
		done
		zpty -d z
		print -r -- "$out" | grep -ao "BUF\[ibvf[^]]*\]" | tail -n 1
	' zsh "$tmp/fpath" "$1"
}

# tab_expect LINE LINE2: a TAB after LINE makes it LINE2.
tab_expect() {
	local got
	got=$(tab "$1")
	if [ "$got" = "BUF[$2]" ]; then
		echo "ok: zsh (zpty, compsys) '$1<TAB>' -> '$2'"
	else
		echo "FAIL: zsh (zpty, compsys) '$1<TAB>' gives '$got', not 'BUF[$2]'"
		fail=1
	fi
}
if zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
	tab_expect "ibvf vf cr" "ibvf vf create "
	tab_expect "ibvf persist --dry" "ibvf persist --dry-run "
	tab_expect "ibvf --sim=$tmp/n vf destroy ibp22" "ibvf --sim=$tmp/n vf destroy ibp220s0"
	tab_expect "ibvf --sim=$tmp/n bench client h -d 0000:18:00.7" "ibvf --sim=$tmp/n bench client h -d 0000:18:00.7 "
else
	echo "FAIL: no zsh/zpty module (Debian's zsh has it): the compsys run is not done"
	fail=1
fi
exit $fail
