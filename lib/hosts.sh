# shellcheck shell=bash
# Worker hosts for ./run.sh matrix --hosts FILE and ./run.sh hosts-check FILE.
# FILE is in GNU parallel's sshlogin format and is read here as data, never
# run: one host a line, '#' comments and blank lines ignored,
#   [SLOTS/][ssh [-p PORT] [-i KEYFILE] [-F CONFIG] [-l USER] [-o Key=Value]... ][USER@]HOST
# e.g. '2/ssh -p 2222 lab@box1' or 'lab@box2'. Only those words and the
# characters [A-Za-z0-9@._/=:+-] are allowed, so no line can carry shell
# code into ssh or parallel. Hosts are reached only with the user's ssh
# keys and config; the lab stores no password or key. Sourced after
# lib/common.sh.

# host_lines FILE: FILE's host lines, validated, one a line (comments and
# blank lines dropped); the first bad line dies with FILE:LINE and why
host_lines() {
	local f=$1 n=0 line w words i
	[[ -f $f && -r $f ]] || die_usage "hosts file '$f' not found"
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r -a words <<<"$line" || true
		((${#words[@]})) || continue
		line="${words[*]}"
		[[ $line =~ ^[A-Za-z0-9@._/=:+\ -]+$ ]] ||
			die_usage "$f:$n: '$line': only letters, digits, spaces and @._/=:+- are allowed in a host line (no shell syntax)"
		w=${words[0]}
		if [[ $w =~ ^([1-9][0-9]*)/(.*)$ ]]; then
			words[0]=${BASH_REMATCH[2]}
			[[ -n ${words[0]} ]] || words=("${words[@]:1}")
		fi
		if [[ ${words[0]:-} == ssh ]]; then
			i=1
			while ((i < ${#words[@]} - 1)); do
				case ${words[i]} in
				-p) [[ ${words[i + 1]:-} =~ ^[0-9]+$ ]] || die_usage "$f:$n: -p needs a port number" ;;
				-i | -F) [[ ${words[i + 1]:-} =~ ^[A-Za-z0-9._/+-]+$ ]] || die_usage "$f:$n: ${words[i]} needs a file name" ;;
				-l) [[ ${words[i + 1]:-} =~ ^[a-z_][a-z0-9_-]*$ ]] || die_usage "$f:$n: -l needs a user name" ;;
				-o) [[ ${words[i + 1]:-} =~ ^(Port|User|IdentityFile|IdentitiesOnly|UserKnownHostsFile|StrictHostKeyChecking|ConnectTimeout|ServerAliveInterval|Compression)=[A-Za-z0-9._/+:-]+$ ]] ||
					die_usage "$f:$n: -o takes Key=Value with Key one of Port User IdentityFile IdentitiesOnly UserKnownHostsFile StrictHostKeyChecking ConnectTimeout ServerAliveInterval Compression" ;;
				*) die_usage "$f:$n: ssh option '${words[i]}' is not allowed (use -p, -i, -F, -l, -o Key=Value)" ;;
				esac
				i=$((i + 2))
			done
			((i == ${#words[@]} - 1)) || die_usage "$f:$n: '$line': expected 'ssh [options] [user@]host'"
		elif ((${#words[@]} != 1)); then
			die_usage "$f:$n: '$line': expected [N/][ssh [options] ][user@]host"
		fi
		[[ ${words[-1]} =~ ^([a-z_][a-z0-9_-]*@)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] ||
			die_usage "$f:$n: '${words[-1]}' is not [user@]host"
		echo "$line"
	done <"$f"
	((n)) || die_usage "hosts file '$f' is empty"
}

# host_slots LINE: the job slots a host line gives (default 1)
host_slots() { if [[ $1 =~ ^([1-9][0-9]*)/ ]]; then echo "${BASH_REMATCH[1]}"; else echo 1; fi; }

# host_ssh LINE: the ssh command of a host line, one word a line, ending in
# [user@]host (mapfile it; the remote command follows after '--')
host_ssh() {
	local l=${1#*/} w
	[[ $1 =~ ^[1-9][0-9]*/ ]] || l=$1
	read -r -a w <<<"$l"
	[[ ${w[0]} == ssh ]] || w=(ssh "${w[@]}")
	# no password prompts, no host-key prompts on a batch run
	printf '%s\n' "${w[0]}" -o BatchMode=yes "${w[@]:1}"
}

# host_label LINE: user@host[:port], the name a host goes by in logs and the manifest
host_label() {
	local w port="" i
	read -r -a w <<<"${1#*/}"
	[[ $1 =~ ^[1-9][0-9]*/ ]] || read -r -a w <<<"$1"
	for ((i = 0; i < ${#w[@]} - 1; i++)); do [[ ${w[i]} == -p ]] && port=${w[i + 1]}; done
	echo "${w[-1]}${port:+:$port}"
}

# identity_diff MINE THEIRS: both key=value identity texts
# (guest/qemu-identity.sh); prints "key 'theirs' (here 'mine')" for each
# key that differs, joined by '; ', and returns 1 if any does
identity_diff() {
	local out
	out=$(awk -F= '
		NR == FNR { k = $1; sub(/^[^=]*=/, ""); mine[k] = $0; next }
		{ k = $1; sub(/^[^=]*=/, ""); theirs[k] = $0 }
		END {
			for (k in mine) if (!(k in theirs) || theirs[k] != mine[k]) d = d (d ? "; " : "") k " \047" theirs[k] "\047 (here \047" mine[k] "\047)"
			for (k in theirs) if (!(k in mine)) d = d (d ? "; " : "") k " \047" theirs[k] "\047 (not here)"
			printf "%s", d
		}' <(printf '%s\n' "$1") <(printf '%s\n' "$2"))
	[[ -z $out ]] && return 0
	echo "$out"
	return 1
}

# the tools a worker needs (guest/cell-worker.sh)
LAB_WORKER_TOOLS="bash tar sha256sum timeout setsid qemu-system-x86_64"
# a worker needs this much free disk under its $LAB_CACHE (bundle, outputs)
LAB_WORKER_MIN_FREE_KB=${LAB_WORKER_MIN_FREE_KB:-2000000}

# host_probe LINE: one ssh to the host; prints its answers as key=value
# lines (missing=, free_kb=, then guest/qemu-identity.sh's lines), anything
# else it sends dropped: a host's output is data. Status: ssh's.
host_probe() {
	local ssh
	mapfile -t ssh < <(host_ssh "$1")
	{
		# shellcheck disable=SC2016 # runs on the host
		printf 'm=""; for t in %s; do command -v "$t" >/dev/null || m="$m $t"; done; echo "missing=${m# }"\n' "$LAB_WORKER_TOOLS"
		# shellcheck disable=SC2016
		echo 'd=${LAB_CACHE:-$HOME/.cache/uring-audit-lab}; mkdir -p "$d" && echo "free_kb=$(df -Pk "$d" | awk "NR == 2 { print \$4 }")"'
		cat "$LAB_ROOT/guest/qemu-identity.sh"
	} | "${ssh[@]}" bash -s 2>/dev/null | grep -E '^[a-z0-9_]+=[[:print:]]{0,300}$'
	return "${PIPESTATUS[1]}"
}

# host_verdict LINE MY_IDENTITY: probe the host and print one line about it,
# "ok LABEL: ..." or "FAIL LABEL: why"; status 0 for ok, 3 for an identity
# difference, 1 for anything else
host_verdict() {
	local label probe rc=0 theirs d missing free
	label=$(host_label "$1")
	probe=$(host_probe "$1") || rc=$?
	if ((rc)) || [[ -z $probe ]]; then
		echo "FAIL $label: ssh failed (rc $rc): check 'ssh $label' works with your keys, without a password"
		return 1
	fi
	missing=$(sed -n 's/^missing=//p' <<<"$probe")
	free=$(sed -n 's/^free_kb=//p' <<<"$probe")
	theirs=$(grep -E '^(qemu_|firmware_)' <<<"$probe" || true)
	if [[ -n $missing ]]; then
		echo "FAIL $label: missing $missing (Debian: apt-get install qemu-system-x86 coreutils tar util-linux)"
		return 1
	fi
	if ! d=$(identity_diff "$2" "$theirs"); then
		echo "FAIL $label: QEMU identity differs: $d"
		return 3
	fi
	if ! [[ $free =~ ^[0-9]+$ ]] || ((free < LAB_WORKER_MIN_FREE_KB)); then
		echo "FAIL $label: ${free:-?} KB free under its lab cache, need $LAB_WORKER_MIN_FREE_KB"
		return 1
	fi
	echo "ok   $label: ssh ok, tools present, QEMU identity matches, $((free / 1024 / 1024)) GB free"
}
