#!/bin/bash
# scripts/bench/vs-perftest for the latency tests: ibvf against perftest on rxe1 -> rxe0,
# same size and iterations, alternating A/B runs; the ratios of medians.
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
out=$VM_TMP/vs
if /vm/bench/vs-perftest -r 3 -t "write_lat read_lat" >"$out" 2> >(tee "$out.err" >&2); then
	while read -r line; do
		pass "vs-perftest" "$line"
	done < <(tail -n +2 "$out")
else
	fail "vs-perftest" "$(cat "$out" "$out.err")"
fi
vm_done
