#!/bin/bash
# shellcheck disable=SC2016,SC2086,SC2317 # jq programs carry their own $variables; BENCH_LOW is words; helpers called through wait_until
# `bench --all-vfs --parallel` over VFs of both igb PFs (two with rxe each):
# one worker per PF, the VFs of a PF one after another; its wall time below
# the sequential sweep's over the same VFs, both measured here; the JSON's
# per-PF and node aggregates. Then rail i against rail i (`bench server
# --all-pfs`, PF i on PORT+i), a peer refusing three times in a row named
# once, and SIGINT stopping every worker.
# vmtest-budget: 150
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
BENCH_RXE_ALL=1 bench_setup || {
	fail "rxe on two VFs of each PF" "setup failed"
	vm_done
}
# Two sweeps of 3 runs, one of 4 (parallel) and the interrupted one's 2 s, each
# run BENCH_ITERS of 64 KiB; the refused ones move nothing.
# The two timed sweeps run by --duration: a run then takes its duration
# whatever share of the CPU it gets (the guest's Soft-RoCE is CPU-bound, so
# runs sized by iterations slow each other down and a parallel sweep gained
# little on a loaded host), and each lasts 4x what a run costs beyond its
# data, so setup and teardown do not decide the comparison.
SWEEP_D=$(((4 * BENCH_RUN_MS + 999) / 1000))
[ "$SWEEP_D" -ge 2 ] || SWEEP_D=2
vm_budget $(($(bench_secs $((4 * BENCH_ITERS * 65536)) 14) + 9 * SWEEP_D + 2 + $(vm_scaled 40)))
VM_IBVF_TIMEOUT=$(bench_secs $((3 * BENCH_ITERS * 65536)) 4)
SWEEP_TIMEOUT=$(($(bench_secs 0 3) + 3 * 3 * SWEEP_D))

# rxe0 is the peer (skipped: the peer itself); rxe2 runs on PF0, rxe1 then
# rxe3 on PF1. The parallel sweep first: a warm-up would favour the other.
VM_IBVF_TIMEOUT=$SWEEP_TIMEOUT run_ibvf "$VM_TMP/par" bench pair --all-vfs rxe0 --parallel \
	--duration "$SWEEP_D" --json $BENCH_LOW
expect_eq "pair --all-vfs --parallel: exit status" "$?" 0
VM_IBVF_TIMEOUT=$SWEEP_TIMEOUT run_ibvf "$VM_TMP/seq" bench pair --all-vfs rxe0 \
	--duration "$SWEEP_D" --json $BENCH_LOW
expect_eq "pair --all-vfs (sequential): exit status" "$?" 0
for f in par seq; do
	expect_json "$f: every VF, the peer skipped" "$VM_TMP/$f" \
		'[([.vfs[].status] | join(",")), .summary.pass, .summary.skip] | @tsv' \
		"$(printf 'SKIP,PASS,PASS,PASS\t3\t1')"
done
wp=$(jqr "$VM_TMP/par" '.node.wall_s')
ws=$(jqr "$VM_TMP/seq" '.node.wall_s')
if [ -n "$wp" ] && [ -n "$ws" ] && awk -v p="$wp" -v s="$ws" 'BEGIN { exit !(p < s) }'; then
	pass "parallel sweep's wall time below the sequential one's" \
		"runs of $SWEEP_D s: parallel $wp s, sequential $ws s, ratio $(awk -v p="$wp" -v s="$ws" 'BEGIN { printf "%.2f", p / s }')"
else
	fail "parallel sweep's wall time below the sequential one's" "parallel '$wp' s, sequential '$ws' s"
fi
printf 'SWEEP %s parallel %s s sequential %s s\n' "$VM_SCENARIO" "$wp" "$ws" >>"$VM_RESULTS"
for f in par seq; do
	note "$f: $(jq -c '[.vfs[] | [.device.ibdev // .device, .pf_bdf, .start_s, .end_s, .verdict.figure_gbps]], .node' "$VM_TMP/$f" 2>&1 | tr '\n' ' ')"
done
# The lanes: PF1's two VFs one after another, PF0's run beside PF1's first.
expect_json "parallel: a PF's VFs do not overlap, the PFs do" "$VM_TMP/par" '
	[.vfs[] | select(.start_s != null)] | group_by(.pf_bdf) as $g
	| [($g[] | select(length == 2) | .[0].end_s <= .[1].start_s),
	   ($g[0][0].start_s < $g[1][0].end_s and $g[1][0].start_s < $g[0][0].end_s)] | all' true
expect_json "parallel: per-PF aggregates" "$VM_TMP/par" \
	'[(.pfs | length), ([.pfs[].run] | join(",")), ([.pfs[] | .best_gbps > 0 and .median_gbps > 0] | all)] | @tsv' \
	"$(printf '2\t1,2\ttrue')"
expect_json "parallel: node aggregate of 2 runs together" "$VM_TMP/par" \
	'[.parallel, .node.concurrent_runs, (.node.aggregate_gbps > ([.vfs[].verdict.figure_gbps // 0] | max))] | @tsv' \
	"$(printf 'true\t2\ttrue')"
expect_json "sequential: one run at a time" "$VM_TMP/seq" \
	'[.parallel, .node.concurrent_runs, (.node.aggregate_gbps == ([.vfs[].verdict.figure_gbps // 0] | max))] | @tsv' \
	"$(printf 'false\t1\ttrue')"

# Rail i against rail i: a server per PF (PF0 on rxe0, PF1 on rxe1), the
# client's PF i meeting PORT+i.
timeout "$(vm_left)" ibvf bench server --all-pfs --json --timeout "$BENCH_TMO_MS" \
	>"$VM_TMP/srv" 2>"$VM_TMP/srv.err" &
BENCH_SERVER_PID=$!
_two_servers() { [ "$(grep -c 'bench server on' "$VM_TMP/srv.err")" -ge 2 ]; }
if wait_until 10 _two_servers; then
	pass "server --all-pfs listens for each PF" "$(tr '\n' ';' <"$VM_TMP/srv.err")"
else
	fail "server --all-pfs listens for each PF" "$(cat "$VM_TMP/srv.err")"
fi
run_ibvf "$VM_TMP/rail" bench client 10.11.0.1 --all-vfs --parallel --iters "$BENCH_ITERS" --json $BENCH_LOW
expect_eq "client --all-vfs --parallel against server --all-pfs: exit status" "$?" 0
expect_json "client --parallel: every VF passed, both PFs at once" "$VM_TMP/rail" \
	'[.summary.pass, (.pfs | length), .node.concurrent_runs >= 2] | @tsv' "$(printf '4\t2\ttrue')"
bench_server_stop
expect_eq "server --all-pfs: PF1's rail (rxe1) served PF1's two VFs" \
	"$(jq -s '[.[] | select(.device.ibdev == "rxe1")] | length' "$VM_TMP/srv" 2>/dev/null)" 2

# Nobody listens on port 1: three refusals in a row, the fourth VF not run.
VM_IBVF_TIMEOUT=$(bench_secs 0 4) run_ibvf "$VM_TMP/ref" bench client 10.11.0.1 --port 1 --all-vfs --json $BENCH_LOW
expect_json "a peer refusing 3 times is not tried a 4th" "$VM_TMP/ref" \
	'[([.vfs[].status] | join(",")), (.vfs[3].why | startswith("not run: the peer failed 3 times: ")), ([.vfs[0:3][].why] | unique | length)] | @tsv' \
	"$(printf 'FAIL,FAIL,FAIL,SKIP\ttrue\t1')"
VM_IBVF_TIMEOUT=$(bench_secs 0 4) run_ibvf "$VM_TMP/reft" bench client 10.11.0.1 --port 1 --all-vfs $BENCH_LOW
expect_eq "text: the stop said once" "$(grep -c 'failed 3 times in a row' "$VM_TMP/reft")" 1
expect_eq "text: no bandwidth on SKIP or error rows" "$(grep -cE '^(SKIP|FAIL) VF .*Gb/s' "$VM_TMP/reft")" 0

# The console's "every VF" runs the PFs at once too: rxe2 on PF0 beside rxe1
# then rxe3 on PF1, against the first VF (rxe0); 5000 x 4 KiB each.
if command -v tmux >/dev/null; then
	T() { LC_ALL=C.UTF-8 TERM=tmux-256color tmux -L bp -f /dev/null "$@"; }
	screen() { T capture-pane -p -t s; }
	shows() { screen | grep -qF -- "$1"; }
	run_s=$(bench_secs $((5000 * 4096)))
	vm_budget $((2 * run_s + $(bench_secs 0 4) + $(vm_scaled 60)))
	T new-session -d -s s -x 120 -y 30 env TERM=tmux-256color LC_ALL=C sh -c \
		'ibvf console 2>/tmp/bp.err; echo "exit status $?"; sleep 100000'
	wait_until 20 shows "PFs" || fail "console starts" "$(screen)"
	T send-keys -t s : && T send-keys -t s -l "bench all" && T send-keys -t s Enter
	wait_until 5 shows "every VF, the PFs at once" || fail "view 3 on every VF" "$(screen)"
	# Focus VF, Peer, Peer VF, Profile, Test, Size; sizes default, 2, 8, 64, 512, 4096.
	T send-keys -t s Down Down Down Down Down Right Right Right Right Right
	size_4k() { screen | grep -qE "^ *Size .*[^0-9]4 KiB"; }
	wait_until 5 size_4k || fail "4 KiB picked in the form" "$(screen)"
	T send-keys -t s Enter
	if VM_SLOW_PCT=100 wait_until "$((run_s + $(bench_secs 0)))" shows "at once)"; then
		pass "console: two PFs' VFs run at once" "$(screen | grep -m1 'at once)')"
	else
		fail "console: two PFs' VFs run at once" "$(screen)"
	fi
	# A verdict for each (PASS or FAIL against rxe's port rate), the peer skipped.
	if VM_SLOW_PCT=100 wait_until "$((2 * run_s))" shows " 1 skipped" &&
		[ "$(screen | grep -cE '^ (PASS|FAIL) .* Gb/s')" = 3 ]; then
		pass "console: every VF's verdict" "$(screen | grep -m1 '4 VFs:')"
	else
		fail "console: every VF's verdict" "$(screen)"
	fi
	T send-keys -t s Escape q
	wait_until 20 shows "exit status 0" || fail "the console exits cleanly" "$(screen) $(cat /tmp/bp.err)"
	T kill-server
else
	fail "tmux in the guest" "scripts/vm/mkinitramfs did not copy tmux"
fi

# SIGINT while both PFs' workers run: every worker stops, the peer is told.
timeout "$(vm_left)" ibvf bench pair --all-vfs rxe0 --parallel --duration 600 --json \
	$BENCH_LOW >"$VM_TMP/int" 2>"$VM_TMP/int.err" &
pid=$!
bench_moving rxe2
bench_moving rxe1
t0=$(vm_us)
kill -INT "$pid"
# A worker notices within a completion timeout; teardown is a run's cost.
if wait_until "$(($(bench_secs 0) + BENCH_TMO_MS / 1000))" bash -c "! kill -0 $pid"; then
	wait "$pid"
	rc=$?
	pass "SIGINT stops every worker" "exit $rc after $((($(vm_us) - t0) / 1000)) ms"
	expect_json "interrupted sweep: said, no VF failed" "$VM_TMP/int" \
		'[.interrupted, ([.vfs[] | select(.status == "FAIL")] | length), ([.vfs[] | select(.why == "interrupted")] | length >= 2)] | @tsv' \
		"$(printf 'true\t0\ttrue')"
else
	fail "SIGINT stops every worker" "still running; $(tail -c 300 "$VM_TMP/int.err")"
	kill -KILL "$pid" 2>/dev/null
fi
vm_done
