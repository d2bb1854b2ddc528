#!/bin/bash
# NUMA placement in the real guest: each thread pinned to its HCA's
# local_cpulist, the buffer on its numa_node (or, where the kernel says -1,
# not bound, and said), both sides' placement in the report, --cpu and
# --no-pin, a server placed by its own options. Every expectation is read
# from the guest's sysfs. In a two-node guest (scripts/vmtest's VMTEST_NUMA=2:
# the second PF behind a pxb-pcie bridge on node 1) the VF of that PF is
# pinned to node 1's CPUs and its buffer lies on node 1.
# vmtest-budget: 120
# shellcheck disable=SC2086,SC2154 # option lists split on purpose; rd and place assign by name
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
# Ten short runs (64 KiB x 20 each) and a server's start.
vm_budget $(($(bench_secs $((10 * 20 * 65536)) 10) + $(vm_scaled 30)))
ITERS="--iters 20"

want_nodes=1
read -r cmdline </proc/cmdline
[[ " $cmdline " =~ \ vmtest\.numa=([0-9]+)\  ]] && want_nodes=${BASH_REMATCH[1]}

# in_cpulist CPU LIST: CPU is in the kernel-syntax LIST.
in_cpulist() {
	local cpu=$1 part a b
	local IFS=,
	for part in $2; do
		a=${part%-*} b=${part#*-}
		[ "$cpu" -ge "$a" ] && [ "$cpu" -le "$b" ] && return 0
	done
	return 1
}

# place VAR_NODE VAR_CPUS IBDEV: the sysfs numa_node and local_cpulist of
# IBDEV's PCI function (through its rxe parent netdev).
place() {
	local -n _n=$1 _c=$2
	local nd
	rd nd "/sys/class/infiniband/$3/parent"
	rd _n "/sys/class/net/$nd/device/numa_node"
	rd _c "/sys/class/net/$nd/device/local_cpulist"
}
place node0 cpus0 rxe0
place node1 cpus1 rxe1
rd online /sys/devices/system/cpu/online
last=${online##*[-,]}
note "rxe0: numa_node $node0, local_cpulist $cpus0; rxe1: numa_node $node1, local_cpulist $cpus1; online $online"
# jq's view of a sysfs node: -1 is unknown (null).
jnode() { if [ "$1" -lt 0 ]; then printf 'null'; else printf '%s' "$1"; fi; }

# pair rxe0 (server thread) <- rxe1 (client thread, the report's side).
if run_ibvf "$VM_TMP/p" bench pair rxe0 rxe1 $ITERS --json $BENCH_LOW; then
	jq_begin "$VM_TMP/p"
	jq_expect "HCA node as sysfs says" '.placement.numa_node' "$(jnode "$node1")" "numa_node"
	jq_expect "local CPUs as sysfs says" '.placement.local_cpus' "$cpus1" "local_cpulist"
	jq_expect "pinned to the local CPUs" '[.placement.pinned, .placement.cpus_from, .placement.cpus] | @tsv' \
		"$(printf 'true\tlocal_cpulist\t%s' "$cpus1")"
	jq_expect "buffer's node is known" '.placement.buffer_node != null' true "move_pages"
	if [ "$node1" -ge 0 ]; then
		jq_expect "buffer bound to and on the HCA's node" \
			'[.placement.buffer_bound_node, .placement.buffer_node, .placement.cpu_node] | @tsv' \
			"$(printf '%s\t%s\t%s' "$node1" "$node1" "$node1")"
	else
		jq_expect "numa_node -1: buffer not bound, and said" \
			'[.placement.buffer_bound_node, (.placement.note | test("numa_node is -1"))] | @tsv' \
			"$(printf '\ttrue')"
	fi
	jq_expect "peer (server thread) as sysfs says" \
		'[.placement.peer.numa_node, .placement.peer.pinned, .placement.peer.cpus, (.placement.peer.cpu_node != null)] | @tsv' \
		"$(printf '%s\ttrue\t%s\ttrue' "$([ "$node0" -ge 0 ] && echo "$node0")" "$cpus0")"
	jq_expect "no warning" '.placement.warnings | length' 0
	jq_end
	cpu=$(jqr "$VM_TMP/p" '.placement.cpu')
	if [ -n "$cpu" ] && in_cpulist "$cpu" "$cpus1"; then
		pass "the thread ran on CPU $cpu, one of $cpus1"
	else
		fail "the thread ran outside its local CPUs" "cpu '$cpu', local $cpus1"
	fi
else
	fail "pair rxe0 <- rxe1 --json" "$(cat "$VM_TMP/p.err")"
fi

# The text report says it in its header.
if run_ibvf "$VM_TMP/t" bench pair rxe0 rxe1 $ITERS $BENCH_LOW; then
	line=$(grep -m1 '^ Placement      : ' "$VM_TMP/t")
	want="HCA on NUMA node $([ "$node1" -ge 0 ] && echo "$node1" || echo unknown), thread pinned to CPUs $cpus1 (local_cpulist)"
	if [[ $line == *"$want"* ]] && grep -q '^ Buffer         : on NUMA node ' "$VM_TMP/t" &&
		grep -q '^ Peer           : HCA on NUMA ' "$VM_TMP/t"; then
		pass "text report: placement, buffer and peer lines" "$line"
	else
		fail "text report: no placement lines as expected ($want)" "$(head -n 12 "$VM_TMP/t")"
	fi
else
	fail "pair rxe0 <- rxe1 (text)" "$(cat "$VM_TMP/t.err")"
fi

# --cpu: both threads of a pair on the CPU given; --no-pin: neither pinned.
if run_ibvf "$VM_TMP/c" bench pair rxe0 rxe1 $ITERS --json --cpu "$last" $BENCH_LOW; then
	expect_json "--cpu $last: pinned there, both threads" "$VM_TMP/c" \
		'[.placement.cpus_from, .placement.cpus, .placement.cpu, .placement.peer.cpu] | @tsv' \
		"$(printf -- '--cpu\t%s\t%s\t%s' "$last" "$last" "$last")"
	if ! in_cpulist "$last" "$cpus1"; then
		expect_json "--cpu outside the local CPUs is warned about" "$VM_TMP/c" \
			'[.placement.warnings[] | select(test("lies outside"))] | length' 1
	fi
else
	fail "pair --cpu $last" "$(cat "$VM_TMP/c.err")"
fi
if run_ibvf "$VM_TMP/n" bench pair rxe0 rxe1 $ITERS --json --no-pin $BENCH_LOW; then
	expect_json "--no-pin: not pinned, not bound, said" "$VM_TMP/n" \
		'[.placement.pinned, .placement.cpus, .placement.buffer_bound_node, (.placement.note | startswith("--no-pin"))] | @tsv' \
		"$(printf 'false\t\t\ttrue')"
else
	fail "pair --no-pin" "$(cat "$VM_TMP/n.err")"
fi
offline=$((last + 1))
run_ibvf "$VM_TMP/o" bench pair rxe0 rxe1 --cpu "$offline"
rc=$?
expect_eq "--cpu $offline (not online): exit 2" "$rc" 2
expect_eq "--cpu $offline: named" "$(cat "$VM_TMP/o.err")" \
	"ibvf: --cpu: CPU $offline is not online (online: $online)"

# A server is placed by its own options, the client by its own; each
# learns where the other ran through the exchange.
bench_server "$VM_TMP/srv" -d rxe0 --cpu 0
if run_ibvf "$VM_TMP/cl" bench client 10.11.0.1 -d rxe1 --cpu "$last" $ITERS --json $BENCH_LOW; then
	expect_json "client on CPU $last, server on its own CPU 0" "$VM_TMP/cl" \
		'[.placement.cpu, .placement.peer.cpu, .placement.peer.numa_node] | @tsv' \
		"$(printf '%s\t0\t%s' "$last" "$([ "$node0" -ge 0 ] && echo "$node0")")"
else
	fail "client --cpu $last against a server --cpu 0" "$(cat "$VM_TMP/cl.err")"
fi
# The server prints its report once the client's bye arrives.
wait_until 10 grep -q '^ Placement      : ' "$VM_TMP/srv"
bench_server_stop
srv_cpu=$(grep -m1 '^ Placement      : ' "$VM_TMP/srv")
if [[ $srv_cpu == *"pinned to CPUs 0 (--cpu), ran on CPU 0 "* ]]; then
	pass "the server's own report: pinned by its --cpu" "$srv_cpu"
else
	fail "the server's report does not show its --cpu 0" "$(head -n 12 "$VM_TMP/srv")"
fi

# The two-node guest: the second PF sits on node 1.
if [ "$want_nodes" -ge 2 ]; then
	expect_eq "two-node guest: PF1's VF (rxe1) reads numa_node 1" "$node1" 1
	rd cpus_node1 /sys/devices/system/node/node1/cpulist
	expect_eq "its local_cpulist is node 1's CPUs" "$cpus1" "$cpus_node1"
	expect_json "rxe1's thread and buffer on node 1" "$VM_TMP/p" \
		'[.placement.cpu_node, .placement.buffer_node, .placement.buffer_bound_node] | @tsv' \
		"$(printf '1\t1\t1')"
	# --cpu on node 0's CPU: the thread is remote to its HCA, and warned.
	rd cpus_node0 /sys/devices/system/node/node0/cpulist
	c0=${cpus_node0%%[-,]*}
	if run_ibvf "$VM_TMP/r" bench pair rxe0 rxe1 $ITERS --json --cpu "$c0" $BENCH_LOW; then
		expect_json "--cpu $c0 (node 0) for a node-1 HCA: thread warned, buffer still on node 1" \
			"$VM_TMP/r" \
			'[.placement.cpu_node, .placement.buffer_node, ([.placement.warnings[] | select(test("thread ran on CPU '"$c0"' of NUMA node 0, its HCA is on node 1"))] | length)] | @tsv' \
			"$(printf '0\t1\t1')"
	else
		fail "pair --cpu $c0 on the node-1 VF" "$(cat "$VM_TMP/r.err")"
	fi
else
	expect_eq "one-node guest: rxe1's numa_node" "$node1" -1
fi
vm_done
