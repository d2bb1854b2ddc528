#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (b) 'ibvf watch --json' in the background sees VF creation, a netdev rename
# and VF removal, each within 1 s of the change. Each line is timestamped as
# it arrives here, so a watcher that does not flush per line fails too. The
# changes run first, each followed by a grace period; one jq run then checks
# every expected event against its arrival time. The 1 s limit is ibvf's
# promise, not a wait: the pauses around it scale with the guest's speed.
# vmtest-budget: 60
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
pf=${pfs[0]}
ev=$VM_TMP/events
limit_us=1000000

# A reference monitor (busybox uevent) stamps the kernel's own events, so a
# late line can be told from a late kernel.
uevent bash -c 't=$EPOCHREALTIME; printf "%s %s %s %s\n" "${t/./}" "$ACTION" "$SUBSYSTEM" "${DEVPATH##*/}" >>'"$ev.ref" &
mkfifo "$ev.fifo"
while IFS= read -r l; do
	t=$EPOCHREALTIME
	printf '%s %s\n' "${t/./}" "$l"
done <"$ev.fifo" >"$ev" &
if ! command -v ibvf >/dev/null; then
	fail "ibvf watch --json" "no ibvf binary in the image"
	vm_done
fi
# busybox timeout execs ibvf in its own process: $! is the watcher itself.
timeout "$(vm_left)" ibvf watch --json >"$ev.fifo" 2>"$ev.err" &
watcher=$!
vm_sleep 1.5
if ! kill -0 "$watcher" 2>/dev/null; then
	wait "$watcher"
	fail "ibvf watch --json keeps running" "exited $? early; stdout: $(head -c 200 "$ev"); stderr: $(head -c 200 "$ev.err")"
	vm_done
fi
pass "ibvf watch --json keeps running"

want_what=()
want_since=()
want_cond=()
# expect_event WHAT SINCE_US COND: an event matching COND (jq, on the event) within 1 s of SINCE_US.
expect_event() {
	want_what+=("$1")
	want_since+=("$2")
	want_cond+=("$3")
}

# VF creation.
t0=$(vm_us)
echo 3 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
t1=$(vm_us)
note "echo 3 > sriov_numvfs took $(((t1 - t0) / 1000)) ms"
wait_until 10 _vm_vfs_ready "$pf" 3
vfs=()
for i in 0 1 2; do
	vfs+=("$(vm_vf "$pf" "$i")")
done
for vf in "${vfs[@]}"; do
	expect_event "add pci $vf" "$t1" ".action == \"add\" and .subsystem == \"pci\" and .name == \"$vf\""
done
expect_event "bind pci ${vfs[0]}" "$t1" ".action == \"bind\" and .subsystem == \"pci\" and .name == \"${vfs[0]}\""
for vf in "${vfs[@]}"; do
	nd=$(vm_netdev "$vf")
	expect_event "add net $nd (VF $vf)" "$t1" ".action == \"add\" and .subsystem == \"net\" and .name == \"$nd\""
done
vm_sleep 1.2

# Rename of a VF netdev.
old=$(vm_netdev "${vfs[1]}")
new=vfwatch1
expect_ok "ip link set $old name $new" ip link set dev "$old" name "$new"
t1=$(vm_us)
expect_event "move net $old -> $new" "$t1" \
	".action == \"move\" and .subsystem == \"net\" and .name == \"$new\" and .old_name == \"$old\""
devpath=$(readlink -f "/sys/class/net/$new")
devpath=${devpath#/sys}
expect_event "move event devpath $devpath" "$t1" ".action == \"move\" and .devpath == \"$devpath\""
vm_sleep 1.2

# VF removal.
t0=$(vm_us)
echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
t1=$(vm_us)
note "echo 0 > sriov_numvfs took $(((t1 - t0) / 1000)) ms"
for vf in "${vfs[@]}"; do
	expect_event "remove pci $vf" "$t1" ".action == \"remove\" and .subsystem == \"pci\" and .name == \"$vf\""
done
vm_sleep 1.2
kill "$watcher" 2>/dev/null

# One arrival time per expected event ("" if it never came).
prog='split("\n") | map(select(length > 0) | . as $l | ($l | index(" ")) as $i |
	{t: $l[:$i], e: ($l[$i + 1:] | fromjson? // null)} | select(.e | type == "object")) as $evs | '
sep=
for c in "${want_cond[@]}"; do
	prog+="$sep(first(\$evs[] | select(.e | $c) | .t) // \"\")"
	sep=', '
done
mapfile -t at < <(jq -R -s -r "$prog" "$ev" 2>"$VM_TMP/jq.err")
touch "$ev.ref"
# ref_at COND: when the reference monitor saw the event (COND's action, subsystem, name).
ref_at() {
	local a s n
	a=$(sed -n 's/.*\.action == "\([a-z]*\)".*/\1/p' <<<"$1")
	s=$(sed -n 's/.*\.subsystem == "\([a-z]*\)".*/\1/p' <<<"$1")
	n=$(sed -n 's/.*\.name == "\([^"]*\)".*/\1/p' <<<"$1")
	awk -v a="$a" -v s="$s" -v n="$n" '$2 == a && (s == "" || $3 == s) && (n == "" || $4 == n) { print $1; exit }' "$ev.ref"
}
for i in "${!want_what[@]}"; do
	a=${at[$i]-}
	r=$(ref_at "${want_cond[$i]}")
	ref=
	[ -n "$r" ] && ref="; the kernel's uevent was seen $(((r - want_since[i]) / 1000)) ms after"
	if [ -z "$a" ]; then
		fail "${want_what[$i]}" "no such event$ref; saw: $(cut -d' ' -f2- "$ev" | tail -n 3) $(head -c 200 "$VM_TMP/jq.err")"
	elif [ $((a - want_since[i])) -le "$limit_us" ]; then
		pass "${want_what[$i]}" "$(((a - want_since[i]) / 1000)) ms after the change returned$ref"
	else
		fail "${want_what[$i]}" "arrived $(((a - want_since[i]) / 1000)) ms after the change returned$ref"
	fi
done

# Every line is one JSON object with the documented keys.
bad=$(cut -d' ' -f2- "$ev" | jq -R -c 'fromjson? // "INVALID" |
	select(type != "object" or ([has("action", "subsystem", "name", "old_name", "devpath")] | all | not))' 2>&1 | head -n 3)
expect_eq "every line is an object with action, subsystem, name, old_name, devpath" "$bad" ""
note "events: $(wc -l <"$ev") lines"
cut -d' ' -f2- "$ev" | head -n 40 >&2
vm_done
