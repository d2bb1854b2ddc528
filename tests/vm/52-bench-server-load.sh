#!/bin/bash
# The bench server on a network (docs/bench.md): with --key a client without
# the key, or with another, is refused by name and a keyed one is served; a
# client silent after the handshake is dropped after --timeout; a client
# against a server that never answers gives up after its own --timeout; and
# 100 hostile clients at once (silent, garbage, huge hellos, half-closed,
# wrong key, an older protocol, one byte at a time) leave the server serving
# a real run, with its memory and descriptors back where they were.
# vmtest-budget: 240
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
command -v bench_peer >/dev/null || {
	fail "bench_peer in the guest" "not in the initramfs (tests/bench_peer not built?)"
	vm_done
}
tmo=0
vm_scaled_ms tmo 2
flood_s=$(vm_scaled 3)
vm_budget $(($(bench_secs $((3 * BENCH_ITERS * 65536)) 3) + 3 * flood_s + $(vm_scaled 60)))
key=$VM_TMP/key other=$VM_TMP/other.key
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$other"
chmod 600 "$key" "$other"
srv=$VM_TMP/srv
bench_server "$srv" -d rxe0 --timeout "$tmo" --key "$key"
expect_eq "the first line says the address and that clients need the key" \
	"$(grep -c "listening on 0.0.0.0:18515 (all addresses; --bind ADDR for one); clients need the shared key" "$srv.err")" 1

# The server's ibvf: BENCH_SERVER_PID itself (busybox's timeout execs the
# command), else its child (a timeout that forks).
srv_pid=
case $(readlink "/proc/$BENCH_SERVER_PID/exe") in
*/ibvf) srv_pid=$BENCH_SERVER_PID ;;
*)
	for d in /proc/[0-9]*; do
		read -r _ _ _ ppid _ 2>/dev/null <"$d/stat" || continue
		[ "$ppid" = "$BENCH_SERVER_PID" ] && srv_pid=${d#/proc/}
	done
	;;
esac
if [ -z "$srv_pid" ] || [ ! -r "/proc/$srv_pid/status" ]; then
	fail "the server's process" "not found under $BENCH_SERVER_PID"
	bench_server_stop
	vm_done
fi
note "server: pid $srv_pid, $(readlink "/proc/$srv_pid/exe")"
status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$srv_pid/status"; }
nfds() { find "/proc/$srv_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

run_ibvf "$VM_TMP/nokey" bench client 10.11.0.1 -d rxe1 --iters 20 $BENCH_LOW
expect_eq "no key: the client is refused by name" \
	"$? $(grep -c "server refused: key mismatch: the server wants a key" "$VM_TMP/nokey.err")" "1 1"
run_ibvf "$VM_TMP/other" bench client 10.11.0.1 -d rxe1 --iters 20 --key "$other" $BENCH_LOW
expect_eq "another key: refused by name" \
	"$? $(grep -c "server refused: key mismatch: the hello's HMAC is not this server's key's" "$VM_TMP/other.err")" "1 1"
if run_ibvf "$VM_TMP/ok" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" --key "$key" $BENCH_LOW; then
	pass "the right key: served" "$(grep -m1 -E '^ *65536 ' "$VM_TMP/ok")"
else
	fail "the right key: not served" "$(cat "$VM_TMP/ok.err")"
fi
# The keyless client leaves by itself (the challenge said a key is needed).
expect_eq "the server logged both, one line each" \
	"$(grep -c "refused: key mismatch: the hello's HMAC\|left: server refused: key mismatch" "$srv.err")" 2

# Silent after the server's ACCEPT (its QPs are set up): dropped after --timeout.
t0=$(vm_us)
timeout "$(vm_scaled 30)" bench_peer good 10.11.0.1 18515 "$key" --eth --hang "$(vm_scaled 30)" >"$VM_TMP/hang"
held=$((($(vm_us) - t0) / 1000))
if grep -q "^answer: type 2" "$VM_TMP/hang" && grep -q "^hang: the server closed" "$VM_TMP/hang" &&
	wait_until 5 grep -q "no answer from the peer within $tmo ms while waiting for the next size" "$srv.err"; then
	pass "a client silent after the handshake is dropped after $tmo ms" "held ${held} ms; $(tail -n1 "$VM_TMP/hang")"
else
	fail "a client silent after the handshake" "$(cat "$VM_TMP/hang") / $(tail -n 3 "$srv.err")"
fi

# A server that accepts and never answers: the client ends after its timeout.
timeout "$(vm_scaled 30)" bench_peer mute 18600 "$(vm_scaled 20)" &
mute=$!
wait_until 5 vm_listening 18600
t0=$(vm_us)
run_ibvf "$VM_TMP/mute" bench client 127.0.0.1 --port 18600 -d rxe1 $BENCH_LOW --timeout "$tmo"
rc=$?
took=$((($(vm_us) - t0) / 1000))
if [ "$rc" -ne 0 ] && grep -q "no answer from the peer within $tmo ms while waiting for the server's challenge" "$VM_TMP/mute.err"; then
	pass "a mute server: the client gives up after its --timeout" "${took} ms for --timeout $tmo"
else
	fail "a mute server: the client" "rc $rc, ${took} ms: $(cat "$VM_TMP/mute.err")"
fi
kill "$mute" 2>/dev/null
wait "$mute" 2>/dev/null

# The load: 100 hostile clients at once for flood_s seconds.
rss0=$(status VmRSS) hwm0=$(status VmHWM) fds0=$(nfds)
bench_peer flood 10.11.0.1 18515 100 "$flood_s" >"$VM_TMP/flood" &
flood=$!
vm_sleep 2
fds_mid=$(nfds)
t0=$(vm_us)
run_ibvf "$VM_TMP/load" bench client 10.11.0.1 -d rxe1 --iters "$BENCH_ITERS" --key "$key" $BENCH_LOW
rc=$?
took=$((($(vm_us) - t0) / 1000))
wait "$flood"
wait_until 10 test "$(nfds)" -le "$fds0"
rss1=$(status VmRSS) hwm1=$(status VmHWM) fds1=$(nfds)
numbers="$(cat "$VM_TMP/flood"); a real write_bw run in ${took} ms; VmRSS ${rss0} -> ${rss1} kB, VmHWM ${hwm0} -> ${hwm1} kB; fds ${fds0} before, ${fds_mid} during, ${fds1} after"
printf 'LOAD %s %s\n' "$VM_SCENARIO" "$numbers" >>"$VM_RESULTS"
if [ "$rc" -eq 0 ]; then
	pass "under the flood a real client is served" "$numbers"
else
	fail "under the flood a real client" "rc $rc: $(cat "$VM_TMP/load.err")"
fi
expect_eq "no descriptor leaked" "$fds1" "$fds0"
if [ $((hwm1 - hwm0)) -lt 65536 ]; then
	pass "memory bounded: VmHWM grew $((hwm1 - hwm0)) kB (a run's buffer included)"
else
	fail "memory" "VmHWM ${hwm0} -> ${hwm1} kB"
fi
note "server log: $(wc -l <"$srv.err") lines for $(awk '{print $5}' "$VM_TMP/flood") connections"
bench_server_stop
vm_done
