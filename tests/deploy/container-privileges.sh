#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ibvf as the DaemonSet of deploy/kubernetes runs it, approximated on this
# machine without a container runtime: root with no capability at all
# (bounding, inheritable and ambient sets empty, no_new_privs), its own mount
# and PID namespaces with their own /proc, sysfs read-only, the host's network
# namespace (hostNetwork), and /dev either a tmpfs without kmsg (the pod's
# /dev) or the host's (a hostPath /dev/kmsg, refused without CAP_SYSLOG when
# dmesg_restrict is 1). `ibvf list --json` must read the node: the netlink
# link dump works without a capability, and the kernel log it cannot read is
# a note, not a clean log (docs/fleet.md).
# Usage: container-privileges.sh IBVF. Needs root, unshare and setpriv (else 77).
set -euo pipefail
ibvf=$1
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v setpriv >/dev/null; then
	echo "container-privileges: needs root, unshare and setpriv: skipped"
	exit 77
fi

sandbox() { # sandbox DEV_MODE CMD...: run CMD as the DaemonSet's container would
	local dev=$1
	shift
	# shellcheck disable=SC2016 # the script expands its own arguments
	unshare --mount --pid --fork --mount-proc --propagation private sh -euc '
		[ "$1" = tmpfs ] && { mount -t tmpfs -o mode=755 tmpfs /dev; mknod -m 666 /dev/null c 1 3; }
		mount -o remount,bind,ro /sys 2>/dev/null || mount -o bind,ro /sys /sys
		shift
		exec setpriv --bounding-set -all --inh-caps -all --ambient-caps -all \
			--no-new-privs -- "$@"' sandbox "$dev" "$@"
}

fails=0
check() { # check WHAT COND_RC DETAIL
	if [ "$2" -eq 0 ]; then echo "ok   $1"; else
		echo "FAIL $1: $3"
		fails=$((fails + 1))
	fi
}

caps=$(sandbox tmpfs grep CapEff /proc/self/status)
check "no capability in the sandbox" "$([[ $caps == *0000000000000000 ]] && echo 0 || echo 1)" "$caps"

for dev in tmpfs host; do
	rc=0
	out=$(sandbox "$dev" "$ibvf" list --json 2>&1) || rc=$?
	check "/dev $dev: ibvf list --json exits 0" "$rc" "$out"
	notes=$(printf '%s' "$out" | jq -r '.notes[]' 2>/dev/null || true)
	kmsg=$(printf '%s\n' "$notes" | grep "kernel log not read: '/dev/kmsg'" || true)
	if [ "$dev" = host ] && [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 0 ]; then
		echo "skip /dev host: dmesg_restrict is 0, /dev/kmsg is readable without CAP_SYSLOG"
	else
		check "/dev $dev: the unread kernel log is a note" "$([ -n "$kmsg" ] && echo 0 || echo 1)" \
			"notes: $notes"
		[ -n "$kmsg" ] && echo "     $kmsg"
	fi
	nl=$(printf '%s\n' "$notes" | grep "netlink" || true)
	check "/dev $dev: the netlink link dump needs no capability" "$([ -z "$nl" ] && echo 0 || echo 1)" "$nl"
	host=$(printf '%s' "$out" | jq -r .host 2>/dev/null || true)
	check "/dev $dev: the host's name (UTS namespace shared)" \
		"$([ "$host" = "$(cat /proc/sys/kernel/hostname)" ] && echo 0 || echo 1)" "host '$host'"
done

# The DaemonSet's record container: the same sandbox, with /var/lib/ibvf and
# /run/ibvf its own (hostPaths; here tmpfs, so this host's are untouched):
# `ibvf record --once` writes the store without any capability, and
# `ibvf timeline` reads it back.
made=()
for d in /var/lib/ibvf /run/ibvf; do [ -d "$d" ] || made+=("$d"); done
rc=0
# shellcheck disable=SC2016 # the inner shell expands its own arguments
out=$(unshare --mount --pid --fork --mount-proc --propagation private sh -euc '
	mount -t tmpfs -o mode=755 tmpfs /dev; mknod -m 666 /dev/null c 1 3
	mount -o remount,bind,ro /sys 2>/dev/null || mount -o bind,ro /sys /sys
	mkdir -p /var/lib/ibvf /run/ibvf
	mount -t tmpfs -o mode=755 tmpfs /var/lib/ibvf
	mount -t tmpfs -o mode=755 tmpfs /run/ibvf
	exec setpriv --bounding-set -all --inh-caps -all --ambient-caps -all --no-new-privs -- \
		sh -c "\"$1\" record --once && \"$1\" timeline --kind start"' sandbox "$ibvf" 2>&1) || rc=$?
for d in "${made[@]}"; do rmdir "$d" 2>/dev/null || true; done # the mount points it made
check "record --once and timeline without a capability" "$rc" "$out"
first=$(printf '%s\n' "$out" | grep -c 'first record of this node' || true)
check "the store has its first record" "$([ "$first" = 1 ] && echo 0 || echo 1)" "$out"
# The kubelet's pod-resources API as the DaemonSet reaches it: a gRPC server
# (tests/podres/server.py) on a socket of root outside, the directory mounted
# read-only at /var/lib/kubelet/pod-resources inside; `ibvf list --json`
# without a capability reads it (kubelet_api "ok", its pods).
if [ -n "${IBVF_PODRES_SERVER:-}" ] && [ -n "${IBVF_PYTHON:-}" ]; then
	prs=$(mktemp -d)
	kdir=/var/lib/kubelet/pod-resources
	made_k=()
	[ -d /var/lib/kubelet ] || made_k+=(/var/lib/kubelet)
	[ -d "$kdir" ] || made_k=("$kdir" "${made_k[@]}")
	mkdir -p "$kdir"
	"$IBVF_PYTHON" "$IBVF_PODRES_SERVER" --pb "$IBVF_PODRES_PB" --socket "$prs/kubelet.sock" \
		--ready "$prs/ready" --answers "$(dirname "$IBVF_PODRES_SERVER")/node.json" 2>"$prs/log" &
	srv=$!
	while [ ! -e "$prs/ready" ] && kill -0 "$srv" 2>/dev/null; do sleep 0.05; done
	rc=0
	# shellcheck disable=SC2016 # the inner shell expands its own arguments
	out=$(unshare --mount --pid --fork --mount-proc --propagation private sh -euc '
		mount -t tmpfs -o mode=755 tmpfs /dev; mknod -m 666 /dev/null c 1 3
		mount -o remount,bind,ro /sys 2>/dev/null || mount -o bind,ro /sys /sys
		mount -o bind "$2" /var/lib/kubelet/pod-resources
		mount -o remount,bind,ro /var/lib/kubelet/pod-resources
		exec setpriv --bounding-set -all --inh-caps -all --ambient-caps -all --no-new-privs -- \
			"$1" list --json' sandbox "$ibvf" "$prs" 2>&1) || rc=$?
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	for d in "${made_k[@]}"; do rmdir "$d" 2>/dev/null || true; done # the mount points it made
	state=$(printf '%s' "$out" | jq -r '.kubelet_api.state + " " + (.kubelet_api.pods | tostring)' 2>/dev/null || true)
	check "the pod-resources socket read-only, without a capability: the API answers" \
		"$([ "$rc" = 0 ] && [ "$state" = "ok 3" ] && echo 0 || echo 1)" \
		"exit $rc, kubelet_api '$state': $(head -c 400 "$prs/log") ${out:0:300}"
	rm -rf "$prs"
else
	echo "skip the pod-resources socket: no python3-grpcio server (scripts/install-deps)"
fi
exit $((fails > 0))
