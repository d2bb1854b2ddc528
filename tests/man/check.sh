#!/usr/bin/env bash
# The man page ibvf(1) as built: lint-clean (mandoc -T lint -W warning, else
# groff -ww), every section the page promises, and every command `ibvf help`
# lists under its own heading with its usage, so the page and the program
# cannot disagree.
# usage: check.sh PAGE IBVF
set -uo pipefail
page=$1 ibvf=$2
fail=0

if command -v mandoc >/dev/null; then
	out=$(mandoc -T lint -W warning "$page" 2>&1)
	lint="mandoc -T lint -W warning"
else
	out=$(groff -ww -z -man "$page" 2>&1)
	lint="groff -ww -z -man"
fi
if [ -n "$out" ]; then
	echo "FAIL: $lint: $out"
	fail=1
else
	echo "ok: $lint is silent"
fi

for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS FILES "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
	grep -qx "\.SH $s" "$page" || { echo "FAIL: no section '$s'"; fail=1; }
done

# The page's text as mandoc renders it, to compare with `ibvf help CMD`.
text=$(sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' "$page")
mapfile -t cmds < <("$ibvf" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ ${#cmds[@]} -ge 10 ] || { echo "FAIL: 'ibvf help' lists ${#cmds[@]} commands"; fail=1; }
heads=$(grep '^\.SS ' "$page" | cut -d' ' -f2- | tr '\n' ' ')
for c in "${cmds[@]}"; do
	usage=$("$ibvf" help "$c" | head -n 1 | sed 's/^usage: //')
	if ! grep -qx "\.SS $c" "$page"; then
		echo "FAIL: command '$c' has no heading (headings: $heads)"
		fail=1
	elif ! grep -qxF -- "$usage" <<<"$text"; then
		echo "FAIL: command '$c': its usage '$usage' is not in the page"
		fail=1
	fi
done
n=$(grep -c '^\.SS ' "$page")
[ "$n" -eq ${#cmds[@]} ] || { echo "FAIL: $n command headings, 'ibvf help' lists ${#cmds[@]}"; fail=1; }
[ $fail -eq 0 ] && echo "ok: all ${#cmds[@]} commands of 'ibvf help' have a heading and their usage"
exit $fail
