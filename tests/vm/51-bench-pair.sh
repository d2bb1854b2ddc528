#!/bin/bash
# Two devices in one process (pair), one device against itself (loopback),
# the all-sizes sweep on the same QPs, and --all-vfs (in-process and against
# a remote server), each with JSON that parses and holds every size and VF.
# Bandwidth runs move half a second of data at the rate bench_setup measured;
# the sweep's fixed work (4 x 2 B .. 8 MiB) is bounded from that rate too.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
nd1=$(vm_netdev "$BENCH_VF1")
# The sweep: 4 iterations of each power of two from 2 B to 8 MiB.
sweep=$((4 * (16 * 1048576 - 2)))
# 9 runs of BENCH_ITERS (the --bidir --qps 2 one counts 4), the sweep, 2 s of latency.
vm_budget $(($(bench_secs $((12 * BENCH_ITERS * 65536 + sweep)) 12) + 2 + $(vm_scaled 30)))

if run_ibvf "$VM_TMP/p" bench pair rxe0 "$nd1" --iters "$BENCH_ITERS" $BENCH_LOW; then
	pass "pair rxe0 <- $nd1 (by netdev), write_bw" "$(bench_bw_row "$VM_TMP/p" 65536)"
else
	fail "pair rxe0 <- $nd1" "$(cat "$VM_TMP/p.err")"
fi
if run_ibvf "$VM_TMP/pc" bench pair "$BENCH_VF0" rxe1 --cm --test read_bw --bidir --qps 2 \
	--iters "$BENCH_ITERS" $BENCH_LOW; then
	pass "pair by rdma_cm, read_bw bidirectional on 2 QPs" "$(bench_bw_row "$VM_TMP/pc" 65536)"
else
	fail "pair by rdma_cm, read_bw --bidir --qps 2" "$(cat "$VM_TMP/pc.err")"
fi
if run_ibvf "$VM_TMP/l" bench loopback rxe2 --iters "$BENCH_ITERS" $BENCH_LOW; then
	pass "loopback rxe2" "$(bench_bw_row "$VM_TMP/l" 65536)"
else
	fail "loopback rxe2" "$(cat "$VM_TMP/l.err")"
fi

# The sweep: 23 sizes, 2 B .. 8 MiB, all in one valid JSON document.
if VM_IBVF_TIMEOUT=$(bench_secs "$sweep" 2) run_ibvf "$VM_TMP/s" bench pair rxe0 rxe1 --all-sizes --iters 4 --json $BENCH_LOW; then
	expect_json "--all-sizes --json holds every size" "$VM_TMP/s" \
		'[(.sizes | length), .sizes[0].bytes, .sizes[-1].bytes, ([.sizes[].bw_avg_gbps > 0] | all)] | @tsv' \
		"$(printf '23\t2\t8388608\ttrue')"
else
	fail "--all-sizes --json" "$(cat "$VM_TMP/s.err")"
fi
if VM_IBVF_TIMEOUT=$(($(bench_secs 0) + 2)) run_ibvf "$VM_TMP/sl" bench pair rxe0 rxe1 \
	--test write_lat --duration 2 --json --timeout "$BENCH_TMO_MS"; then
	expect_json "write_lat --duration: samples, ordered percentiles" "$VM_TMP/sl" \
		'.sizes[0] | [(.iterations > 0), (.t_min_us <= .t_typical_us), (.t_typical_us <= .p99_us), (.p99_us <= .t_max_us)] | all' \
		true
else
	fail "write_lat --duration 2" "$(cat "$VM_TMP/sl.err")"
fi

# Every VF against rxe0 in this process: rxe0 is the peer itself, PF1 VF1
# has no RDMA device; rxe1 and rxe2 run.
run_ibvf "$VM_TMP/av" bench pair --all-vfs rxe0 --iters "$BENCH_ITERS" $BENCH_LOW
rc=$?
expect_eq "pair --all-vfs: exit status" "$rc" 0
expect_eq "pair --all-vfs: one line per VF" "$(grep -cE '^(PASS|FAIL|SKIP) VF ' "$VM_TMP/av")" 4
expect_eq "pair --all-vfs: summary" "$(tail -n 1 "$VM_TMP/av")" \
	"PASS: 4 VFs, 2 passed, 0 failed, 2 skipped"
run_ibvf "$VM_TMP/avj" bench pair --all-vfs rxe0 --iters "$BENCH_ITERS" --json $BENCH_LOW
expect_json "pair --all-vfs --json holds every VF" "$VM_TMP/avj" \
	'[(.vfs | length), ([.vfs[].status] | join(",")), .summary.pass] | @tsv' \
	"$(printf '4\tSKIP,PASS,PASS,SKIP\t2')"

# Against a server on rxe1 (serving one client after another).
bench_server "$VM_TMP/srv" -d rxe1
run_ibvf "$VM_TMP/ac" bench client 10.11.0.2 --all-vfs --iters "$BENCH_ITERS" $BENCH_LOW
expect_eq "client --all-vfs: PASS lines" "$(grep -c '^PASS VF ' "$VM_TMP/ac")" 3
note "$(cat "$VM_TMP/ac")"
bench_server_stop
vm_done
