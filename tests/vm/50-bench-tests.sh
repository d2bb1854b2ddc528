#!/bin/bash
# The four tests between rxe devices on VFs of different PFs, by the TCP
# exchange and by rdma_cm, client and server in two processes; the JSON
# parses; the verdict follows --min-ratio. Bandwidth runs move half a second
# of data at the rate bench_setup measured; the budget is 11 such runs.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
pass "rxe0 on $BENCH_VF0, rxe1 on $BENCH_VF1 (different PFs)" "$BENCH_RATE"
vm_budget $(($(bench_secs $((7 * BENCH_ITERS * 65536)) 11) + $(vm_scaled 30)))

for conn in exchange cm; do
	flag=
	[ "$conn" = cm ] && flag=--cm
	bench_server "$VM_TMP/srv-$conn" -d rxe0 $flag
	for t in write_bw read_bw write_lat read_lat; do
		out=$VM_TMP/$t-$conn
		case $t in
		*_bw) size=65536 n=$BENCH_ITERS ;;
		*) size=2 n=100 ;;
		esac
		if run_ibvf "$out" bench client 10.11.0.1 -d "$BENCH_VF1" --test "$t" \
			--iters "$n" $BENCH_LOW $flag; then
			if [ "${t#*_}" = bw ]; then
				row=$(bench_bw_row "$out" "$size")
			else
				row=$(awk -v s="$size" '$1 == s && NF == 9 { print; exit }' "$out")
			fi
			if [ -n "$row" ] && grep -q '^PASS ' "$out"; then
				pass "$t by $conn, rxe1 -> rxe0" "$row"
			else
				fail "$t by $conn: no result row or no PASS" "$(cat "$out")"
			fi
		else
			fail "$t by $conn exited non-zero" "$(tail -n 3 "$out.err") / server: $(tail -n 3 "$VM_TMP/srv-$conn.err")"
		fi
	done
	bench_server_stop
done

# JSON parses and holds the figures; the perftest header is the real one.
bench_server "$VM_TMP/srv-json" -d rxe0
if run_ibvf "$VM_TMP/j" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" --json $BENCH_LOW; then
	expect_json "write_bw --json: one size with an average" "$VM_TMP/j" \
		'[.test, (.sizes | length), (.sizes[0].bw_avg_gbps > 0), .verdict.status] | @tsv' \
		"$(printf 'write_bw\t1\ttrue\tPASS')"
	vm_json bench "$VM_TMP/j"
else
	fail "write_bw --json" "$(cat "$VM_TMP/j.err")"
fi
# A latency result (with its histogram) for the host's schema check too.
if run_ibvf "$VM_TMP/jl" bench client 10.11.0.1 -d rxe1 --test write_lat --iters 100 --json \
	$BENCH_LOW; then
	vm_json bench "$VM_TMP/jl"
else
	fail "write_lat --json" "$(cat "$VM_TMP/jl.err")"
fi
run_ibvf "$VM_TMP/h" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" $BENCH_LOW
expect_eq "perftest's bandwidth header" "$(grep '#bytes' "$VM_TMP/h")" \
	" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
# At 90% of a 2.5 Gb/s port the emulated guest must fail, and say so.
run_ibvf "$VM_TMP/f" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" --timeout "$BENCH_TMO_MS"
rc=$?
if [ "$rc" -ne 0 ] && grep -q '^FAIL .*threshold 90%' "$VM_TMP/f"; then
	pass "default --min-ratio 0.9 fails the slow guest, exit $rc" "$(grep '^FAIL' "$VM_TMP/f")"
else
	fail "default --min-ratio 0.9 verdict" "exit $rc: $(tail -n 2 "$VM_TMP/f")"
fi
bench_server_stop
vm_done
