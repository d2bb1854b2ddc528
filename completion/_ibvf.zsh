
# What follows reads the table above (_ibvf_commands, _ibvf_opts_CMD,
# _ibvf_opts_CMD_SUB ...), as completion/ibvf.bash does for bash. Device
# names come from the node the line names (--sim=DIR, --sim, --root DIR,
# else /), by globbing sysfs: SR-IOV PFs (sriov_totalvfs), VFs (physfn),
# their netdevs and RDMA devices.

# _ibvf_devices ROOT: the names into reply.
_ibvf_devices() {
	local f d n
	reply=()
	for f in $1/sys/bus/pci/devices/*/sriov_totalvfs(N) $1/sys/bus/pci/devices/*/physfn(N); do
		d=${f:h}
		reply+=(${d:t} ${${d:t}#0000:})
		for n in $d/net/*(N) $d/infiniband/*(N); do
			reply+=(${n:t})
		done
	done
}

# _ibvf_kind WORD PAIRS: the placeholder WORD takes in PAIRS into REPLY.
_ibvf_kind() {
	local p
	REPLY=
	for p in ${=2}; do
		[[ ${p%%:*} == $1 ]] && REPLY=${p#*:} && return 0
	done
	return 1
}

_ibvf_main() {
	local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd= sub= root= i w var
	for ((i = 2; i < CURRENT; i++)); do
		w=${words[i]}
		case $w in
		--sim) root=${XDG_CACHE_HOME:-$HOME/.cache}/ibvf/sim ;;
		--sim=*) root=${w#--sim=} ;;
		--root=*) root=${w#--root=} ;;
		--root) root=${words[i+1]}; ((i++)) ;;
		--kernel | --theme) ((i++)) ;;
		-*)
			var=_ibvf_vals_${cmd//[^a-z]/_}
			_ibvf_kind $w "${(P)var-}" && ((i++))
			;;
		*) if [[ -z $cmd ]]; then cmd=$w; elif [[ -z $sub ]]; then sub=$w; fi ;;
		esac
	done
	[[ " $_ibvf_commands " == *" $cmd "* ]] || cmd=
	local opts=$_ibvf_globals vals=$_ibvf_global_vals subs= pos=
	if [[ -n $cmd ]]; then
		var=_ibvf_opts_$cmd; opts=${(P)var}
		var=_ibvf_vals_$cmd; vals=${(P)var}
		var=_ibvf_subs_$cmd; subs=${(P)var}
		var=_ibvf_pos_$cmd; pos=${(P)var}
	fi
	# A subcommand typed: the options it takes, when it has a list of its own.
	if [[ -n $sub && " $subs " == *" $sub "* ]]; then
		var=_ibvf_opts_${cmd}_${sub//-/_}
		(( ${(P)+var} )) && opts=${(P)var}
	fi
	local kind= pre=
	if [[ $cur == --*=* ]]; then
		pre=${cur%%=*}=
		_ibvf_kind ${cur%%=*} $vals && kind=$REPLY || kind=none
	elif [[ $prev == -* ]]; then
		_ibvf_kind $prev $vals && kind=$REPLY
	fi
	local -a reply names descs
	[[ -n $pre ]] && compset -P '*='
	case $kind in
	'') ;;
	DIR) _files -/ ; return ;;
	FILE | F | PATH) _files ; return ;;
	NAME\|PATH) compadd -- default light mono high-contrast; _files ; return ;;
	DEV*) _ibvf_devices ${root:-}; compadd -- $reply ; return ;;
	[a-z]*) compadd -- $kind ; return ;; # the value itself
	*) return 1 ;;
	esac
	if [[ $cur == -* ]]; then
		compadd -- ${=opts}
	elif [[ -z $cmd ]]; then
		for w in ${=_ibvf_commands}; do
			var=_ibvf_summary_$w
			names+=($w) descs+=("${(r:12:)w} -- ${(P)var}")
		done
		compadd -l -d descs -- $names
	elif [[ -n $subs && -z $sub ]]; then
		compadd -- ${=subs}
	elif [[ $pos == dev ]]; then
		_ibvf_devices ${root:-}
		compadd -- $reply
	elif [[ $pos == dir ]]; then
		_files -/
	elif [[ $pos == cmd && -z $sub ]]; then
		compadd -- ${=_ibvf_commands}
	fi
}

_ibvf_main "$@"
