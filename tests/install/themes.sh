#!/usr/bin/env bash
# Which theme directories the console looks in (strace of its access(2)
# calls, a missing theme asked for): the binary in its build tree looks in the
# source tree's themes/ and the installed directory; the same binary copied
# out of the build tree, as an install is, looks in the installed directory
# only, never in the source tree named at build time (it may be anyone's by
# then: a package built in /var/tmp).
# usage: themes.sh IBVF SOURCE_THEMES_DIR
set -uo pipefail
ibvf=$1 srcdir=$2
command -v strace >/dev/null || { echo "skip: no strace (scripts/install-deps installs it)"; exit 77; }
tmp=$(mktemp -d /var/tmp/ibvf-themes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$ibvf" mkfixture "$tmp/n" >/dev/null || { echo "FAIL: mkfixture"; exit 1; }
cp "$ibvf" "$tmp/ibvf"

# looked BINARY: the theme files it tried, one a line.
looked() {
	printf q | TERM=xterm XDG_CONFIG_HOME=$tmp/cfg timeout 60 \
		strace -f -qq -e trace=access,faccessat,faccessat2 -o "$tmp/trace" \
		script -qec "$1 --sim=$tmp/n console --theme ibvf-test-none" /dev/null >/dev/null 2>&1
	grep -o '"[^"]*ibvf-test-none.theme"' "$tmp/trace" | tr -d '"'
}

in_tree=$(looked "$ibvf")
grep -qxF "$srcdir/ibvf-test-none.theme" <<<"$in_tree" ||
	{ echo "FAIL: the build tree's ibvf does not look in '$srcdir': $(echo $in_tree)"; fail=1; }
out_tree=$(looked "$tmp/ibvf")
[ -n "$out_tree" ] || { echo "FAIL: the copied ibvf looked for no theme file (strace)"; fail=1; }
if grep -qF "$srcdir/" <<<"$out_tree"; then
	echo "FAIL: ibvf out of its build tree looks in the source tree: $(echo $out_tree)"
	fail=1
fi
[ $fail = 0 ] && echo "ok: in the build tree: $(echo $in_tree); out of it: $(echo $out_tree)"
exit $fail
