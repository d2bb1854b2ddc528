#!/bin/bash
# The console's bench view (view 3) driven in tmux: a pair run between two
# VFs' rxe devices reaches its verdict with live progress on the way; a
# second run is cancelled with Esc (the peer thread is told, the console
# stays up and exits cleanly). Needs tmux and its terminfo in the image.
# The run is write_bw, 5000 x 4 KiB (the size picked in the form: less in
# flight than 64 KiB, so a starved guest's Soft-RoCE does not exhaust its
# retries); the wait for the verdict comes from the rate bench_setup measured.
# vmtest-budget: 120
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
# shellcheck source=tests/vm/bench-lib.sh
. /vm/tests/bench-lib.sh
if ! command -v tmux >/dev/null; then
	fail "tmux in the guest" "scripts/vm/mkinitramfs did not copy tmux"
	vm_done
fi
bench_setup || {
	fail "rxe on VFs of both PFs" "setup failed"
	vm_done
}
run_s=$(bench_secs $((5000 * 4096)))
vm_budget $((run_s + $(bench_secs 0 2) + $(vm_scaled 60)))
T() { LC_ALL=C.UTF-8 TERM=tmux-256color tmux -L bv -f /dev/null "$@"; }
screen() { T capture-pane -p -t s; }
shows() { screen | grep -qF -- "$1"; }
T new-session -d -s s -x 100 -y 30 \
	env TERM=tmux-256color LC_ALL=C sh -c \
	'ibvf console 2>/tmp/bv.err; echo "exit status $?"; sleep 100000'
wait_until 20 shows "PFs" || fail "console starts" "$(screen)"

# rxe0 (PF0 VF0) against the next VF with an RDMA device, write_bw.
T send-keys -t s : && T send-keys -t s -l "bench rxe0" && T send-keys -t s Enter
wait_until 5 shows "Bench: RDMA verbs" || fail "view 3 opens" "$(screen)"
# Focus VF, Peer, Peer VF, Profile, Test, Size; sizes default, 2, 8, 64, 512, 4096.
T send-keys -t s Down Down Down Down Down Right Right Right Right Right
size_4k() { screen | grep -qE "^ *Size .*[^0-9]4 KiB"; }
wait_until 5 size_4k || fail "4 KiB picked in the form" "$(screen)"
T send-keys -t s Enter
progressing() { screen | grep -qE " [1-9][0-9]*/[0-9]+ iterations"; }
# Data moves once the handshake is done: a run's cost beyond its data.
if VM_SLOW_PCT=100 wait_until "$(bench_secs 0)" progressing; then
	pass "live progress" "$(screen | grep -m1 iterations)"
else
	fail "live progress" "$(screen)"
fi
if VM_SLOW_PCT=100 wait_until "$run_s" shows "write_bw on rxe0 against"; then
	line=$(screen | grep -m1 "write_bw on rxe0 against")
	case $line in
	*PASS* | *FAIL*Gb/s*) pass "a verdict against the port rate" "$line" ;;
	*) fail "a verdict against the port rate" "$(screen)" ;;
	esac
	shows "Gb/s " && pass "a Gb/s sparkline" "$(screen | grep -m1 '^ Gb/s')"
else
	fail "the run ends" "$(screen)"
fi

# Esc during a run cancels it cleanly.
T send-keys -t s Enter
# Cancelled while the data moves, not in the handshake.
bench_moving rxe0 || fail "the second run moves data" "$(screen)"
T send-keys -t s Escape
if wait_until 30 shows "cancelled"; then
	pass "Esc cancels the run" "$(screen | grep -m1 cancelled)"
else
	fail "Esc cancels the run" "$(screen)"
fi
T send-keys -t s Escape q
if wait_until 20 shows "exit status 0" && [ ! -s /tmp/bv.err ]; then
	pass "the console exits cleanly"
else
	fail "the console exits cleanly" "$(screen) $(cat /tmp/bv.err)"
fi
T kill-server
vm_done
