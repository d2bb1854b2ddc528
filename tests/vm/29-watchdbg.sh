#!/bin/bash
# TEMPORARY debug scenario (watch latency); remove after use.
. /vm/lib.sh
vm_reset
mapfile -t pfs < <(vm_pfs)
pf=${pfs[0]}
ev=$VM_TMP/events
mkfifo "$ev.fifo"
while IFS= read -r l; do
	t=$EPOCHREALTIME
	printf '%s %s\n' "$t" "$l"
done <"$ev.fifo" >"$ev" &
strace -tt -f -s 200 -o "$VM_TMP/strace" ibvf watch --json >"$ev.fifo" 2>"$ev.err" &
w=$!
sleep 2
t0=$EPOCHREALTIME
echo 3 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
t1=$EPOCHREALTIME
note "write start $t0 end $t1"
sleep 8
kill $w
sleep 1
pass dbg
echo "==== EVENTS" >&2
cat "$ev" >&2
echo "==== STRACE" >&2
grep -v 'mmap\|mprotect\|openat.*\.so\|newfstatat' "$VM_TMP/strace" | tail -n 250 >&2
vm_done
