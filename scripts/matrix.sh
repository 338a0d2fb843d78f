#!/bin/bash
# matrix.sh [options]: run variants x states x workloads x reps into
# results/<run-id>/. One guest boot per (variant, state, rep) runs all the
# workloads; every finished boot's cells are written at once, so --resume can
# pick up a killed run. A variant named X-aa is kernel X measured again with
# other layout seeds: the A/A control whose "overhead" is the noise floor.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

variants="" states="" workloads="" reps="" runtime="" accel=auto resume="" run_id="" quick=0 profile=""
results_root=${LAB_RESULTS:-$LAB_ROOT/results}
while (($#)); do
	case $1 in
	--quick) quick=1; shift ;;
	--variants) variants=$2; shift 2 ;;
	--states) states=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--resume) resume=$2; shift 2 ;;
	--run-id) run_id=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	*) die_usage "matrix: unknown option '$1' (see ./run.sh help)" ;;
	esac
done

if [[ -n $resume ]]; then
	dir=$results_root/$resume
	[[ -f $dir/matrix.conf ]] || die_usage "matrix --resume: $dir/matrix.conf not found; give a run id from results/"
	# shellcheck source=/dev/null
	. "$dir/matrix.conf"
else
	# an empty workload list means: each state's own STATE_WORKLOADS
	if ((quick)); then
		: "${variants:=upstream,rfc}" "${states:=off,idle}" "${workloads:=randread-qd128}" "${reps:=1}" "${runtime:=5}" "${profile:=none}"
	else
		: "${variants:=$(cat "$LAB_ROOT/workloads/matrix.variants")}" "${states:=$(known_states | paste -sd,)}"
		: "${reps:=3}" "${runtime:=1}" "${profile:=randread-qd128,bench-nop}"
	fi
fi
[[ $reps =~ ^[1-9][0-9]*$ ]] || die_usage "--reps must be a positive whole number (got '$reps')"
[[ $runtime =~ ^[1-9][0-9]*$ ]] || die_usage "--runtime must be a positive number of guest seconds (got '$runtime')"
for v in ${variants//,/ }; do check_variant "${v%-aa}"; done
for s in ${states//,/ }; do check_state "$s"; done
for w in ${workloads//,/ }; do check_workload "$w"; done
[[ $profile == none ]] || for w in ${profile//,/ }; do check_workload "$w"; done

if [[ -z $resume ]]; then
	accel=$("$LAB_ROOT/guest/accel.sh" "$accel")
	run_id=${run_id:-$(date +%Y%m%d-%H%M%S)-$accel}
	dir=$results_root/$run_id
	[[ -e $dir ]] && die_usage "results dir $dir already exists; pick another --run-id or use --resume $run_id"
	mkdir -p "$dir/cells" "$dir/raw"
	printf 'variants=%s\nstates=%s\nworkloads=%s\nreps=%s\nruntime=%s\naccel=%s\nprofile=%s\n' \
		"$variants" "$states" "$workloads" "$reps" "$runtime" "$accel" "$profile" >"$dir/matrix.conf"
fi
log "matrix: run $(basename "$dir") on $accel: variants=$variants states=$states workloads=${workloads:-per state} reps=$reps runtime=${runtime}s profile=$profile"

# state_workloads STATE: the workloads a boot in STATE runs
state_workloads() {
	if [[ -n $workloads ]]; then echo "$workloads"; return; fi
	local wl
	# shellcheck source=/dev/null
	wl=$(. "$LAB_ROOT/workloads/states/$1.state" && echo "${STATE_WORKLOADS:-}")
	echo "${wl:-$(known_workloads | paste -sd,)}"
}
# the profiled passes run in rep 1 of the states where hooks are live
profile_for() {
	[[ $profile != none && $2 == 1 && ( $1 == idle || $1 == uring-hit ) ]] || return 0
	local w out=()
	for w in ${profile//,/ }; do [[ ,$(state_workloads "$1"), == *,$w,* ]] && out+=("$w"); done
	(IFS=,; echo "${out[*]}")
}

# builds first, so boots never wait on a compiler
kernels=$(tr ',' '\n' <<<"$variants" | sed 's/-aa$//' | awk '!seen[$0]++')
nk=$(wc -w <<<"$kernels")
start=$(now)
i=0
for k in $kernels; do
	i=$((i + 1))
	progress "$i" "$nk" "$start" "kernel $k"
	"$LAB_ROOT/kernel/build.sh" "$k"
done
"$LAB_ROOT/guest/build-initramfs.sh" >/dev/null
all_wl=$(for s in ${states//,/ }; do state_workloads "$s" | tr ',' '\n'; done | awk '!seen[$0]++' | paste -sd,)
"$LAB_ROOT/scripts/manifest.sh" "$dir" "$accel" "$runtime" "$reps" "$variants" "$states" "$all_wl"

# shellcheck source=/dev/null
needs_audit() { (. "$LAB_ROOT/workloads/states/$1.state" && echo "$STATE_NEEDS_AUDIT"); }
has_audit() { ! grep -q '^# CONFIG_AUDIT is not set' "$(build_of "${1%-aa}")/.config"; }
unit=$([[ $accel == tcg ]] && echo instructions || echo ns)
header="variant,state,workload,rep,seed,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit,clat_p50_ns,clat_p99_ns,wall_secs,raw"

# boots in rep-major order, so a drift over the run spreads over all variants
boots=()
for r in $(seq "$reps"); do
	for v in ${variants//,/ }; do
		for s in ${states//,/ }; do boots+=("$v $s $r"); done
	done
done
total=${#boots[@]}
done_before=0
for b in "${boots[@]}"; do
	read -r v s r <<<"$b"
	[[ -f $dir/cells/$v.$s.$r.csv ]] && done_before=$((done_before + 1))
done
((done_before)) && log "matrix: resuming: $done_before of $total boots already done, $((total - done_before)) to run"

# write_run_csvs: cells.csv (and profile.csv) from the per-boot files, in boot
# order; called after every boot, so a killed run leaves a current cells.csv
write_run_csvs() {
	local bb bv bs br
	{
		echo "$header"
		for bb in "${boots[@]}"; do
			read -r bv bs br <<<"$bb"
			[[ -f $dir/cells/$bv.$bs.$br.csv ]] && cat "$dir/cells/$bv.$bs.$br.csv"
		done
	} >"$dir/cells.csv.tmp"
	mv "$dir/cells.csv.tmp" "$dir/cells.csv"
	if compgen -G "$dir/cells/*.profile" >/dev/null; then
		{
			echo "variant,state,workload,rep,function,hits,total_ns,avg_ns,perf_share_pct"
			cat "$dir"/cells/*.profile
		} >"$dir/profile.csv.tmp"
		mv "$dir/profile.csv.tmp" "$dir/profile.csv"
	fi
}

start=$(now)
n=0 ran=0 failed=0
for b in "${boots[@]}"; do
	read -r v s r <<<"$b"
	n=$((n + 1))
	cell=$dir/cells/$v.$s.$r.csv
	[[ -f $cell ]] && continue
	seed=$r
	[[ $v == *-aa ]] && seed=$((1000 + r))
	raw=raw/$v.$s.r$r
	wl=$(state_workloads "$s")
	prof=$(profile_for "$s" "$r")
	if [[ $(needs_audit "$s") == 1 ]] && ! has_audit "$v"; then
		for w in ${wl//,/ }; do
			echo "$v,$s,$w,$r,$seed,$accel,n/a,,,$unit,,,0,"
		done >"$cell.tmp"
		mv "$cell.tmp" "$cell"
		continue
	fi
	if ((ran > 0)); then
		el=$(($(now) - start))
		eta=", ETA $(fmt_secs $((el * (total - n + 1) / ran)))"
	else
		eta=""
	fi
	log "[$n/$total] boot $v / $s / rep $r (seed $seed; elapsed $(fmt_secs $(($(now) - start)))$eta)"
	rm -rf "${dir:?}/$raw"
	boot_status=ok
	"$LAB_ROOT/guest/boot.sh" --accel "$accel" --seed "$seed" --runtime "$runtime" \
		--workloads "$wl" ${prof:+--profile "$prof"} --out "$dir/$raw" "${v%-aa}" "$s" || boot_status=$(sed -n 's/^status=//p' "$dir/$raw/boot.info" 2>/dev/null || echo boot-error)
	ran=$((ran + 1))
	wall=$(sed -n 's/^wall_secs=//p' "$dir/$raw/boot.info" 2>/dev/null || echo 0)
	parsed=$("$LAB_ROOT/scripts/parse-results.sh" "$dir/$raw/results.txt" 2>/dev/null || true)
	for w in ${wl//,/ }; do
		line=$(grep "^workload=$w " <<<"$parsed" | head -1 || true)
		get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
		ops=$(get ops_per_sec) ns=$(get ns_per_op) rc=$(get rc)
		st=ok
		case $boot_status in
		panic | kernel-warning | guest-error) st=$boot_status ;;
		*)
			if [[ -z $line ]]; then st=${boot_status/ok/missing}
			elif [[ $rc != 0 || $ops == NA ]]; then st=failed; fi
			;;
		esac
		[[ $st == ok ]] || { ops="" ns=""; failed=$((failed + 1)); }
		p50=$(get clat_p50_ns) p99=$(get clat_p99_ns)
		echo "$v,$s,$w,$r,$seed,$accel,$st,$ops,$ns,$unit,${p50/NA/},${p99/NA/},$wall,$raw"
		log "    $w: $st${ops:+, $ops ops/s, $ns $unit/op} (${wall}s wall)"
	done >"$cell.tmp"
	# sink counts for states that run the audit record sink
	grep '^sink_line ' <<<"$parsed" | sed 's/^sink_line //' >"$dir/$raw/sink.txt" || true
	if [[ -n $prof ]]; then
		"$LAB_ROOT/scripts/parse-profile.sh" "$dir/$raw/results.txt" | sed "s/^/$v,$s,/; s/^\([^,]*,[^,]*,[^,]*\),/\1,$r,/" >"$dir/cells/$v.$s.$r.profile"
	fi
	mv "$cell.tmp" "$cell"
	write_run_csvs
done
write_run_csvs
log "matrix: $(basename "$dir"): $ran boots run in $(fmt_secs $(($(now) - start))), $done_before reused, $failed failed cells"
# summaries, figures and the report are always recomputed from the cells
run=$(basename "$dir")
if "$LAB_ROOT/scripts/summary.sh" "$run"; then
	"$LAB_ROOT/scripts/plots.sh" "$run" || log "matrix: plots failed (summary.csv is intact)"
	"$LAB_ROOT/scripts/report.sh" "$run" || log "matrix: report failed (summary.csv is intact)"
else
	log "matrix: summary failed (cells.csv is intact)"
fi
log "matrix: results in $dir"
((failed == 0))
