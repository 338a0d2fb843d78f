#!/bin/bash
# matrix-cell.sh RUN_DIR VARIANT STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT:
# boot one guest of a matrix run and write its cells: RUN_DIR/cells/V.S.R.csv
# (one row per workload, written last and atomically, so a file there means
# the boot is done), .profile for profiled boots, and raw/V.S.rR/ with the
# serial logs and sink counts. A guest that panics, warns, hangs or dies fails
# its own rows, never the caller. Prints one block of lines when done.
# LAB_CELL_RAN=1: the boot already ran on a worker host (lib/remote.sh) and
# raw/V.S.rR holds its outputs: only classify (guest/boot.sh --ran) and parse.
# matrix-cell.sh --batch RUN_DIR LIST: the boots of LIST (a line each: VARIANT
# STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT, PROFILE - for none) that
# the cell store holds, restored and written in one go (guest/boot.sh
# --restore-batch, parse-results.sh --each): the same files as one by one.
# Prints "VARIANT STATE REP" of each boot it wrote; the others are left to
# the one-by-one path.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

# write_cell: the cell file, sink.txt and profile rows of one boot from its
# parsed results (globals: dir v s r seed wl prof accel runtime unit raw
# boot_status wall parsed); sets report to the boot's lines for the log
write_cell() {
	local cell=$dir/cells/$v.$s.$r.csv w line l l1 ops ns rc st p50 p99
	# the rows go to a temp file moved into place: a failed write (a full disk)
	# stops the script and leaves no partial cell and no temp file behind
	# (cell_tmp is global: the EXIT trap reads it)
	cell_tmp=$dir/cells/.$v.$s.$r.csv.$$
	trap 'rm -f "$cell_tmp"' EXIT
	# the parsed lines by workload (the first line of each), read without a fork
	# per field: a warm rerun restores hundreds of boots through here
	local -A lines=()
	local sink=()
	while IFS= read -r l; do
		[[ $l != "sink_line "* ]] || sink+=("${l#sink_line }")
		[[ $l == workload=* ]] || continue
		l1=${l%% *}
		[[ -n ${lines[${l1#workload=}]+x} ]] || lines[${l1#workload=}]=$l
	done <<<"$parsed"
	report=""
	for w in ${wl//,/ }; do
		line=${lines[$w]-}
		get ops_per_sec; ops=$REPLY
		get ns_per_op; ns=$REPLY
		get rc; rc=$REPLY
		st=ok
		case $boot_status in
		panic | kernel-warning | guest-error | verify-mismatch) st=$boot_status ;;
		*)
			if [[ -z $line ]]; then
				st=${boot_status/ok/missing}
			elif [[ $rc != 0 || $ops == NA ]]; then
				st=failed
			fi
			;;
		esac
		[[ $st == ok ]] || { ops="" ns=""; }
		get clat_p50_ns; p50=$REPLY
		get clat_p99_ns; p99=$REPLY
		echo "$v,$s,$w,$r,$seed,$accel,$st,$ops,$ns,$unit,${p50/NA/},${p99/NA/},$wall,$raw"
		report+="    $v/$s/$r $w: $st${ops:+, $ops ops/s, $ns $unit/op}"$'\n'
	done >"$cell_tmp"
	# sink counts for states that run the audit record sink
	# (written every time: a --ran boot's raw dir may hold an older sink.txt)
	if ((${#sink[@]})); then printf '%s\n' "${sink[@]}"; fi >"$dir/$raw/sink.txt"
	if [[ -n $prof ]]; then
		"$LAB_ROOT/scripts/analysis/parse-profile.sh" "$dir/$raw/results.txt" |
			sed "s/^/$v,$s,/; s/^\([^,]*,[^,]*,[^,]*\),/\1,$r,/" >"$dir/cells/$v.$s.$r.profile"
	fi
	mv -T "$cell_tmp" "$cell"
	trap - EXIT
}
# get KEY: KEY's value in the current workload's line (REPLY; empty if none)
get() { if [[ " $line" =~ \ $1=([^ ]*) ]]; then REPLY=${BASH_REMATCH[1]}; else REPLY=""; fi; }
# info KEY: KEY's value in the boot's boot.info (REPLY; empty if none), no fork
info() {
	local l
	REPLY=""
	[[ -f $dir/$raw/boot.info ]] || return 0
	while IFS= read -r l; do [[ $l != "$1="* ]] || REPLY=${l#"$1="}; done <"$dir/$raw/boot.info"
}

if [[ ${1:-} == --batch ]]; then
	(($# == 3)) || die_usage "usage: matrix-cell.sh --batch RUN_DIR LIST"
	dir=$2 list=$3
	[[ -d $dir/cells && -f $list ]] || die_usage "matrix-cell --batch: no $dir/cells or no list '$list'"
	blist=$dir/.restore.$$
	declare -A spec=()
	raws=() baccel=""
	while read -r v s r seed wl prof accel runtime unit; do
		[[ -n $unit ]] || die_usage "matrix-cell --batch: a line of $list is not VARIANT STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT"
		[[ ${baccel:=$accel} == "$accel" ]] || die_usage "matrix-cell --batch: the boots of $list have two accelerators ($baccel, $accel)"
		spec[$dir/raw/$v.$s.r$r]="$v $s $r $seed $wl $prof $accel $runtime $unit"
		raws+=("$dir/raw/$v.$s.r$r")
		echo "$dir/raw/$v.$s.r$r $seed $runtime $wl $prof ${v%-aa} $s"
	done <"$list" >"$blist"
	((${#raws[@]})) || { rm -f "$blist"; exit 0; }
	rm -rf "${raws[@]}"
	mapfile -t restored < <(LAB_BOOT_PREBUILT=1 "$LAB_ROOT/guest/boot.sh" --accel "$baccel" --restore-batch "$blist" || true)
	rm -f "$blist"
	((${#restored[@]})) || exit 0
	res=()
	for o in "${restored[@]}"; do res+=("$o/results.txt"); done
	# the parsed lines of every restored boot, after "@@file PATH" lines
	declare -A parsed_of=()
	f=""
	while IFS= read -r l; do
		if [[ $l == "@@file "* ]]; then f=${l#@@file }; parsed_of[$f]=""; continue; fi
		parsed_of[$f]+=$l$'\n'
	done < <("$LAB_ROOT/scripts/analysis/parse-results.sh" --each "${res[@]}")
	for o in "${restored[@]}"; do
		read -r v s r seed wl prof accel runtime unit <<<"${spec[$o]}"
		[[ $prof != - ]] || prof=""
		raw=raw/$v.$s.r$r
		: >"$dir/$raw/boot.stderr"
		info status
		boot_status=${REPLY:-boot-error}
		info wall_secs
		wall=${REPLY:-0}
		parsed=${parsed_of[$o/results.txt]-}
		parsed=${parsed%$'\n'}
		write_cell
		echo "$v $s $r"
	done
	exit 0
fi

(($# == 10)) || die_usage "usage: matrix-cell.sh RUN_DIR VARIANT STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT"
dir=$1 v=$2 s=$3 r=$4 seed=$5 wl=$6 prof=$7 accel=$8 runtime=$9 unit=${10}
raw=raw/$v.$s.r$r

ran=()
if [[ ${LAB_CELL_RAN:-0} == 1 ]]; then ran=(--ran); else rm -rf "${dir:?}/$raw"; fi
mkdir -p "$dir/$raw"
boot_status=ok
# boot.sh dies with this script (parent-death signal), and QEMU with boot.sh
setpriv --pdeathsig KILL "$LAB_ROOT/guest/boot.sh" "${ran[@]}" --accel "$accel" --seed "$seed" --runtime "$runtime" \
	--workloads "$wl" ${prof:+--profile "$prof"} --out "$dir/$raw" "${v%-aa}" "$s" 2>"$dir/$raw/boot.stderr" ||
	{ info status; boot_status=${REPLY:-boot-error}; }
info wall_secs
wall=${REPLY:-0}
parsed=$("$LAB_ROOT/scripts/analysis/parse-results.sh" "$dir/$raw/results.txt" 2>/dev/null || true)
write_cell
# one write, so lines of boots that end together do not interleave
printf '  done %s / %s / rep %s: %s, %ss wall\n%s' "$v" "$s" "$r" "$boot_status" "$wall" "$report" >&2
