#!/usr/bin/env bash
# valgrind reports no error and no leak for `ibvf list --json --sim` (including
# the simulated node's creation on first use) and for the text tree.
set -euo pipefail
ibvf=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# libgrpc's load-time allocations, and nothing else, are suppressed (the file says why).
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=all
	--errors-for-leak-kinds=all --suppressions="$(dirname "$0")/valgrind-grpc.supp")
XDG_CACHE_HOME=$tmp "${vg[@]}" "$ibvf" list --json --sim >"$tmp/out.json"
jq -e '.pfs | length == 12' "$tmp/out.json" >/dev/null
XDG_CACHE_HOME=$tmp "${vg[@]}" "$ibvf" list --sim >/dev/null
echo "valgrind: no errors, no leaks"
