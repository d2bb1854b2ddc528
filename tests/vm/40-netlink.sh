#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (d) ibvf's own netlink code: 'ibvf debug rename' of a VF netdev checked with
# 'ip -j link'; 'ibvf debug vfinfo PF' against 'ip -d -j link show PF' after
# setting VF MAC, spoofchk, trust and VLAN through the PF.
# vmtest-budget: 45
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
pf=${pfs[0]}
expect_ok "echo 3 > $pf/sriov_numvfs" vm_sriov "$pf" 3
pfdev=$(vm_netdev "$pf")
vf0=$(vm_vf "$pf" 0)
old=$(vm_netdev "$vf0")
ifindex=
rd ifindex "/sys/class/net/$old/ifindex"

# ip_name IFINDEX: the name ip reports for that ifindex.
ip_name() { ip -j link show | jq -r --argjson i "$1" '.[] | select(.ifindex == $i) | .ifname'; }

# Rename a down link, then an up one (allowed since Linux 6.2), then back.
expect_ok "ibvf debug rename $old vfren0" vm_ibvf debug rename "$old" vfren0
expect_eq "ifindex $ifindex is now vfren0" "$(ip_name "$ifindex")" vfren0 "ip -j link"
expect_fail "old name $old is gone" ip link show dev "$old"
ip link set dev vfren0 up
expect_ok "ibvf debug rename vfren0 vfren1 while up" vm_ibvf debug rename vfren0 vfren1
expect_eq "ifindex $ifindex is now vfren1" "$(ip_name "$ifindex")" vfren1 "ip -j link"
expect_eq "vfren1 still up" "$(ip -j link show dev vfren1 | jq -r '.[0].flags | index("UP") != null')" true "ip -j link"
expect_fail "ibvf debug rename onto an existing name ($pfdev) fails" vm_ibvf debug rename vfren1 "$pfdev"
expect_eq "ifindex $ifindex still vfren1" "$(ip_name "$ifindex")" vfren1 "ip -j link"
expect_fail "ibvf debug rename of a missing link fails" vm_ibvf debug rename nosuchif0 x0
expect_ok "ibvf debug rename vfren1 $old" vm_ibvf debug rename vfren1 "$old"
expect_eq "ifindex $ifindex is $old again" "$(ip_name "$ifindex")" "$old" "ip -j link"

# VF administrative state through the PF.
mac=02:00:00:00:01:01
expect_ok "ip link set $pfdev vf 1 mac $mac spoofchk off trust on" \
	ip link set dev "$pfdev" vf 1 mac "$mac" spoofchk off trust on
expect_ok "ip link set $pfdev vf 2 vlan 42" ip link set dev "$pfdev" vf 2 vlan 42

info=$VM_TMP/vfinfo.json
ref=$VM_TMP/ip-pf.json
ip -d -j link show dev "$pfdev" >"$ref"
if ! run_ibvf "$info" debug vfinfo "$pfdev" || ! jq -e 'type == "array"' "$info" >/dev/null 2>&1; then
	fail "ibvf debug vfinfo $pfdev prints a JSON array" "$(head -c 200 "$info") $(head -c 200 "$info.err")"
	vm_done
fi
pass "ibvf debug vfinfo $pfdev" "$(head -c 200 "$info")"

# ip's view of a VF's administrative state, in ibvf's terms.
ip_vf='{
	mac: .address,
	vlan: (((.vlan_list // [])[0].vlan) // .vlan // 0),
	qos: (((.vlan_list // [])[0].qos) // .qos // 0),
	spoofchk: (if .spoofchk == null then null elif .spoofchk then 1 else 0 end),
	trust: (if .trust == null then null elif .trust then 1 else 0 end),
	link_state: ({"auto": 0, "enable": 1, "disable": 2}[.link_state // ""]),
	max_tx_rate: (.rate.max_tx // 0)
}'
jq_begin "$info" --slurpfile ip "$ref"
jq_expect "vfinfo lists 3 VFs" '[.[].vf] | sort | map(tostring) | join(",")' "0,1,2" "sriov_numvfs"
for i in 0 1 2; do
	for k in mac vlan qos spoofchk trust link_state max_tx_rate; do
		jq_expect_ref "vfinfo vf $i $k" ".[] | select(.vf == $i) | .$k" \
			"\$ip[0][0].vfinfo_list[] | select(.vf == $i) | $ip_vf | .$k" "ip -d -j link show $pfdev"
	done
done
jq_expect "vfinfo vf 1 as set" '.[] | select(.vf == 1) | "\(.mac) spoofchk \(.spoofchk) trust \(.trust)"' \
	"$mac spoofchk 0 trust 1" "ip link set"
jq_expect "vfinfo vf 2 vlan as set" '.[] | select(.vf == 2) | .vlan' 42 "ip link set"
jq_expect "vfinfo vf 0 GUIDs unknown on Ethernet" '.[] | select(.vf == 0) | "\(.node_guid) \(.port_guid)"' "null null"
jq_end

# The same administrative state in 'ibvf list'.
list=$VM_TMP/list.json
if run_ibvf "$list" list --json; then
	v=".pfs[] | select(.bdf == \"$pf\") | .vfs[]?"
	jq_begin "$list"
	jq_expect "ibvf list: VF 1 admin as set" \
		"$v | select(.index == 1) | .admin | \"\(.address) spoofchk \(.spoofchk) trust \(.trust)\"" \
		"$mac spoofchk false trust true" "ip link set"
	jq_expect "ibvf list: VF 2 admin vlan" "$v | select(.index == 2) | .admin.vlan" 42 "ip link set"
	jq_end
else
	fail "ibvf list --json" "$(head -c 200 "$list.err")"
fi
vm_done
