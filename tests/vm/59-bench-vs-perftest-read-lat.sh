#!/bin/bash
# scripts/bench/vs-perftest for read_lat: ibvf against perftest on rxe1 -> rxe0,
# same size and iterations, alternating A/B runs in this boot, the ratio of
# medians. One test per scenario: a run takes 2-5 s in the guest, 14 runs and
# a scenario has 180 s.
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
out=$VM_TMP/vs
if /vm/bench/vs-perftest -r 7 -t read_lat >"$out" 2> >(tee "$out.err" >&2); then
	pass "vs-perftest read_lat" "$(tail -n 1 "$out")"
else
	fail "vs-perftest read_lat" "$(cat "$out")"
fi
vm_done
