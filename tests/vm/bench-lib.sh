# shellcheck shell=bash
# Shared setup of the bench scenarios (tests/vm/5*-bench*.sh): Soft-RoCE on
# VFs of both PFs, each VF netdev with an IPv4 address (RoCE v2 GID index 1).
#   rxe0  PF0 VF0  10.11.0.1      rxe1  PF1 VF0  10.11.0.2
#   rxe2  PF0 VF1  10.11.0.3      (PF1 VF1 has no rxe: --all-vfs skips it)
# Small iteration counts: the guest moves ~30-80 MB/s under TCG.

BENCH_ITERS=${BENCH_ITERS:-200}
BENCH_LOW="--min-ratio 0.001" # the guest is slow; the threshold logic is tested apart

bench_setup() {
	vm_reset
	mapfile -t BENCH_PFS < <(vm_pfs)
	vm_sriov "${BENCH_PFS[0]}" 2 || return 1
	vm_sriov "${BENCH_PFS[1]}" 2 || return 1
	BENCH_VF0=$(vm_vf "${BENCH_PFS[0]}" 0)
	BENCH_VF1=$(vm_vf "${BENCH_PFS[1]}" 0)
	BENCH_VF2=$(vm_vf "${BENCH_PFS[0]}" 1)
	local i=1 vf nd
	for vf in "$BENCH_VF0" "$BENCH_VF1" "$BENCH_VF2"; do
		nd=$(vm_netdev "$vf") || return 1
		ip addr add "10.11.0.$i/24" dev "$nd" || return 1
		vm_rxe_add "rxe$((i - 1))" "$nd" || return 1
		i=$((i + 1))
	done
	vm_rxe_sysctls lo
}

# bench_server OUT ARGS...: a background server; waits until it listens.
bench_server() {
	local out=$1
	shift
	timeout 120 ibvf bench server "$@" >"$out" 2>"$out.err" &
	BENCH_SERVER_PID=$!
	wait_until 10 grep -q "bench server on" "$out.err"
}

bench_server_stop() {
	[ -n "${BENCH_SERVER_PID:-}" ] || return 0
	kill "$BENCH_SERVER_PID" 2>/dev/null
	wait "$BENCH_SERVER_PID" 2>/dev/null
	BENCH_SERVER_PID=
}

# A table row of a bandwidth result: "<size> <iters> <peak> <avg> <rate>".
bench_bw_row() { awk -v s="$2" '$1 == s && NF == 5 { print; exit }' "$1"; }
