#!/bin/bash
# matrix.sh [options]: run variants x states x workloads x reps into
# results/<run-id>/. One guest boot per (variant, state, rep) runs all the
# workloads; every finished boot's cells are written at once, so --resume can
# pick up a killed run. A variant named X-aa is kernel X measured again with
# other layout seeds: the A/A control whose "overhead" is the noise floor.
# --bases B1,B2 runs the variants' designs ported to each base tree, with
# each base's own baseline and A/A control (lib/catalog.sh variants_for_bases).
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

slurm="" sbatch="" hosts="" boot_jobs="" seed_base="" variants="" states="" workloads="" reps="" runtime="" accel=auto resume="" run_id="" quick=0 profile="" verify="" cells_only=0 bases=""
results_root=${LAB_RESULTS:-$LAB_ROOT/results}
while (($#)); do
	case $1 in
	--quick) quick=1; shift ;;
	# timed cells and summary.csv only: no attribution boots, plots or report (run.sh try)
	--cells-only) cells_only=1; shift ;;
	# sbatch's own options start with --: taken as they are (checked below)
	--sbatch) (($# >= 2)) || die_usage "matrix: --sbatch needs a value (see ./run.sh help)"; sbatch=$2; shift 2 ;;
	--variants | --states | --workloads | --reps | --runtime | --accel | --resume | --run-id | --profile | --jobs | --hosts | --slurm | --seed-base | --verify | --bases)
		need_value "$@"
		v=$2
		case $1 in
		--variants) variants=$v ;; --states) states=$v ;; --workloads) workloads=$v ;;
		--reps) reps=$v ;; --runtime) runtime=$v ;; --accel) accel=$v ;; --resume) resume=$v ;;
		--run-id) run_id=$v ;; --profile) profile=$v ;; --jobs) boot_jobs=$v ;; --hosts) hosts=$v ;;
		--slurm) slurm=$v ;; --seed-base) seed_base=$v ;; --verify) verify=$v ;; --bases) bases=$v ;;
		esac
		shift 2
		;;
	*) die_usage "matrix: unknown option '$1' (see ./run.sh help)" ;;
	esac
done
# everything is checked before anything is created (and, under
# LAB_CHECK_ARGS=1, which run.sh uses before setup, nothing else is done)
[[ -z $boot_jobs ]] || check_number jobs "$boot_jobs"
[[ -z $run_id ]] || check_name run-id "$run_id"
check_accel "$accel" auto
[[ -z $seed_base ]] || check_number seed-base "$seed_base"
[[ -z $seed_base || -z $resume ]] || die_usage "matrix: --seed-base with --resume: a resumed run keeps the seeds in its matrix.conf"
[[ -z $hosts || -z $slurm ]] || die_usage "matrix: --hosts and --slurm exclude each other"
[[ -z $sbatch || -n $slurm ]] || die_usage "matrix: --sbatch needs --slurm SHARED_DIR"
[[ $sbatch =~ ^[A-Za-z0-9=,:/._\ -]*$ ]] || die_usage "matrix: --sbatch takes sbatch options as plain words (letters, digits, =,:/._-)"
if [[ -n $hosts || -n $slurm ]]; then
	# shellcheck source=../../lib/hosts.sh
	. "$LAB_ROOT/lib/hosts.sh"
	# shellcheck source=../../lib/remote.sh
	. "$LAB_ROOT/lib/remote.sh"
	if [[ -n $hosts ]]; then
		host_lines "$hosts" >/dev/null
		hosts=$(realpath "$hosts")
	fi
fi
# --verify P: every boot whose cell is stored is rerun with probability P and
# compared byte for byte with the stored cell (guest/boot.sh, lib/cellstore.sh)
if [[ -n $verify ]]; then
	[[ $verify =~ ^(0(\.[0-9]+)?|1(\.0*)?|\.[0-9]+)$ ]] || die_usage "--verify takes a share of the stored cells to rerun, 0 to 1 (got '$verify')"
	[[ ${LAB_NO_CELL_STORE:-0} != 1 ]] || die_usage "--verify needs the cell store, and LAB_NO_CELL_STORE=1 turns it off"
	export LAB_CELL_VERIFY=$verify
fi

# lock_run DIR: hold DIR/.lock (flock) for as long as the matrix or any guest
# it started lives (the descriptor is inherited); a second matrix, or a
# --resume while an owner is alive, is refused
lock_run() {
	exec 7>>"$1/.lock"
	flock -n 7 || die "results dir $1 is in use by a running matrix or its guests (flock $1/.lock); wait for it to end, or stop it first"
}

if [[ -n $resume ]]; then
	[[ -z $variants$states$workloads$reps$runtime$profile$run_id$bases && $quick == 0 ]] ||
		die_usage "matrix --resume RUN takes the run's own matrix.conf: no other option than --jobs and --accel"
	dir=$(results_dir "$resume")
	[[ -f $dir/matrix.conf ]] || die_usage "matrix --resume: $dir/matrix.conf not found; give a run id from results/"
	# a published or committed run is read-only: refused before any byte changes
	if why=$(run_read_only "$dir"); then
		die_usage "matrix --resume: $resume is read-only ($why); start a new run instead"
	fi
	read_matrix_conf "$dir/matrix.conf"
	[[ ${LAB_CHECK_ARGS:-0} == 1 ]] && exit 0
	lock_run "$dir"
else
	# an empty workload list means: each state's own STATE_WORKLOADS
	if ((quick)); then
		: "${variants:=upstream,rfc}" "${states:=off,idle}" "${workloads:=randread-qd128}" "${reps:=1}" "${runtime:=5}" "${profile:=none}"
	else
		: "${variants:=$(cat "$LAB_ROOT/workloads/matrix.variants")}" "${states:=$(known_states | paste -sd,)}"
		: "${reps:=3}" "${runtime:=1}" "${profile:=randread-qd128,bench-nop}"
	fi
	: "${seed_base:=0}"
fi
check_number reps "$reps"
check_number runtime "$runtime"
check_list variant "$variants"
check_list state "$states"
[[ -z $workloads ]] || check_list workload "$workloads"
[[ $profile == none ]] || check_list workload "$profile"
for v in ${variants//,/ }; do check_variant "${v%-aa}"; done
# --bases (bases= in matrix.conf): each base's ports of the variants' designs
# and its baseline; without it, the bases of the variants as given
if [[ -n $bases && -z $resume ]]; then
	check_bases "$bases"
	# (which designs have no port on a base is said once, not in the argument check too)
	if [[ ${LAB_CHECK_ARGS:-0} == 1 ]]; then variants=$(variants_for_bases "$bases" "$variants" 2>/dev/null); else variants=$(variants_for_bases "$bases" "$variants"); fi
	[[ -n $variants ]] || die_usage "matrix --bases $bases: no variant to run"
fi
bases=${bases:-$(bases_of "$variants")}
for s in ${states//,/ }; do check_state "$s"; done
for w in ${workloads//,/ }; do check_workload "$w"; done
[[ $profile == none ]] || for w in ${profile//,/ }; do check_workload "$w"; done
[[ ${LAB_CHECK_ARGS:-0} == 1 ]] && exit 0

if [[ -z $resume ]]; then
	accel=$("$LAB_ROOT/guest/accel.sh" "$accel")
	# a cell is the same bytes on another host only where guest time is an
	# instruction count; KVM's wall-clock ns belong to the host that ran them
	[[ -z $hosts$slurm || $accel == tcg ]] || die_usage "matrix --hosts/--slurm: needs --accel tcg (under $accel a cell's figures depend on the host that ran it)"
	run_id=${run_id:-$(date +%Y%m%d-%H%M%S)-$accel}
	dir=$(results_dir "$run_id")
	mkdir -p "$results_root"
	# mkdir is the claim: atomic, so of two matrices with one run id only one wins
	if ! mkdir "$dir" 2>/dev/null; then
		[[ -e $dir ]] && die_usage "results dir $dir already exists; pick another --run-id or use --resume $run_id"
		die "matrix: cannot create $dir$(df_free "$results_root")"
	fi
	lock_run "$dir"
	mkdir -p "$dir/cells" "$dir/raw"
	# a failed write (a full disk) removes the claim again: no run dir with
	# an empty matrix.conf is left to block the run id
	conf() {
		printf 'variants=%s\nstates=%s\nworkloads=%s\nreps=%s\nruntime=%s\naccel=%s\nprofile=%s\nseed_base=%s\nbases=%s\n' \
			"$variants" "$states" "$workloads" "$reps" "$runtime" "$accel" "$profile" "$seed_base" "$bases"
	}
	trap 'rm -rf "$dir"' EXIT
	save "$dir/matrix.conf" conf
	trap - EXIT
fi
# seed_of VARIANT REP: rep r boots with seed seed_base + r; the A/A control
# with seed_base + 1000 + r. A rerun with another --seed-base samples new seeds
# (rerun-check refuses to call two runs with shared seeds independent).
seed_of() { run_seed "$seed_base" "$@"; }
log "matrix: run $(basename "$dir") on $accel: bases=$bases variants=$variants states=$states workloads=${workloads:-per state} reps=$reps runtime=${runtime}s profile=$profile seeds=$(seed_of x 1)..$(seed_of x "$reps")"

# state_workloads STATE: the workloads a boot in STATE runs
state_workloads() { run_state_workloads "$workloads" "$1"; }
# the profiled passes run in rep 1 of the states where hooks are live
profile_for() {
	[[ $profile != none && $2 == 1 && ( $1 == idle || $1 == uring-hit ) ]] || return 0
	local w out=()
	for w in ${profile//,/ }; do [[ ,$(state_workloads "$1"), == *,$w,* ]] && out+=("$w"); done
	(IFS=,; echo "${out[*]}")
}

# How many guests at once, and whether they may run while kernels build.
# Under tcg-icount guest time is a count of executed instructions and the RTC
# is pinned to the virtual clock, so a busy host moves no figure: the same
# boot alone, next to a second guest, or beside a build gives bit-identical
# results (tests/52-parallel-determinism.sh checks it). There guests run
# nproc at a time and start as soon as their kernel is built. Under KVM the
# figures are wall-clock ns that a neighbour would move, so every kernel is
# built first and one guest runs at a time, whatever --jobs says: the one
# real-time path (lib/common.sh accel_realtime), for kvm and tcg-wall alike.
if accel_realtime "$accel"; then
	[[ ${boot_jobs:-1} == 1 ]] || log "matrix: --jobs $boot_jobs ignored: under $accel (real time) one guest runs at a time"
	boot_jobs=1 overlap=0
	((reps >= 10)) || log "matrix: under $accel (real time) a cell's figure is the median with a bootstrap CI only at --reps 10 or more; at $reps it has the range"
else
	boot_jobs=${boot_jobs:-$LAB_JOBS} overlap=1
fi

unit=$(accel_unit "$accel")
header="variant,state,workload,rep,seed,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit,clat_p50_ns,clat_p99_ns,wall_secs,raw"

# boots in rep-major order, so a drift over the run spreads over all
# variants; interleaved (lib/common.sh boot_order) under real time: rep r
# starts the variant list r-1 places on, so no variant is always first
boots=()
read -ra vlist <<<"${variants//,/ }"
for r in $(seq "$reps"); do
	rot=0
	[[ $(boot_order "$accel") == interleaved ]] && rot=$(((r - 1) % ${#vlist[@]}))
	for v in "${vlist[@]:rot}" "${vlist[@]:0:rot}"; do
		for s in ${states//,/ }; do boots+=("$v $s $r"); done
	done
done
# the attribution boots (scripts/run/attribute.sh --plan: one per variant x state
# running a headline uring-bench workload, under tcg only) are boots of the
# same plan, "V S attrib", run by the same loop with the same progress line;
# their rows are assembled into attribution.csv at the end
declare -A attrib_wl=()
if ((!cells_only)); then
	while read -r v s wl; do
		boots+=("$v $s attrib")
		attrib_wl[$v.$s]=$wl
	done < <("$LAB_ROOT/scripts/run/attribute.sh" --plan "$dir")
	# the record-stream proof (scripts/proof/stream-proofs.sh --plan: a run
	# with the smack state boots each design and baseline, and each base's
	# reference, with guest/scripts/stream-proof.sh), "V smack proof"
	while read -r v; do boots+=("$v smack proof"); done < <("$LAB_ROOT/scripts/proof/stream-proofs.sh" --plan "$dir")
fi
total=${#boots[@]}
done_before=0
declare -A boot_state=() # index -> pending|running|finished
# a committed run has cells.csv but no cells/: its boots' files are rebuilt
# from cells.csv, so --resume keeps every recorded cell and runs the rest
mkdir -p "$dir/cells" "$dir/raw"
if [[ -f $dir/cells.csv ]] && ! compgen -G "$dir/cells/*.csv" >/dev/null; then
	# rows are data: a row whose variant, state or rep is not a name or a
	# number of this run (a path, say) stops the resume before any write
	bad=$(awk -F, -v vs=",$variants," -v ss=",$states," 'NR > 1 && (NF == 14 || NF == 15) &&
		!(index(vs, "," $1 ",") && index(ss, "," $2 ",") && $1 ~ /^[a-z0-9][a-z0-9-]*$/ && $2 ~ /^[a-z0-9][a-z0-9-]*$/ && $4 ~ /^[1-9][0-9]*$/) { print NR ": " $0; exit }' "$dir/cells.csv")
	[[ -z $bad ]] || die "matrix --resume: $dir/cells.csv row $bad: not a cell of this run (variant, state and rep must be the run's names and a number)"
	# (a 15th field is the base column cells_csv adds: not a boot's own)
	awk -F, -v OFS=, -v d="$dir/cells" 'NR > 1 && (NF == 14 || NF == 15) { NF = 14; f = d "/" $1 "." $2 "." $4 ".csv.tmp"; print > f }' "$dir/cells.csv"
	for f in "$dir"/cells/*.csv.tmp; do [[ -f $f ]] && mv "$f" "${f%.tmp}"; done
	log "matrix: $dir has no cells/: rebuilt $(find "$dir/cells" -name '*.csv' | wc -l) boots' cells from cells.csv"
fi
# cell_complete V S R: the boot's file has one 14-field row per workload it
# runs, naming that boot; anything else (a truncated file) is not done
cell_complete() {
	local f=$dir/cells/$1.$2.$3.csv want
	[[ -f $f ]] || return 1
	want=$(state_workloads "$2" | tr ',' '\n' | grep -c .)
	awk -F, -v v="$1" -v s="$2" -v r="$3" -v want="$want" '
		NF != 14 || $1 != v || $2 != s || $4 != r || $7 == "" { bad = 1 }
		END { exit bad || NR != want }' "$f"
}
for i in "${!boots[@]}"; do
	read -r v s r <<<"${boots[$i]}"
	if [[ $r == attrib ]]; then
		# (an attribution boot is done when its rows are: attribute.sh --cell)
		if [[ -f $dir/attribution/$v.$s.csv ]]; then boot_state[$i]=finished done_before=$((done_before + 1)); else boot_state[$i]=pending; fi
		continue
	fi
	if [[ $r == proof ]]; then
		if "$LAB_ROOT/scripts/proof/stream-proofs.sh" --done "$dir" "$v"; then boot_state[$i]=finished done_before=$((done_before + 1)); else boot_state[$i]=pending; fi
		continue
	fi
	if [[ -f $dir/cells/$v.$s.$r.csv ]] && ! cell_complete "$v" "$s" "$r"; then
		log "matrix: $dir/cells/$v.$s.$r.csv is incomplete; that boot runs again"
		rm -f "$dir/cells/$v.$s.$r.csv"
	fi
	# a failure the host caused (QEMU killed, past its deadline, or not
	# starting) says nothing about the kernel: --resume retries that boot
	if [[ -f $dir/cells/$v.$s.$r.csv && -n $(host_failed "$dir/cells/$v.$s.$r.csv") ]]; then
		log "matrix: boot $v / $s / rep $r failed on the host's side ($(awk -F, '{ print $7; exit }' "$dir/cells/$v.$s.$r.csv")); it runs again"
		rm -f "$dir/cells/$v.$s.$r.csv"
	fi
	if [[ -f $dir/cells/$v.$s.$r.csv ]]; then
		done_before=$((done_before + 1))
		boot_state[$i]=finished
	else
		boot_state[$i]=pending
	fi
done
# boots of states a kernel cannot have (audit rules without audit) are n/a
# (their files written by one awk, not a process or three each: a file cut
# short by a kill is incomplete, and cell_complete has it written again)
n_na=0 na_specs=()
declare -A na_wl=()
for i in "${!boots[@]}"; do
	[[ ${boot_state[$i]} == pending ]] || continue
	read -r v s r <<<"${boots[$i]}"
	if [[ $r == attrib || $r == proof ]] || ! cell_na "$v" "$s"; then continue; fi
	[[ -n ${na_wl[$s]+x} ]] || na_wl[$s]=$(state_workloads "$s")
	na_specs+=("$v $s $r $(seed_of "$v" "$r") ${na_wl[$s]}")
	boot_state[$i]=finished
	n_na=$((n_na + 1))
done
if ((n_na)); then
	printf '%s\n' "${na_specs[@]}" | awk -v d="$dir/cells" -v accel="$accel" -v unit="$unit" '{
		f = d "/" $1 "." $2 "." $3 ".csv"; n = split($5, w, ",")
		for (i = 1; i <= n; i++) printf "%s,%s,%s,%s,%s,%s,n/a,,,%s,,,0,\n", $1, $2, w[i], $3, $4, accel, unit > f
		close(f)
	}' || die "matrix: writing the n/a cells in $dir/cells failed$(df_free "$dir/cells")"
fi
to_run=$((total - done_before - n_na))
((done_before)) && log "matrix: resuming: $done_before of $total boots already done, $((total - done_before)) to run"
log "matrix: $to_run guest boots to run ($n_na n/a), $boot_jobs at a time, $(boot_order "$accel") order$( ((overlap)) && echo ', booting each kernel as soon as it is built')"

# write_run_csvs: cells.csv (and profile.csv) from the per-boot files, in boot
# order; called after every boot, so a killed run leaves a current cells.csv.
# cells.csv adds a last column, base: the base tree of the row's variant.
declare -A base_of=()
for v in ${variants//,/ }; do base_of[$v]=$(variant_base "${v%-aa}"); done
# (one awk over the finished boots' files, in boot order: it runs after every
# boot, so a process per file would make a warm run quadratic)
cells_csv() {
	local bb bv bs br files=() map=""
	echo "$header,base"
	for bb in "${boots[@]}"; do
		read -r bv bs br <<<"$bb"
		if [[ -f $dir/cells/$bv.$bs.$br.csv ]]; then files+=("$dir/cells/$bv.$bs.$br.csv"); fi
	done
	((${#files[@]})) || return 0
	for bv in "${!base_of[@]}"; do map+="$bv=${base_of[$bv]} "; done
	# a cell row's first field is its variant
	awk -F, -v map="$map" 'BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) { split(m[i], kv, "="); b[kv[1]] = kv[2] } }
		{ print $0 "," b[$1] }' "${files[@]}"
}
profile_csv() {
	echo "variant,state,workload,rep,function,hits,total_ns,avg_ns,perf_share_pct"
	cat "$dir"/cells/*.profile
}
write_run_csvs() {
	save "$dir/cells.csv" cells_csv
	if compgen -G "$dir/cells/*.profile" >/dev/null; then
		save "$dir/profile.csv" profile_csv
	fi
}

# Builds and boots are background jobs, each in its own session (setsid) so
# that an interrupted matrix can stop a job with everything it started: by
# session, since timeout(1) moves QEMU into a process group of its own.
declare -A running_jobs=() kernel_ok=()
# kill_jobs: stop every job with its session and wait (up to 10 s) until none
# of their processes is left: nothing the matrix started outlives it. A job
# just forked may not have called setsid yet: it is signalled by pid too.
kill_jobs() {
	local pid n=50
	for pid in "${!running_jobs[@]}"; do
		pkill -TERM -s "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${!running_jobs[@]}"; do
		while ((n-- > 0)) && { pgrep -s "$pid" >/dev/null || kill -0 "$pid" 2>/dev/null; }; do
			sleep 0.2
			pkill -TERM -s "$pid" 2>/dev/null || true
		done
		pkill -KILL -s "$pid" 2>/dev/null || true
	done
}
trap 'kill_jobs' EXIT
trap 'log "matrix: interrupted; finished boots are kept, go on with --resume $(basename "$dir")"; exit 130' INT TERM

# (a proof boot's reference is built even when the run does not time it)
kernels=$({ tr ',' '\n' <<<"$variants"; for bb in "${boots[@]}"; do [[ $bb != *" proof" ]] || echo "${bb%% *}"; done; } | sed 's/-aa$//' | awk '!seen[$0]++')
mapfile -t build_queue <<<"$kernels"
nk=${#build_queue[@]} nb=0 building="" build_start=$(now)
start_next_build() {
	[[ -z $building ]] && ((${#build_queue[@]})) || return 0
	building=${build_queue[0]}
	build_queue=("${build_queue[@]:1}")
	nb=$((nb + 1))
	progress "$nb" "$nk" "$build_start" "kernel $building$( ((overlap)) && echo ' (in the background, niced)')"
	# shellcheck disable=SC2016 # $1..$3 belong to the inner bash
	# (the build does not hold the run's lock: it only fills the cache)
	# (parent-death signals: a SIGKILLed matrix takes the build with it, and
	# build.sh stops its make when it dies)
	setsid setpriv --pdeathsig KILL nice -n 10 bash -o pipefail -c 'setpriv --pdeathsig KILL "$1" "$2" 2>&1 | tee "$3" >&2' build \
		"$LAB_ROOT/kernel/build.sh" "$building" "$dir/raw/build-$building.log" 7>&- &
	running_jobs[$!]="build $building"
}
builds_done() { [[ -z $building ]] && ((${#build_queue[@]} == 0)); }

start_next_build
# the initramfs is built (or found current) once here, and every boot of the
# run takes it as it is (guest/boot.sh: LAB_BOOT_INITRD), as it takes a
# kernel the matrix built (LAB_BOOT_PREBUILT, set per boot below)
LAB_BOOT_INITRD=$("$LAB_ROOT/guest/build-initramfs.sh")
export LAB_BOOT_INITRD
all_wl=$(for s in ${states//,/ }; do state_workloads "$s" | tr ',' '\n'; done | awk '!seen[$0]++' | paste -sd,)
manifest_written=0
write_manifest() {
	((manifest_written)) && return 0
	"$LAB_ROOT/scripts/run/manifest.sh" "$dir" "$accel" "$runtime" "$reps" "$variants" "$states" "$all_wl" "$boot_jobs" "$seed_base"
	manifest_written=1
}

# --hosts: the boots still to run go to the worker hosts first (kernels and
# initramfs built here, one bundle per host, parallel over SSH; lib/remote.sh),
# their outputs come back into raw/ and matrix-cell.sh turns them into cells
# as for a local boot. A boot that failed on every host stays pending and
# runs here in the loop below.
remote_boots() {
	local i v s r seed wl prof k id cells=() rdir=$dir/remote ran_remote=0
	for k in $kernels; do
		log "matrix --hosts: kernel $k"
		"$LAB_ROOT/kernel/build.sh" "$k" >"$dir/raw/build-$k.log" 2>&1 || { log "matrix --hosts: kernel $k failed to build (log $dir/raw/build-$k.log); its boots stay here"; }
	done
	rm -rf "$rdir/plans" "$rdir/out" "$rdir/joblog"
	mkdir -p "$rdir/plans"
	for i in "${!boots[@]}"; do
		[[ ${boot_state[$i]} == pending ]] || continue
		read -r v s r <<<"${boots[$i]}"
		[[ $r != attrib && $r != proof ]] || continue # (attribution and proof boots run here: their output is not a timed cell's)
		seed=$(seed_of "$v" "$r") wl=$(state_workloads "$s") prof=$(profile_for "$s" "$r")
		"$LAB_ROOT/guest/boot.sh" --plan "$rdir/plans/$v.$s.$r" --accel "$accel" --seed "$seed" --runtime "$runtime" \
			--workloads "$wl" ${prof:+--profile "$prof"} --out "$dir/raw/$v.$s.r$r" "${v%-aa}" "$s" 2>/dev/null || continue
		cells+=("$v.$s.$r")
	done
	((${#cells[@]})) || return 0
	id=$(bundle_make "$rdir")
	log "matrix --hosts: ${#cells[@]} boots to dispatch, bundle $id ($(du -h "$rdir/bundle.tar" | cut -f1))"
	if [[ -n $slurm ]]; then
		local -a sopts
		read -r -a sopts <<<"$sbatch"
		slurm_dispatch "$rdir" "$slurm" "$id" "${cells[@]}" -- "${sopts[@]}" || true
	else
		remote_hosts "$rdir" "$hosts" || return 0
		remote_push "$rdir" "$id"
		remote_run "$rdir" "$id" "${LAB_REMOTE_RETRIES:-$(wc -l <"$rdir/sshlogins")}" "${cells[@]}" || true
	fi
	for i in "${!boots[@]}"; do
		[[ ${boot_state[$i]} == pending ]] || continue
		read -r v s r <<<"${boots[$i]}"
		grep -q "^$v\.$s\.$r," "$rdir/hosts.csv" 2>/dev/null || continue
		rm -rf "${dir:?}/raw/$v.$s.r$r"
		remote_collect "$rdir/out/$v.$s.$r" "$dir/raw/$v.$s.r$r" || continue
		LAB_CELL_RAN=1 "$LAB_ROOT/scripts/run/matrix-cell.sh" "$dir" "$v" "$s" "$r" "$(seed_of "$v" "$r")" "$(state_workloads "$s")" \
			"$(profile_for "$s" "$r")" "$accel" "$runtime" "$unit" || continue
		boot_state[$i]=finished
		ran_remote=$((ran_remote + 1))
	done
	write_run_csvs
	log "matrix --hosts: $ran_remote of ${#cells[@]} boots ran on the hosts (who ran what: $rdir/hosts.csv, joblog: $rdir/joblog)"
}

# start_boot INDEX: start the boot's guest as a job
nboots=0 first_boot_at=""
start_boot() {
	local i=$1 v s r seed wl prof el eta=""
	read -r v s r <<<"${boots[$i]}"
	boot_state[$i]=running
	# the ETA counts from the first boot: the wait for the first kernel is over by then
	first_boot_at=${first_boot_at:-$(now)}
	el=$(($(now) - first_boot_at))
	((ran > 0)) && eta=", ETA $(fmt_secs $((el * (to_run - ran) / ran)))"
	local cmd
	if [[ $r == attrib ]]; then
		wl=${attrib_wl[$v.$s]}
		log "[$((ran + nboots + 1))/$to_run] attribution boot $v / $s ($wl; plugin, nokaslr, seed 1; elapsed $(fmt_secs "$el")$eta)"
		cmd=("$LAB_ROOT/scripts/run/attribute.sh" --cell "$dir" "$v" "$s" "$wl")
	elif [[ $r == proof ]]; then
		log "[$((ran + nboots + 1))/$to_run] proof boot $v / smack (record stream, every scenario; elapsed $(fmt_secs "$el")$eta)"
		cmd=("$LAB_ROOT/scripts/proof/stream-proofs.sh" --cell "$dir" "$v")
	else
		seed=$(seed_of "$v" "$r")
		wl=$(state_workloads "$s")
		prof=$(profile_for "$s" "$r")
		log "[$((ran + nboots + 1))/$to_run] $( ((r > reps)) && echo 'adaptive ')boot $v / $s / rep $r (seed $seed; elapsed $(fmt_secs "$el")$eta)"
		cmd=("$LAB_ROOT/scripts/run/matrix-cell.sh" "$dir" "$v" "$s" "$r" "$seed" "$wl" "$prof" "$accel" "$runtime" "$unit")
	fi
	# the boot dies with the matrix, even a SIGKILLed one (parent-death signal);
	# its guest dies with it in turn (see guest/boot.sh)
	LAB_BOOT_PREBUILT=1 setsid setpriv --pdeathsig KILL "${cmd[@]}" &
	running_jobs[$!]="boot $i"
	nboots=$((nboots + 1))
}

# Restoring from the cell store: the pending timed and attribution boots whose
# kernel is built go to one process per kind and batch (matrix-cell.sh
# --batch, attribute.sh --cells), run as a job like a boot, before any boots
# one by one: a warm run starts a process per batch, not per boot. Each boot
# is offered once; what the store does not hold boots as usual.
declare -A offered=() wl_of=() prof_of=() restore_idx=()
# restore_list KIND: the batch's lines for the pending boots of KIND (timed or
# attrib) whose kernel is built and that were not offered yet (restore_idx:
# each line's boot)
restore_list() {
	local i v s r k
	restore_idx=()
	for i in "${!boots[@]}"; do
		[[ ${boot_state[$i]} == pending && -z ${offered[$i]:-} ]] || continue
		read -r v s r <<<"${boots[$i]}"
		case $r in proof) continue ;; attrib) [[ $1 == attrib ]] || continue ;; *) [[ $1 == timed ]] || continue ;; esac
		[[ ${kernel_ok[${v%-aa}]:-} == 1 ]] || continue
		offered[$i]=1
		if [[ $1 == attrib ]]; then
			restore_idx["$v $s"]=$i
			echo "$v $s ${attrib_wl[$v.$s]}"
			continue
		fi
		[[ -n ${wl_of[$s]+x} ]] || wl_of[$s]=$(state_workloads "$s")
		k=$s.$((r == 1))
		[[ -n ${prof_of[$k]+x} ]] || prof_of[$k]=$(profile_for "$s" "$r")
		restore_idx["$v $s $r"]=$i
		echo "$v $s $r $(seed_of "$v" "$r") ${wl_of[$s]} ${prof_of[$k]:--} $accel $runtime $unit"
	done
}
# restore_stored: a batch of each kind as a job of its own, while a slot is
# free (the two kinds restore side by side, as two guests would run)
# (a long timed batch is split over the free slots: a round of extra seeds
# is timed boots alone, and one process would leave the other cores idle;
# an attribution batch derives in a lane per core itself)
restore_stored() {
	local kind jd i k c chunks l v s r cmd list=$dir/.restore-list
	for kind in timed attrib; do
		((nboots < boot_jobs)) || return 0
		# (a job dir only for a batch that has boots: this runs at every turn of the loop)
		restore_list "$kind" >"$list"
		((${#restore_idx[@]})) || continue
		chunks=1
		[[ $kind != timed || ${#restore_idx[@]} -lt 20 ]] || chunks=$((boot_jobs - nboots))
		for ((c = 0; c < chunks; c++)); do
			jd=$(mktemp -d "$dir/.restore.XXXXXX")
			awk -v c="$c" -v n="$chunks" 'NR % n == c' "$list" >"$jd/list"
			while read -r l; do
				read -r v s r _ <<<"$l"
				if [[ $kind == attrib ]]; then k="$v $s"; else k="$v $s $r"; fi
				i=${restore_idx[$k]}
				boot_state[$i]=restoring
				printf '%s\t%s\n' "$k" "$i"
			done <"$jd/list" >"$jd/map"
			if [[ $kind == timed ]]; then cmd=("$LAB_ROOT/scripts/run/matrix-cell.sh" --batch "$dir" "$jd/list"); else cmd=("$LAB_ROOT/scripts/run/attribute.sh" --cells "$dir" "$jd/list"); fi
			# (its processes die with the matrix, as a boot's do)
			setsid setpriv --pdeathsig KILL "${cmd[@]}" >"$jd/out" &
			running_jobs[$!]="restore $kind $jd"
			nboots=$((nboots + 1))
		done
		rm -f "$list"
	done
}
# restore_done KIND JOB_DIR: the boots the batch restored are finished, the
# others pending again (they boot one by one)
restore_done() {
	local kind=$1 jd=$2 line k i n=0 files=()
	local -A map=()
	while IFS=$'\t' read -r k i; do map[$k]=$i; done <"$jd/map"
	while read -r line; do
		i=${map[$line]:-}
		[[ -n $i && ${boot_state[$i]} == restoring ]] || continue
		boot_state[$i]=finished
		[[ $kind == attrib ]] || files+=("$dir/cells/${line// /.}.csv")
		n=$((n + 1))
	done <"$jd/out"
	for i in "${map[@]}"; do [[ ${boot_state[$i]} != restoring ]] || boot_state[$i]=pending; done
	rm -rf "$jd"
	((n)) || return 0
	((${#files[@]} == 0)) || failed=$((failed + $(awk -F, '$7 != "ok" && $7 != "n/a"' "${files[@]}" | wc -l)))
	ran=$((ran + n))
	log "[$((ran + nboots))/$to_run] restored $n $([[ $kind == attrib ]] && echo 'attribution ')boots from the cell store (elapsed $(fmt_secs $(($(now) - start))))"
	[[ $kind == attrib ]] || write_run_csvs
}

# launch_ready: start boots whose kernel is built, in boot order, while slots are free
launch_ready() {
	local i v
	((overlap)) || builds_done || return 0
	for i in "${!boots[@]}"; do
		((nboots < boot_jobs)) || return 0
		[[ ${boot_state[$i]} == pending ]] || continue
		read -r v _ <<<"${boots[$i]}"
		[[ ${kernel_ok[${v%-aa}]:-} == 1 ]] && start_boot "$i"
	done
	return 0
}

# Adaptive seeds (scripts/run/adaptive-seeds.sh --next; the rule: lib/common.sh
# LAB_ADAPT_*): when the plan has nothing left to run, the next round's extra
# boots of noisy cells join it, run by this loop like any boot, until a round
# adds none. A boot asked for twice in one matrix (a host-caused failure that
# repeats) stops the rounds rather than loop.
nplan=${#boots[@]} adaptive=pending
((cells_only == 0)) || adaptive=off
declare -A adapt_asked=()
adaptive_round() {
	local out b n=0
	out=$("$LAB_ROOT/scripts/run/adaptive-seeds.sh" --next "$dir") || { log "matrix: adaptive seeds: the rule could not run (see above)"; adaptive=failed; return 1; }
	[[ -n $out ]] || { adaptive=finished; return 1; }
	while read -r b; do
		if [[ -n ${adapt_asked[$b]:-} ]]; then
			log "matrix: adaptive seeds: boot '$b' ran in this matrix and is still missing: no more rounds"
			adaptive=failed
			return 1
		fi
		adapt_asked[$b]=1
		boots+=("$b")
		boot_state[$((${#boots[@]} - 1))]=pending
		n=$((n + 1))
	done <<<"$out"
	to_run=$((to_run + n))
}

start=$(now)
ran=0 failed=0 build_failed=""
[[ -z $hosts$slurm ]] || remote_boots
while :; do
	start_next_build
	restore_stored
	launch_ready
	if ((${#running_jobs[@]} == 0)); then
		[[ $adaptive == pending ]] && adaptive_round && continue
		break
	fi
	rc=0
	wait -n -p pid || rc=$?
	job=${running_jobs[$pid]}
	unset "running_jobs[$pid]"
	case $job in
	build\ *)
		k=${job#build }
		building=""
		if ((rc == 0)); then
			kernel_ok[$k]=1
		else
			kernel_ok[$k]=0
			build_failed+=" $k"
			log "matrix: kernel $k failed to build (rc $rc, log $dir/raw/build-$k.log); its boots are not run"
		fi
		builds_done && [[ -z $build_failed ]] && write_manifest
		;;
	restore\ *)
		nboots=$((nboots - 1))
		read -r _ k jd <<<"$job"
		restore_done "$k" "$jd"
		;;
	boot\ *)
		i=${job#boot }
		boot_state[$i]=finished
		nboots=$((nboots - 1))
		ran=$((ran + 1))
		read -r v s r <<<"${boots[$i]}"
		# (an attribution boot's rows are attribute.sh --assemble's, below,
		# which counts a boot without them)
		[[ $r != attrib ]] || continue
		if [[ $r == proof ]]; then
			"$LAB_ROOT/scripts/proof/stream-proofs.sh" --done "$dir" "$v" || log "matrix: proof boot $v failed (rc $rc, log $dir/proof/$v.log)"
			continue
		fi
		cell=$dir/cells/$v.$s.$r.csv
		if [[ -f $cell ]]; then
			failed=$((failed + $(awk -F, '$7 != "ok" && $7 != "n/a"' "$cell" | wc -l)))
		else
			log "matrix: boot $v / $s / rep $r wrote no cells (rc $rc)"
			failed=$((failed + 1))
		fi
		write_run_csvs
		;;
	esac
done
rm -f "$dir/.restore-list"
# boots no finished kernel could run
not_run=0
for i in "${!boots[@]}"; do [[ ${boot_state[$i]} == pending ]] && not_run=$((not_run + 1)); done
# why boots did not run, for the report's per-boot list (scripts/report/report-boots.sh)
not_run_csv() { local k; for k in $build_failed; do echo "$k,failed to build (log raw/build-$k.log)"; done; }
save "$dir/not-run.csv" not_run_csv
write_run_csvs
log "matrix: $(basename "$dir"): $ran boots run in $(fmt_secs $(($(now) - start))), $done_before reused, $failed failed cells"
# where this run's boots came from (guest/boot.sh's boot.info cell= line)
cells_from=$(cat "$dir"/raw/*/boot.info 2>/dev/null | sed -n 's/^cell=//p' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}')
log "matrix: cell store: ${cells_from:-no boots} (hit: restored, not booted; stored: booted and stored; miss: booted, not storable; verified: rerun, identical; mismatch: rerun, different)"
mismatch=$(grep -l '^status=verify-mismatch' "$dir"/raw/*/boot.info 2>/dev/null || true)
if [[ -n $mismatch ]]; then
	log "matrix: VERIFY FAILED: $(wc -l <<<"$mismatch") rerun cell(s) differ from the stored cell:"
	for f in $mismatch; do grep -h 'VERIFY FAILED' "$(dirname "$f")/boot.stderr" >&2 || log "  $f"; done
fi
if ((not_run)); then
	log "matrix: $not_run boots not run: kernel(s)$build_failed failed to build; fix them, then ./run.sh matrix --resume $(basename "$dir")"
fi
post_failed=0
# the extra seeds' boots in cells.csv: every one on disk (a resumed run's
# earlier ones too), in the one order adaptive-seeds.sh --list gives
if ((!cells_only)); then
	[[ $adaptive != failed ]] || post_failed=1
	boots=("${boots[@]:0:nplan}")
	mapfile -t -O "${#boots[@]}" boots < <("$LAB_ROOT/scripts/run/adaptive-seeds.sh" --list "$dir")
	write_run_csvs
fi
# attribution.csv and footprint.csv from the attribution boots' rows, and
# streams.txt, the record-stream verdicts of the proof boots, beside the
# summary (three steps on three disjoint sets of files)
apid="" ppid_=""
if ((!cells_only)); then
	# (in running_jobs: a stopped matrix stops them too, kill_jobs)
	"$LAB_ROOT/scripts/run/attribute.sh" --assemble "$dir" &
	apid=$!
	running_jobs[$apid]=assemble
	"$LAB_ROOT/scripts/proof/stream-proofs.sh" --assemble "$dir" &
	ppid_=$!
	running_jobs[$ppid_]=assemble
fi
# summaries, figures and the report are always recomputed from the cells; a
# step that fails fails the run (an old summary or report is never left as if current)
run=$(basename "$dir")
summary_ok=1
"$LAB_ROOT/scripts/analysis/summary.sh" "$run" || summary_ok=0
if [[ -n $apid ]]; then
	wait "$apid" || { log "matrix: attribution boots failed (cells.csv is intact)"; post_failed=1; }
	wait "$ppid_" || { log "matrix: proof boots failed (cells.csv is intact)"; post_failed=1; }
	unset "running_jobs[$apid]" "running_jobs[$ppid_]"
fi
if ((summary_ok)); then
	if ((!cells_only)); then
		"$LAB_ROOT/scripts/report/plots.sh" "$run" || { log "matrix: plots failed (summary.csv is intact)"; post_failed=1; }
		"$LAB_ROOT/scripts/report/report.sh" "$run" || { log "matrix: report failed (summary.csv is intact)"; post_failed=1; }
	fi
else
	log "matrix: summary failed (cells.csv is intact); the old summary.csv, plots and report.md are removed"
	rm -rf "$dir/summary.csv" "$dir/report.md" "$dir/plots"
	post_failed=1
fi
log "matrix: results in $dir"
((failed == 0 && not_run == 0 && post_failed == 0))
