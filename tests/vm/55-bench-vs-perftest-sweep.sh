#!/bin/bash
# scripts/bench/vs-perftest's sweep line: `bench pair --all-vfs rxe0` over
# the VFs of both PFs (two with rxe each) one VF after another and with
# --parallel, alternating, 3 times each; the median wall times and their
# ratio printed (goal below 1.0). Each VF's run is the write_bw iterations of
# 1 s at the rate vs-perftest's calibration run measured.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
BENCH_RXE_ALL=1 bench_setup || {
	fail "rxe on two VFs of each PF" "setup failed"
	vm_done
}
# The calibration, then 3 x (3 runs one after another + 3 at once) of 1 s
# of data each, each run's fixed cost BENCH_RUN_MS.
vm_budget $(($(bench_secs $((20 * BENCH_BPS)) 20) + $(vm_scaled 30)))
out=$VM_TMP/sweep
/vm/bench/vs-perftest -r 3 -T 1 -o "--timeout $BENCH_TMO_MS" -t sweep >"$out" 2>"$out.err"
rc=$?
cat "$out.err" >&2
line=$(grep -m1 '^sweep ' "$out")
if [ "$rc" -eq 0 ] && [[ $line =~ ratio\ ([0-9.]+) ]]; then
	ratio=${BASH_REMATCH[1]}
	printf 'SWEEP %s %s\n' "$VM_SCENARIO" "$line" >>"$VM_RESULTS"
	if awk -v r="$ratio" 'BEGIN { exit !(r < 1.0) }'; then
		pass "vs-perftest sweep: parallel below sequential ($BENCH_RATE)" "$line"
	else
		fail "vs-perftest sweep: parallel below sequential ($BENCH_RATE)" "$line"
	fi
else
	fail "vs-perftest sweep" "exit $rc: $(cat "$out") $(tail -n 5 "$out.err")"
fi
vm_done
