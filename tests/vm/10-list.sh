#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (a) 'ibvf list --json' on the guest's real sysfs, field by field against
# sysfs, 'ip -d -j link' and 'rdma -j link': first with SR-IOV off, then with
# 3 VFs on each PF (written to sriov_numvfs by this scenario).
# vmtest-budget: 60
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
# The PFs' links come up a few seconds after boot, and igb resets a PF (its
# link goes down and up) when VFs are enabled: compare a settled node, not
# one caught mid-negotiation between ibvf's read and ip's.
_pfs_up() {
	local pf n s
	for pf in "${pfs[@]}"; do
		n=$(vm_netdev "$pf") || return 1
		rd s "/sys/class/net/$n/operstate"
		[ "$s" = up ] || return 1
	done
}
# Up, and still up a second later (a reset's link drop can come after the write).
_pfs_settled() { _pfs_up && sleep 1 && _pfs_up; }
wait_until 20 _pfs_settled || note "PF links not settled up after 20 s"
list=$VM_TMP/list.json
ipall=$VM_TMP/ip.json
rdmaj=$VM_TMP/rdma.json

# ip's view of a VF's administrative state: ibvf's uses ip's names and
# values (docs/json.md), but for vlan, which ip nests in vlan_list.
ip_vfinfo='{
	address: .address,
	vlan: (((.vlan_list // [])[0].vlan) // .vlan // 0),
	spoofchk: .spoofchk,
	trust: .trust,
	link_state: .link_state
}'

# check_netdevs FILTER BDF LABEL: the function's netdevs match the kernel's.
check_netdevs() {
	local f=$1 bdf=$2 label=$3 names=() d n v
	for d in /sys/bus/pci/devices/"$bdf"/net/*; do
		[ -e "$d" ] && names+=("${d##*/}")
	done
	jq_expect "$label netdev names" "[$f | .netdevs[]?.ifname] | sort | join(\" \")" "${names[*]}" "sysfs net/"
	for n in "${names[@]}"; do
		local nd="$f | .netdevs[]? | select(.ifname == \"$n\")"
		local ref="\$ip[0][] | select(.ifname == \"$n\")"
		jq_expect_ref "$label $n ifindex" "$nd | .ifindex" "$ref | .ifindex" "ip -j"
		jq_expect_ref "$label $n mtu" "$nd | .mtu" "$ref | .mtu" "ip -j"
		jq_expect_ref "$label $n address" "$nd | .address" "$ref | .address" "ip -j"
		jq_expect_ref "$label $n operstate" "$nd | .operstate" "$ref | .operstate" "ip -j"
		jq_expect_ref "$label $n flags" "$nd | .flags | join(\",\")" "$ref | .flags | join(\",\")" "ip -j"
		jq_expect_ref "$label $n link_type" "$nd | .link_type" "$ref | .link_type" "ip -j"
		rd v "/sys/class/net/$n/dev_port"
		jq_expect "$label $n dev_port" "$nd | .dev_port" "$v" "sysfs"
	done
}

# check_pf BDF NUMVFS
check_pf() {
	local pf=$1 want=$2 f=".pfs[] | select(.bdf == \"$1\")" d=/sys/bus/pci/devices/$1 v
	jq_expect "PF $pf listed once" "[$f] | length" 1
	rd v "$d/vendor"
	jq_expect "PF $pf vendor" "$f | .vendor" "$v" sysfs
	rd v "$d/device"
	jq_expect "PF $pf device" "$f | .device" "$v" sysfs
	jq_expect "PF $pf driver" "$f | .driver" "$(pci_driver "$pf")" sysfs
	jq_expect "PF $pf sriov" "$f | .sriov" true
	rd v "$d/sriov_numvfs"
	jq_expect "PF $pf numvfs" "$f | .numvfs" "$v" sysfs
	jq_expect "PF $pf numvfs is $want" "$f | .numvfs" "$want"
	jq_expect "PF $pf totalvfs" "$f | .totalvfs" 7 "igb"
	rd v "$d/sriov_drivers_autoprobe"
	jq_expect "PF $pf autoprobe" "$f | .autoprobe" "$v" sysfs
	jq_expect "PF $pf VF count" "$f | .vfs | length" "$want"
	check_netdevs "$f" "$pf" "PF $pf"

	local pfdev i vf vff vd k
	pfdev=$(vm_netdev "$pf")
	for ((i = 0; i < want; i++)); do
		vf=$(vm_vf "$pf" "$i")
		vd=/sys/bus/pci/devices/$vf
		vff="$f | .vfs[]? | select(.index == $i)"
		jq_expect "PF $pf VF $i bdf" "$vff | .bdf" "$vf" "virtfn$i"
		rd v "$vd/vendor"
		jq_expect "VF $vf vendor" "$vff | .vendor" "$v" sysfs
		rd v "$vd/device"
		jq_expect "VF $vf device" "$vff | .device" "$v" sysfs
		jq_expect "VF $vf driver" "$vff | .driver" "$(pci_driver "$vf")" sysfs
		jq_expect "VF $vf driver is igbvf" "$vff | .driver" igbvf
		check_netdevs "$vff" "$vf" "VF $vf"
		for k in address vlan spoofchk trust link_state; do
			jq_expect_ref "VF $vf admin.$k" "$vff | .admin.$k" \
				"\$ip[0][] | select(.ifname == \"$pfdev\") | .vfinfo_list[]? | select(.vf == $i) | $ip_vfinfo | .$k" \
				"ip -d -j link show $pfdev"
		done
	done
}

check_all() {
	ip -d -j link show >"$ipall"
	rdma -j link show >"$rdmaj" 2>/dev/null || echo '[]' >"$rdmaj"
	[ -s "$rdmaj" ] || echo '[]' >"$rdmaj"
	jq_begin "$list" --slurpfile ip "$ipall" --slurpfile rdma "$rdmaj"
	jq_expect "JSON version" '.version' 2
	jq_expect "kernel" '.kernel' "$(uname -r)" "uname -r"
	jq_expect "host" '.host' "$(hostname)" "hostname"
	jq_expect "kmsg_errors is an array" '.kmsg_errors | type' array
	jq_expect "kmsg is an array" '.kmsg | type' array
	jq_expect "kmsg records have a message" '[.kmsg[] | select(.msg | type != "string")] | length' 0
	jq_expect "persisted is an array" '.persisted | type' array
	jq_expect "cni_broken is an array" '.cni_broken | type' array
	jq_expect "notes is an array" '.notes | type' array
	jq_expect "orphans is an array" '.orphans | type' array
	jq_expect "PFs listed" '[.pfs[].bdf] | join(" ")' "${pfs[*]}" "igb driver dir"
	for pf in "${pfs[@]}"; do
		check_pf "$pf" "$1"
	done
	jq_expect_ref "rdma objects listed (pfs, vfs, orphans)" \
		'[(.pfs[] | .rdma[]?, (.vfs[]? | .rdma[]?)), .orphans[]?] | length' '$rdma[0] | length' "rdma -j link"
	jq_end
}

list_once() {
	local rc=0
	run_ibvf "$list" list --json || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "ibvf list --json ($1)" "exit $rc: $(head -c 300 "$list.err")"
		return 1
	fi
	if ! jq -e 'type == "object"' "$list" >/dev/null 2>&1; then
		fail "ibvf list --json ($1) prints one JSON object" "$(head -c 300 "$list")"
		return 1
	fi
	pass "ibvf list --json ($1)" "$(wc -c <"$list") bytes"
	vm_json list "$list" # the host validates it against schemas/list.schema.json
}

list_once "no VFs" && check_all 0

for pf in "${pfs[@]}"; do
	expect_ok "echo 3 > $pf/sriov_numvfs" vm_sriov "$pf" 3
done
wait_until 20 _pfs_settled || note "PF links not settled up 20 s after enabling VFs"
list_once "3 VFs per PF" && check_all 3
vm_done
