#!/bin/bash
# stream-proofs.sh: the record-stream proof (guest/scripts/stream-proof.sh, state
# smack, every scenario) as boots of a matrix run's one plan, and the one owner
# of that boot's arguments (so the matrix, run.sh try and tests/61 boot the same
# cell of the store).
#   stream-proofs.sh --plan RUN_DIR     the proof boots of RUN_DIR/matrix.conf, a
#       variant a line: when its states include smack (the default matrix's
#       do), each base's reference (reference=yes) first, then every variant of
#       the run whose role is design or baseline and that has audit; A/A
#       pseudo-variants are their kernel's boot, and controls and config floors
#       are no design (lib/catalog.sh); nothing for a run without smack
#   stream-proofs.sh --boot ACCEL OUT VARIANT   one proof boot into OUT
#   stream-proofs.sh --cell RUN_DIR VARIANT     --boot into RUN_DIR/proof/VARIANT
#       under the run's accelerator (log RUN_DIR/proof/VARIANT.log)
#   stream-proofs.sh --done RUN_DIR VARIANT     exit 0 if that boot finished (status ok, results kept)
#   stream-proofs.sh --assemble RUN_DIR         RUN_DIR/streams.txt: each
#       variant's scripts/proof/stream-compare.sh lines against its own base's
#       reference, the references' own checks among them; exit 1 if a proof
#       boot is missing or failed (a stream not as expected is a finding that
#       the report shows, not a failed run); a variant's lines are memoised
#       by the sha256 of everything they depend on (the cell store's .memo/streams)
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

usage() { die_usage "usage: stream-proofs.sh --plan RUN_DIR | --boot ACCEL OUT VARIANT | --cell RUN_DIR VARIANT | --done RUN_DIR VARIANT | --assemble RUN_DIR"; }
mode=${1:-}
(($#)) && shift

# plan RUN_DIR: the variants to boot (see above)
plan() {
	local dir=$1 variants states accel reps runtime profile workloads seed_base bases b v ref out=()
	read_matrix_conf "$dir/matrix.conf"
	[[ ,$states, == *,smack,* ]] || return 0
	for b in $(bases_of "$variants" | tr ',' ' '); do
		ref=$(reference_on "$b")
		[[ -z $ref ]] || ! has_audit "$ref" || out+=("$ref")
		for v in ${variants//,/ }; do
			[[ $v != *-aa && $v != "$ref" && $(variant_base "$v") == "$b" ]] || continue
			case $(variant_role "$v") in design | baseline) ;; *) continue ;; esac
			has_audit "$v" && out+=("$v")
		done
	done
	printf '%s\n' "${out[@]}" | awk 'NF && !seen[$0]++'
}

# proof_done RUN_DIR VARIANT: VARIANT's proof boot finished (status ok) with its results
proof_done() { grep -qx 'status=ok' "$1/proof/$2/boot.info" 2>/dev/null && [[ -f $1/proof/$2/results.txt ]]; }

run_accel() {
	local variants states accel reps runtime profile workloads seed_base bases
	read_matrix_conf "$1/matrix.conf"
	echo "$accel"
}

# streams: streams.txt's content (--assemble's lines)
streams() {
	echo "# scripts/proof/stream-compare.sh against each base's reference: this run's proof boots (scripts/proof/stream-proofs.sh, state smack, accel $(run_accel "$dir"))"
	printf '%s\n' "${lines[@]}"
}

case $mode in
--plan)
	(($# == 1)) || usage
	plan "$1"
	;;
--boot)
	(($# == 3)) || usage
	check_variant "$3"
	exec "$LAB_ROOT/guest/boot.sh" --accel "$1" --script stream-proof --timeout 600 --out "$2" "$3" smack
	;;
--cell)
	(($# == 2)) || usage
	dir=$1 v=$2
	check_variant "$v"
	mkdir -p "$dir/proof"
	rm -rf "${dir:?}/proof/$v"
	"$0" --boot "$(run_accel "$dir")" "$dir/proof/$v" "$v" >"$dir/proof/$v.log" 2>&1
	;;
--done)
	(($# == 2)) || usage
	proof_done "$1" "$2"
	;;
--assemble)
	(($# == 1)) || usage
	dir=$1
	mapfile -t vs < <(plan "$dir")
	((${#vs[@]})) || exit 0
	rc=0 lines=()
	# the comparisons run nproc at a time, each into its own file; their
	# lines are then taken in plan order
	tmp=$(mktemp -d "$dir/.streams.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# A variant's lines are a function of the two results files, its README
	# (stream-expect) and the comparison's code: memoised by their sha256
	# (lib/cellstore.sh memo_stdout: the cell store's .memo/streams, each
	# memo with its sum; one that fails its sum is named and computed afresh;
	# off under LAB_NO_CELL_STORE=1)
	cmp_sh=$LAB_ROOT/scripts/proof/stream-compare.sh norm_awk=$LAB_ROOT/scripts/proof/normalise-stream.awk
	declare -A fsha=()
	files=("$cmp_sh" "$norm_awk")
	for v in "${vs[@]}"; do
		[[ ! -f $dir/proof/$v/results.txt ]] || files+=("$dir/proof/$v/results.txt")
		files+=("$(variants_dir)/$v/README")
	done
	while read -r sha f; do fsha[$f]=$sha; done < <(sha256sum "${files[@]}" 2>/dev/null || true)
	# verdict REF_RESULTS VARIANT RESULTS: the comparison's lines; its exit 1
	# (not as expected) is the verdict, in the lines, not a failure
	# shellcheck disable=SC2317 # (called through memo_stdout)
	verdict() { "$cmp_sh" "$@" || (($? == 1)); }
	jobs=0
	for v in "${vs[@]}"; do
		if ! proof_done "$dir" "$v"; then
			log "stream-proofs: $v: no finished proof boot (log $dir/proof/$v.log)"
			rc=1
			continue
		fi
		ref=$(reference_on "$(variant_base "$v")")
		[[ -f $dir/proof/$ref/results.txt ]] || { log "stream-proofs: $v: no proof boot of its reference $ref"; rc=1; continue; }
		touch "$tmp/$v.asked"
		read -r key _ < <(printf '%s\n' "$v" "${fsha[$dir/proof/$ref/results.txt]:-}" "${fsha[$dir/proof/$v/results.txt]:-}" \
			"${fsha[$(variants_dir)/$v/README]:-none}" "${fsha[$cmp_sh]:-}" "${fsha[$norm_awk]:-}" | sha256sum)
		{ memo_stdout streams "$key" verdict "$dir/proof/$ref/results.txt" "$v" "$dir/proof/$v/results.txt" >"$tmp/$v" || rm -f "$tmp/$v"; } &
		((++jobs < LAB_JOBS)) || { wait -n || true; jobs=$((jobs - 1)); }
	done
	wait
	for v in "${vs[@]}"; do
		[[ -f $tmp/$v.asked ]] || continue
		if [[ -f $tmp/$v ]]; then lines+=("$(<"$tmp/$v")"); else rc=1; fi
	done
	save "$dir/streams.txt" streams
	log "stream-proofs: $(grep -c '^stream ' "$dir/streams.txt") scenario verdicts of ${#lines[@]} variants in $dir/streams.txt, $(grep -c '^stream .* ok=0' "$dir/streams.txt") not as expected"
	exit "$rc"
	;;
*) usage ;;
esac
