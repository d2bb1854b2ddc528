#!/usr/bin/env bash
# A real prometheus-node-exporter (textfile collector only) on 127.0.0.1
# and a free port reads the directory `ibvf metrics --textfile` writes; its
# /metrics, fetched over HTTP, carries ibvf's series and
# node_textfile_scrape_error 0. The wait for the port is a bounded poll
# scaled from the exporter's measured start. Skipped (77) without the
# exporter or curl: scripts/install-deps.
#   tests/prom/node-exporter.sh IBVF
set -euo pipefail
ibvf=$1
ne=prometheus-node-exporter
for t in $ne curl ss; do
	command -v $t >/dev/null || { echo "$t missing: run scripts/install-deps" >&2; exit 77; }
done
tmp=$(mktemp -d)
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
chmod 0755 "$tmp"
mkdir -m 0755 "$tmp/textfile"
"$ibvf" mkfixture "$tmp/node" >/dev/null
"$ibvf" "--sim=$tmp/node" metrics --textfile "$tmp/textfile"

now() { date +%s%N; }
# What starting the exporter's binary costs here, measured: the bound.
t0=$(now); $ne --version >/dev/null 2>&1; t1=$(now)
mult=${CK_TIMEOUT_MULTIPLIER:-1}
bound_ms=$(( (5000 + 200 * (t1 - t0) / 1000000) * ${mult%.*} ))

read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
body=
for try in 1 2 3 4 5; do
	port=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo) ))
	ss -Htln "sport = :$port" | grep -q . && continue
	$ne --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$tmp/textfile" \
		2>"$tmp/ne.log" &
	pid=$!
	start=$(now)
	while kill -0 "$pid" 2>/dev/null && (( ($(now) - start) / 1000000 < bound_ms )); do
		if body=$(curl -sf "http://127.0.0.1:$port/metrics"); then break; fi
		body=
		sleep 0.05
	done
	[ -n "$body" ] && break
	kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=
	echo "try $try: no answer on 127.0.0.1:$port within ${bound_ms} ms:" >&2
	tail -n 3 "$tmp/ne.log" >&2
done
[ -n "$body" ] || { echo "node_exporter never answered" >&2; exit 1; }

fail=0
want() { grep -q -- "$1" <<<"$body" || { echo "missing in the scrape: $1" >&2; fail=1; }; }
want '^ibvf_vf_info{device="mlx5_27",.*pci="0000:4f:00.1",pf="0000:4f:00.0",port="1",vf="0"}'
want '^ibvf_findings{check="guid-zero",severity="critical"} 15$'
want '^ibvf_metrics_last_success_timestamp_seconds '
want '^node_textfile_scrape_error 0$'
want "^node_textfile_mtime_seconds{file=\"$tmp/textfile/ibvf.prom\"} "
if grep -qi 'error' "$tmp/ne.log"; then echo "node_exporter logged errors:" >&2; cat "$tmp/ne.log" >&2; fail=1; fi
grep -E '^(node_textfile_scrape_error|ibvf_findings\{check="guid-zero",severity="critical"\}|ibvf_vf_info\{.*pci="0000:4f:00.1")' <<<"$body"
echo "scraped 127.0.0.1:$port: $(grep -c '^ibvf_' <<<"$body") ibvf samples"
exit $fail
