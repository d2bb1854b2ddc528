#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (c) Soft-RoCE on two VFs of different PFs: 'ibvf list --json' places each rxe
# device under the right PF -> VF, with its ports and GUIDs as sysfs has them
# (an rxe ibdev has no device link: ibvf must go parent netdev -> VF).
# vmtest-budget: 45
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
v=
mapfile -t pfs < <(vm_pfs)
list=$VM_TMP/list.json

for pf in "${pfs[@]}"; do
	expect_ok "echo 3 > $pf/sriov_numvfs" vm_sriov "$pf" 3
done
# rxe0 on VF 1 of the first PF, rxe1 on VF 2 of the second.
placements=("rxe0 ${pfs[0]} 1" "rxe1 ${pfs[1]} 2")
for p in "${placements[@]}"; do
	read -r ib pf i <<<"$p"
	ip link set dev "$(vm_netdev "$(vm_vf "$pf" "$i")")" up
done
for p in "${placements[@]}"; do
	read -r ib pf i <<<"$p"
	nd=$(vm_netdev "$(vm_vf "$pf" "$i")")
	expect_ok "rdma link add $ib type rxe netdev $nd" vm_rxe_add "$ib" "$nd"
done

rc=0
run_ibvf "$list" list --json || rc=$?
if [ "$rc" -ne 0 ] || ! jq -e 'type == "object"' "$list" >/dev/null 2>&1; then
	fail "ibvf list --json" "exit $rc: $(head -c 200 "$list") $(head -c 200 "$list.err")"
	vm_done
fi
pass "ibvf list --json"
vm_json list "$list" # rxe devices on VFs: the host validates it against the schema

rdma -j link show >"$VM_TMP/rdma.json" 2>&1
rdma -j dev show >"$VM_TMP/rdmadev.json" 2>&1
jq_begin "$list" --slurpfile rdma "$VM_TMP/rdma.json" --slurpfile rdmadev "$VM_TMP/rdmadev.json"
for p in "${placements[@]}"; do
	read -r ib pf i <<<"$p"
	vf=$(vm_vf "$pf" "$i")
	nd=$(vm_netdev "$vf")
	s=/sys/class/infiniband/$ib
	ps=$s/ports/1
	r=".pfs[] | select(.bdf == \"$pf\") | .vfs[]? | select(.index == $i) | .rdma[]? | select(.ifname == \"$ib\")"
	jq_expect "$ib under PF $pf VF $i ($vf)" "[$r] | length" 1
	jq_expect "$ib listed once in the whole tree" \
		"[(.pfs[] | .rdma[]?, (.vfs[]? | .rdma[]?)), .orphans[]? | select(.ifname == \"$ib\")] | length" 1
	jq_expect "$ib not an orphan" "[.orphans[]? | select(.ifname == \"$ib\")] | length" 0
	rd v "$s/parent"
	jq_expect "$ib parent_netdev" "$r | .parent_netdev" "$v" "sysfs parent"
	jq_expect "$ib parent_netdev is the VF netdev" "$r | .parent_netdev" "$nd"
	dref="\$rdmadev[0][] | select(.ifname == \"$ib\")"
	lref="\$rdma[0][] | select(.ifname == \"$ib\")"
	for k in node_type node_guid sys_image_guid; do
		jq_expect_ref "$ib $k as rdma -j dev" "$r | .$k" "$dref | .$k" "rdma -j dev"
	done
	rd v "$s/fw_ver"
	if [ -n "$v" ]; then
		jq_expect "$ib fw" "$r | .fw" "$v" "sysfs"
		jq_expect_ref "$ib fw as rdma -j dev" "$r | .fw" "$dref | .fw" "rdma -j dev"
	else # rxe's fw_ver file is empty: null or "" both say so
		jq_expect "$ib fw (sysfs empty)" "$r | .fw // \"\"" "" "sysfs"
	fi
	jq_expect "$ib port count" "$r | .ports | length" 1
	pt="$r | .ports[0]"
	jq_expect "$ib port number" "$pt | .port" 1
	jq_expect "$ib port state" "$pt | \"\(.state_id) \(.state)\"" "4 ACTIVE"
	rd v "$ps/state"
	jq_expect "$ib port state_id (sysfs)" "$pt | .state_id" "${v%%:*}" "sysfs"
	rd v "$ps/phys_state"
	jq_expect "$ib physical_state_id (sysfs)" "$pt | .physical_state_id" "${v%%:*}" "sysfs"
	jq_expect "$ib physical_state LINK_UP" "$pt | .physical_state" LINK_UP
	# rdma prints no lid, sm_lid or subnet_prefix for a RoCE port; ibvf
	# gives sysfs' values there (0, fe80::), so those are not compared.
	for k in state physical_state netdev netdev_index; do
		jq_expect_ref "$ib port $k as rdma -j link" "$pt | .$k" \
			"$lref | select(.port == 1) | .$k" "rdma -j link"
	done
	rd v "$ps/rate"
	jq_expect "$ib rate" "$pt | .rate" "$v" "sysfs"
	jq_expect "$ib link_layer" "$pt | .link_layer" Ethernet
	jq_expect "$ib port_guid (GID 0 low 64 bits)" "$pt | .port_guid" "$(sysfs_port_guid "$ib")" "sysfs gids/0"
done
# The VFs without rxe have none.
jq_expect "rdma objects on VFs in total" '[.pfs[].vfs[]?.rdma[]?] | length' 2
jq_end
vm_done
