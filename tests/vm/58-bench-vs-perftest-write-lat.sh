#!/bin/bash
# scripts/bench/vs-perftest for write_lat: ibvf against perftest on rxe1 -> rxe0,
# the same size and iterations for both (the iterations of 2 s at the rate a
# calibration run measured), alternating A/B runs in this boot, the ratio of
# medians. One test per scenario; its budget comes from the calibration run.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
bench_vs_perftest write_lat
vm_done
