#!/bin/bash
# matrix-cell.sh RUN_DIR VARIANT STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT:
# boot one guest of a matrix run and write its cells: RUN_DIR/cells/V.S.R.csv
# (one row per workload, written last and atomically, so a file there means
# the boot is done), .profile for profiled boots, and raw/V.S.rR/ with the
# serial logs and sink counts. A guest that panics, warns, hangs or dies fails
# its own rows, never the caller. Prints one block of lines when done.
# LAB_CELL_RAN=1: the boot already ran on a worker host (lib/remote.sh) and
# raw/V.S.rR holds its outputs: only classify (guest/boot.sh --ran) and parse.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

(($# == 10)) || die_usage "usage: matrix-cell.sh RUN_DIR VARIANT STATE REP SEED WORKLOADS PROFILE ACCEL RUNTIME UNIT"
dir=$1 v=$2 s=$3 r=$4 seed=$5 wl=$6 prof=$7 accel=$8 runtime=$9 unit=${10}
cell=$dir/cells/$v.$s.$r.csv
raw=raw/$v.$s.r$r

ran=()
if [[ ${LAB_CELL_RAN:-0} == 1 ]]; then ran=(--ran); else rm -rf "${dir:?}/$raw"; fi
mkdir -p "$dir/$raw"
boot_status=ok
# boot.sh dies with this script (parent-death signal), and QEMU with boot.sh
setpriv --pdeathsig KILL "$LAB_ROOT/guest/boot.sh" "${ran[@]}" --accel "$accel" --seed "$seed" --runtime "$runtime" \
	--workloads "$wl" ${prof:+--profile "$prof"} --out "$dir/$raw" "${v%-aa}" "$s" 2>"$dir/$raw/boot.stderr" ||
	boot_status=$(sed -n 's/^status=//p' "$dir/$raw/boot.info" 2>/dev/null || echo boot-error)
wall=$(sed -n 's/^wall_secs=//p' "$dir/$raw/boot.info" 2>/dev/null || echo 0)
parsed=$("$LAB_ROOT/scripts/analysis/parse-results.sh" "$dir/$raw/results.txt" 2>/dev/null || true)
report=""
# the rows go to a temp file moved into place: a failed write (a full disk)
# leaves no partial cell and no temp file behind
cell_tmp=$(mktemp "$dir/cells/.$v.$s.$r.csv.XXXXXX") || die "cannot create a file in $dir/cells$(df_free "$dir/cells")"
trap 'rm -f "$cell_tmp"' EXIT
# the parsed lines by workload (the first line of each), read without a fork
# per field: a warm rerun restores hundreds of boots through here
declare -A lines=()
sink=()
while IFS= read -r l; do
	[[ $l != "sink_line "* ]] || sink+=("${l#sink_line }")
	[[ $l == workload=* ]] || continue
	l1=${l%% *}
	[[ -n ${lines[${l1#workload=}]+x} ]] || lines[${l1#workload=}]=$l
done <<<"$parsed"
# get KEY: KEY's value in the current workload's line (REPLY; empty if none)
get() { if [[ " $line" =~ \ $1=([^ ]*) ]]; then REPLY=${BASH_REMATCH[1]}; else REPLY=""; fi; }
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
# one write, so lines of boots that end together do not interleave
printf '  done %s / %s / rep %s: %s, %ss wall\n%s' "$v" "$s" "$r" "$boot_status" "$wall" "$report" >&2
