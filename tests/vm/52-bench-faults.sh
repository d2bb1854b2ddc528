#!/bin/bash
# Faults leave the other side with a clear error and no hang: a server fed
# garbage (and a silent client), a client killed mid-run, a server killed
# mid-run, and a peer asking for different parameters. "Mid-run" is once
# rxe1's packet counter shows data moving, however long the handshake takes.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
srv=$VM_TMP/srv
# 4 runs (one of BENCH_ITERS), 2 of them killed once data moves, 2 s timeouts.
vm_budget $(($(bench_secs $((BENCH_ITERS * 65536)) 6) + $(vm_scaled 40)))
# The server's control timeout: 2 s on the reference guest, scaled.
tmo=0
vm_scaled_ms tmo 2
bench_server "$srv" -d rxe0 --timeout "$tmo"

# Garbage: random bytes, then an HTTP request, then a client that says nothing.
head -c 200 /dev/urandom >/dev/tcp/10.11.0.1/18515
printf 'GET / HTTP/1.0\r\n\r\n' >/dev/tcp/10.11.0.1/18515
if wait_until 5 grep -q "not an ibvf bench peer (magic 0x47455420" "$srv.err"; then
	pass "garbage: the server names it and goes on" "$(grep -m1 'not an ibvf' "$srv.err")"
else
	fail "garbage: no clear error from the server" "$(cat "$srv.err")"
fi
exec 7<>/dev/tcp/10.11.0.1/18515
if wait_until 6 grep -q "dropped: sent no OPEN within $tmo ms" "$srv.err"; then
	pass "a silent client times out on the server"
else
	fail "a silent client: no timeout" "$(cat "$srv.err")"
fi
exec 7>&-
if run_ibvf "$VM_TMP/ok" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" $BENCH_LOW; then
	pass "the server still serves a real client after the garbage"
else
	fail "the server after garbage" "$(cat "$VM_TMP/ok.err")"
fi

# A client killed mid-run: the server says so and keeps serving.
timeout "$(vm_left)" ibvf bench client 10.11.0.1 -d rxe1 --duration 30 >/dev/null 2>&1 &
victim=$!
bench_moving rxe1 || note "rxe1 sent no data before the kill"
kill -9 "$victim"
t0=$(vm_us)
if wait_until 15 grep -qE "the peer closed the connection|went away" "$srv.err"; then
	pass "client killed mid-run: the server's error" \
		"after $((($(vm_us) - t0) / 1000)) ms: $(grep -E 'closed|went away' "$srv.err" | tail -n 1)"
else
	fail "client killed mid-run: the server did not notice" "$(tail -n 3 "$srv.err")"
fi
kill -0 "$BENCH_SERVER_PID" 2>/dev/null && pass "the server survives" || fail "the server died"
bench_server_stop

# A server killed mid-run: the client's error, bounded.
bench_server "$srv-2" -d rxe0
timeout "$(vm_left)" ibvf bench client 10.11.0.1 -d rxe1 --duration 30 --bidir >"$VM_TMP/k" 2>"$VM_TMP/k.err" &
victim=$!
bench_moving rxe1 || note "rxe1 sent no data before the kill"
kill -9 "$BENCH_SERVER_PID"
t0=$(vm_us)
wait "$victim"
rc=$?
ms=$((($(vm_us) - t0) / 1000))
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ -s "$VM_TMP/k.err" ]; then
	pass "server killed mid-run: the client ends with an error" "exit $rc after $ms ms: $(cat "$VM_TMP/k.err")"
else
	fail "server killed mid-run" "exit $rc after $ms ms: $(cat "$VM_TMP/k.err")"
fi
BENCH_SERVER_PID=

# Mismatched parameters: both sides name the parameter and both values.
bench_server "$srv-3" -d rxe0 --size 4096 --once
run_ibvf "$VM_TMP/mm" bench client 10.11.0.1 -d rxe1 --size 65536 --iters "$BENCH_ITERS"
rc=$?
want="parameter 'size' differs: server has 4096, client asked for 65536"
if [ "$rc" -ne 0 ] && grep -qF "the server refused the test: $want" "$VM_TMP/mm.err"; then
	pass "mismatch: the client's error" "$(cat "$VM_TMP/mm.err")"
else
	fail "mismatch: the client's error" "exit $rc: $(cat "$VM_TMP/mm.err")"
fi
wait "$BENCH_SERVER_PID"
rc=$?
BENCH_SERVER_PID=
if [ "$rc" -ne 0 ] && grep -qF "refused the client's test: $want" "$srv-3.err"; then
	pass "mismatch: the server's error, exit $rc" "$(tail -n 1 "$srv-3.err")"
else
	fail "mismatch: the server's error" "exit $rc: $(cat "$srv-3.err")"
fi
vm_done
