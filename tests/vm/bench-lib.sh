# shellcheck shell=bash
# Shared setup of the bench scenarios (tests/vm/5*-bench*.sh): Soft-RoCE on
# VFs of both PFs, each VF netdev with an IPv4 address (RoCE v2 GID index 1).
#   rxe0  PF0 VF0  10.11.0.1      rxe1  PF1 VF0  10.11.0.2
#   rxe2  PF0 VF1  10.11.0.3      (PF1 VF1 has no rxe: --all-vfs skips it)
#   rxe3  PF1 VF1  10.11.0.4      only with BENCH_RXE_ALL=1: two VFs per PF
# Work is sized by what a calibration run measured (bench_calibrate): the
# guest moves 5-80 MB/s under TCG depending on the host, so no iteration count
# or wait here is a constant.

# No threshold: any rate passes (a starved guest's Soft-RoCE moved 0.002
# Gb/s, under 0.1% of its port); the threshold logic is tested apart.
BENCH_LOW="--min-ratio 0"
# ibvf gives up on a completion after 10 s: a starved guest's Soft-RoCE can
# stall that long, so the runs here wait 10 s scaled by the slow-down.
BENCH_TMO_MS=10000

bench_setup() {
	vm_reset
	mapfile -t BENCH_PFS < <(vm_pfs)
	vm_sriov "${BENCH_PFS[0]}" 2 || return 1
	vm_sriov "${BENCH_PFS[1]}" 2 || return 1
	BENCH_VF0=$(vm_vf "${BENCH_PFS[0]}" 0)
	BENCH_VF1=$(vm_vf "${BENCH_PFS[1]}" 0)
	BENCH_VF2=$(vm_vf "${BENCH_PFS[0]}" 1)
	local i=1 vf nd vfs=("$BENCH_VF0" "$BENCH_VF1" "$BENCH_VF2")
	if [ "${BENCH_RXE_ALL:-0}" = 1 ]; then
		BENCH_VF3=$(vm_vf "${BENCH_PFS[1]}" 1)
		vfs+=("$BENCH_VF3")
	fi
	for vf in "${vfs[@]}"; do
		nd=$(vm_netdev "$vf") || return 1
		ip addr add "10.11.0.$i/24" dev "$nd" || return 1
		vm_rxe_add "rxe$((i - 1))" "$nd" || return 1
		i=$((i + 1))
	done
	vm_rxe_sysctls lo
	bench_calibrate
}

# bench_calibrate: two write_bw pair runs, rxe1 -> rxe0, measure what a run
# costs beyond moving its data (BENCH_RUN_MS: setup, handshake, teardown: the
# wall time of a run of one 64 KiB message) and the Soft-RoCE rate (BENCH_BPS,
# bytes/s, from a 1 s run). BENCH_ITERS becomes the 64 KiB iterations of half
# a second of data, and every ibvf run is bounded by bench_secs of its work.
bench_calibrate() {
	local out=$VM_TMP/calib t0 gbps
	vm_scaled_ms BENCH_TMO_MS 10
	BENCH_LOW="--min-ratio 0 --timeout $BENCH_TMO_MS"
	t0=$(vm_us)
	VM_IBVF_TIMEOUT=$(vm_scaled 60) vm_ibvf bench pair rxe0 rxe1 --iters 1 --min-ratio 0 \
		--timeout "$BENCH_TMO_MS" >"$out.1" 2>&1 || note "calibration run of 1 message failed: $(tail -c 300 "$out.1")"
	BENCH_RUN_MS=$((($(vm_us) - t0) / 1000))
	VM_IBVF_TIMEOUT=$(vm_scaled 120) vm_ibvf bench pair rxe0 rxe1 --duration 1 --json \
		--min-ratio 0 --timeout "$BENCH_TMO_MS" >"$out" 2>"$out.err"
	gbps=$(jq -r '.sizes[0].bw_avg_gbps // empty' "$out" 2>/dev/null)
	if [ -z "$gbps" ]; then
		note "calibration failed: $(head -c 300 "$out.err")"
		gbps=0.01
	fi
	# bytes/s; at least 1 MB/s so a broken calibration still bounds things.
	BENCH_BPS=$(awk -v g="$gbps" 'BEGIN { b = g * 1e9 / 8; printf "%d", b < 1e6 ? 1e6 : b }')
	BENCH_ITERS=$((BENCH_BPS / 2 / 65536))
	[ "$BENCH_ITERS" -ge 20 ] || BENCH_ITERS=20
	# One command runs up to 4 of those (--all-vfs, --bidir on 2 QPs).
	# shellcheck disable=SC2034 # vm_ibvf's bound (lib.sh)
	VM_IBVF_TIMEOUT=$(bench_secs $((4 * BENCH_ITERS * 65536)) 4)
	BENCH_RATE="Soft-RoCE at $gbps Gb/s, a run costs ${BENCH_RUN_MS} ms beyond its data"
	note "$BENCH_RATE; $BENCH_ITERS iterations of 64 KiB"
	printf 'RATE %s %s Gb/s, run %s ms\n' "$VM_SCENARIO" "$gbps" "$BENCH_RUN_MS" >>"$VM_RESULTS"
}

# bench_secs BYTES [RUNS]: real seconds RUNS ibvf runs (default 1) moving
# BYTES in all take at the measured rate, with a margin of 3x.
bench_secs() {
	local bytes=$1 runs=${2:-1}
	printf '%s' $(((3 * (runs * BENCH_RUN_MS + bytes * 1000 / BENCH_BPS) + 999) / 1000))
}

# bench_server OUT ARGS...: a background server; waits until it listens.
# Its completion timeout is BENCH_TMO_MS unless ARGS give one.
bench_server() {
	local out=$1
	shift
	[[ " $* " == *" --timeout "* ]] || set -- "$@" --timeout "$BENCH_TMO_MS"
	# Lives as long as the scenario may; bench_server_stop ends it sooner.
	timeout "$(vm_left)" ibvf bench server "$@" >"$out" 2>"$out.err" &
	BENCH_SERVER_PID=$!
	wait_until 10 grep -q "bench server on" "$out.err"
}

bench_server_stop() {
	[ -n "${BENCH_SERVER_PID:-}" ] || return 0
	kill "$BENCH_SERVER_PID" 2>/dev/null
	wait "$BENCH_SERVER_PID" 2>/dev/null
	BENCH_SERVER_PID=
}

# A table row of a bandwidth result: "<size> <iters> <peak> <avg> <rate>".
bench_bw_row() { awk -v s="$2" '$1 == s && NF == 5 { print; exit }' "$1"; }

# bench_vs_perftest TEST: scripts/bench/vs-perftest for TEST, rxe1 -> rxe0,
# 7 A/B runs each sized to 2 s of data by its own calibration run. The budget
# follows what it measures, as it goes: after the calibration, 14 runs of its
# wall time (server, client and the wait for the listening socket included)
# plus their 2 s each, twice over; after each run, the runs left at twice the
# longest wall time so far and the next at ten times (vs-perftest's bound):
# the machine may slow down mid-scenario.
bench_vs_perftest() {
	local t=$1 out=$VM_TMP/vs pid w s line seen=0 ran=0 longest=0 l
	vm_budget $(($(bench_secs $((2 * BENCH_BPS))) + $(vm_scaled 60)))
	: >"$out.err"
	/vm/bench/vs-perftest -r 7 -T 2 -o "--timeout $BENCH_TMO_MS" -t "$t" >"$out" 2>"$out.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		mapfile -t l < <(grep -E "^vs-perftest: $t (calibration|ibvf|perftest):" "$out.err")
		[ "${#l[@]}" -gt "$seen" ] || continue
		for ((; seen < ${#l[@]}; seen++)); do
			line=${l[$seen]}
			if [[ $line =~ \ calibration:\ .*\ in\ ([0-9]+)(\.[0-9]*)?\ s\;.*~([0-9]+)\ s ]]; then
				w=${BASH_REMATCH[1]} s=${BASH_REMATCH[3]}
				longest=$((w + 1 + s))
			elif [[ $line =~ \(([0-9]+)(\.[0-9]*)?\ s\)$ ]]; then
				ran=$((ran + 1))
				w=$((BASH_REMATCH[1] + 1))
				[ "$w" -le "$longest" ] || longest=$w
			fi
		done
		# The run under way may take up to vs-perftest's bound, 10 x the longest.
		vm_budget $(((2 * (14 - ran) + 10) * longest + $(vm_scaled 30)))
	done
	wait "$pid"
	local rc=$?
	cat "$out.err" >&2
	if [ "$rc" -eq 0 ]; then
		pass "vs-perftest $t ($BENCH_RATE; $(grep -m1 -o 'calibration: .*' "$out.err"))" "$(tail -n 1 "$out")"
	else
		fail "vs-perftest $t" "$(cat "$out")"
	fi
}

# bench_moving DEV: waits until DEV's port has sent 64 more packets than when
# called (data moves: the handshake is TCP), at most a run's cost beyond its
# data; without rxe's hw_counters, for 3 s on the reference guest.
bench_moving() {
	local f=/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts c0
	if ! rd c0 "$f" || [ -z "$c0" ]; then
		vm_sleep 3
		return 0
	fi
	_bench_sent_over() {
		local c
		rd c "$1"
		[ "${c:-0}" -gt "$2" ]
	}
	# shellcheck disable=SC2034 # wait_until's scale (lib.sh): bench_secs is real seconds
	local VM_SLOW_PCT=100
	wait_until "$(bench_secs 0)" _bench_sent_over "$f" $((c0 + 64))
}
