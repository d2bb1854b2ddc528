
# What follows reads the table above (_ibvf_commands, _ibvf_opts_CMD,
# _ibvf_opts_CMD_SUB ...).
# Device names come from the node the line names (--sim=DIR, --sim, --root
# DIR, else /), by globbing sysfs: SR-IOV PFs (sriov_totalvfs), VFs (physfn),
# their netdevs and RDMA devices. No program runs: a node with 8x127 VFs
# completes in a blink.

# _ibvf_devices ROOT CUR: the PCI addresses (short ones too once CUR is not
# empty), netdevs and RDMA devices of ROOT's SR-IOV functions that start with
# CUR, one per line.
_ibvf_devices() {
	local root=$1 cur=$2 f d n
	local -a out=()
	for f in "$root"/sys/bus/pci/devices/*/sriov_totalvfs "$root"/sys/bus/pci/devices/*/physfn; do
		[ -e "$f" ] || continue
		d=${f%/*}
		out+=("${d##*/}")
		[ -n "$cur" ] && out+=("${d##*/0000:}")
		for n in "$d"/net/* "$d"/infiniband/*; do
			[ -e "$n" ] && out+=("${n##*/}")
		done
	done
	# Names come from the node (a pod may have renamed a VF's netdev): only
	# those made of characters no shell treats specially are offered, and
	# they are matched here, not by compgen -W, which expands its words.
	for n in "${out[@]}"; do
		[[ $n =~ ^[A-Za-z0-9_.:@+-]+$ && $n == "$cur"* ]] && printf '%s\n' "$n"
	done
}

# _ibvf_kind WORD PAIRS: the placeholder WORD takes in PAIRS ("--opt:PH ...")
# into REPLY; false when it takes none.
_ibvf_kind() {
	local p
	REPLY=
	for p in $2; do
		[ "${p%%:*}" = "$1" ] && REPLY=${p#*:} && return 0
	done
	return 1
}

_ibvf() {
	local line=${COMP_LINE:0:COMP_POINT} cur prev cmd= sub= root=/ i w var
	local -a words
	read -ra words <<<"$line"
	if [[ $line == *[[:space:]] || ${#words[@]} -le 1 ]]; then
		cur=
	else
		cur=${words[-1]}
		unset 'words[-1]'
	fi
	prev=${words[-1]}
	# The command, its subcommand and the node, from the words before.
	for ((i = 1; i < ${#words[@]}; i++)); do
		w=${words[i]}
		case $w in
		--sim) root=${XDG_CACHE_HOME:-$HOME/.cache}/ibvf/sim ;;
		--sim=*) root=${w#--sim=} ;;
		--root=*) root=${w#--root=} ;;
		--root) root=${words[i + 1]}; ((i++)) ;;
		--kernel | --theme) ((i++)) ;;
		-*)
			var=_ibvf_vals_${cmd//[^a-z]/_}
			_ibvf_kind "$w" "${!var-}" && ((i++))
			;;
		*) if [ -z "$cmd" ]; then cmd=$w; elif [ -z "$sub" ]; then sub=$w; fi ;;
		esac
	done
	[[ " $_ibvf_commands " == *" $cmd "* ]] || cmd=
	local opts=$_ibvf_globals vals=$_ibvf_global_vals subs= pos=
	if [ -n "$cmd" ]; then
		var=_ibvf_opts_$cmd opts=${!var}
		var=_ibvf_vals_$cmd vals=${!var}
		var=_ibvf_subs_$cmd subs=${!var}
		var=_ibvf_pos_$cmd pos=${!var}
	fi
	# A subcommand typed: the options it takes, when it has a list of its own.
	if [ -n "$sub" ] && [[ " $subs " == *" $sub "* ]]; then
		var=_ibvf_opts_${cmd}_${sub//-/_}
		[ -n "${!var+set}" ] && opts=${!var}
	fi

	local kind= pre= value=$cur
	if [[ $cur == --*=* ]]; then
		pre=${cur%%=*}= value=${cur#*=}
		_ibvf_kind "${cur%%=*}" "$vals" && kind=$REPLY || kind=none
	elif [[ $prev == -* ]]; then
		_ibvf_kind "$prev" "$vals" && kind=$REPLY
	fi
	local -a cands=()
	case $kind in
	'') ;;
	DIR) mapfile -t cands < <(compgen -d -- "$value") ;;
	FILE | F | PATH) mapfile -t cands < <(compgen -f -- "$value") ;;
	NAME\|PATH) mapfile -t cands < <(compgen -W "default light mono high-contrast" -- "$value"; compgen -f -- "$value") ;;
	DEV*) mapfile -t cands < <(_ibvf_devices "$root" "$value") ;;
	[a-z]*) mapfile -t cands < <(compgen -W "$kind" -- "$value") ;; # the value itself
	*) kind=none ;;
	esac
	if [ -z "$kind" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t cands < <(compgen -W "$opts" -- "$cur")
		elif [ -z "$cmd" ]; then
			mapfile -t cands < <(compgen -W "$_ibvf_commands" -- "$cur")
		elif [ -n "$subs" ] && [ -z "$sub" ]; then
			mapfile -t cands < <(compgen -W "$subs" -- "$cur")
		elif [ "$pos" = dev ]; then
			mapfile -t cands < <(_ibvf_devices "$root" "$cur")
		elif [ "$pos" = dir ]; then
			mapfile -t cands < <(compgen -d -- "$cur")
		elif [ "$pos" = cmd ] && [ -z "$sub" ]; then
			mapfile -t cands < <(compgen -W "$_ibvf_commands" -- "$cur")
		fi
	fi
	# Bash splits its word at ':' and '=' (COMP_WORDBREAKS): reply with the
	# part after the last break in the word it completes.
	local bword=${COMP_WORDS[COMP_CWORD]-}
	[[ $bword == [:=] ]] && bword=
	local cut=$((${#pre} + ${#value} - ${#bword}))
	((cut < 0)) && cut=0
	COMPREPLY=()
	for w in "${cands[@]}"; do
		w=$pre$w
		COMPREPLY+=("${w:cut}")
	done
	[[ $kind == DIR || $kind == FILE || $kind == F || $kind == PATH || $pos == dir ]] &&
		compopt -o filenames 2>/dev/null
	return 0
}
complete -F _ibvf ibvf
