#!/bin/bash
# slurm-run.sh --shared DIR --jobs FILE [sbatch options...]: run a list of
# cells as one Slurm job array over a directory every node sees, wait with
# n/N progress and an ETA, and leave each cell's output in DIR.
#   FILE       one cell a line: CELL_ID<TAB>COMMAND (the command a node runs
#              with bash; written by the lab, e.g. guest/cell-worker.sh run ID)
#   DIR        shared: DIR/jobs (a copy of FILE), DIR/array.sh, and per cell
#              DIR/out/CELL_ID (stdout), .err, .rc (exit status, written last)
# Extra arguments go to sbatch as they are (--partition, --time, ...). One
# array job (sbatch --array=1-N); SIGINT/SIGTERM cancel it (scancel). Exit 0
# when every cell's .rc is 0, 1 otherwise (the failed ones are listed).
# LAB_SLURM_POLL: seconds between squeue polls (default 5).
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

shared="" jobs=""
while (($#)); do
	case $1 in
	--shared) shared=${2:-}; shift 2 || die_usage "--shared needs a directory" ;;
	--jobs) jobs=${2:-}; shift 2 || die_usage "--jobs needs a file" ;;
	*) break ;;
	esac
done
[[ -n $shared && -n $jobs ]] || die_usage "usage: slurm-run.sh --shared DIR --jobs FILE [sbatch options...]"
[[ -f $jobs ]] || die_usage "slurm: jobs file '$jobs' not found"
# the job list is data until a node runs its command: ids checked, unique
bad=$(awk -F'\t' '
	NF < 2 || $1 !~ /^[A-Za-z0-9][A-Za-z0-9._-]*$/ || $2 == "" { print NR ": " $0; exit }
	seen[$1]++ { print NR ": duplicate cell id " $1; exit }' "$jobs")
[[ -z $bad ]] || die_usage "slurm: $jobs line $bad (want CELL_ID<TAB>COMMAND)"
n=$(grep -c . "$jobs" || true)
((n > 0)) || die_usage "slurm: $jobs lists no cell"
for t in sbatch squeue scancel; do command -v "$t" >/dev/null || die "slurm: $t not found (Debian: slurm-client)"; done

shared=$(mkdir -p "$shared" && cd "$shared" && pwd)
mkdir -p "$shared/out"
cp "$jobs" "$shared/jobs"
rm -f "$shared"/out/*.rc
# (sbatch runs a copy of the script from slurmd's spool: the shared dir is written into it)
{
	echo '#!/bin/bash'
	echo '# one task of the lab array job: line SLURM_ARRAY_TASK_ID of jobs'
	echo 'set -uo pipefail'
	printf 'd=%q\n' "$shared"
	cat <<'ARRAY'
line=$(sed -n "${SLURM_ARRAY_TASK_ID}p" "$d/jobs")
id=${line%%$'\t'*}
bash -c "${line#*$'\t'}" >"$d/out/$id" 2>"$d/out/$id.err"
echo $? >"$d/out/$id.rc.tmp"
mv "$d/out/$id.rc.tmp" "$d/out/$id.rc"
ARRAY
} >"$shared/array.sh"
chmod +x "$shared/array.sh"

# (the trap is set before sbatch: an interrupt while it runs, or right after,
# still cancels the array once its id is known)
job=""
trap 'if [[ $job =~ ^[0-9]+$ ]]; then log "slurm: interrupted; scancel $job"; scancel "$job" 2>/dev/null || true; else log "slurm: interrupted before sbatch gave a job id"; fi; exit 130' INT TERM
job=$(sbatch --parsable --job-name=lab-cells --array="1-$n" --output="$shared/out/slurm-%A_%a.log" "$@" "$shared/array.sh") ||
	die "slurm: sbatch failed"
job=${job%%;*}
[[ $job =~ ^[0-9]+$ ]] || die "slurm: sbatch printed '$job', not a job id"
log "slurm: job array $job, $n cells, output in $shared/out"

start=$(now) last=-1
while :; do
	done_n=$(find "$shared/out" -maxdepth 1 -name '*.rc' | wc -l)
	if ((done_n != last)); then
		el=$(($(now) - start)) eta=""
		((done_n > 0 && done_n < n)) && eta=", ETA $(fmt_secs $((el * (n - done_n) / done_n)))"
		log "  [$done_n/$n] cells done (elapsed $(fmt_secs "$el")$eta)"
		last=$done_n
	fi
	((done_n < n)) || break
	# the array is gone from the queue but cells have no status: they died
	if ! squeue -h -j "$job" -o %i 2>/dev/null | grep -q .; then
		sleep 1
		(($(find "$shared/out" -maxdepth 1 -name '*.rc' | wc -l) < n)) || continue
		log "slurm: job $job left the queue with $((n - done_n)) cells unfinished (see $shared/out/slurm-${job}_*.log)"
		break
	fi
	sleep "${LAB_SLURM_POLL:-5}"
done
failed=$(awk -F'\t' -v d="$shared/out" '{ f = d "/" $1 ".rc"; rc = ""; if ((getline rc < f) <= 0 || rc != 0) print $1 }' "$shared/jobs")
[[ -z $failed ]] || { log "slurm: failed cells: $(paste -sd' ' <<<"$failed")"; exit 1; }
log "slurm: all $n cells done in $(fmt_secs $(($(now) - start)))"
