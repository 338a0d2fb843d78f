#!/bin/bash
# report-attribution.sh RUN_DIR: the report's per-function section from
# RUN_DIR/attribution.csv (scripts/run/attribute.sh): for each workload and state,
# the kernel symbols whose instructions/op differ from the baseline of the
# variant's own base tree (catalog role=baseline; a table per base tree) by
# at least LAB_ATTRIB_MIN (default 0.5) in some variant, each variant's Δ and
# its calls/op, and the sum of Δ over all symbols. Prints markdown to stdout;
# prints nothing when the run has no attribution.csv.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

(($# == 1)) || die_usage "usage: report-attribution.sh RUN_DIR"
csv=$1/attribution.csv
[[ -f $csv ]] || exit 0
min=${LAB_ATTRIB_MIN:-0.5}
# baseline_of VARIANT: sets bl to the baseline of VARIANT's base tree (empty
# for a variant the catalog does not know). It runs in this shell, not in a
# $(...), so that the memo holds: a catalog lookup per path file made this
# section ~40 s of the report's ~47 s on a 164-path run.
declare -A bl_of=()
baseline_of() {
	local v=${1%-aa}
	if [[ -z ${bl_of[$v]+x} ]]; then
		bl_of[$v]=""
		[[ ! -f $(variants_dir)/$v/series ]] || bl_of[$v]=$(catalog_one_on "$(variant_base "$v")" baseline)
	fi
	bl=${bl_of[$v]}
}
# the baselines of the run's base trees, for the prose: "nohooks" or "nohooks` / `nohooks-6-12"
base=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "variant") k = i; next } { print $k }' "$csv" | sort -u |
	while read -r v; do baseline_of "$v"; echo "$bl"; done | grep . | sort -u | paste -sd/ || true)
base=${base//\//\` \/ \`}

echo "## Per-function cost (QEMU plugin attribution, tcg-icount)"
echo
echo "Exact guest instructions per op per kernel symbol inside uring-bench's timed loop (tools/lab-attrib.c:"
echo "an inline counter on every instruction and memory access, nothing added to the guest; separate"
echo "attribution boots with nokaslr and seed 1). Δ is against \`$base\`; cells show Δ instructions/op"
echo "(calls/op). Rows: symbols with |Δ| ≥ $min in some variant; \"Σ all symbols\" sums every symbol"
echo "including those not shown. [user] is user space."
echo
awk -F, -v catalog="$(catalog_rows)" -v defbase="$LAB_DEFAULT_BASE" -v min="$min" "$(cat "$LAB_ROOT/lib/bases.awk")"'
	BEGIN { load_catalog(catalog) }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		v = $c["variant"]; s = $c["state"]; w = $c["workload"]; sym = $c["symbol"]
		# a table per workload, state and base tree: Δs against that base'"'"'s baseline
		b = vbase(v, ""); k = w SUBSEP s SUBSEP b
		if (!(b in nbs)) nbs[b] = nb++
		if (!(k in seenk)) { seenk[k] = 1; K[nk++] = k }
		if (v != BL[b] && !((k, v) in seenv)) { seenv[k, v] = 1; V[k, nv[k]++] = v }
		if (sym == "[total]") { tot[k, v] = $c["instructions_per_op"]; havetot[k, v] = 1; next }
		if (!((k, sym) in seens)) { seens[k, sym] = 1; S[k, ns[k]++] = sym }
		ins[k, v, sym] = $c["instructions_per_op"]; calls[k, v, sym] = $c["calls_per_op"]
		sum[k, v] += $c["instructions_per_op"]
	}
	function abs(x) { return x < 0 ? -x : x }
	END {
		for (i = 0; i < nk; i++) {
			k = K[i]; split(k, p, SUBSEP); base = BL[p[3]]
			printf "### %s, state %s%s\n\n", p[1], p[2], (nb > 1 ? ", linux-source-" p[3] : "")
			if (!((k, base) in havetot)) { printf "(no %s attribution in this cell)\n\n", base; continue }
			line = "| symbol | " base " instr/op |"; sep = "|---|---:|"
			for (j = 0; j < nv[k]; j++) { line = line " " V[k, j] " Δ (calls/op) |"; sep = sep "---:|" }
			print line; print sep
			for (m = 0; m < ns[k]; m++) {
				sym = S[k, m]; show = 0
				for (j = 0; j < nv[k]; j++) if (abs(ins[k, V[k, j], sym] - ins[k, base, sym]) >= min) show = 1
				if (!show) continue
				line = sprintf("| `%s` | %.2f |", sym, ins[k, base, sym])
				for (j = 0; j < nv[k]; j++) {
					v = V[k, j]
					line = line sprintf(" %+.2f (%.2f) |", ins[k, v, sym] - ins[k, base, sym], calls[k, v, sym])
				}
				print line
			}
			line = sprintf("| Σ all symbols | %.2f |", sum[k, base])
			for (j = 0; j < nv[k]; j++) line = line sprintf(" %+.2f |", sum[k, V[k, j]] - sum[k, base])
			print line
			print ""
		}
	}' "$csv"

# --- the traced function, instruction by instruction --------------------------------
# RUN_DIR/paths/V.S.W.FN.txt: FN's executed path per attribution boot. For
# every variant, the diff of its path against the base's in the same state and
# workload: the instructions only one of them runs, and their net, which is
# the Δ of FN in the table above.
paths=$1/paths
shopt -s nullglob
files=("$paths"/*.txt)
((${#files[@]})) || exit 0
# shellcheck source=../../lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"
detail_states=${LAB_PATH_DETAIL_STATES:-off idle syscall-1}
fns=$(for f in "${files[@]}"; do f=${f##*/}; f=${f%.txt}; echo "${f##*.}"; done | sort -u)
# every variant's path against its base's, in one batch (path_diffs)
diffs=$(mktemp -d)
trap 'rm -rf "$diffs"' EXIT
pairs=()
for f in "${files[@]}"; do
	name=${f##*/} name=${name%.txt}
	IFS=. read -r v s w fn <<<"$name"
	baseline_of "$v"
	[[ -z $bl || $v == "$bl" || ! -f $paths/$bl.$s.$w.$fn.txt ]] || pairs+=("$paths/$bl.$s.$w.$fn.txt" "$f" "$name")
done
((${#pairs[@]} == 0)) || path_diffs "$diffs" "${pairs[@]}"
for fn in $fns; do
	echo "### \`$fn\` instruction by instruction"
	echo
	echo "The executed path of \`$fn\` (the plugin counts it per instruction: insns=$fn) against \`$base\`"
	echo "in the same state and workload: instructions only the variant runs (+, with executions per op) and"
	echo "only \`$base\` runs (-); the rest are the same instructions. The net is Δ \`$fn\` above."
	echo "\`./run.sh explain VARIANT --workload W --state S\` prints the same with the full listings."
	echo "The diffs follow the table for the states $detail_states."
	echo
	echo "| variant | state | workload | Δ $fn/op | only in variant | only in $base |"
	echo "|---|---|---|---:|---:|---:|"
	details=()
	for f in "${files[@]}"; do
		name=${f##*/} name=${name%.txt}
		[[ ${name##*.} == "$fn" ]] || continue
		IFS=. read -r v s w _ <<<"$name"
		[[ -f $diffs/$name.diff ]] || continue
		d=$(<"$diffs/$name.diff")
		sumline=${d##*$'\n'}
		if [[ $sumline =~ ^\#\ diff:\ ([0-9]+)\ .*\(\+([0-9.]+)/op\),\ ([0-9]+)\ .*\(-([0-9.]+)/op\):\ net\ ([-+0-9.]+)/op$ ]]; then
			na=${BASH_REMATCH[1]} add=${BASH_REMATCH[2]} nd=${BASH_REMATCH[3]} del=${BASH_REMATCH[4]} net=${BASH_REMATCH[5]}
			echo "| $v | $s | $w | $net | $na (+$add) | $nd (-$del) |"
			# the diffs themselves for the headline states only (the report stays readable)
			[[ " $detail_states " == *" $s "* ]] || continue
			[[ $na == 0 && $nd == 0 ]] || details+=("$v / $s / $w: net $net/op"$'\n'"$d")
		fi
	done
	echo
	for x in "${details[@]}"; do
		echo "<details><summary>${x%%$'\n'*}</summary>"
		echo
		echo '```diff'
		printf '%s\n' "${x#*$'\n'}" | sed '$d'
		echo '```'
		echo "</details>"
		echo
	done
done
