#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A Kubernetes Secret volume, as kubelet writes it (AtomicWriter): the data in
# a timestamped directory, `..data` a symlink to it, each key a symlink
# `key -> ..data/key`. ibvf refuses a symlinked key file, so the validation
# Jobs mount the key by subPath, which bind-mounts the file the links resolve
# to (deploy/kubernetes/validate, docs/fleet.md). Both halves are checked with
# the real binary: the volume's path is refused naming the link, the resolved
# file is taken as a key.
# Usage: secret-key.sh IBVF
set -euo pipefail
ibvf=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ibvf" mkfixture "$tmp/node" >/dev/null
data=..2026_12_02_06_00_00.123456789
mkdir -p "$tmp/vol/$data"
printf '%s\n' 0123456789abcdef0123456789abcdef >"$tmp/vol/$data/key"
chmod 0400 "$tmp/vol/$data/key" # defaultMode: 0400
ln -s "$data" "$tmp/vol/..data"
ln -s ..data/key "$tmp/vol/key"

fails=0
client() { # client KEYFILE: a bench client that stops at the first thing it cannot do
	timeout 60 "$ibvf" --sim="$tmp/node" bench client 127.0.0.1 --port 1 -d mlx5_0 --key "$1" 2>&1 || true
}

out=$(client "$tmp/vol/key")
if [[ $out == *"cannot open key file '$tmp/vol/key' (a symbolic link)"* ]]; then
	echo "ok   the Secret volume's key (a symlink) is refused: $out"
else
	echo "FAIL the Secret volume's key: want the symlink refused, got: $out"
	fails=$((fails + 1))
fi

# What subPath mounts: the file at the end of the links.
out=$(client "$(readlink -f "$tmp/vol/key")")
if [[ $out != *"key file"* ]]; then
	echo "ok   the key file subPath mounts is taken (ibvf goes on to: $out)"
else
	echo "FAIL the resolved key file was refused: $out"
	fails=$((fails + 1))
fi
exit $((fails > 0))
