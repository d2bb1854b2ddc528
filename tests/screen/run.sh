#!/usr/bin/env bash
# Screen tests: the real ibvf console in tmux on a simulated DGX H200, driven
# with send-keys, each capture compared with tests/screen/golden/NAME.txt.
# Parts that change from run to run (clock, timestamps, temp paths) are
# masked, not skipped. Anything the binary writes to stderr (sanitizer
# reports included) fails the test.
#
#   tests/screen/run.sh IBVF_BIN SIMWRITE_BIN [SCENARIO...]
#   UPDATE_GOLDEN=1 tests/screen/run.sh ...    rewrite the golden files
set -uo pipefail
ibvf=$(realpath "$1")
simwrite=$(realpath "$2")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden
tmp=$(mktemp -d /tmp/ibvf-screen.XXXXXX)
sock=ibvf-screen-$$
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	T kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
checks=0

# A scenario whose findings depend on which intermediate states of the
# simulated kernel a rebuild saw (a name's history) sets mask_checks=1: the
# tab's count is masked, the rest of the screen still compared.
mask_checks=0
mask() {
	local extra=()
	((mask_checks)) && extra=(-e 's/ 2 Checks [0-9]+/ 2 Checks NN/'
		-e 's/ Problems: [0-9]+ critical, [0-9]+ warning, [0-9]+ info \([0-9]+ findings\)/ Problems: NN/')
	sed -E -e "s#$tmp#TMP#g" "${extra[@]}" \
		-e 's/[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}/HH:MM:SS.mmm/g' \
		-e 's/<- [0-9]+\.[0-9]{2} s after/<- N.NN s after/g' \
		-e 's/(^|[^0-9:.])[0-9]{2}:[0-9]{2}:[0-9]{2}($|[^0-9:.])/\1HH:MM:SS\2/g' \
		-e 's/[0-9]{8}-[0-9]{6}/YYYYMMDD-HHMMSS/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T/YYYY-MM-DDT/g' \
		-e 's/elapsed [0-9]+ s/elapsed N s/g'
}

capture() { # capture [-e]: the visible pane, masked
	T capture-pane -p "$@" -t s | mask
}

# Bounds on waiting are times on the reference host scaled by how slow this
# one is now (scripts/speed.sh). The 1 s a live change has to show in is
# ibvf's promise, not a wait: shown_within does not scale it.
# shellcheck source=scripts/speed.sh
. "$here/../../scripts/speed.sh"
slow_pct=$(host_slow_pct)

pane_match() { # pane_match GREP_FLAG PATTERN MS: until the pane matches, at most MS
	local deadline=$(($(date +%s%N) + $3 * 1000000))
	while (($(date +%s%N) < deadline)); do
		T capture-pane -p -t s | grep -q"$1" -- "$2" && return 0
		sleep 0.05
	done
	echo "FAIL: nothing matching '$2' appeared on screen within $3 ms"
	capture
	fails=$((fails + 1))
	return 1
}

shown_within() { # shown_within TEXT MS: until the pane shows TEXT, at most MS
	pane_match F "$1" "$2"
}

wait_re() { # wait_re REGEX [SECONDS]: until the pane shows a match (grep -E); SECONDS (5) on the reference host
	pane_match E "$1" $((${2:-5} * 10 * slow_pct))
}

wait_for() { # wait_for TEXT [SECONDS]: shown_within SECONDS (5) on the reference host
	shown_within "$1" $((${2:-5} * 10 * slow_pct))
}

console_pid() { # the pane's sh runs ibvf as its child
	local sh kids
	sh=$(T display -p -t s '#{pane_pid}' 2>/dev/null) || return 1
	read -r kids _ <"/proc/$sh/task/$sh/children" 2>/dev/null || return 1
	printf '%s' "$kids"
}

console_asleep() { # its main thread sleeps (in poll): every key sent is handled
	local pid st
	pid=$(console_pid) || return 0 # gone: nothing left to wait for
	[ -n "$pid" ] || return 0
	read -r _ _ st _ <"/proc/$pid/stat" 2>/dev/null || return 0
	[ "$st" = S ]
}

# settle [SECONDS]: at least SECONDS (0.3), then until the console is idle:
# asleep, and the pane unchanged for 100 ms scaled (bounded by 10 s scaled).
settle() {
	sleep "${1:-0.3}"
	local quiet_ns=$((100000 * slow_pct * 10)) end=$(($(date +%s%N) + slow_pct * 100000000))
	local prev='' cur since=0 now
	while now=$(date +%s%N) && ((now < end)); do
		cur=$(T capture-pane -p -t s)
		if [ "$cur" != "$prev" ] || ! console_asleep; then
			prev=$cur since=$now
		elif ((now - since >= quiet_ns)); then
			return 0
		fi
		sleep 0.03
	done
}

snap() { # snap NAME [-e]: compare the screen with golden/NAME.txt
	local name=$1
	shift
	checks=$((checks + 1))
	capture "$@" >"$tmp/$name.txt"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/$name.txt" "$golden/$name.txt"
		echo "updated $name"
	elif ! diff -u "$golden/$name.txt" "$tmp/$name.txt" >"$tmp/$name.diff"; then
		echo "FAIL: $name differs from its golden capture:"
		cat "$tmp/$name.diff"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

start() { # start COLS ROWS [ENV=VALUE...] [-- ARGS...]: a fresh node and console
	local cols=$1 rows=$2
	shift 2
	local envs=() args=()
	while (($#)) && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	(($#)) && shift
	args=("$@")
	rm -rf "$tmp/node" "$tmp/work"
	mkdir -p "$tmp/work" "$tmp/cfg"
	"$ibvf" mkfixture "$tmp/node" "${fixture_args[@]}" >/dev/null || exit 1
	"${fixture_prep:-:}"
	: >"$tmp/stderr"
	T kill-server 2>/dev/null
	T new-session -d -s s -x "$cols" -y "$rows" -c "$tmp/work" \
		env -i PATH="$PATH" HOME="$tmp" XDG_CONFIG_HOME="$tmp/cfg" LANG=C.UTF-8 TZ=UTC \
		TERM=tmux-256color ASAN_OPTIONS="${ASAN_OPTIONS:-}" "${envs[@]}" \
		sh -c '"$@" 2>>'"$tmp/stderr"'; echo "exit status $?"; sleep 600' sh \
		"$ibvf" "--sim=$tmp/node" "${args[@]}"
	wait_for "PFs 12" 10
	settle
}

stop() { # quits with q and checks the exit status and stderr
	T send-keys -t s q
	wait_for "exit status 0" 10
	if [ -s "$tmp/stderr" ]; then
		echo "FAIL: the console wrote to stderr:"
		cat "$tmp/stderr"
		fails=$((fails + 1))
	fi
	T kill-server 2>/dev/null
}

fixture_args=() # start's mkfixture options (a scenario may set --healthy)
fixture_prep='' # a command start runs on the node made, before the console

keys() { T send-keys -t s "$@"; }
filter() { # filter TEXT: type TEXT into / and apply it
	keys /
	keys -l "$1"
	keys Enter
	settle
}

scenario_startup() {
	start 80 24
	snap startup-80x24
	stop
	start 160 48
	snap startup-160x48
	stop
}

scenario_expand_collapse() {
	start 80 24
	keys Enter
	settle
	snap collapse-one
	keys -
	settle
	snap collapse-all
	keys Down Down Right
	settle
	snap expand-third
	keys +
	settle
	stop
}

scenario_filter() {
	start 80 24
	keys /
	keys -l ibp64
	settle
	snap filter-typing
	keys Enter
	settle
	snap filter-applied
	keys / C-u
	keys -l zzz
	settle
	keys Escape
	settle
	snap filter-esc-restores
	stop
}

scenario_help() {
	start 80 24
	keys '?' # quoted: a one-letter file in the cwd would match the glob
	settle
	snap help
	keys x
	settle
	stop
}

scenario_zero_guid() {
	start 160 48
	keys Down
	settle
	snap details-zero-guid-vf
	stop
}

# mouse BUTTON COL ROW: one xterm (X10) mouse report, 1-based cell, as a
# terminal sends it to the application under tmux.
mouse() {
	local seq
	printf -v seq '\\e[M\\%03o\\%03o\\%03o' $((32 + $1)) $((32 + $2)) $((32 + $3))
	# shellcheck disable=SC2059 # seq is the escape sequence to expand
	keys -l "$(printf "$seq")"
}

scenario_mouse() {
	# A click selects the row under it (vf2 of 18:00.0, screen row 8); the
	# wheel moves the selection three rows a notch.
	start 160 48
	mouse 0 10 8
	mouse 3 10 8
	settle
	snap mouse-click-selects
	mouse 65 10 10
	mouse 65 10 10
	settle
	snap mouse-wheel-scrolls
	stop
}

scenario_pods() {
	# The POD column, a pod's details, a stale checkpoint entry, and the
	# filter matching a pod name (trainer-1 holds two VFs on two PFs).
	start 160 48
	filter trainer-1
	keys Down
	settle
	snap pods-filter-trainer-1
	keys / C-u
	keys -l stale
	keys Enter
	settle
	keys Down
	settle
	snap pods-stale-checkpoint
	stop
}

scenario_ethernet_fallback() {
	start 160 48
	filter 9a:00.0
	snap ethernet-fallback
	snap ethernet-fallback-colour -e
	stop
}

scenario_theme() {
	start 80 24
	keys :
	keys -l "theme li"
	keys Tab
	settle
	snap theme-completion
	keys Enter
	settle
	snap theme-light -e
	stop
	start 80 24 NO_COLOR=1
	snap no-color -e
	stop
}

scenario_resize() {
	start 80 24
	T resize-window -t s -x 60 -y 20
	settle
	snap resize-60x20
	T resize-window -t s -x 30 -y 8
	settle
	snap resize-30x8
	T resize-window -t s -x 80 -y 24
	settle
	snap resize-back-80x24
	stop
}

scenario_live() {
	start 160 48
	local t0 t1
	"$ibvf" "--sim=$tmp/node" debug rename ib1 ibZ >/dev/null || fails=$((fails + 1))
	t0=$(date +%s%N) # the node has changed: the screen has 1 s to show it
	shown_within "ibZ" 1000 && t1=$(date +%s%N) &&
		echo "     rename shown after $(((t1 - t0) / 1000000)) ms (limit 1000)"
	keys Down Down Down
	settle
	snap live-rename
	keys /
	keys -l 4f:
	keys Enter Home
	settle
	"$simwrite" "$tmp/node" /sys/bus/pci/devices/0000:4f:00.0/sriov_numvfs 0 4 ||
		fails=$((fails + 1))
	t0=$(date +%s%N)
	shown_within "gone" 1000 && t1=$(date +%s%N) &&
		echo "     numvfs 8 -> 4 shown after $(((t1 - t0) / 1000000)) ms (limit 1000)"
	settle
	# The PF's details: its VFs' own histories depend on which of the
	# simulated kernel's intermediate states a rebuild happened to see,
	# and so do the name-changed findings the tab counts.
	mask_checks=1
	snap live-numvfs-8-to-4
	keys s # asks first, with the full path; anything but y writes nothing
	wait_for "write a snapshot" 2
	snap snapshot-ask
	keys n
	wait_for "nothing was written" 2
	keys s
	wait_for "write a snapshot" 2
	keys y
	wait_for "snapshot written" 2
	snap snapshot-written
	checks=$((checks + 1))
	local f
	# Into the node's snapshot directory (0700), never the working directory.
	local snaps=$tmp/node/var/lib/ibvf/snapshots
	f=$(ls "$snaps"/ibvf-snapshot-dgx-h200-07-*.json)
	if [ "$(ls "$snaps" | wc -l)" != 1 ] || [ "$(stat -c %a "$f")" != 600 ] ||
		[ "$(stat -c %a "$snaps")" != 700 ] || [ "$(ls -A "$tmp"/work | wc -l)" != 0 ] ||
		! jq -e '.pfs | length == 12' "$f" >/dev/null; then
		echo "FAIL: not one snapshot, mode 0600, in a 0700 snapshots dir, with the node's JSON:"
		ls -la "$snaps" "$tmp"/work
		fails=$((fails + 1))
	fi
	mask_checks=0
	stop
}

# The action dialogs (tui/console/dialog.c) over the same plan/apply code as `ibvf vf`.
# The console runs as root here: the apply checks privilege.
scenario_action_create() {
	start 80 24
	keys F6
	settle
	keys C-u 4 Enter
	settle
	snap action-create-preview # 8 -> 0 -> 4, the focus on Cancel
	keys Left Enter
	wait_for "result: ok" 40
	settle
	snap action-create-result
	keys x
	settle 1
	snap action-create-tree # 4 VFs, the 4 others gone
	stop
}

scenario_action_rename() {
	start 80 24
	keys Down Down Down Down # vf3 0000:18:00.4, ib2
	settle
	keys F7
	settle
	keys C-u
	keys -l "ib/"
	settle
	snap action-rename-illegal-char # '/' refused as typed
	keys C-u
	keys -l ibp64s0v1
	keys Enter
	settle
	snap action-rename-taken
	keys C-u
	keys -l ibfast3
	keys Enter
	settle
	snap action-rename-preview-cancel # a rename's preview starts on Cancel
	keys Left
	keys Enter
	wait_for "result: ok" 10
	settle
	snap action-rename-result
	keys x
	settle 1
	snap action-rename-tree
	stop
}

scenario_action_refused_notice() {
	# F7 on a PF opens no dialog: the refusal is a notice that takes the text
	# typed for the dialog (here "ibfast s q": no snapshot, no quit) until
	# Enter or Esc.
	start 80 24
	keys F7
	wait_for "select a VF to rename" 5
	keys -l "ibfast s q"
	settle
	snap action-rename-on-pf
	keys Enter
	settle
	checks=$((checks + 1))
	if [ -n "$(ls "$tmp"/work)" ] || capture | grep -q "exit status"; then
		echo "FAIL: text typed after F7 on a PF acted as hotkeys"
		fails=$((fails + 1))
	fi
	stop
}

scenario_action_pod() {
	# llm-serve-0 holds vf5 of 0000:5e:00.0 (its netdev is in the pod): a
	# rename is refused without --force; a forced GUID change previews with
	# the focus on Cancel.
	start 80 24
	filter 5e:00.6
	keys End
	keys :
	keys -l "rename ibx"
	keys Enter
	settle
	snap action-rename-pod-refused
	keys Escape
	keys :
	keys -l "guid --port 02:00:00:00:00:5e:00:06 --force"
	keys Enter
	settle
	snap action-guid-pod-forced
	keys Escape
	settle
	stop
}

scenario_action_guid() {
	start 80 24
	keys Down Down Down Down
	settle
	keys F8
	settle
	keys -l "00:11:zz"
	settle
	snap action-guid-nonhex # 'z' refused as typed
	keys C-u
	keys -l "00:00:00:00:00:00:00:00"
	keys Enter
	settle
	snap action-guid-zero
	keys C-u
	keys -l "02:00:00:00:00:18:00:03"
	keys Enter
	settle
	snap action-guid-preview # unbind/bind, the focus on Cancel
	keys Escape
	settle
	stop
}

scenario_action_journal() {
	# create 4 goes through numvfs 0: the name-changed findings the Checks
	# tab counts depend on which intermediate states a rebuild saw (as live).
	mask_checks=1
	start 80 24
	keys :
	keys -l "create 4"
	keys Enter
	settle
	keys Left Enter
	wait_for "result: ok" 40
	keys x
	settle
	keys Down Down Down Down # vf3 of the new VFs
	keys :
	keys -l "ren"
	keys Tab
	keys -l "ibfast3"
	keys Enter
	settle
	keys Left Enter # a rename's preview starts on Cancel
	wait_for "result: ok" 10
	keys x
	settle
	# again, so that the undo gives back a name of its own: an undo to the
	# kernel's ib2 is refused without --force, as the rename would be
	keys :
	keys -l "ren"
	keys Tab
	keys -l "ibfast4"
	keys Enter
	settle
	keys Left Enter
	wait_for "result: ok" 10
	keys x
	settle
	keys 4
	settle
	snap action-journal-view
	keys Enter
	settle
	snap action-journal-steps
	keys u
	settle
	snap action-journal-undo-preview
	keys Left Enter
	wait_for "result: ok" 10
	keys x
	settle
	snap action-journal-after-undo
	mask_checks=0
	stop
}

# An apply that waits: the simulated kernel holds each sriov_numvfs write
# while .sim/hold exists (docs/fixture.md). The console goes on drawing and
# following the node, shows the running step and its time, and the apply
# completes when the kernel lets go; Esc stops it at the next step boundary.
hold() { # hold on|off: the simulated kernel holds sriov_numvfs writes
	if [ "$1" = on ]; then
		echo "hold:sriov_numvfs" >"$tmp/node/.sim/faults"
		: >"$tmp/node/.sim/hold"
	else
		rm -f "$tmp/node/.sim/hold"
	fi
}

scenario_action_running() {
	start 160 48
	hold on
	keys F6
	settle
	keys C-u 4 Enter
	settle
	keys Left Enter
	wait_for "running: step 1 of 4" 10
	"$simwrite" "$tmp/node" --rename ibp64s0v0 ibLIVE || fails=$((fails + 1))
	wait_for "ibLIVE" 10 # a change from outside, shown while the apply waits
	wait_re "elapsed ([2-9]|[1-9][0-9]+) s" 20 # the clock moves while it waits
	# Still in step 1 (polled: one capture can catch a redraw half done).
	checks=$((checks + 1))
	wait_for "running: step 1 of 4" 2 || echo "FAIL: the apply did not wait in step 1"
	snap action-running
	hold off
	wait_for "result: ok" 40
	settle
	mask_checks=1 # the new VFs' names: which renames a rebuild saw (name-changed)
	snap action-running-done
	mask_checks=0
	keys x
	settle
	stop
	# Esc while it waits: the step in progress ends, the next does not start.
	start 80 24
	hold on
	keys F6
	settle
	keys C-u 4 Enter
	settle
	keys Left Enter
	wait_for "running: step 1 of 4" 10
	keys Escape
	wait_for "stopping" 10
	hold off
	wait_for "stopped before step 2 of 4" 40
	settle
	snap action-running-cancelled
	keys x 4
	settle
	snap action-running-cancelled-journal
	stop
}

scenario_bench_view() {
	# The simulated node's VFs have RDMA devices in sysfs but there is no
	# verbs device: the run fails with bench_run's own error, shown in the
	# view; Esc goes back to the tree.
	start 80 24
	keys 3
	settle
	snap bench-view-form
	keys Down Down Right
	settle
	snap bench-view-picked
	keys Enter
	wait_for "no RDMA device" 15
	settle
	snap bench-view-no-verbs
	snap bench-view-no-verbs-colour -e
	keys Escape
	settle
	snap bench-view-back
	stop
	# llm-serve-0 holds vf5 of 0000:5e:00.0: `:bench` on it asks first.
	start 80 24
	filter 5e:00.6
	keys End
	keys :
	keys -l bench
	keys Enter
	settle
	keys Enter
	settle
	snap bench-view-pod-confirm
	keys Escape
	settle
	snap bench-view-pod-refused
	keys Escape
	keys /
	keys C-u
	keys Enter
	settle
	# Every VF, skipping those in pods: each fails cleanly, one line each.
	keys :
	keys -l "bench all"
	keys Enter
	settle
	keys Enter
	settle
	keys n
	wait_for "skipped" 30
	settle
	snap bench-view-all-vfs
	keys Escape
	settle
	stop
}

# The checks on the screen (issue 11): the findings change as checks are
# added, so these assert on specific lines, not on whole-screen captures.
expect_re() { # expect_re REGEX [-e]: the pane (with its colours under -e) shows a match now
	checks=$((checks + 1))
	if ! T capture-pane -p "${@:2}" -t s | grep -qE -- "$1"; then
		echo "FAIL: nothing matching '$1' on screen"
		capture
		fails=$((fails + 1))
	fi
}

expect_no_re() { # expect_no_re REGEX: the pane shows no match now
	checks=$((checks + 1))
	if T capture-pane -p -t s | grep -qE -- "$1"; then
		echo "FAIL: '$1' is on screen"
		capture
		fails=$((fails + 1))
	fi
}

scenario_checks() {
	start 80 24
	# The tab bar counts the findings, in the worst severity's colour.
	expect_re '^  1 Tree   2 Checks [0-9]+!   3 Bench   4 Journal   5 Kernel log'
	expect_re $'2 Checks \e\[1m\e\[38;5;196m[^ ]*[0-9]+!' -e
	# Row marks: a zero-GUID VF is critical, in the mark's colour; the VF
	# whose probe failed is not explained as a zero GUID.
	expect_re '^!! ├─ vf0 0000:18:00\.1 ib0 '
	expect_re $'^\e\[1m\e\[38;5;196m[^!]*!!' -e
	keys 2
	wait_re '^ Problems: [0-9]+ critical, [0-9]+ warning, [0-9]+ info \([0-9]+ findings\)'
	expect_re '^ ?critical \([0-9]+\)'
	# Problems: the zero GUIDs of 15 VFs are one, their ports down folded
	# in; Enter unfolds it into its findings.
	expect_re '^ !! \+ zero GUID on 15 VFs of mlx5_0, mlx5_4: 18:00\.1, 18:00\.3 … 4f:01\.0'
	expect_no_re '^ !! +0000:18:00\.1'
	filter 18:00.4
	keys Enter
	settle
	expect_re '^ !! - zero GUID on 15 VFs'
	expect_re '^   !! 0000:18:00\.4  VF 0000:18:00\.4 .* zero node and port GUID'
	expect_re '^   !! 0000:18:00\.4  VF 0000:18:00\.4 .* port DOWN'
	snap checks-unfolded
	keys Down Enter
	settle
	expect_re '^ evidence'
	expect_re '^   /sys/class/infiniband/mlx5_14/node_guid: 0000:0000:0000:0000'
	expect_re '^ remedy \(ibvf runs it'
	expect_re '^   \$ ibvf vf guid 0000:18:00\.4 --node 0203:0018:0000:0003 --port'
	keys Enter # the finding's row in the tree
	wait_re '^ VF 3 of PF 0000:18:00\.0  0000:18:00\.4'
	expect_re '^!! critical +zero GUID'
	keys 2 Escape
	settle
	expect_re '^ Problems: .*'
	keys t # from the list straight to the row
	wait_re '^ VF 3 of PF 0000:18:00\.0  0000:18:00\.4'
	stop
	# Wide: the check's id has a column.
	start 160 48
	keys 2
	wait_re '^ !! \+ 15 VFs +guid-zero +zero GUID on 15 VFs of mlx5_0, mlx5_4: .*\(\+15 it explains\)'
	expect_re '^ !! \+ node +driver-kernel-mismatch'
	expect_re 'Enter: open/unfold  t: its row  L: kernel log'
	# The VF whose probe failed is explained by its finding and the kernel
	# log, not as a zero GUID.
	keys 1
	filter 18:00.2
	keys End
	wait_re '^ VF 1 of PF 0000:18:00\.0  0000:18:00\.2'
	expect_re '^!! critical +.*probe'
	expect_re '^  evidence +kernel log \[ *[0-9]+\.[0-9]{6}\]: mlx5_core: probe of 0000:18:00\.2'
	expect_no_re 'zero GUID'
	stop
	# Without colour the marks still read.
	start 80 24 NO_COLOR=1
	expect_re '^!! ├─ vf0 0000:18:00\.1 '
	stop
}

scenario_kmsg() {
	start 80 24
	expect_re 'kernel log: 2 driver errors \(L\)'
	keys L
	wait_re '^ Kernel log: [0-9]+ records? naming an RDMA driver, 2 errors'
	expect_re '^\[ *[0-9]+\.[0-9]{6}\] mlx5_core: Unknown symbol strlcpy'
	expect_re $'\e\[1m\e\[38;5;196m\[ *[0-9]+\.[0-9]{6}\] mlx5_core: probe of 0000:18:00\.2 failed' -e
	keys Escape
	settle
	expect_re '^DEVICE '
	# From the driver/kernel mismatch finding to its log line, selected.
	keys 2
	filter driver-kernel
	keys Enter Down Enter # unfold the problem, open its finding
	settle
	expect_re '^   kernel log \[ *[0-9]+\.[0-9]{6}\]: mlx5_core: Unknown symbol strlcpy'
	keys Enter
	wait_re '^ Kernel log: '
	expect_re $'\e\[48;5;38m\[ *[0-9]+\.[0-9]{6}\] mlx5_core: Unknown symbol strlcpy' -e
	stop
}

scenario_renamed() {
	# A name that changed while the console ran is a finding (name-changed).
	start 160 48
	"$ibvf" "--sim=$tmp/node" debug rename ib1 ibZ >/dev/null || fails=$((fails + 1))
	wait_for "ibZ" 5
	keys 2
	filter name-changed
	wait_re '^ i +0000:18:00\.3  name-changed .*ib1.*ibZ'
	stop
}

scenario_rename_field() {
	# The rename field judges the name as it is typed, with naming_check's
	# reasons: too long (never cut), '%' (a kernel template), a kernel form.
	start 80 24
	keys Down Down Down Down # vf3 0000:18:00.4, ib2
	settle
	keys F7
	settle
	keys C-u
	keys -l ibp24s0v3-toolong
	settle
	snap rename-field-long
	keys Enter
	settle
	snap rename-field-long-refused
	keys C-u
	keys -l ib%d
	settle
	snap rename-field-percent
	keys C-u
	keys -l ib9
	settle
	snap rename-field-kernel-name
	keys Escape
	settle
	keys :
	keys -l "rename ibp24s0v3-toolong-too" # from the command line: refused, not cut
	keys Enter
	settle
	snap rename-field-command-long
	keys Escape
	settle
	stop
}

# persist from the console: P and :persist PATH. The seeded node is refused
# with the check ids; on the healthy node the preview starts on Cancel, the
# apply writes the unit with the installed path, the journal has it, and its
# undo puts the fixture's unit back.
scenario_persist() {
	# The unit runs the node's own ibvf: a program on the simulated node.
	start 80 24
	keys :
	keys -l "persist /usr/sbin/ibvf"
	keys Enter
	wait_for "nothing was changed" 20
	snap persist-refused-findings
	keys Escape
	settle
	stop
	fixture_args=(--healthy)
	start 80 24
	fixture_args=()
	mkdir -p "$tmp/node/opt/ibvf"
	install -m 0755 "$ibvf" "$tmp/node/opt/ibvf/ibvf"
	keys :
	keys -l "persist /opt/ibvf/ibvf"
	keys Enter
	wait_for "note: the unit runs" 20
	settle
	snap persist-preview # the focus on Cancel
	keys Left Enter
	wait_for "result: ok" 20
	snap persist-result
	grep -q "^ExecStart=/opt/ibvf/ibvf vf create 0000:18:00.0 8 " \
		"$tmp/node/etc/systemd/system/ibvf-sriov.service" ||
		{ echo "FAIL: the unit does not run /opt/ibvf/ibvf"; fails=$((fails + 1)); }
	keys x
	settle
	keys 4
	wait_re '^1 +[0-9:]+ persist'
	snap persist-journal
	keys u
	wait_for "persist undo: restore the" 20
	keys Left Enter
	wait_for "result: ok" 20
	grep -q "^ExecStart=/usr/sbin/ibvf vf create" \
		"$tmp/node/etc/systemd/system/ibvf-sriov.service" ||
		{ echo "FAIL: undo did not restore the unit"; fails=$((fails + 1)); }
	keys x
	settle
	# P: without a path, the node's own ibvf (/usr/sbin/ibvf on the
	# simulated node), never this build tree's
	keys 1
	settle
	keys P
	wait_for "nothing to do" 20
	keys Escape
	settle
	stop
}

# `f` in the Checks view: a finding's ibvf remedy through the action dialog
# (a GUID plan is destructive: the focus starts on Cancel), applied and
# journaled, the finding gone after; a manual finding shows its steps.
scenario_fix_finding() {
	# the rebind's rename may or may not be seen (name-changed, info)
	mask_checks=1
	start 80 24
	keys 2
	wait_re '^ Problems: [0-9]+ critical'
	filter 18:00.4
	keys Enter Down f # the finding of 18:00.4 in the unfolded zero-GUID problem
	settle
	snap fix-finding-preview
	keys Left Enter
	wait_for "any key closes" 20
	keys End
	settle
	snap fix-finding-applied # the result's end: verified, journaled
	keys x
	settle
	expect_no_re 'guid-zero|zero node and port GUID'
	keys / C-u
	keys -l firmware
	keys Enter
	settle
	keys f
	settle
	snap fix-finding-manual
	keys x
	settle
	keys 4
	settle
	expect_re 'vf guid +ok'
	stop
	mask_checks=0
}

# X destroys the selected PF's VFs (create 0): destructive, on Cancel first.
scenario_action_destroy() {
	start 80 24
	keys X
	settle
	snap action-destroy-preview
	keys Left Enter
	wait_for "result: ok" 40
	snap action-destroy-applied
	keys x
	settle
	expect_re 'destroy the VFs on 0000:18:00\.0: 8 -> 0: applied and verified'
	stop
}

# e sets the selected VF's link-state policy: a choice (Left/Right, a/e/d);
# disable takes the link down, so its preview starts on Cancel.
scenario_action_state() {
	start 80 24
	keys Down Down Down Down
	settle
	keys e
	settle
	snap action-state-field
	keys -l x
	settle
	snap action-state-refused-key
	keys Right
	keys Enter
	settle
	snap action-state-preview
	keys Enter
	wait_for "result: ok" 20
	keys x
	settle
	keys e
	keys -l d
	keys Enter
	settle
	snap action-state-disable-preview
	keys Escape
	settle
	stop
}

# The F8 field refuses, live and as the plan would, a zero GUID, all-ones
# and a group (multicast) GUID.
scenario_guid_field_rules() {
	start 80 24
	keys Down Down Down Down
	settle
	keys F8
	settle
	keys -l "00:00:00:00:00:00:00:00"
	settle
	snap guid-field-zero
	keys C-u
	keys -l "ff:ff:ff:ff:ff:ff:ff:ff"
	settle
	snap guid-field-all-ones
	keys C-u
	keys -l "01:00:00:00:00:18:00:03"
	keys Enter
	settle
	snap guid-field-group-bit
	keys Escape
	settle
	stop
}

scenario_name_all() {
	# :rename --all is vf rename --all: the summary first, the pods' VFs skipped,
	# the preview on Cancel; applied, the kernel-named VFs have their names.
	start 100 30
	keys :
	keys -l "rename --all"
	keys Enter
	settle
	snap name-all-preview
	keys Left Enter
	wait_for "any key closes" 20 # the result's lines are below the fold
	keys End
	settle
	expect_re "result: ok \\(journal entry 1\\)"
	keys x
	settle 1
	mask_checks=1 # name-changed findings: which renames a rebuild saw
	snap name-all-tree
	mask_checks=0
	stop
}

scenario_bench_validate_view() {
	# The validation profile in the bench view: Test and Size give way to
	# the profile's tests, QPs follow the port rate, Duration is per test;
	# the run fails (no verbs device) with the row's table, one error per
	# test tried, and the verdict line.
	start 80 24
	keys 3
	settle
	keys Down Down Down Right
	settle
	snap bench-validate-form
	keys Down Down Right
	settle
	snap bench-validate-duration
	keys Enter
	wait_for "FAIL VF" 30
	settle
	snap bench-validate-no-verbs
	keys Escape
	settle
	stop
}

scenario_bench_validate_all_vfs() {
	# The validation over every VF: a VF whose tests could not run shows no
	# figure (was "0.00 Gb/s"), only its FAIL and why.
	start 80 24
	keys :
	keys -l "bench all"
	keys Enter
	settle
	keys Down Down Down Right
	settle
	keys Enter
	settle
	keys n
	wait_for "skipped" 60
	settle
	snap bench-validate-all-vfs
	keys Escape
	settle
	stop
}

scenario_hostile_names() {
	# Netdev names with ESC, BEL, a raw C1 byte and a byte that is never
	# UTF-8 (the kernel allows them all): the tree shows them as \xNN, as
	# `list` does, and no control reaches the terminal (the pane's title
	# stays; "pwn" would be an OSC 0 that got through).
	mask_checks=1 # name-changed findings: which renames a rebuild saw
	start 160 48
	"$ibvf" "--sim=$tmp/node" debug rename enp154s0v0 $'e\e]0;pwn\a' || fails=$((fails + 1))
	"$ibvf" "--sim=$tmp/node" debug rename enp154s0v1 $'c1\x9b[2J\xff' || fails=$((fails + 1))
	filter 9a:00
	wait_for 'e\x1b]0;pwn\x' 5 # cut to its column
	wait_for 'c1\x9b[2J\xff' 5
	keys Down # its details: the whole name
	wait_for 'netdev        e\x1b]0;pwn\x07' 5
	settle
	snap hostile-names
	if T display -p -t s '#{pane_title}' | grep -q pwn; then
		echo "FAIL: a name retitled the terminal"
		fails=$((fails + 1))
	fi
	# The snapshot of a node with such names is a JSON document: UTF-8.
	keys s
	wait_for "write a snapshot" 2
	keys y
	wait_for "snapshot written" 2
	checks=$((checks + 1))
	local f
	f=$(ls "$tmp"/node/var/lib/ibvf/snapshots/*.json)
	if ! iconv -f UTF-8 -t UTF-8 "$f" >/dev/null || ! jq -e '.pfs' "$f" >/dev/null; then
		echo "FAIL: the snapshot '$f' is not valid UTF-8 JSON"
		fails=$((fails + 1))
	fi
	stop
	mask_checks=0
}

# A history store as the recorder leaves it: a first record, a rename a
# second later (the journal's time has whole seconds: after the first
# record, always), a second record that sees it.
history_with_rename() {
	local n=("$ibvf" "--sim=$tmp/node")
	"${n[@]}" record --once >/dev/null &&
		sleep 1 &&
		"${n[@]}" vf rename 18:00.3 ibx --yes >/dev/null &&
		"${n[@]}" record --once >/dev/null || exit 1
}

scenario_timeline() {
	# No store yet (the console itself records into one unless told not
	# to): the view says so and how to make one.
	start 80 24 IBVF_RECORD=0
	keys 6
	wait_for "no history recorded yet: run 'ibvf record' (ibvf-record.service)"
	stop
	fixture_prep=history_with_rename
	start 80 24
	# The newest last: the rename with its causes (the journal's action,
	# the boot), selected and whole in the pane below.
	keys 6
	wait_re '^ History: [0-9]+ events \(newest last\)'
	settle
	snap timeline-view
	# The oldest first at the top: the boot's line set apart.
	keys Home
	settle
	expect_re '^-- boot [^ ]*: kernel 6\.8\.0-55-generic, driver 25\.01-0\.6\.0, firmware '
	# A kind word keeps that kind; a PCI address its function (a PF's VFs
	# too); other text what the rows say.
	keys f
	keys -l rename
	keys Enter
	settle
	snap timeline-filter-kind
	keys f C-u
	keys -l 18:00.0
	keys Enter
	settle
	expect_re '^ History: 28 of [0-9]+ events'
	expect_no_re '^[0-9:.]{12}  0000:(40|5e|9a|c0|ce|dc)'
	keys / C-u
	keys -l 'recorder started'
	keys Enter
	settle
	expect_re '^ History: 1 of [0-9]+ events'
	# From a tree row to its history, and back to the same row.
	keys 1 Down Down Down T
	wait_re '^ History of 0000:18:00\.3: [0-9]+ events'
	settle
	snap timeline-vf-history
	keys T
	wait_re '^ VF 2 of PF 0000:18:00\.0  0000:18:00\.3'
	settle
	snap timeline-back-to-row
	keys T
	wait_re '^ History of 0000:18:00\.3'
	keys Escape
	wait_re '^ VF 2 of PF 0000:18:00\.0  0000:18:00\.3'
	# A PF's history holds its VFs'.
	keys Up Up Up T
	wait_re '^ History of 0000:18:00\.0 and its VFs: [0-9]+ events'
	expect_re '^[0-9:.]{12}  0000:18:00\.3  rename +ib1 -> ibx'
	# A change recorded while the view is up scrolls in.
	"$ibvf" "--sim=$tmp/node" vf rename 18:00.4 iby --yes >/dev/null || fails=$((fails + 1))
	# The console records too while no recorder runs: when it holds the
	# writer's lock at that moment, record --once says so and the console
	# records the rename itself. Either way it scrolls in.
	if ! "$ibvf" "--sim=$tmp/node" record --once >/dev/null 2>"$tmp/rec.err" &&
		! grep -q "is recording this node's history" "$tmp/rec.err"; then
		echo "FAIL: record --once: $(cat "$tmp/rec.err")"
		fails=$((fails + 1))
	fi
	wait_re '0000:18:00\.4  rename +ib2 -> iby' 3
	stop
	fixture_prep=''
}

scenario_topology() {
	# View 7: the GPUs against the HCAs as nvidia-smi topo -m shows them, the
	# seeded pod whose VF is on the other socket than its GPU marked.
	start 100 40
	keys 7
	wait_re '^GPU topology: 8 GPUs, 12 HCAs \(as nvidia-smi topo -m\)'
	settle
	snap topology-view
	expect_re '^GPU0   PIX   NODE  NODE  NODE  NODE  NODE  SYS '
	expect_re '^GPU6   SYS .* 1     inference/llm-s'
	expect_re $'\e\[[0-9;]*m  VF 0000:5e:00\.6 \(mlx5_5 VF 5\)  SYS to GPU6  far from its GPUs' -e
	keys Escape
	settle
	expect_re '^DEVICE '
	stop
}

all=(checks kmsg renamed startup expand_collapse filter help zero_guid mouse pods ethernet_fallback theme resize live
	action_create action_rename action_refused_notice action_pod action_guid action_journal action_running bench_view
	rename_field persist fix_finding action_destroy action_state guid_field_rules name_all
	bench_validate_view bench_validate_all_vfs hostile_names timeline topology)
for s in "${@:-${all[@]}}"; do
	echo "# $s"
	"scenario_$s"
done
echo "screen tests: $checks checks, $fails failures"
((fails == 0))
