#!/usr/bin/env bash
# Every JSON document ibvf prints validates against its schema in schemas/
# (docs/json.md): list on the healthy, seeded and 8 PF x 127 VF simulated
# nodes, list --pods, check, the plans of vf and persist, the journal after
# simulated actions (and one an older ibvf wrote), and bench's documents
# that need no RDMA device (a device that cannot run, a sweep, validate).
# Then the negative half: the schemas reject the old field names, an added
# field, version 1, the bare journal array and ip link's GUID form.
# Real bench results (sizes, link, verdict) are validated in the guest:
# tests/vm/50-bench-tests.sh. Usage: json-schema.sh IBVF SRCDIR
set -euo pipefail
for t in /usr/bin/python3 jq; do
	command -v "$t" >/dev/null || { echo "skip: no $t (scripts/install-deps installs it)"; exit 77; }
done
ibvf=$1
src=$2
# Debian's interpreter: scripts/install-deps puts python3-jsonschema there (a
# python3 earlier on PATH, e.g. pyenv's, may not have it).
check="/usr/bin/python3 $src/tests/json_check.py"
schemas=$src/schemas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
fail=0

# ok SCHEMA FILE...: valid; bad SCHEMA FILE...: rejected.
ok() { $check "$schemas/$1.schema.json" "${@:2}" || fail=1; }
bad() { $check --expect-invalid "$schemas/$1.schema.json" "${@:2}" || fail=1; }
# run OUT ARGS...: ibvf's stdout into OUT; exit status 0, 1 or 2 is a result.
run() {
	local out=$1 rc=0
	shift
	"$ibvf" "$@" >"$out" 2>"$out.err" || rc=$?
	if [ "$rc" -gt 2 ]; then
		echo "ibvf $*: exit $rc: $(head -c 300 "$out.err")"
		fail=1
	fi
}

"$ibvf" mkfixture "$tmp/seed" >/dev/null
"$ibvf" mkfixture "$tmp/healthy" --healthy >/dev/null
"$ibvf" mkfixture "$tmp/big" --healthy --pfs 8 --vfs 127 >/dev/null

for n in seed healthy big; do
	run "$tmp/list-$n.json" --sim="$tmp/$n" list --json
	ok list "$tmp/list-$n.json"
done
run "$tmp/pods.json" --sim="$tmp/seed" list --pods --json
ok list "$tmp/pods.json"
# A PF the SR-IOV Network Operator holds: its "operator" object (docs/coexistence.md).
"$ibvf" mkfixture "$tmp/op" --healthy >/dev/null
echo operator:0000:18:00.0 >"$tmp/op/.sim/faults"
run "$tmp/list-op.json" --sim="$tmp/op" list --json
ok list "$tmp/list-op.json"
jq -e '.pfs[0].operator.sets == ["numvfs","guids"]' "$tmp/list-op.json" >/dev/null ||
	{ echo "list-op.json: no operator on 0000:18:00.0"; fail=1; }
run "$tmp/check-op.json" --sim="$tmp/op" check --json
ok check "$tmp/check-op.json"
for n in seed healthy; do
	run "$tmp/check-$n.json" --sim="$tmp/$n" check --json
	ok check "$tmp/check-$n.json"
done

# Plans (--dry-run) and the journal the applied ones leave.
S=--sim=$tmp/seed
run "$tmp/plan-rename.json" "$S" vf rename 18:00.4 ibfast3 --dry-run --json
run "$tmp/plan-guid.json" "$S" vf guid 18:00.3 --node 02:03:00:18:00:00:00:09 \
	--port 02:03:00:18:00:00:00:09 --dry-run --json
run "$tmp/plan-create.json" "$S" vf create 4f:00.0 4 --force --dry-run --json
# The unit runs ibvf on the node: the simulated node's /usr/sbin/ibvf.
run "$tmp/plan-persist.json" --sim="$tmp/healthy" persist --ibvf /usr/sbin/ibvf --dry-run --json
ok plan "$tmp"/plan-*.json
run "$tmp/a" "$S" vf rename 18:00.4 ibfast3 --yes
run "$tmp/a" "$S" vf guid 18:00.1 --node 02:03:00:18:00:00:00:00 --port 02:03:00:18:00:00:00:00 --yes
run "$tmp/a" "$S" vf guid --assign-all --force --yes
run "$tmp/a" "$S" vf state 18:00.4 disable --yes
run "$tmp/a" "$S" journal undo 1 --yes --force # back to the kernel name ib2
# The history (docs/history.md): what the actions above did, recorded and
# read back with its causes; a kind the schema does not know is rejected.
run "$tmp/rec" "$S" record --once
run "$tmp/timeline.json" "$S" timeline --json
ok timeline "$tmp/timeline.json"
jq -e '[.events[] | select(.causes)] | length > 0' "$tmp/timeline.json" >/dev/null ||
	{ echo "timeline --json: no event with causes"; fail=1; }
jq '.events[0].kind = "renamed"' "$tmp/timeline.json" >"$tmp/timeline-bad.json"
bad timeline "$tmp/timeline-bad.json"
run "$tmp/journal.json" "$S" journal --json
ok journal "$tmp/journal.json"
n=$(jq '.entries | length' "$tmp/journal.json" 2>&1) || true
[ "$n" = 5 ] || { echo "journal --json: $n entries, not 5"; fail=1; }

# A journal an older ibvf wrote (GUIDs in ip link's form): read, shown in
# rdma's form, and undone.
H=$tmp/healthy
mkdir -p "$H/var/lib/ibvf"
cat >"$H/var/lib/ibvf/journal.jsonl" <<'JSONL'
{"id":1,"time":"2026-11-30T03:28:00Z","user":"root","uid":0,"host":"dgx-h200-07","action":"vf guid","subject":"0000:18:00.1","summary":"set the GUIDs of VF 0 of 0000:18:00.0 (0000:18:00.1): node a0:88:c2:03:00:18:00:01, port a0:88:c2:03:00:18:00:01","destructive":true,"notes":[],"steps":[{"desc":"set the node GUID of VF 0","command":"ip link set dev ibp24s0 vf 0 node_guid a0:88:c2:03:00:18:00:01","status":"ok","detail":null,"error":null}],"changes":[{"kind":"node_guid","bdf":"0000:18:00.1","pf":"0000:18:00.0","vf":0,"before":"a0:88:c2:03:00:18:00:09","after":"a0:88:c2:03:00:18:00:01","verified":true,"verify_error":null},{"kind":"port_guid","bdf":"0000:18:00.1","pf":"0000:18:00.0","vf":0,"before":"a0:88:c2:03:00:18:00:09","after":"a0:88:c2:03:00:18:00:01","verified":true,"verify_error":null}],"result":"ok","failed_step":null,"error":null,"journal_error":null}
JSONL
run "$tmp/journal-v1.json" --sim="$H" journal --json
ok journal "$tmp/journal-v1.json"
before=$(jq -r '.entries[0].changes[0].before' "$tmp/journal-v1.json" 2>&1) || true
[ "$before" = a088:c203:0018:0009 ] || { echo "old journal entry's GUID shown as '$before'"; fail=1; }
run "$tmp/undo-v1.json" --sim="$H" journal undo 1 --dry-run --json
ok plan "$tmp/undo-v1.json"
after=$(jq -r '.changes[0].after' "$tmp/undo-v1.json" 2>&1) || true
[ "$after" = a088:c203:0018:0009 ] || { echo "undo of the old entry sets '$after'"; fail=1; }

# bench without an RDMA device: the error, a sweep, validate of a VF. The
# simulated node refuses validate --all-vfs (it has no verbs devices): its
# document comes from the QEMU guest (tests/vm/55-bench-validate.sh, vm_json).
B=--sim=$tmp/healthy
run "$tmp/bench-error.json" "$B" bench loopback mlx5_0 --json
run "$tmp/bench-sweep.json" "$B" bench pair --all-vfs mlx5_0 --json
run "$tmp/bench-validate.json" "$B" bench validate 18:00.4 mlx5_15 --duration 1 --no-history --json
ok bench "$tmp"/bench-*.json

# The negative half: each of these must be rejected.
neg() { # neg SCHEMA NAME JQ-PROGRAM FILE
	if jq "$3" "$4" >"$tmp/neg-$2.json"; then
		bad "$1" "$tmp/neg-$2.json"
	else
		echo "negative test $2: jq could not make it from $4"
		fail=1
	fi
}
L=$tmp/list-seed.json
neg list old-netdev-name '.pfs[0].netdevs[0] |= (.name = .ifname | del(.ifname))' "$L"
neg list old-state-name '.pfs[0].rdma[0].ports[0].state_name = "ACTIVE"' "$L"
neg list old-phys-state '.pfs[0].rdma[0].ports[0].physical_state = "LinkUp"' "$L"
neg list old-fw-ver '.pfs[0].rdma[0] |= (.fw_ver = .fw | del(.fw))' "$L"
neg list old-operstate '.pfs[0].netdevs[0].operstate = "up"' "$L"
neg list old-flags-hex '.pfs[0].netdevs[0].flags = "0x1003"' "$L"
neg list old-node-type '.pfs[0].rdma[0].node_type = 1' "$L"
neg list colon-guid '.pfs[0].vfs[0].node_guid = "a0:88:c2:03:00:18:00:01"' "$L"
neg list added-field '.pfs[0].vfs[0].new_field = 1' "$L"
neg list version-1 '.version = 1' "$L"
neg check colon-guid-remedy \
	'(.findings[] | select(.remedy.kind == "ibvf") | .remedy.argv) |= map(if test("^[0-9a-f]{4}:") then "02:03:00:18:00:00:00:00" else . end)' \
	"$tmp/check-seed.json"
neg check old-version '.version = 1' "$tmp/check-seed.json"
neg journal bare-array '.entries' "$tmp/journal.json"
neg journal colon-guid-change \
	'(.entries[] | .changes[] | select(.kind == "node_guid") | .before) = "00:00:00:00:00:00:00:00"' \
	"$tmp/journal.json"
neg plan no-version 'del(.version)' "$tmp/plan-guid.json"
neg bench added-field '.vfs[0].extra = 1' "$tmp/bench-sweep.json"

exit $fail
