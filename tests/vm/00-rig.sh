#!/bin/bash
# The rig itself, no ibvf: two igb PFs with SR-IOV, igbvf VFs, Soft-RoCE on a
# VF of each PF, and an RDMA WRITE between them. If this fails, nothing else
# in tests/vm means anything.
# vmtest-budget: 90
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset

mapfile -t pfs < <(vm_pfs)
expect_eq "two igb PFs" "${#pfs[@]}" 2
for pf in "${pfs[@]}"; do
	expect_eq "$pf is 8086:10c9" "$(sysfs_pci "$pf" vendor):$(sysfs_pci "$pf" device)" "0x8086:0x10c9"
	expect_eq "$pf sriov_totalvfs" "$(sysfs_pci "$pf" sriov_totalvfs)" 7
	expect_eq "$pf sriov_numvfs" "$(sysfs_pci "$pf" sriov_numvfs)" 0
	expect_ok "$pf has a netdev" vm_netdev "$pf"
done

for pf in "${pfs[@]}"; do
	t0=$(vm_us)
	if ! echo 3 >"/sys/bus/pci/devices/$pf/sriov_numvfs"; then
		fail "$pf: echo 3 > sriov_numvfs" "write failed"
		continue
	fi
	wait_until 10 _vm_vfs_ready "$pf" 3
	note "$pf: 3 VFs in $((($(vm_us) - t0) / 1000)) ms"
	expect_eq "$pf sriov_numvfs after echo 3" "$(sysfs_pci "$pf" sriov_numvfs)" 3
	for i in 0 1 2; do
		vf=$(vm_vf "$pf" "$i") || {
			fail "$pf virtfn$i exists"
			continue
		}
		expect_eq "$pf VF $i ($vf) is 8086:10ca on igbvf" \
			"$(sysfs_pci "$vf" vendor):$(sysfs_pci "$vf" device) $(pci_driver "$vf")" "0x8086:0x10ca igbvf"
		expect_eq "$vf physfn" "$(basename "$(readlink "/sys/bus/pci/devices/$vf/physfn")")" "$pf"
		expect_ok "$vf has a netdev" vm_netdev "$vf"
	done
done

# Soft-RoCE on VF 0 of each PF, addressed for RoCE v2 (GID index 1 is IPv4).
a=$(vm_netdev "$(vm_vf "${pfs[0]}" 0)")
b=$(vm_netdev "$(vm_vf "${pfs[1]}" 0)")
if [ -z "$a" ] || [ -z "$b" ]; then
	fail "VF netdevs for Soft-RoCE" "got '$a' and '$b'"
	vm_done
fi
ip addr add 10.11.0.1/24 dev "$a"
ip addr add 10.11.0.2/24 dev "$b"
ip link set dev "$a" up
ip link set dev "$b" up
expect_ok "rdma link add rxe0 on $a" vm_rxe_add rxe0 "$a"
expect_ok "rdma link add rxe1 on $b" vm_rxe_add rxe1 "$b"
info=$(ibv_devinfo -d rxe0 2>&1)
note "$info"
st=$(printf '%s\n' "$info" | awk '$1 == "state:" { print $2 }')
ll=$(printf '%s\n' "$info" | awk '$1 == "link_layer:" { print $2 }')
expect_eq "ibv_devinfo rxe0 port state, link layer" "$st $ll" "PORT_ACTIVE Ethernet"
expect_eq "rxe0 parent" "$(cat /sys/class/infiniband/rxe0/parent)" "$a"

out=$VM_TMP/bw
timeout "$(vm_scaled 60)" ib_write_bw -d rxe0 -x 1 -s 65536 -n 100 -F --report_gbits >"$out.srv" 2>&1 &
wait_until 10 vm_listening 18515 || note "ib_write_bw's server is not listening on 18515"
if timeout "$(vm_scaled 60)" ib_write_bw -d rxe1 -x 1 -s 65536 -n 100 -F --report_gbits 10.11.0.1 >"$out.cli" 2>&1; then
	row=$(awk '$1 == 65536 && $2 == 100' "$out.cli")
	if [ -n "$row" ]; then
		pass "ib_write_bw rxe1 -> rxe0 (VFs of different PFs)" "$row"
	else
		fail "ib_write_bw rxe1 -> rxe0" "no result row: $(tail -n 5 "$out.cli")"
	fi
else
	fail "ib_write_bw rxe1 -> rxe0" "$(tail -n 5 "$out.cli") / server: $(tail -n 3 "$out.srv")"
fi
wait

# Destroying the VFs removes their rxe devices.
for pf in "${pfs[@]}"; do
	echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
done
left=()
for d in /sys/class/infiniband/*; do
	[ -e "$d" ] && left+=("${d##*/}")
done
expect_eq "no rxe devices after echo 0 > sriov_numvfs" "${left[*]}" ""
vm_done
