#!/bin/bash
# shellcheck disable=SC2016 # jq programs carry their own $variables
# (g) 'ibvf record' on the real kernel: started once in the background, it
# records each change of the node, and 'ibvf timeline --json' shows each one
# once, in order, on the right PCI function, stamped within 1 s of the change:
# VFs created (vf-count on the PF, fn-added per VF), a VF netdev renamed, the
# netdev moved into a network namespace and back (no pod: netdev gone and
# appeared), an rxe port down and up. Then a new boot as the recorder sees one
# (its boot id bind-mounted over in a mount namespace): a boot event, and the
# VFs destroyed while it was stopped grouped with it. Then a SIGKILL in the
# middle of a burst of renames: the recorder starts again on that store and
# keeps recording; the store passes SQLite's integrity check.
# The changes are checked against the timeline after the fact: it is polled
# (never a fixed sleep) until the change is there, and the 1 s bound compares
# the recorded time with the clock read around the change.
# vmtest-budget: 90
# shellcheck source=scripts/vm/lib.sh
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
pf=${pfs[0]}
# A change is stamped when the read that saw it ended: at most a second after
# it on the reference guest, scaled by this guest's measured slow-down.
vm_scaled_ms limit_ms 1
limit_us=$((limit_ms * 1000))
store=/var/lib/ibvf/history.db
if ! command -v ibvf >/dev/null; then
	fail "ibvf record" "no ibvf binary in the image"
	vm_done
fi
# A store of this scenario's own: other scenarios' consoles may have written one.
rm -f "$store" "$store-wal" "$store-shm" "$store-journal"

# rec_start NAME [BOOT_ID_FILE]: 'ibvf record -v' in the background, $rec its
# pid (busybox timeout, unshare and 'bash -c exec' all exec it in place); with
# BOOT_ID_FILE, in a mount namespace where that file is the boot id.
rec_start() {
	local out=$VM_TMP/rec.$1
	if [ -n "${2:-}" ]; then
		timeout "$(vm_left)" unshare -m bash -c \
			'mount --bind "$1" /proc/sys/kernel/random/boot_id && exec ibvf record -v' \
			_ "$2" >"$out.out" 2>"$out.err" &
	else
		timeout "$(vm_left)" ibvf record -v >"$out.out" 2>"$out.err" &
	fi
	rec=$!
}

# rec_stop SIGNAL: sends it to the recorder and sets rec_rc to its exit status.
rec_stop() {
	kill "-$1" "$rec" 2>/dev/null
	wait "$rec"
	rec_rc=$?
}

# tl_count PATTERN ARGS...: how many lines of 'ibvf timeline --json ARGS' hold
# PATTERN (a fixed string; the JSON has one member per line, and no cause
# candidates: they would repeat earlier events).
tl_count() {
	local p=$1
	shift
	ibvf timeline --json --no-causes "$@" 2>/dev/null | grep -cF -- "$p"
}
# tl_more N PATTERN ARGS...: more than N such lines (polled by wait_until).
# shellcheck disable=SC2317
tl_more() {
	local n=$1
	shift
	[ "$(tl_count "$@")" -gt "$n" ]
}
# tl_wait WHAT PATTERN ARGS...: polls the timeline until PATTERN is in it.
tl_wait() {
	local what=$1 t0
	shift
	t0=$(vm_us)
	if wait_until 10 tl_more 0 "$@"; then
		note "$what: in the timeline after $((($(vm_us) - t0) / 1000)) ms of polling"
	else
		fail "$what is in the timeline" "no '$1' in 'ibvf timeline --json ${*:2}' after $(vm_scaled 10) s"
	fi
}

# rec_running NAME START_COUNT: the recorder recorded its start (a start event
# past START_COUNT) and still runs.
rec_running() {
	if ! wait_until 20 tl_more "$2" '"kind":"start"' --kind start; then
		fail "ibvf record ($1) records its start" "$(head -c 300 "$VM_TMP/rec.$1.err")"
		return 1
	fi
	if ! kill -0 "$rec" 2>/dev/null; then
		wait "$rec"
		fail "ibvf record ($1) keeps running" "exited $?: $(head -c 300 "$VM_TMP/rec.$1.err")"
		return 1
	fi
	pass "ibvf record ($1) started and keeps running" "$(tl_count '"kind":"start"' --kind start) start events"
}

# --- expected events ---------------------------------------------------------
# expect_event WHAT T0 T1 COND [fold]: exactly one event matching COND (jq, on
# an event) stamped at or after T0 (the clock before the change), at most 1 s
# after T1 (the clock once the change had happened), and after the event
# expected before it; a row of one change (count 1), or with "fold" a row the
# store folded this change into (a function's 7th change of one kind in 10
# minutes: its last_time is the change's). check_events FILE checks them all
# with one jq run.
ev_what=()
ev_t0=()
ev_t1=()
ev_cond=()
ev_fold=()
expect_event() {
	ev_what+=("$1")
	ev_t0+=("$2")
	ev_t1+=("$3")
	ev_cond+=("$4")
	ev_fold+=("${5:-}")
}

check_events() {
	local file=$1 prog i last=-1 res=() n idx t all first first_id count bad=0
	prog='def us: (.[0:19] + "Z" | fromdateiso8601) * 1000000 + (.[20:26] | tonumber);
		[.events | to_entries[] | .value.us = (.value | .last_time // .time | us)] as $x | '
	local sep=
	for i in "${!ev_cond[@]}"; do
		prog+="$sep([\$x[] | select(.value | ${ev_cond[$i]})] |
			[(map(select(.value.us >= ${ev_t0[$i]})) | length, (.[0].key // -1), (.[0].value.us // 0),
			  (.[0].value.count // 0)),
			 length, (.[0].value.us // 0), (.[0].value.id // 0)] | map(tostring) | join(\" \"))"
		sep=', '
	done
	mapfile -t res < <(jq -r "$prog" "$file" 2>"$VM_TMP/jq.err")
	for i in "${!ev_what[@]}"; do
		read -r n idx t count all first first_id <<<"${res[$i]-}"
		if [ -z "${n-}" ]; then
			fail "${ev_what[$i]}" "jq failed: $(head -c 300 "$VM_TMP/jq.err")"
		elif [ "$n" -eq 0 ]; then
			fail "${ev_what[$i]}" "no such event since the change ($all at any time, the first (id $first_id) stamped $(((first - ev_t0[i]) / 1000)) ms after the change began)"
			bad=1
		elif [ "$n" -gt 1 ] || { [ "$count" -gt 1 ] && [ -z "${ev_fold[$i]}" ]; }; then
			fail "${ev_what[$i]} (once)" "recorded in $n rows, the first of count $count"
		elif [ $((t - ev_t1[i])) -gt "$limit_us" ]; then
			fail "${ev_what[$i]} (within $((limit_us / 1000)) ms)" "stamped $(((t - ev_t1[i]) / 1000)) ms after the change"
		elif [ "$idx" -le "$last" ]; then
			fail "${ev_what[$i]} (in order)" "event #$idx of the timeline comes before #$last, the previous one expected"
		else
			pass "${ev_what[$i]}" "once${ev_fold[$i]:+ (folded into a row of $count)}, in order, stamped $(((t - ev_t0[i]) / 1000)) ms after the change began, $(((t - ev_t1[i]) / 1000)) ms after it was done"
		fi
		[ -n "${idx-}" ] && [ "$idx" -gt "$last" ] && last=$idx
	done
	ev_what=() ev_t0=() ev_t1=() ev_cond=() ev_fold=()
	# The events around a miss, for the console.
	[ "$bad" -eq 0 ] || jq -r '.events[] | select(.kind != "kmsg" and (.kind | startswith("finding") | not)) |
		"\(.id) \(.time) \(.group) \(.pci) \(.kind) \(.old) -> \(.new)"' "$file" | tail -n 40 >&2
}

# jq conditions on an event ("" fields are null in the JSON).
on() { printf '.pci == "%s" and .kind == "%s"' "$1" "$2"; }
old_new() { printf '(.old // "") == "%s" and (.new // "") == "%s"' "$1" "$2"; }

# --- the recorder on this boot -------------------------------------------------
t_rec=$(vm_us)
rec_start first
rec_running first 0 || vm_done
note "the recorder's first record took $((($(vm_us) - t_rec) / 1000)) ms to show"

# 1. VFs created.
t0=$(vm_us)
echo 2 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
t1=$(vm_us)
wait_until 10 _vm_vfs_ready "$pf" 2 || fail "2 VFs of $pf with netdevs"
vf0=$(vm_vf "$pf" 0)
vf1=$(vm_vf "$pf" 1)
nd0=$(vm_netdev "$vf0")
nd1=$(vm_netdev "$vf1")
note "echo 2 > sriov_numvfs took $(((t1 - t0) / 1000)) ms: $vf0 $nd0, $vf1 $nd1"
expect_event "vf-count 0 -> 2 on PF $pf" "$t0" "$t1" "$(on "$pf" vf-count) and $(old_new 0 2)"
expect_event "fn-added $vf0 (VF 0)" "$t0" "$t1" "$(on "$vf0" fn-added) and .pf == \"$pf\""
expect_event "fn-added $vf1 (VF 1)" "$t0" "$t1" "$(on "$vf1" fn-added) and .pf == \"$pf\""
# Their netdevs recorded (in fn-added or a netdev event) before the next change.
tl_wait "$vf0's netdev $nd0" "\"name\":\"$nd0\"" "$vf0"
tl_wait "$vf1's netdev $nd1" "\"name\":\"$nd1\"" "$vf1"

# 2. A VF netdev renamed. The guest runs no udev daemon: the kernel's names
# stay, and the timeline must show no rename of its own (checked below).
t0=$(vm_us)
expect_ok "ip link set dev $nd0 name vfrec0" ip link set dev "$nd0" name vfrec0
t1=$(vm_us)
expect_event "rename $nd0 -> vfrec0 on $vf0" "$t0" "$t1" "$(on "$vf0" rename) and $(old_new "$nd0" vfrec0)"
tl_wait "the rename on $vf0" '"new":"vfrec0"' --kind rename "$vf0"

# 3. Into a network namespace and back: no pod holds the VF, so the host
# netdev goes and comes back.
expect_ok "ip netns add t" ip netns add t
t0=$(vm_us)
expect_ok "ip link set dev vfrec0 netns t" ip link set dev vfrec0 netns t
t1=$(vm_us)
expect_event "netdev vfrec0 gone on $vf0 (into netns t)" "$t0" "$t1" "$(on "$vf0" netdev) and $(old_new vfrec0 '')"
tl_wait "vfrec0 gone" '"old":"vfrec0"' --kind netdev "$vf0"
t0=$(vm_us)
expect_ok "ip -n t link set dev vfrec0 netns 1" ip -n t link set dev vfrec0 netns 1
t1=$(vm_us)
expect_event "netdev vfrec0 appeared on $vf0 (back from netns t)" "$t0" "$t1" "$(on "$vf0" netdev) and $(old_new '' vfrec0)"
tl_wait "vfrec0 back" '"new":"vfrec0"' --kind netdev "$vf0"
ip netns del t

# 4. An rxe port down and up, on the function of its netdev.
if expect_ok "rdma link add rxe0 type rxe netdev $nd1" vm_rxe_add rxe0 "$nd1"; then
	tl_wait "rxe0's port ACTIVE on $vf1" '"new":"ACTIVE"' --kind port-state "$vf1"
	t0=$(vm_us)
	ip link set dev "$nd1" down
	t1=$(vm_us)
	expect_eq "rxe0 port 1 after ip link set $nd1 down" "$(cat /sys/class/infiniband/rxe0/ports/1/state)" "1: DOWN"
	expect_event "port-state ACTIVE -> DOWN on $vf1 ($nd1 down)" "$t0" "$t1" "$(on "$vf1" port-state) and $(old_new ACTIVE DOWN)"
	tl_wait "rxe0's port DOWN on $vf1" '"new":"DOWN"' --kind port-state "$vf1"
	t0=$(vm_us)
	ip link set dev "$nd1" up
	# The port is ACTIVE once the VF has its carrier back: that is the change.
	wait_until 10 _vm_port_active rxe0 || fail "rxe0 port ACTIVE again after ip link set $nd1 up"
	t1=$(vm_us)
	note "rxe0 ACTIVE again $(((t1 - t0) / 1000)) ms after ip link set up"
	expect_event "port-state DOWN -> ACTIVE on $vf1 ($nd1 up)" "$t0" "$t1" "$(on "$vf1" port-state) and $(old_new DOWN ACTIVE)"
	wait_until 10 tl_more 1 '"new":"ACTIVE"' --kind port-state "$vf1" ||
		fail "rxe0's port ACTIVE again is in the timeline"
fi
a=$VM_TMP/timeline.1.json
ibvf timeline --json >"$a" 2>"$a.err" || fail "ibvf timeline --json" "$(head -c 300 "$a.err")"
check_events "$a"
jq_begin "$a"
jq_expect "no rename of $vf0 or $vf1 but ours (no udev renames VFs in this guest)" \
	"[.events[] | select(.kind == \"rename\" and (.pci == \"$vf0\" or .pci == \"$vf1\"))] | length" 1
jq_expect "the first boot's boot event carries its boot id" \
	'[.events[] | select(.kind == "boot")] | map(.new == .boot_id and (.new | length) == 36) | tostring' "[true]"
jq_end

# 5. A new boot, as the recorder sees it: stopped, VFs destroyed meanwhile,
# started with another boot id.
rec_stop TERM
expect_eq "ibvf record exits 0 on SIGTERM" "$rec_rc" 0 "$(head -c 200 "$VM_TMP/rec.first.err")"
t0=$(vm_us)
echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
t1=$(vm_us)
note "echo 0 > sriov_numvfs took $(((t1 - t0) / 1000)) ms"
boot_id=$VM_TMP/boot_id
cat /proc/sys/kernel/random/uuid >"$boot_id"
uuid=
rd uuid "$boot_id"
starts=$(tl_count '"kind":"start"' --kind start)
t_rec=$(vm_us)
rec_start newboot "$boot_id"
if rec_running newboot "$starts"; then
	t1=$(vm_us) # the changes happened before the recorder started: stamped at its start
	expect_event "fn-removed $vf0 (while stopped)" "$t0" "$t1" "$(on "$vf0" fn-removed)"
	expect_event "fn-removed $vf1 (while stopped)" "$t0" "$t1" "$(on "$vf1" fn-removed)"
	b=$VM_TMP/timeline.2.json
	ibvf timeline --json >"$b" 2>"$b.err" || fail "ibvf timeline --json" "$(head -c 300 "$b.err")"
	check_events "$b"
	boot="(.events[] | select(.kind == \"boot\" and .new == \"$uuid\"))"
	later="$boot as \$b | .events[] | select(.id > \$b.id and .group == \$b.group)"
	jq_begin "$b"
	jq_expect "one boot event for boot id $uuid" "[$boot] | length" 1
	jq_expect "its boot_id is $uuid" "$boot | .boot_id" "$uuid"
	jq_expect "it has a group" "$boot | .group | type" number
	jq_expect "the recorder's start is grouped after it" \
		"[$later | select(.kind == \"start\")] | length" 1
	jq_expect "vf-count 2 -> 0 on $pf grouped after it" \
		"[$later | select($(on "$pf" vf-count) and $(old_new 2 0))] | length" 1
	for vf in "$vf0" "$vf1"; do
		jq_expect "fn-removed $vf grouped after it, in boot $uuid" \
			"[$later | select($(on "$vf" fn-removed) and .boot_id == \"$uuid\")] | length" 1
	done
	jq_end
fi
note "the restarted recorder's boot took $((($(vm_us) - t_rec) / 1000)) ms to show"

# 6. SIGKILL in the middle of a burst of renames; started again, the recorder
# opens the store and keeps recording.
expect_ok "echo 1 > $pf/sriov_numvfs" vm_sriov "$pf" 1
nd=$(vm_netdev "$vf0")
tl_wait "$vf0 back in the timeline" "\"name\":\"$nd\"" --kind fn-added,netdev --since 60s "$vf0"
x=$nd y=vfburst
t0=$(vm_us)
for ((i = 1; i <= 200; i++)); do
	ip link set dev "$x" name "$y" || break
	x=$y
	[ "$x" = "$nd" ] && y=vfburst || y=$nd
	[ "$i" -eq 100 ] && rec_stop KILL
done
note "200 renames in $((($(vm_us) - t0) / 1000)) ms, SIGKILL after the 100th"
expect_eq "200 renames done, $vf0 is $nd again" "$i $(vm_netdev "$vf0")" "201 $nd"
expect_eq "the recorder died of the SIGKILL" "$rec_rc" $((128 + 9))
starts=$(tl_count '"kind":"start"' --kind start)
rec_start afterkill "$boot_id"
if rec_running afterkill "$starts"; then
	t0=$(vm_us)
	ip link set dev "$nd" name vfafter
	t1=$(vm_us)
	# When the recorder's batches left more than 6 renames of this VF, the
	# store folds this one into the last row (count, last_time and new are
	# this rename's); else it is a row of its own. Either is one event.
	expect_event "after the SIGKILL: rename -> vfafter on $vf0" "$t0" "$t1" \
		"$(on "$vf0" rename) and .new == \"vfafter\"" fold
	tl_wait "the rename after the SIGKILL" '"new":"vfafter"' --kind rename "$vf0"
	# And a change of another kind, in a row of its own.
	t0=$(vm_us)
	echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
	t1=$(vm_us)
	expect_event "after the SIGKILL: vf-count 1 -> 0 on $pf" "$t0" "$t1" "$(on "$pf" vf-count) and $(old_new 1 0)"
	expect_event "after the SIGKILL: fn-removed $vf0" "$t0" "$t1" "$(on "$vf0" fn-removed)"
	tl_wait "$vf0 removed after the SIGKILL" '"kind":"fn-removed"' --kind fn-removed --since 60s "$vf0"
	c=$VM_TMP/timeline.3.json
	ibvf timeline --json >"$c" 2>"$c.err" || fail "ibvf timeline --json" "$(head -c 300 "$c.err")"
	check_events "$c"
	jq_begin "$c"
	jq_expect "no second boot event for $uuid after the SIGKILL" \
		"[.events[] | select(.kind == \"boot\" and .new == \"$uuid\")] | length" 1
	jq_end
	rec_stop TERM
	expect_eq "ibvf record exits 0 on SIGTERM after the SIGKILL" "$rec_rc" 0 "$(head -c 200 "$VM_TMP/rec.afterkill.err")"
fi
for r in first newboot afterkill; do
	if grep -q 'in memory' "$VM_TMP/rec.$r.err"; then
		fail "the $r recorder wrote to the store file" "$(head -c 300 "$VM_TMP/rec.$r.err")"
	else
		pass "the $r recorder wrote to the store file" "$(grep -vc '^ibvf: record: [0-9]* events*$' "$VM_TMP/rec.$r.err") other stderr lines"
	fi
done

# 7. The store is sound, and the text timeline shows the events.
if command -v sqlite3 >/dev/null; then
	expect_eq "PRAGMA integrity_check of $store" "$(sqlite3 "$store" 'PRAGMA integrity_check' 2>&1)" ok
else
	note "no sqlite3 in the image: PRAGMA integrity_check skipped"
fi
txt=$VM_TMP/timeline.txt
if ibvf timeline --utc >"$txt" 2>"$txt.err"; then
	pass "ibvf timeline" "$(wc -l <"$txt") lines"
else
	fail "ibvf timeline" "$(head -c 300 "$txt.err")"
fi
tr -s ' ' <"$txt" >"$txt.1" # the columns' padding squeezed
for want in "$pf vf-count sriov_numvfs 0 -> 2" \
	"$vf0 fn-added function appeared" \
	"$vf0 rename $nd0 -> vfrec0" \
	"$vf0 netdev netdev vfrec0 gone" \
	"$vf0 netdev netdev vfrec0 appeared" \
	"$vf1 port-state port ACTIVE -> DOWN" \
	"$vf1 port-state port DOWN -> ACTIVE" \
	"-- boot ${uuid:0:8}: kernel $(uname -r)" \
	"$vf0 fn-removed function gone"; do
	if grep -qF -- "$want" "$txt.1"; then
		pass "ibvf timeline shows '$want'"
	else
		fail "ibvf timeline shows '$want'" "$(grep -F -- "${want%% *}" "$txt" | tail -n 3)"
	fi
done
# The rename after the SIGKILL: a row of its own, or folded into the
# burst's last row (then with its count), whichever the recorder's batches
# made of the burst: on an event row, not a cause line.
if grep -v '<- ' "$txt.1" | grep -qE -- "^[^ ]+ [^ ]+ $vf0 rename .*-> vfafter( \(|$)"; then
	pass "ibvf timeline shows the rename to vfafter on $vf0"
else
	fail "ibvf timeline shows the rename to vfafter on $vf0" "$(grep -F vfafter "$txt" | tail -n 3)"
fi
grep -v ' kmsg \| finding-\|<- ' "$txt" >&2
vm_done
