#!/bin/bash
# try.sh PATCH... [--on VARIANT] [--reps N] [--hosts FILE | --slurm DIR
# [--sbatch OPTS]]: what a maintainer does with a
# patch from the list (run.sh try). The patches (git format-patch files or an
# mbox) go on top of VARIANT's series (default upstream) as a temporary
# variant try-<hash> that lives in the cache ($LAB_CACHE/try/), never in the
# repo. It is built, then measured in the headline cells beside the baseline
# of VARIANT's base tree (catalog role=baseline: nohooks on 6.1) and
# VARIANT (states off, idle, syscall-1, uring-hit; each state's own workloads,
# 1 guest second, N reps, as the default matrix does, so the baseline cells
# come from the cell store when a matrix ran before), and one decision table
# is printed: Δ per op versus that baseline for the patch and for VARIANT
# (bench-nop, -nop-async (io-wq), -read, -openclose, randread-qd128), any
# kernel splat of the patched kernel, and the record-stream proof of the
# patched kernel against the base's reference (upstream), record by record.
# --hosts / --slurm: the cells the store lacks run on worker hosts (GNU
# parallel over SSH, or one Slurm job array), as matrix --hosts/--slurm runs
# them; the options are matrix.sh's, checked by it before the build.
# Bad input gets one line before any build: a file that is not a patch, a
# patch that does not apply (naming the failing hunk), a build failure (its
# first error line); nothing is left behind.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

usage="usage: run.sh try PATCH... [--on VARIANT] [--reps N] [--hosts FILE | --slurm DIR [--sbatch OPTS]]"
on=upstream reps=3 patches=() remote=()
while (($#)); do
	case $1 in
	--hosts | --slurm | --sbatch)
		[[ $# -ge 2 && -n $2 ]] || die_usage "try: $1 needs a value ($usage)"
		remote+=("$1" "$2")
		shift 2
		;;
	--on | --reps)
		[[ $# -ge 2 && -n $2 ]] || die_usage "try: $1 needs a value ($usage)"
		if [[ $1 == --on ]]; then on=$2; else reps=$2; fi
		shift 2
		;;
	-*) die_usage "try: unknown option '$1' ($usage)" ;;
	*) patches+=("$1"); shift ;;
	esac
done
((${#patches[@]})) || die_usage "$usage"
check_variant "$on"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die_usage "try: --reps must be a positive whole number (got '$reps')"
# the worker options, checked by the matrix that will take them (one line, exit 2)
# (cells on other hosts are the same bytes only under tcg-icount: --accel tcg)
((${#remote[@]} == 0)) || remote+=(--accel tcg)
((${#remote[@]} == 0)) || LAB_CHECK_ARGS=1 "$LAB_ROOT/scripts/run/matrix.sh" "${remote[@]}"
# is_patch FILE: has a unified diff: a ---/+++ pair followed by a hunk header
is_patch() { awk '/^--- / { m = 1; next } m == 1 && /^\+\+\+ / { m = 2; next } m == 2 && /^@@ / { f = 1; exit } { m = 0 } END { exit !f }' "$1"; }
for p in "${patches[@]}"; do
	[[ -f $p && -r $p ]] || die_usage "try: $p: no such file"
	is_patch "$p" || die_usage "try: $p is not a patch (no unified diff in it); give git format-patch files or an mbox"
done

vdir=$(variants_dir)/$on
base=$(variant_base "$on")
# the baseline of $on's base tree: a Δ is never taken across base trees
bl=$(catalog_one_on "$base" baseline)
[[ -n $bl ]] || die_usage "try: base $base of $on has no baseline (role=baseline in a meta on it)"
mapfile -t base_patches < <(series_patches "$vdir/series")
id=try-$({ echo "$on"; cat "$vdir/series"; for p in "${base_patches[@]}"; do cat "$vdir/$p"; done
	[[ -f $vdir/config ]] && cat "$vdir/config"; cat "${patches[@]}"; } | sha256sum | cut -c1-12)

# does it apply? Only the files the patches touch, copied from the pristine
# tree, with VARIANT's series applied first: seconds, and patch names the hunk
"$LAB_ROOT/kernel/extract-source.sh" "$base"
pristine=$(base_pristine "$base")
work=$(mktemp -d "${TMPDIR:-/tmp}/lab-try.XXXXXX")
trap 'rm -rf "$work"' EXIT
files() { sed -n -E 's#^(---|\+\+\+) [ab]/([^[:space:]]*).*#\2#p' "$@" | sort -u; }
while read -r f; do
	[[ -f $pristine/$f ]] && { mkdir -p "$work/tree/$(dirname "$f")"; cp "$pristine/$f" "$work/tree/$f"; }
done < <(files "${base_patches[@]/#/$vdir/}" "${patches[@]}")
mkdir -p "$work/tree"
for p in "${base_patches[@]}"; do
	patch -d "$work/tree" -p1 --forward --batch --no-backup-if-mismatch <"$vdir/$p" >/dev/null 2>&1 ||
		die "try: $on's own series does not apply to linux-source-$base ($p)"
done
for p in "${patches[@]}"; do
	if ! out=$(patch -d "$work/tree" -p1 --forward --batch --no-backup-if-mismatch <"$p" 2>&1); then
		hunk=$(awk '/^patching file / { f = $3 ": " } /FAILED|malformed|Reversed|can.t find file/ { print f $0; exit }' <<<"$out")
		die_usage "try: $p does not apply on $on (linux-source-$base): ${hunk:-$(tail -1 <<<"$out")}"
	fi
done

# the temporary variant: a variants dir in the cache holding the repo's
# variants (links) and try-<hash>, written whole (temp dir, rename)
tdir=$LAB_CACHE/try
export LAB_VARIANTS=$tdir/variants LAB_RESULTS=$tdir/results
mkdir -p "$LAB_VARIANTS" "$LAB_RESULTS"
for d in "$LAB_ROOT"/kernel/variants/*/; do ln -sfn "${d%/}" "$LAB_VARIANTS/$(basename "$d")"; done
if [[ ! -f $LAB_VARIANTS/$id/series ]]; then
	new=$(mktemp -d "$LAB_VARIANTS/.new.XXXXXX")
	{
		echo "# base: $base"
		echo "# $id: ${patches[*]##*/} on $on (run.sh try)"
		printf '%s\n' "${base_patches[@]}"
	} >"$new/series"
	for p in "${base_patches[@]}"; do cp "$vdir/$p" "$new/"; done
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		cp "$p" "$new/try-$i.patch"
		echo "try-$i.patch" >>"$new/series"
	done
	[[ -f $vdir/config ]] && cp "$vdir/config" "$new/config"
	# $on's record-stream expectations are the patch's too: a patch that
	# changes what is audited shows as a stream that differs from them
	{
		echo "$id: ${patches[*]##*/} on $on, a temporary variant of run.sh try"
		grep '^stream-expect:' "$vdir/README" || true
	} >"$new/README"
	mv -T "$new" "$LAB_VARIANTS/$id" 2>/dev/null || rm -rf "$new"
fi
variants_reload
log "try: $id = ${patches[*]##*/} on $on (linux-source-$base): applies; building"
# the build's progress lines are shown as they come, and kept for the error line
if ! "$LAB_ROOT/kernel/build.sh" "$id" 2> >(tee "$work/build.err" >&2); then
	err=$(grep -m1 -E 'error:|Error [0-9]' "$(build_of "$id")/build.log" 2>/dev/null || tail -1 "$work/build.err")
	rm -rf "${LAB_VARIANTS:?}/$id" "$(tree_of "$id")"
	die "try: $id does not build: $err"
fi

run=$id-$(date +%Y%m%d-%H%M%S)
start=$(now)
rc=0
# LAB_TRY_STATES / LAB_TRY_WORKLOADS narrow the cells (tests/64: a smaller
# table in CI time); matrix.sh validates both as names
"$LAB_ROOT/scripts/run/matrix.sh" --cells-only --variants "$bl,$on,$id" --states "${LAB_TRY_STATES:-off,idle,syscall-1,uring-hit}" \
	${LAB_TRY_WORKLOADS:+--workloads "$LAB_TRY_WORKLOADS"} --reps "$reps" --runtime 1 --run-id "$run" "${remote[@]}" || rc=$?
dir=$LAB_RESULTS/$run
[[ -f $dir/summary.csv ]] || die "try: the matrix of $id wrote no summary ($dir)"
log "try: cells done in $(fmt_secs $(($(now) - start)))"

# the decision table: Δ per op versus the baseline, the patch beside $on
echo "# $id: ${patches[*]##*/} on $on; Δ instructions/op vs $bl ($reps seed(s) a side; exact where every seed agrees, else the Hodges-Lehmann shift; * = significant: summary.csv, labstat)"
awk -F, -v p="$id" -v on="$on" '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["workload"] ~ /^bench-(nop|nop-async|read|openclose)$|^randread-qd128$/ && ($c["variant"] == p || $c["variant"] == on) {
	k = $c["state"] " " $c["workload"]
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	v = $c["delta_ns_per_op"] == "" ? "—" : sprintf("%+.1f%s", $c["delta_ns_per_op"], $c["significant"] == "yes" ? "*" : "")
	if ($c["variant"] == p) dp[k] = v; else du[k] = v
}
END {
	printf "%-10s %-16s %14s %14s\n", "state", "workload", p, on
	for (i = 1; i <= n; i++) { split(order[i], a, " "); printf "%-10s %-16s %14s %14s\n", a[1], a[2], (order[i] in dp ? dp[order[i]] : "—"), (order[i] in du ? du[order[i]] : "—") }
}' "$dir/summary.csv"
# kernel splats of the patched kernel
splats=0
for d in "$dir"/raw/"$id".*; do
	[[ -f $d/console.log ]] || continue
	if lines=$(kernel_trouble "$d/console.log"); then
		splats=1
		echo "# kernel trouble in $(basename "$d"):"
		head -3 <<<"$lines" | sed 's/^/#   /'
	fi
done
((splats)) || echo "# no kernel splat in $id's boots"
echo "# cells: $dir/cells.csv"

# the record-stream proof against the base's reference (upstream): every
# audit record of every scenario, normalised and compared, with $on's
# expectations (guest/scripts/stream-proof.sh, scripts/proof/stream-compare.sh);
# both boots are cells of the store under tcg, so the reference's is a hit
# after the first try. LAB_TRY_PROOF=0 leaves it out.
if [[ ${LAB_TRY_PROOF:-1} == 1 ]]; then
	ref=$(reference_on "$base")
	# (the run's accelerator: matrix.conf read by its one reader)
	accel=""
	read_matrix_conf "$dir/matrix.conf"
	if [[ -z $ref ]]; then
		echo "# record stream: base $base has no reference variant (reference=yes in a meta): not compared"
	elif ! has_audit "$id"; then
		echo "# record stream: $id has no audit (CONFIG_AUDIT off): nothing to compare"
	else
		log "try: record-stream proof: $id and $ref (state smack, every scenario)"
		pids=()
		for v in "$ref" "$id"; do
			setpriv --pdeathsig KILL "$LAB_ROOT/scripts/proof/stream-proofs.sh" --boot "$accel" "$dir/proof/$v" "$v" \
				>"$dir/proof-$v.log" 2>&1 &
			pids+=("$!")
		done
		prc=0
		for p in "${pids[@]}"; do wait "$p" || prc=1; done
		if ((prc)) || [[ ! -f $dir/proof/$ref/results.txt || ! -f $dir/proof/$id/results.txt ]]; then
			echo "# record stream: a proof boot failed (logs: $dir/proof-$ref.log, $dir/proof-$id.log)"
			rc=1
		else
			vrc=0
			"$LAB_ROOT/scripts/proof/stream-compare.sh" "$dir/proof/$ref/results.txt" "$id" "$dir/proof/$id/results.txt" >"$dir/stream.txt" || vrc=$?
			echo "# record stream vs $ref: $(awk '/^stream / { n++; if (/ ok=1/) k++ } END { printf "%d of %d scenarios as expected", k, n }' "$dir/stream.txt")$( ((vrc)) && echo "; NOT AS EXPECTED:")"
			grep '^stream .* ok=0\|^lsm .* ok=0' "$dir/stream.txt" | sed 's/^/#   /' || true
			((vrc == 0)) || rc=1
		fi
	fi
fi
exit "$rc"
