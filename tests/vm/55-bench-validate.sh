#!/bin/bash
# The validation profile (ibvf bench validate, --profile validate) and its
# history: a first validation of PF0 VF1 (rxe2) against rxe0 in text, its
# four tests recorded in the history file; then the same VF and peer with
# --profile validate --json --no-history, after a write_bw line with ten
# times the figure and a corrupt line were planted: write_bw flagged as a
# drop, read_bw compared with the first run, the corrupt line skipped with a
# warning, nothing appended. Each test runs --duration D, D sized from the
# calibration so the measured part (3/5 of D at most) holds about eight
# completions of 100 messages of 64 KiB.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
hist=/var/lib/ibvf/bench-history.jsonl
rm -f "$hist"
D=$(((5 * 8 * 100 * 65536 / BENCH_BPS + 2) / 3 + 1))
[ "$D" -ge 2 ] || D=2
# Two validations of 4 tests of D seconds each (latency counted as if it
# moved data for D seconds: a bound on its time), then every VF at once:
# two VFs (one per PF) of 4 tests of 2 s, side by side.
VM_IBVF_TIMEOUT=$(bench_secs $((4 * D * BENCH_BPS)) 4)
# The console's validation (4 tests of 2 s) once more.
vm_budget $((2 * VM_IBVF_TIMEOUT + 2 * $(bench_secs $((8 * 2 * BENCH_BPS)) 8) + $(vm_scaled 60)))
note "each test runs --duration $D"

# 1. bench validate DEV PEER, PEER a device of this node: pair mode.
run_ibvf "$VM_TMP/v1" bench validate "$BENCH_VF2" rxe0 --duration "$D" $BENCH_LOW
rc=$?
expect_eq "validate: exit status" "$rc" 0
expect_eq "validate: the title names the VF and the peer's BDF" \
	"$(grep -c "^Validation of $BENCH_VF2 rxe2 (vf1 of ${BENCH_PFS[0]}.*peer $BENCH_VF0\$" "$VM_TMP/v1")" 1
expect_eq "validate: one line per test" \
	"$(grep -cE '^  (write_bw|read_bw|write_lat|read_lat) +[0-9]' "$VM_TMP/v1")" 4
expect_eq "validate: each bandwidth test's profile reason" \
	"$(grep -cE '^  (write|read)_bw: .*TX depth 128 x 64 KiB per QP' "$VM_TMP/v1")" 2
expect_eq "validate: the verdict line" "$(tail -n 1 "$VM_TMP/v1" | cut -d: -f1-3)" \
	"PASS VF $BENCH_VF2"
expect_eq "history: 4 lines, mode 0640" "$(wc -l <"$hist") $(stat -c %a "$hist")" "4 640"
jq_begin "$hist" -s
jq_expect "history: keyed by PF, VF index, test and peer" \
	'[.[].key | "\(.pf)/\(.vf)/\(.test)/\(.peer)"] | join(",")' \
	"$(printf '%s/1/%s/%s,' "${BENCH_PFS[0]}" write_bw "$BENCH_VF0" "${BENCH_PFS[0]}" read_bw \
		"$BENCH_VF0" "${BENCH_PFS[0]}" write_lat "$BENCH_VF0" "${BENCH_PFS[0]}" read_lat \
		"$BENCH_VF0" | sed 's/,$//')"
jq_expect "history: figures and units" \
	'[.[] | (.figure > 0) and (.unit == (if .key.test | endswith("_bw") then "Gb/s" else "us" end))] | all' true
jq_expect "history: each bandwidth figure with the ceiling it was judged against" \
	'[.[] | if .key.test | endswith("_bw") then .ceiling > 0 else has("ceiling") | not end] | all' true
jq_end
# ibvf metrics exports the last validation of each test: 4 passes, a ratio
# for each bandwidth test.
run_ibvf "$VM_TMP/metrics" metrics
expect_eq "metrics: the VF's 4 passes and 2 bandwidth ratios" \
	"$(grep -c "^ibvf_validation_pass{pci=\"$BENCH_VF2\".*} 1\$" "$VM_TMP/metrics") $(grep -cE "^ibvf_validation_ratio\{pci=\"$BENCH_VF2\".*test=\"(write|read)_bw\".*\} [0-9]" "$VM_TMP/metrics")" \
	"4 2"
w1=$(jq -s '.[0].figure' "$hist")
r1=$(jq -s '.[1].figure' "$hist")

# 2. pair --profile validate, the same VF and peer; a planted drop and a
# corrupt line in the history first.
jq -c --argjson f "$w1" '.figure = ($f * 10) | .spread = 0.001 | .time = "planted"' \
	<(head -n 1 "$hist") >>"$hist"
printf 'not json, a torn line\n' >>"$hist"
run_ibvf "$VM_TMP/v2" bench pair --profile validate rxe0 "$BENCH_VF2" --duration "$D" --json \
	--no-history $BENCH_LOW
rc=$?
expect_eq "--profile validate --json: exit status" "$rc" 0
expect_eq "--profile validate: the corrupt history line named once" \
	"$(grep -c 'ibvf: warning: skipped 1 corrupt line(s) in the history' "$VM_TMP/v2.err")" 1
expect_eq "--no-history: nothing appended" "$(wc -l <"$hist")" 6
# Figures compared to 1e-9 of their value: they go through JSON twice.
near='def near(a; b): ((a - b) | if . < 0 then -. else . end) <= 1e-9 * (if b < 0 then -b else b end);'
jq_begin "$VM_TMP/v2" --argjson w1 "$w1" --argjson r1 "$r1" --argjson D "$D"
jq_expect "one document, one VF, its four tests" \
	'[.profile, (.vfs | length), .vfs[0].status, ([.vfs[0].tests[].test] | join(","))] | @tsv' \
	"$(printf 'validate\t1\tPASS\twrite_bw,read_bw,write_lat,read_lat')"
jq_expect "every test by duration, warm-up and cool-down excluded" \
	'[.vfs[0].tests[] | (.params.mode == "duration") and (.profile.duration_s == $D)] + [.vfs[0].tests[0,1].sizes[0] | (.margin_ns == ([$D * 1e9 / 5, 2e9] | min)) and (.elapsed_ns > 0) and (.elapsed_ns <= .run_ns - 2 * .margin_ns)] | all' true
jq_expect "QPs chosen from the port rate" \
	'.vfs[0] | (.device.rate // "" | (capture("^(?<g>[0-9.]+) Gb") | .g | tonumber) // -1) as $g | [.tests[0].profile.qps, .tests[1].profile.qps] == [(if $g >= 300 then 4 elif $g >= 150 then 2 else 1 end), (if $g >= 150 then 4 elif $g >= 50 then 2 else 1 end)]' true
jq_expect "write_bw: the planted figure is the previous one, a drop" \
	"$near"' .vfs[0].tests[0].history | [near(.previous; $w1 * 10), .previous_time, .flag] | @tsv' \
	"$(printf 'true\tplanted\tdrop')"
jq_expect "read_bw: compared with the first run, flagged by the noise rule" \
	"$near"' .vfs[0].tests[1].history | [near(.previous; $r1), (.flag == (if -.change_pct > .noise_pct then "drop" else "ok" end)), .noise_pct >= 5] | all' true
jq_expect "summary counts the drop" '.summary | [.pass, .history_drops >= 1] | @tsv' \
	"$(printf '1\ttrue')"
jq_end
# 3. Every VF against rxe0, every PF at once: rxe0 is the peer itself, PF1
# VF1 has no RDMA device; rxe2 (PF0) and rxe1 (PF1) validate side by side.
VM_IBVF_TIMEOUT=$(bench_secs $((8 * 2 * BENCH_BPS)) 8) run_ibvf "$VM_TMP/v3" bench validate \
	--all-vfs --parallel rxe0 --duration 2 --json --no-history $BENCH_LOW
rc=$?
expect_eq "validate --all-vfs --parallel: exit status" "$rc" 0
vm_json bench "$VM_TMP/v3" # the host validates it against schemas/bench.schema.json
jq_begin "$VM_TMP/v3"
jq_expect "validate --all-vfs --parallel: one document, every VF" \
	'[.profile, .parallel, (.vfs | length), ([.vfs[] | .status] | join(",")), .summary.pass] | @tsv' \
	"$(printf 'validate\ttrue\t4\tSKIP,PASS,PASS,SKIP\t2')"
jq_expect "each VF run has its four tests, PFs side by side" \
	'[[.vfs[] | select(.status == "PASS") | .tests | length] == [4, 4], (.pfs | length) == 2, .node.wall_s > 0] | all' true
jq_end

# 4. The console's bench view: Profile validate, Duration 2 s, rxe2 against
# its default peer (the next VF with an RDMA device: rxe1, PF1 VF0), after
# a write_bw line for that key with ten times any figure was planted: the
# row's table shows the drop.
if command -v tmux >/dev/null; then
	jq -c --arg peer "$BENCH_VF1" '.key.peer = $peer | .figure = 1e6 | .spread = 0.001' \
		<(head -n 1 "$hist") >>"$hist"
	T() { LC_ALL=C.UTF-8 TERM=tmux-256color tmux -L bv -f /dev/null "$@"; }
	screen() { T capture-pane -p -t s; }
	shows() { screen | grep -qF -- "$1"; }
	T new-session -d -s s -x 120 -y 40 env TERM=tmux-256color LC_ALL=C sh -c \
		'ibvf console 2>/tmp/bv.err; echo "exit status $?"; sleep 100000'
	wait_until 20 shows "PFs" || fail "console starts" "$(screen)"
	T send-keys -t s : && T send-keys -t s -l "bench rxe2" && T send-keys -t s Enter
	wait_until 5 shows "Bench: RDMA verbs" || fail "view 3 opens" "$(screen)"
	# Focus VF, Peer, Peer VF, Profile; then QPs, Duration (Test, Size hidden).
	T send-keys -t s Down Down Down Right Down Down Right
	wait_until 5 shows "Duration < 2 s >" || fail "the form: validate, 2 s" "$(screen)"
	T send-keys -t s Enter
	if VM_SLOW_PCT=100 wait_until "$(bench_secs $((8 * 2 * BENCH_BPS)) 8)" shows " VF $BENCH_VF2:"; then
		expect_eq "console: the row's table names the VF and its peer" \
			"$(screen | grep -c "^Validation of $BENCH_VF2 rxe2 .*peer $BENCH_VF1")" 1
		expect_eq "console: write_bw flagged as a drop" \
			"$(screen | grep -cE '^  write_bw .* DROP -[0-9.]+% vs 1000000.00 Gb/s')" 1
		expect_eq "console: the drop counted" "$(screen | grep -c '1 figure(s) dropped beyond the noise')" 1
	else
		fail "console: the validation ends" "$(screen)"
	fi
	T send-keys -t s Escape q
	wait_until 20 shows "exit status 0" || fail "the console exits cleanly" "$(screen) $(cat /tmp/bv.err)"
	T kill-server
else
	fail "tmux in the guest" "scripts/vm/mkinitramfs did not copy tmux"
fi

note "bandwidth elapsed/run/margin ns: $(jq -r '[.vfs[0].tests[0,1].sizes[0] | "\(.elapsed_ns)/\(.run_ns)/\(.margin_ns)"] | join(" ")' "$VM_TMP/v2")"
note "$(cat "$VM_TMP/v1")"
vm_done
