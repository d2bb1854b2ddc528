#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (k) 'ibvf check' on the guest's real kernel. The node is Ethernet only (igb
# PFs, igbvf VFs, Soft-RoCE on a VF): no InfiniBand check may fire on it (no
# Ethernet fallback, firmware, GUID or port finding) — a false alarm here is
# one on any Ethernet-only node. Then faults made through the kernel's own
# interfaces are found with the kernel's evidence: a VF unbound from its
# driver (sysfs unbind), a kernel-named VF pinned by a .link file in
# /etc/systemd/network and no longer reported, and a driver record written
# to /dev/kmsg found with the timestamp the kernel gave it (last: the record
# stays in the log for later scenarios).
# vmtest-budget: 60
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
out=$VM_TMP/check.json

for pf in "${pfs[@]}"; do
	expect_ok "echo 2 > $pf/sriov_numvfs" vm_sriov "$pf" 2
done
vf0=$(vm_vf "${pfs[0]}" 0)
vf1=$(vm_vf "${pfs[0]}" 1)
nd=$(vm_netdev "$vf1")
expect_ok "rdma link add rxe0 type rxe netdev $nd" vm_rxe_add rxe0 "$nd"

# check_json: runs 'ibvf check --json' into $out; its exit status in $rc.
check_json() {
	rc=0
	run_ibvf "$out" check --json "$@" || rc=$?
	if ! jq -e '.findings | type == "array"' "$out" >/dev/null 2>&1; then
		fail "ibvf check --json" "exit $rc: $(head -c 300 "$out") $(head -c 300 "$out.err")"
		vm_done
	fi
	vm_json check "$out" # the host validates it against schemas/check.schema.json
}

# 1. The clean Ethernet node.
check_json
expect_json "no critical finding on an Ethernet-only node" "$out" \
	'[.findings[] | select(.severity == "critical") | .id] | join(",")' ""
expect_json "no InfiniBand, firmware or GUID check fires" "$out" \
	'[.findings[] | .id | select(test("^(ethernet-fallback|firmware-old|guid-|port-down|rate-degraded|sriov-disabled|probe-failed|vf-unbound)"))] | join(",")' ""
expect_eq "exit status agrees with the worst finding" "$rc" \
	"$(jq -r 'if .counts.critical > 0 then 2 elif .counts.warning > 0 then 1 else 0 end' "$out")"

# 2. Kernel-named VFs (no udev in the guest names them): reported unless a
# .link file pins them; one that does is no longer reported.
name0=$(vm_netdev "$vf0")
case $name0 in
eth[0-9]* | ib[0-9]*)
	expect_json "$vf0 ($name0): name-unstable" "$out" \
		"[.findings[] | select(.id == \"name-unstable\" and .subject == \"$vf0\")] | length" 1
	mkdir -p /etc/systemd/network
	printf '[Match]\nPath=pci-%s\n\n[Link]\nName=%s\n' "$vf0" "$name0" \
		>/etc/systemd/network/70-vmtest.link
	check_json
	expect_json "$vf0 pinned by /etc/systemd/network/70-vmtest.link: not reported" "$out" \
		"[.findings[] | select(.id == \"name-unstable\" and .subject == \"$vf0\")] | length" 0
	rm -f /etc/systemd/network/70-vmtest.link
	;;
*) note "$vf0 is named $name0 (not a kernel name): name-unstable not exercised" ;;
esac

# 3. A VF unbound from its driver with autoprobe on.
drv=$(pci_driver "$vf0")
echo "$vf0" >"/sys/bus/pci/drivers/$drv/unbind"
check_json
expect_json "$vf0 unbound from $drv: vf-unbound" "$out" \
	"[.findings[] | select(.id == \"vf-unbound\" and .subject == \"$vf0\") | .severity] | join(\",\")" warning
expect_json "its evidence is the driver link" "$out" \
	"[.findings[] | select(.id == \"vf-unbound\" and .subject == \"$vf0\") | .evidence[].where | select(endswith(\"$vf0/driver\"))] | length" 1
expect_json "exit status 1 (warnings)" "$out" '.counts.critical' 0
expect_eq "ibvf check exits 1" "$rc" 1
echo "$vf0" >"/sys/bus/pci/drivers/$drv/bind"

# 4. A driver record in the real kernel log, in the kernel's own format.
echo "<3>mlx5_core: Unknown symbol strlcpy (err -2)" >/dev/kmsg
stamp=$(dmesg | grep 'mlx5_core: Unknown symbol strlcpy' | tail -n1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
check_json
expect_json "driver-kernel-mismatch found" "$out" \
	'[.findings[] | select(.id == "driver-kernel-mismatch") | .severity] | join(",")' critical
expect_json "its evidence carries the record's time ($stamp) and text" "$out" \
	"[.findings[] | select(.id == \"driver-kernel-mismatch\") | .evidence[] | select((.where | contains(\"$stamp\")) and (.value | contains(\"Unknown symbol strlcpy\")))] | length" 1
expect_eq "ibvf check exits 2" "$rc" 2
vm_done
