# shellcheck shell=bash
# Scenario library for the vmtest guest (sourced by /init and by each
# tests/vm/*.sh). A scenario makes checks; every check writes one line,
#   PASS <scenario>: <what> [<evidence>]
#   FAIL <scenario>: <what> [<evidence>]
# to $VM_RESULTS (the guest's /dev/ttyS1) and, with more detail, to stderr
# (the console). vm_done exits non-zero if any check failed or none ran.
# Checks never abort the scenario: set -e is deliberately off.

set -uo pipefail

VM_SCENARIO=${VM_SCENARIO:-$(basename "${0%.sh}")}
VM_RESULTS=${VM_RESULTS:-/dev/ttyS1}
VM_TMP=${VM_TMP:-/tmp/$VM_SCENARIO}
# How much slower than the reference guest this one is now, in percent
# (>= 100): /init measures it before each scenario (vm_probe). Every bound on
# waiting below is a time on the reference guest scaled by it.
VM_SLOW_PCT=${VM_SLOW_PCT:-100}
VM_IBVF_TIMEOUT=${VM_IBVF_TIMEOUT:-$(((30 * VM_SLOW_PCT + 99) / 100))}
mkdir -p "$VM_TMP"
_vm_npass=0
_vm_nfail=0

# Under TCG every fork costs tens of milliseconds and every jq start most of a
# second, so the reporting path uses builtins only and JSON checks are batched
# (jq_begin ... jq_end).

# _vm_flat VAR MAX: the value of VAR on one line, at most MAX characters.
_vm_flat() {
	local -n _v=$1
	_v=${_v//$'\n'/ }
	_v=${_v//$'\t'/ }
	_v=${_v//$'\r'/}
	[ "${#_v}" -le "$2" ] || _v="${_v:0:$2}..."
}

_vm_line() {
	local up _
	read -r up _ </proc/uptime
	printf '%s\n' "$*" >>"$VM_RESULTS"
	printf '[%7s] %s\n' "$up" "$*" >&2
}

# pass WHAT [EVIDENCE...]
pass() {
	local what=$1
	shift
	local ev="$*"
	_vm_flat ev 300
	_vm_npass=$((_vm_npass + 1))
	_vm_line "PASS $VM_SCENARIO: $what${ev:+ [$ev]}"
}

# fail WHAT [EVIDENCE...]
fail() {
	local what=$1
	shift
	local ev="$*"
	_vm_flat ev 600
	_vm_nfail=$((_vm_nfail + 1))
	_vm_line "FAIL $VM_SCENARIO: $what${ev:+ [$ev]}"
}

# vm_json SCHEMA FILE: FILE's JSON document to the host, which validates it
# against schemas/SCHEMA.schema.json after the run (scripts/vmtest).
vm_json() {
	local doc
	doc=$(jq -c . "$2" 2>/dev/null) || {
		fail "$2 is JSON" "$(head -c 200 "$2")"
		return
	}
	_vm_line "JSON $1 $doc"
}

# Console-only detail.
note() {
	local up _
	read -r up _ </proc/uptime
	printf '[%7s]   %s: %s\n' "$up" "$VM_SCENARIO" "$*" >&2
}

# rd VAR FILE: VAR is FILE's first line ('' if unreadable), without a fork.
rd() {
	local -n _r=$1
	_r=
	read -r _r <"$2" 2>/dev/null
	return 0
}

# expect_eq WHAT GOT WANT [SOURCE]: string equality; SOURCE names where WANT came from.
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1" "$2"
	else
		fail "$1" "got '$2', want '$3'${4:+ ($4)}"
	fi
}

# expect_ok WHAT CMD...: the command exits 0; its output is the evidence.
expect_ok() {
	local what=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "$what" "$(printf '%s' "$out" | tail -n 3)"
	else
		fail "$what" "'$*' exited $rc: $(printf '%s' "$out" | tail -n 5)"
	fi
	return "$rc"
}

# expect_fail WHAT CMD...: the command exits non-zero.
expect_fail() {
	local what=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		pass "$what" "exit $rc: $(printf '%s' "$out" | tail -n 2)"
	else
		fail "$what" "'$*' succeeded: $(printf '%s' "$out" | tail -n 3)"
	fi
}

# jqr FILE FILTER [jq args...]: one raw value (or empty) from a JSON file.
jqr() {
	local file=$1 filter=$2
	shift 2
	jq -r "$@" "$filter" "$file" 2>/dev/null | head -n 1
}

# expect_json WHAT FILE FILTER WANT [SOURCE] [jq args...]: jq -r FILTER on FILE equals WANT.
expect_json() {
	local what=$1 file=$2 filter=$3 want=$4 src=${5:-}
	shift 5 2>/dev/null || shift $#
	local got
	got=$(jq -r "$@" "$filter" "$file" 2>&1 | head -n 1)
	expect_eq "$what" "$got" "$want" "$src"
}

# --- batched JSON checks -------------------------------------------------------
# jq_begin FILE [jq args...]; then jq_expect / jq_expect_ref any number of
# times; jq_end runs one jq over FILE and reports every check. GOT and WANT
# filters yield their first value: strings raw, others as JSON ("" if none).

jq_begin() {
	_jq_file=$1
	shift
	_jq_args=("$@")
	_jq_what=()
	_jq_src=()
	_jq_prog=
}

# jq_str VAR VALUE: VAR is VALUE as a jq string literal.
jq_str() {
	local -n _s=$1
	_s=${2//\\/\\\\}
	_s=${_s//\"/\\\"}
	_s="\"$_s\""
}

# jq_expect_ref WHAT GOT_FILTER WANT_FILTER [SOURCE]
jq_expect_ref() {
	_jq_what+=("$1")
	_jq_src+=("${4:-}")
	_jq_prog+="${_jq_prog:+,
}one($2), one($3)"
}

# jq_expect WHAT GOT_FILTER WANT [SOURCE]: WANT is a literal string.
jq_expect() {
	local lit
	jq_str lit "$3"
	jq_expect_ref "$1" "$2" "$lit" "${4:-}"
}

jq_end() {
	local res=() i got want err=$VM_TMP/jq.err
	[ ${#_jq_what[@]} -gt 0 ] || return 0
	mapfile -t res < <(jq -r "${_jq_args[@]}" '
		def show: if type == "string" then . else tojson end | gsub("\n"; " ");
		def one(f): [try f catch "jq error: \(.)"] | if length == 0 then "" else (.[0] | show) end;
		'"$_jq_prog" "$_jq_file" 2>"$err")
	for i in "${!_jq_what[@]}"; do
		got=${res[$((2 * i))]-}
		want=${res[$((2 * i + 1))]-}
		if [ ${#res[@]} -eq 0 ]; then
			got="(jq failed: $(head -c 200 "$err"))"
		fi
		expect_eq "${_jq_what[$i]}" "$got" "$want" "${_jq_src[$i]}"
	done
	_jq_what=()
}

vm_done() {
	note "$_vm_npass passed, $_vm_nfail failed"
	if [ "$_vm_npass" -eq 0 ] && [ "$_vm_nfail" -eq 0 ]; then
		_vm_line "FAIL $VM_SCENARIO: no checks ran"
		exit 1
	fi
	[ "$_vm_nfail" -eq 0 ]
	exit
}

# --- time --------------------------------------------------------------------

vm_us() { local t=$EPOCHREALTIME; printf '%s' "${t/./}"; }

# _vm_ms VAR SECONDS: VAR is SECONDS (an integer or a decimal) in milliseconds.
_vm_ms() {
	local -n _m=$1
	local i=${2%%.*} f=000
	[[ $2 == *.* ]] && f=${2#*.}000
	_m=$((10#${i:-0} * 1000 + 10#${f:0:3}))
}

# vm_scaled_ms VAR SECONDS: SECONDS on the reference guest, in milliseconds here.
vm_scaled_ms() {
	local -n _sm=$1
	_vm_ms _sm "$2"
	_sm=$((_sm * VM_SLOW_PCT / 100))
}

# vm_scaled SECONDS: SECONDS on the reference guest, in whole seconds here.
vm_scaled() {
	local ms
	vm_scaled_ms ms "$1"
	printf '%s' $(((ms + 999) / 1000))
}

# vm_sleep SECONDS: a pause of SECONDS on the reference guest, scaled.
vm_sleep() {
	local ms
	vm_scaled_ms ms "$1"
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}

# wait_until SECONDS CMD...: poll every 50 ms until CMD succeeds, for at
# most SECONDS on the reference guest (scaled by the measured slow-down).
wait_until() {
	local ms
	vm_scaled_ms ms "$1"
	local deadline=$(($(vm_us) + ms * 1000))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(vm_us)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# vm_probe: milliseconds a fixed piece of work takes here: 8 starts of a
# dynamically linked binary (ip), what the scenarios mostly do under TCG.
vm_probe() {
	local t0 i
	t0=$(vm_us)
	for ((i = 0; i < 8; i++)); do
		ip -V >/dev/null 2>&1
	done
	printf '%s' $((($(vm_us) - t0) / 1000))
}

# vm_left: whole seconds left of the scenario's budget (60 scaled outside /init).
vm_left() {
	local dl=
	[ -n "${VM_DEADLINE_FILE:-}" ] && read -r dl <"$VM_DEADLINE_FILE" 2>/dev/null
	if [ -z "$dl" ]; then
		vm_scaled 60
		return
	fi
	dl=$(((dl - $(vm_us)) / 1000000 + 1))
	printf '%s' $((dl < 1 ? 1 : dl))
}

# vm_budget SECONDS: the scenario needs at most SECONDS more from now (real
# seconds, from its own measurements, e.g. the Soft-RoCE rate); /init stops
# it after that and the host allows that long a silence.
vm_budget() {
	local s=$1 up _
	s=${s%%.*}
	[ -n "${VM_DEADLINE_FILE:-}" ] && printf '%s\n' $(($(vm_us) + s * 1000000)) >"$VM_DEADLINE_FILE"
	read -r up _ </proc/uptime
	printf 'BUDGET %s %s\n' "$VM_SCENARIO" "$s" >>"$VM_RESULTS"
	printf '[%7s]   %s: budget %s s from now\n' "$up" "$VM_SCENARIO" "$s" >&2
}

# vm_listening PORT: a TCP socket listens on PORT (perftest's "Waiting for
# client" sits in its stdio buffer: /proc/net/tcp is the sure sign).
vm_listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" 'substr($2, length($2) - 4) == p && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# --- the node ----------------------------------------------------------------

vm_ibvf() {
	command -v ibvf >/dev/null || {
		echo "no ibvf binary in the image (build it or pass --ibvf)" >&2
		return 127
	}
	timeout "$VM_IBVF_TIMEOUT" ibvf "$@"
}

# run_ibvf OUT ARGS...: stdout to OUT, stderr to OUT.err; returns ibvf's status.
run_ibvf() {
	local out=$1 rc
	shift
	vm_ibvf "$@" >"$out" 2>"$out.err"
	rc=$?
	local err
	err=$(head -c 200 "$out.err")
	note "ibvf $* -> exit $rc, $(wc -c <"$out") bytes; stderr: $err"
	return "$rc"
}

# The igb PFs, sorted by BDF.
vm_pfs() {
	local d
	for d in /sys/bus/pci/drivers/igb/0000:*; do
		[ -e "$d" ] && basename "$d"
	done | sort
}

sysfs_pci() { cat "/sys/bus/pci/devices/$1/$2" 2>/dev/null; }
pci_driver() { basename "$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)" 2>/dev/null; }

# vm_netdev BDF: the function's (first) netdev name.
vm_netdev() {
	local d
	for d in /sys/bus/pci/devices/"$1"/net/*; do
		[ -e "$d" ] && basename "$d" && return 0
	done
	return 1
}

# vm_vf PF INDEX: the VF's BDF.
vm_vf() {
	local l
	l=$(readlink "/sys/bus/pci/devices/$1/virtfn$2") || return 1
	basename "$l"
}

_vm_vfs_ready() {
	local pf=$1 n=$2 i vf
	for ((i = 0; i < n; i++)); do
		vf=$(vm_vf "$pf" "$i") || return 1
		vm_netdev "$vf" >/dev/null || return 1
	done
}

# vm_sriov PF N: set the VF count (through 0 when changing) and wait for the VFs' netdevs.
vm_sriov() {
	local pf=$1 n=$2 f=/sys/bus/pci/devices/$1/sriov_numvfs cur
	cur=$(cat "$f")
	[ "$cur" = "$n" ] && return 0
	if [ "$cur" != 0 ]; then
		echo 0 >"$f" || return 1
	fi
	if [ "$n" != 0 ]; then
		echo "$n" >"$f" || return 1
		wait_until 10 _vm_vfs_ready "$pf" "$n" || {
			echo "VFs of $pf did not all get a netdev" >&2
			return 1
		}
	fi
}

vm_rxe_sysctls() {
	local c=/proc/sys/net/ipv4/conf/$1
	[ -d "$c" ] || return 0
	echo 1 >"$c/accept_local"
	echo 0 >"$c/rp_filter"
	echo 1 >"$c/arp_ignore"
	echo 2 >"$c/arp_announce"
}

_vm_port_active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"; }
_vm_oper_up() { [ "$(cat "/sys/class/net/$1/operstate")" = up ]; }

# vm_link_up NETDEV: set it up, its PF first when it is a VF (a VF has no
# link while its PF is down), and wait for operstate up.
vm_link_up() {
	local pf pfdev
	if pf=$(readlink "/sys/class/net/$1/device/physfn" 2>/dev/null); then
		pfdev=$(vm_netdev "$(basename "$pf")") && vm_link_up "$pfdev"
	fi
	ip link set dev "$1" up || return 1
	wait_until 10 _vm_oper_up "$1" || {
		echo "$1 operstate is $(cat "/sys/class/net/$1/operstate") after 10 s" >&2
		return 1
	}
}

# vm_rxe_add IBDEV NETDEV: Soft-RoCE on NETDEV, up and its port ACTIVE.
vm_rxe_add() {
	vm_rxe_sysctls "$2"
	vm_link_up "$2" || return 1
	rdma link add "$1" type rxe netdev "$2" || return 1
	wait_until 10 _vm_port_active "$1" || {
		echo "$1 port 1 is $(cat "/sys/class/infiniband/$1/ports/1/state") after 10 s" >&2
		return 1
	}
}

# The port GUID is the low 64 bits of GID 0 (no port_guid file exists).
sysfs_port_guid() {
	local g
	g=$(cat "/sys/class/infiniband/$1/ports/${2:-1}/gids/0" 2>/dev/null) || return 1
	printf '%s\n' "$g" | cut -d: -f5-8
}

# Back to a clean node: no rxe devices, no VFs, no leftover watchers.
vm_reset() {
	local d pf
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && rdma link delete "$(basename "$d")" 2>/dev/null
	done
	for pf in $(vm_pfs); do
		vm_sriov "$pf" 0
	done
	return 0
}

# Kill background jobs of the scenario when it ends.
vm_cleanup_jobs() {
	local p
	for p in $(jobs -p); do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap vm_cleanup_jobs EXIT
