#!/usr/bin/env bash
# promtool on what ibvf writes and ships: `promtool check metrics` on `ibvf
# metrics` of the healthy and the seeded simulated node (with a bench
# history, so the validation families have samples) exits 0 and prints no
# lint warning; `promtool check rules` and `promtool test rules` pass on
# deploy/prometheus. Skipped (77) without promtool: scripts/install-deps.
#   tests/prom/promtool.sh IBVF SRCDIR
set -euo pipefail
ibvf=$1 src=$2
command -v promtool >/dev/null || { echo "promtool missing: run scripts/install-deps" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hist() { # hist DIR: a bench history with a drop, a failure and a latency
	mkdir -p "$1/var/lib/ibvf"
	local k='"peer":"10.0.0.2"},"host":"h","better"'
	cat >"$1/var/lib/ibvf/bench-history.jsonl" <<EOH
{"time":"2026-12-01T10:00:00Z","key":{"pf":"0000:4f:00.0","vf":1,"test":"write_bw",$k:"higher","status":"PASS","figure":380,"unit":"Gb/s","spread":0.01,"ceiling":390}
{"time":"2026-12-02T10:00:00Z","key":{"pf":"0000:4f:00.0","vf":1,"test":"write_bw",$k:"higher","status":"FAIL","figure":300,"unit":"Gb/s","spread":0.01,"ceiling":390}
{"time":"2026-12-02T10:00:01Z","key":{"pf":"0000:4f:00.0","vf":1,"test":"write_lat",$k:"lower","status":"PASS","figure":2.5,"unit":"us","spread":0.02}
EOH
}

fail=0
for kind in healthy seeded; do
	node=$tmp/$kind
	if [ $kind = healthy ]; then "$ibvf" mkfixture "$node" --healthy >/dev/null
	else "$ibvf" mkfixture "$node" >/dev/null; fi
	hist "$node"
	"$ibvf" "--sim=$node" metrics >"$tmp/$kind.prom"
	grep -q '^ibvf_validation_ratio{' "$tmp/$kind.prom"
	if out=$(promtool check metrics <"$tmp/$kind.prom" 2>&1) && [ -z "$out" ]; then
		echo "promtool check metrics ($kind node): ok, no warnings"
	else
		echo "promtool check metrics ($kind node) FAILED:"; echo "$out"; fail=1
	fi
done

cd "$src/deploy/prometheus"
promtool check rules ibvf.rules.yml || fail=1
promtool test rules ibvf.rules.test.yml || fail=1
exit $fail
