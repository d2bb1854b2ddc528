# shellcheck shell=bash
# host_slow_pct: how much slower than the reference host this machine is right
# now, in percent (at least 100): the median of three timings of a fixed CPU
# loop, ~150 ms on the reference host (one core of a 2-core VM, unloaded).
# Hang bounds (scripts/vmtest's boot watchdog, scripts/test's test timeouts)
# scale by it instead of assuming one machine's speed.
host_slow_pct() {
	local i t0 ms=() m
	for i in 1 2 3; do
		t0=${EPOCHREALTIME/./}
		awk 'BEGIN { for (i = 0; i < 3000000; i++) s += i }'
		ms+=($(((${EPOCHREALTIME/./} - t0) / 1000)))
	done
	m=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 2p)
	m=$((m * 100 / 150))
	printf '%s' $((m < 100 ? 100 : m))
}
