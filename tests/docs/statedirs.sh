#!/usr/bin/env bash
# The docs say what the code does with root's directories under sudo: the
# man page, README.md and docs/operator-guide.md each state that root takes
# its own home from the password database (~root/.cache/ibvf/sim,
# ~root/.config/ibvf/themes), never SUDO_USER's; the built ibvf, run as root
# with a sudo environment (SUDO_USER, the user's HOME and XDG_CACHE_HOME),
# makes its default simulated node there, and without SUDO_USER in the
# user's XDG_CACHE_HOME (the control: the test can tell the two apart).
# ~root is a directory of this test: /etc/passwd is bind-mounted over in a
# private mount namespace (unshare; a user namespace when not root).
# usage: statedirs.sh IBVF SRCDIR MANPAGE
set -uo pipefail
ibvf=$1 src=$2 page=$3
fail=0

if [ "${IBVF_STATEDIRS_INNER:-}" != 1 ]; then
	# The doc half needs no namespace.
	text=$(sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\f[BIR]//g' "$page")
	for doc in "man page:$text" "README.md:$(cat "$src/README.md")" \
		"docs/operator-guide.md:$(cat "$src/docs/operator-guide.md")"; do
		name=${doc%%:*} body=${doc#*:}
		for want in "~root/.cache/ibvf/sim" "~root/.config/ibvf/themes"; do
			if grep -qF -- "$want" <<<"$body"; then
				echo "ok: $name names $want"
			else
				echo "FAIL: $name does not name '$want' (root's own home under sudo)"
				fail=1
			fi
		done
		for wrong in "those of SUDO_USER" "SUDO_USER's" "the sudo user's" "invoking user's home"; do
			if grep -qiF -- "$wrong" <<<"$body"; then
				echo "FAIL: $name says '$wrong': root under sudo uses its own home"
				fail=1
			fi
		done
	done
	if [ "$(id -u)" -eq 0 ]; then
		ns=(unshare --mount --propagation private)
	else
		ns=(unshare --user --map-root-user --mount --propagation private)
	fi
	if ! "${ns[@]}" true 2>/dev/null; then
		echo "SKIP: cannot make a private mount namespace ('${ns[*]}'); the doc half: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
		[ $fail -eq 0 ] && exit 77
		exit 1
	fi
	IBVF_STATEDIRS_INNER=1 "${ns[@]}" "$0" "$@" || fail=1
	exit $fail
fi

# Inside: root of a private mount namespace.
tmp=$(mktemp -d /tmp/ibvf-statedirs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/roothome" "$tmp/alice/.cache"
awk -F: -v OFS=: -v h="$tmp/roothome" '$3 == 0 {$6 = h} {print}' /etc/passwd >"$tmp/passwd"
mount --bind "$tmp/passwd" /etc/passwd || { echo "FAIL: cannot bind-mount over /etc/passwd"; exit 1; }
home=$(getent passwd 0 | cut -d: -f6)
[ "$home" = "$tmp/roothome" ] || { echo "FAIL: ~root reads '$home', not the test's"; exit 1; }

run() { # ENV... : ibvf --sim list, the user's environment otherwise
	env -i PATH="$PATH" HOME="$tmp/alice" XDG_CACHE_HOME="$tmp/alice/.cache" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" "$@" "$ibvf" --sim list >"$tmp/out" 2>&1
}

run SUDO_USER=alice
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: sudo: ibvf --sim list exit $rc: $(head -c 1500 "$tmp/out")"
	fail=1
elif [ -d "$home/.cache/ibvf/sim" ] && [ ! -e "$tmp/alice/.cache/ibvf" ]; then
	echo "ok: under sudo the simulated node is ~root/.cache/ibvf/sim ($home/.cache/ibvf/sim)"
else
	echo "FAIL: under sudo: ~root/.cache/ibvf/sim $([ -d "$home/.cache/ibvf/sim" ] || echo not) made," \
		"the user's $([ -e "$tmp/alice/.cache/ibvf" ] && echo used || echo untouched)"
	fail=1
fi

rm -rf "$home/.cache" "$tmp/alice/.cache/ibvf"
run
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: without sudo: ibvf --sim list exit $rc: $(head -c 1500 "$tmp/out")"
	fail=1
elif [ -d "$tmp/alice/.cache/ibvf/sim" ] && [ ! -e "$home/.cache" ]; then
	echo "ok: without SUDO_USER root takes XDG_CACHE_HOME (its own directory): the control"
else
	echo "FAIL: without sudo: XDG_CACHE_HOME/ibvf/sim $([ -d "$tmp/alice/.cache/ibvf/sim" ] || echo not) made"
	fail=1
fi
exit $fail
