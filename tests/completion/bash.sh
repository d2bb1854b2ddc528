#!/usr/bin/env bash
# The bash completion (completion/ibvf.bash with its generated table): sourced
# as bash-completion would, driven as bash drives it (COMP_LINE, COMP_POINT,
# COMP_WORDS split at COMP_WORDBREAKS, COMP_CWORD), COMPREPLY checked:
# commands (all of `ibvf help`'s), subcommands, a command's options, option
# values, and device names of a simulated node named on the line.
# usage: bash.sh COMPLETION_FILE IBVF
set -uo pipefail
comp=$1 ibvf=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# shellcheck source=/dev/null
. "$comp"

# complete LINE: COMPREPLY for the cursor at LINE's end, one per line.
complete_line() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	COMP_WORDS=()
	local w
	for w in $1; do
		while [[ $w =~ ^([^:=]*)([:=])(.*)$ ]]; do
			[ -n "${BASH_REMATCH[1]}" ] && COMP_WORDS+=("${BASH_REMATCH[1]}")
			COMP_WORDS+=("${BASH_REMATCH[2]}")
			w=${BASH_REMATCH[3]}
		done
		[ -n "$w" ] && COMP_WORDS+=("$w")
	done
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ibvf
	printf '%s\n' "${COMPREPLY[@]}"
}

# expect LINE WORD...: every WORD is among LINE's completions.
expect() {
	local line=$1 got w
	shift
	got=$(complete_line "$line")
	for w in "$@"; do
		if ! grep -qxF -- "$w" <<<"$got"; then
			echo "FAIL: '$line<TAB>' does not offer '$w'; it offers: $(echo $got)"
			fail=1
			return
		fi
	done
	echo "ok: '$line<TAB>' offers $*"
}

# refuse LINE WORD: WORD is not among LINE's completions.
refuse() {
	if grep -qxF -- "$2" <<<"$(complete_line "$1")"; then
		echo "FAIL: '$1<TAB>' offers '$2'"
		fail=1
	else
		echo "ok: '$1<TAB>' does not offer '$2'"
	fi
}

# Every command `ibvf help` lists, from the table's own listing.
mapfile -t cmds < <("$ibvf" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ ${#cmds[@]} -ge 10 ] || { echo "FAIL: 'ibvf help' lists ${#cmds[@]} commands"; fail=1; }
expect "ibvf " "${cmds[@]}"
expect "ibvf v" vf
refuse "ibvf v" list
expect "ibvf vf " create destroy rename guid state
expect "ibvf vf create --dr" --dry-run
expect "ibvf vf rename --all --sch" --scheme
# A subcommand typed: only the options it takes (its option table).
expect "ibvf vf rename --a" --all
refuse "ibvf vf create --a" --all
expect "ibvf bench server --o" --once
refuse "ibvf bench client h --o" --once
expect "ibvf bench client h --profile " validate
expect "ibvf bench " server client pair loopback validate
expect "ibvf bench client host --all-s" --all-sizes
expect "ibvf journal " undo
expect "ibvf --js" --json
expect "ibvf help p" persist
refuse "ibvf mkfixture --s" --sim
: >"$tmp/keyfile"
expect "ibvf bench server --key $tmp/k" "$tmp/keyfile"

# Devices of a simulated node the line names (8 PFs, 8 VFs each).
"$ibvf" mkfixture "$tmp/n" >/dev/null || { echo "FAIL: mkfixture"; exit 1; }
expect "ibvf --sim=$tmp/n vf create " 0000:18:00.0 0000:18:00.1 ibp24s0 mlx5_0
expect "ibvf --sim=$tmp/n vf create 18:0" 00.0 00.1
expect "ibvf --sim=$tmp/n vf create 0000:18:00." 00.0 00.1
expect "ibvf list --sim=$tmp/n" "$tmp/n"
expect "ibvf --root $tmp/n vf rename ibp24" ibp24s0
expect "ibvf bench --sim=$tmp/n -d mlx5_" mlx5_0
refuse "ibvf --sim=$tmp/n vf create " lo
refuse "ibvf --sim=$tmp/n list " 0000:18:00.0

# A name from the node is data, never shell code: a VF netdev a pod renamed
# to '$(>PWNED)' (15 bytes, a legal name) is neither run nor offered, in
# either completion path (a positional device, an option's device).
vfnet=$(echo "$tmp"/n/sys/bus/pci/devices/0000:18:00.1/net/*)
mv "$vfnet" "${vfnet%/*}/\$(>PWNED)"
mkdir "$tmp/cwd"
for line in "ibvf --sim=$tmp/n vf rename " "ibvf --sim=$tmp/n vf rename \$" \
	"ibvf bench --sim=$tmp/n -d "; do
	got=$(cd "$tmp/cwd" && complete_line "$line")
	if [ -e "$tmp/cwd/PWNED" ]; then
		echo "FAIL: '$line<TAB>' ran a device name as a command"
		fail=1
		rm -f "$tmp/cwd/PWNED"
	elif grep -qF 'PWNED' <<<"$got"; then
		echo "FAIL: '$line<TAB>' offers a name with shell syntax: $(grep -F PWNED <<<"$got")"
		fail=1
	else
		echo "ok: '$line<TAB>' neither runs nor offers '\$(>PWNED)'"
	fi
done
expect "ibvf --sim=$tmp/n vf rename " 0000:18:00.1 mlx5_0

# On the real node: what /sys has (nothing to check when it has no SR-IOV).
n=$(complete_line "ibvf vf create " | grep -c .)
echo "info: this host's /sys offers $n device names"
exit $fail
