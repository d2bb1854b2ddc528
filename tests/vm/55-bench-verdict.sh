#!/bin/bash
# The verdict knows both ends: each side's port rate and VF cap cross the
# exchange and the ceiling follows the slower end. A real igb VF rate limit
# (ip link set PF vf N max_tx_rate M) lowers its exchanged cap and the
# ceiling of what it sends (write) or of what it serves (read, for the
# peer); two VFs of one PF are named as one physical port and --min-ratio
# does not pass them without --allow-same-port; --sl and --pkey-index reach
# the QPs or are refused by name.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
# 8 runs of BENCH_ITERS and a few refused at once.
vm_budget $(($(bench_secs $((8 * BENCH_ITERS * 65536)) 10) + $(vm_scaled 30)))
pf0=${BENCH_PFS[0]} pf1=${BENCH_PFS[1]}
pf1nd=$(vm_netdev "$pf1")
# shellcheck disable=SC2206 # BENCH_LOW is words
run=(--iters "$BENCH_ITERS" --json $BENCH_LOW)

# The kernel's own words for rxe1's port: "2.5 Gb/sec (1X SDR)" -> Mb/s.
rate_mbps() { awk '{ printf "%d", $1 * 1000 }' "/sys/class/infiniband/$1/ports/1/rate"; }
r0=$(rate_mbps rxe0) r1=$(rate_mbps rxe1)
note "rxe0 $(cat /sys/class/infiniband/rxe0/ports/1/rate), rxe1 $(cat /sys/class/infiniband/rxe1/ports/1/rate)"

# 1. rxe1 (PF1 VF0) writes to rxe0 (PF0 VF0): two PFs, two ports; both rates exchanged.
if run_ibvf "$VM_TMP/a" bench pair rxe0 rxe1 "${run[@]}"; then
	expect_json "both ends' rates exchanged, RoCE v2 headers, not one port" "$VM_TMP/a" \
		'[.link.self.rate_mbps, .link.peer.rate_mbps, .link.peer.name, .link.wire, .link.headers_bytes, .link.same_port, .device.link_layer] | @tsv' \
		"$(printf '%s\t%s\trxe0\troce_v2_ipv4\t62\tfalse\tEthernet' "$r1" "$r0")"
else
	fail "pair rxe0 <- rxe1" "$(cat "$VM_TMP/a.err")"
fi
ceil_a=$(jq -r '.verdict.ceiling_gbps' "$VM_TMP/a" 2>/dev/null)

# 2. A real VF rate limit on PF1's VF 0 (rxe1): 100 Mb/s.
if ip link set "$pf1nd" vf 0 max_tx_rate 100 2>"$VM_TMP/iperr"; then
	note "$(ip link show "$pf1nd" | grep 'vf 0')"
	# Exit 1 too when the emulated igb does not hold the VF to its cap: a
	# figure over 1.05x the capped ceiling is then refused as impossible.
	run_ibvf "$VM_TMP/b" bench pair rxe0 rxe1 "${run[@]}"
	if [ -s "$VM_TMP/b" ]; then
		expect_json "over 1.05x the ceiling is impossible, else PASS" "$VM_TMP/b" \
			'(if .verdict.figure_gbps > 1.05 * .verdict.ceiling_gbps then "impossible" else "PASS" end) == .verdict.status' \
			true
		expect_json "write: this VF's cap (100 Mb/s) sets the ceiling" "$VM_TMP/b" \
			'[.link.self.max_tx_rate_mbps, .verdict.limited_by, .verdict.limit_mbps, .verdict.limit] | @tsv' \
			"$(printf '100\tself_cap\t100\tVF cap 100 Mb/s')"
		# 0.1 x MTU / (MTU + 62), below the uncapped run's ceiling
		expect_json "the ceiling changed with the cap" "$VM_TMP/b" \
			"[(.verdict.ceiling_gbps < $ceil_a), (.verdict.ceiling_gbps - 0.1 * .verdict.mtu / (.verdict.mtu + 62) | if . < 0 then -. else . end) < 1e-9] | all" \
			true "$ceil_a before"
	else
		fail "pair rxe0 <- rxe1 capped" "$(cat "$VM_TMP/b.err")"
	fi
	# rxe0 reads from rxe1: the data is rxe1's to send, its cap is the peer's.
	# With --min-ratio 0 a peer-limited run passes, named; impossible as above.
	run_ibvf "$VM_TMP/c" bench pair rxe1 rxe0 --test read_bw "${run[@]}"
	if [ -s "$VM_TMP/c" ]; then
		expect_json "read: over 1.05x the ceiling is impossible, else PASS" "$VM_TMP/c" \
			'(if .verdict.figure_gbps > 1.05 * .verdict.ceiling_gbps then "impossible" else "PASS" end) == .verdict.status' \
			true
		expect_json "read: the peer's cap sets the ceiling, named" "$VM_TMP/c" \
			'[.link.peer.max_tx_rate_mbps, .verdict.limited_by, .verdict.limit] | @tsv' \
			"$(printf "100\tpeer_cap\tpeer rxe1's VF cap 100 Mb/s")"
	else
		fail "pair rxe1 <- rxe0 read_bw capped" "$(cat "$VM_TMP/c.err")"
	fi
	ip link set "$pf1nd" vf 0 max_tx_rate 0
else
	fail "ip link set $pf1nd vf 0 max_tx_rate 100" "$(cat "$VM_TMP/iperr")"
fi

# 3. rxe0 and rxe2: two VFs of PF0, one port. A threshold a quarter of what
# the calibration reached: met, yet no link validation without the flag.
mr=$(awk -v b="$BENCH_BPS" -v c="$ceil_a" 'BEGIN { r = b * 8 / 1e9 / c / 4; printf "%.6f", r < 1e-6 ? 1e-6 : r }')
run_ibvf "$VM_TMP/d" bench pair rxe0 rxe2 --iters "$BENCH_ITERS" --json --min-ratio "$mr" \
	--timeout "$BENCH_TMO_MS"
expect_eq "same port: --min-ratio $mr does not pass it" "$?" 1
expect_json "same port named: through the HCA, PF $pf0 port 1" "$VM_TMP/d" \
	'[.link.same_port, .verdict.status, .verdict.same_port, (.verdict.reason | contains("; through the HCA, not the link: both ends on PF '"$pf0"' port 1, no link validation"))] | @tsv' \
	"$(printf 'true\tFAIL\ttrue\ttrue')"
run_ibvf "$VM_TMP/e" bench pair rxe0 rxe2 --iters "$BENCH_ITERS" --json --min-ratio "$mr" \
	--timeout "$BENCH_TMO_MS" --allow-same-port
expect_eq "same port with --allow-same-port passes" "$?" 0
expect_json "... and is still named" "$VM_TMP/e" \
	'[.verdict.status, (.verdict.reason | contains("(--allow-same-port)"))] | @tsv' \
	"$(printf 'PASS\ttrue')"
run_ibvf "$VM_TMP/f" bench pair rxe0 rxe2 --iters "$BENCH_ITERS" --min-ratio "$mr" \
	--timeout "$BENCH_TMO_MS"
expect_eq "text report names the port" \
	"$(grep -c "^ Same port      : through the HCA, not the link: both ends on PF $pf0 port 1" "$VM_TMP/f")" 1

# 4. --sl and --pkey-index reach the QPs; an index past the table is refused by name.
if run_ibvf "$VM_TMP/g" bench pair rxe0 rxe1 --sl 3 --pkey-index 0 "${run[@]}"; then
	expect_json "--sl 3 --pkey-index 0" "$VM_TMP/g" '[.link.sl, .link.pkey_index, .link.pkey] | @tsv' \
		"$(printf '3\t0\t0xffff')"
else
	fail "--sl 3 --pkey-index 0" "$(cat "$VM_TMP/g.err")"
fi
n=$(cat /sys/class/infiniband/rxe1/ports/1/pkeys/* 2>/dev/null | wc -l)
run_ibvf "$VM_TMP/h" bench pair rxe0 rxe1 --pkey-index 200 "${run[@]}"
expect_eq "--pkey-index 200: refused" "$?" 1
expect_eq "... by name" "$(grep -cE "P_Key index 200 (out of 'rxe1' port 1's table|of 'rxe1' port 1 is empty)" "$VM_TMP/h.err")" 1 \
	"$n pkeys in sysfs; $(cat "$VM_TMP/h.err")"
run_ibvf "$VM_TMP/i" bench pair rxe0 rxe1 --cm --sl 2 "${run[@]}"
expect_eq "--cm --sl: refused before running" "$?" 2
expect_eq "... saying why" "$(grep -c 'cannot be used with --cm' "$VM_TMP/i.err")" 1

# 5. Link layers that differ, by name on both sides: a client that says it
# is InfiniBand device mlx5_3 (a hand-built hello: LID 0x1a, 400 Gb/s) meets
# a server on rxe0 (Ethernet). The server names its device in its abort and
# names the client's, sent back the same way.
bench_server "$VM_TMP/srv" -d rxe0 --once
hdr='IBVF\x00\x04\x00\x01\x00\x00\x00\xbc'
params='\x00\x00\x01\x03\x00\x00\x00\x01\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x03\xe8'
zero16='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
dest='\x00\x1a\x01\x00'$zero16'\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x12\x34\x00\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00'
port='\x00\x06\x1a\x80\x00\x00\x00\x00\x04\x00\x10\x00'$zero16'\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\x00\x00'
qp='\x00\x00\x01\x00\x00\x00\x00\x01'
tag=$zero16$zero16$zero16$zero16 # nonce and MAC: an open server
exec 8<>/dev/tcp/10.11.0.1/18515
# Protocol 4: OPEN, the server's CHALLENGE (12 + 36 bytes), then the hello.
printf 'IBVF\x00\x04\x00\x07\x00\x00\x00\x00' >&8
timeout 10 head -c 48 <&8 >/dev/null
# shellcheck disable=SC2059 # the format is the message
printf "$hdr$params$dest$port$qp$tag" >&8
timeout 10 head -c 112 <&8 >"$VM_TMP/ab"
expect_eq "link layers differ: the server sends its device's name" \
	"$(head -c 8 "$VM_TMP/ab" | od -An -tx1 | tr -d ' \n'):$(tail -c 96 "$VM_TMP/ab" | tr -d '\0')" \
	"4942564600040005:rxe0"
{
	printf 'IBVF\x00\x04\x00\x05\x00\x00\x00\x64\x00\x00\x00\x03mlx5_3'
	head -c 90 /dev/zero
} >&8
exec 8>&-
if wait_until 10 grep -qF "'rxe0' is Ethernet (RoCE), the peer's 'mlx5_3' is InfiniBand" "$VM_TMP/srv.err"; then
	pass "... and names the client's" "$(grep -m1 "is InfiniBand" "$VM_TMP/srv.err")"
else
	fail "link layers differ: the server's error" "$(cat "$VM_TMP/srv.err")"
fi
bench_server_stop
vm_done
