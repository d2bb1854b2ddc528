#!/bin/bash
# (f) ibvf's actions on a real kernel: 'ibvf vf create' on an igb PF through
# 0 -> 3 -> 5 -> 0 (the kernel takes a new count only from 0), a refusal past
# sriov_totalvfs, 'ibvf vf rename' of an up VF netdev, each checked with
# sysfs and 'ip -j link', and the journal they leave.
# vmtest-budget: 90
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
pf=${pfs[0]}
numvfs() { sysfs_pci "$pf" sriov_numvfs; }

# ip_vfs: how many VFs the PF's netlink dump lists (ip -j -d link show PF).
pfdev=$(vm_netdev "$pf")
ip_vfs() { ip -j -d link show dev "$pfdev" | jq -r '.[0].vfinfo_list // [] | length'; }
# vf_netdevs N: every one of the first N VFs has a netdev.
vf_netdevs() {
	local i
	for ((i = 0; i < $1; i++)); do
		vm_netdev "$(vm_vf "$pf" "$i")" >/dev/null || return 1
	done
}

# ibvf waits up to 30 s for VFs by default; this guest gets that scaled.
wait_s=$(vm_scaled 30)
VM_IBVF_TIMEOUT=$((2 * wait_s))
for n in 3 5 0; do
	out=$VM_TMP/create-$n
	if run_ibvf "$out" vf create "$pf" "$n" --yes --timeout "$wait_s"; then
		pass "ibvf vf create $pf $n" "$(grep -c '^ *[0-9]*\. ok' "$out") steps ok"
	else
		fail "ibvf vf create $pf $n" "$(tail -n 5 "$out") $(cat "$out.err")"
	fi
	expect_eq "sriov_numvfs after create $n" "$(numvfs)" "$n" "sysfs"
	expect_eq "VFs in the netlink dump after create $n" "$(ip_vfs)" "$n" "ip -j -d link"
	expect_ok "the $n VFs have netdevs when ibvf returns" vf_netdevs "$n"
done
if grep -q 'echo 0 > /sys/bus/pci/devices/'"$pf"'/sriov_numvfs' "$VM_TMP/create-5"; then
	pass "3 -> 5 went through 0" "$(grep -F '$ echo' "$VM_TMP/create-5")"
else
	fail "3 -> 5 went through 0" "$(cat "$VM_TMP/create-5")"
fi

expect_fail "ibvf vf create $pf 8 (sriov_totalvfs is 7) is refused" vm_ibvf vf create "$pf" 8 --yes
expect_eq "sriov_numvfs untouched by the refusal" "$(numvfs)" 0 "sysfs"

# Rename an up VF netdev (Linux >= 6.2 renames up links in place).
expect_ok "ibvf vf create $pf 2" vm_ibvf vf create "$pf" 2 --yes --timeout "$wait_s"
vf1=$(vm_vf "$pf" 1)
old=$(vm_netdev "$vf1")
ifindex=$(cat "/sys/class/net/$old/ifindex")
ip link set dev "$old" up
ip_name() { ip -j link show | jq -r --argjson i "$1" '.[] | select(.ifindex == $i) | .ifname'; }
out=$VM_TMP/rename
if run_ibvf "$out" vf rename "$vf1" vfname1 --yes; then
	pass "ibvf vf rename $vf1 vfname1" "$(grep -F '$ ip' "$out")"
else
	fail "ibvf vf rename $vf1 vfname1" "$(cat "$out" "$out.err")"
fi
expect_eq "ifindex $ifindex is vfname1" "$(ip_name "$ifindex")" vfname1 "ip -j link"
expect_eq "vfname1 is still up" \
	"$(ip -j link show dev vfname1 | jq -r '.[0].flags | index("UP") != null')" true "ip -j link"
expect_fail "rename onto the PF's name $pfdev is refused" vm_ibvf vf rename "$vf1" "$pfdev" --yes
expect_eq "ifindex $ifindex still vfname1" "$(ip_name "$ifindex")" vfname1 "ip -j link"

# The journal: one entry per applied plan, and undo of the rename.
j=$VM_TMP/journal.json
run_ibvf "$j" journal --json
expect_json "journal entries (4 creates, 1 rename)" "$j" '.entries | length' 5 "ibvf journal --json"
expect_json "last entry is the rename, ok" "$j" '.entries[-1] | "\(.action) \(.result)"' "vf rename ok"
id=$(jqr "$j" '.entries[-1].id')
# Back to a kernel name (ethN): the undo, as the rename would, takes --force.
case $old in
eth[0-9]* | ib[0-9]*)
	expect_fail "ibvf journal undo $id to the kernel name $old without --force" \
		vm_ibvf journal undo "$id" --yes
	;;
esac
expect_ok "ibvf journal undo $id --force" vm_ibvf journal undo "$id" --yes --force
expect_eq "ifindex $ifindex is $old again" "$(ip_name "$ifindex")" "$old" "ip -j link"

# Link state: igb does not support it; the refusal is clear and nothing changes.
out=$VM_TMP/state
run_ibvf "$out" vf state "$vf1" disable --yes
if grep -qi "not support\|Operation not supported" "$out.err"; then
	pass "vf state on igb fails with a clear message" "$(cat "$out.err")"
else
	fail "vf state on igb fails with a clear message" "$(cat "$out" "$out.err")"
fi

vm_sriov "$pf" 0
vm_done
