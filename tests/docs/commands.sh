#!/usr/bin/env bash
# Every command `ibvf help` lists is in README.md's usage block (between
# <!-- commands: begin --> and <!-- commands: end -->, one line each starting
# with its name after two spaces) and has its heading in the man page, and
# the block lists no command the binary does not have.
# usage: commands.sh IBVF SRCDIR MANPAGE
set -uo pipefail
ibvf=$1 src=$2 page=$3
fail=0
mapfile -t cmds < <("$ibvf" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ ${#cmds[@]} -ge 10 ] || { echo "FAIL: 'ibvf help' lists ${#cmds[@]} commands"; exit 1; }
block=$(awk '/<!-- commands: begin -->/ {on = 1; next} /<!-- commands: end -->/ {on = 0} on' \
	"$src/README.md")
[ -n "$block" ] || { echo "FAIL: README.md has no '<!-- commands: begin -->' ... '<!-- commands: end -->' block"; exit 1; }
mapfile -t listed < <(sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' <<<"$block")
for c in "${cmds[@]}"; do
	if printf '%s\n' "${listed[@]}" | grep -qx -- "$c"; then
		:
	else
		echo "FAIL: README.md's usage block does not list '$c' (ibvf help does)"
		fail=1
	fi
	grep -qx "\.SS $c" "$page" || { echo "FAIL: the man page has no heading for '$c'"; fail=1; }
done
for l in "${listed[@]}"; do
	printf '%s\n' "${cmds[@]}" | grep -qx -- "$l" ||
		{ echo "FAIL: README.md's usage block lists '$l', which 'ibvf help' does not"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: README.md's usage block and the man page list the ${#cmds[@]} commands of 'ibvf help': ${cmds[*]}"
exit $fail
