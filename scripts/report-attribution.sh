#!/bin/bash
# report-attribution.sh RUN_DIR: the report's per-function section from
# RUN_DIR/attribution.csv (scripts/attribute.sh): for each workload and state,
# the kernel symbols whose instructions/op differ from the nohooks baseline by
# at least LAB_ATTRIB_MIN (default 0.5) in some variant, each variant's Δ and
# its calls/op, and the sum of Δ over all symbols. Prints markdown to stdout;
# prints nothing when the run has no attribution.csv.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

(($# == 1)) || die_usage "usage: report-attribution.sh RUN_DIR"
csv=$1/attribution.csv
[[ -f $csv ]] || exit 0
base=${LAB_ATTRIB_BASE:-nohooks} min=${LAB_ATTRIB_MIN:-0.5}

echo "## Per-function cost (QEMU plugin attribution, tcg-icount)"
echo
echo "Exact guest instructions per op per kernel symbol inside uring-bench's timed loop (tools/lab-attrib.c:"
echo "an inline counter on every instruction and memory access, nothing added to the guest; separate"
echo "attribution boots with nokaslr and seed 1). Δ is against \`$base\`; cells show Δ instructions/op"
echo "(calls/op). Rows: symbols with |Δ| ≥ $min in some variant; \"Σ all symbols\" sums every symbol"
echo "including those not shown. [user] is user space."
echo
awk -F, -v base="$base" -v min="$min" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		v = $c["variant"]; s = $c["state"]; w = $c["workload"]; sym = $c["symbol"]
		k = w SUBSEP s
		if (!(k in seenk)) { seenk[k] = 1; K[nk++] = k }
		if (v != base && !((k, v) in seenv)) { seenv[k, v] = 1; V[k, nv[k]++] = v }
		if (sym == "[total]") { tot[k, v] = $c["instructions_per_op"]; havetot[k, v] = 1; next }
		if (!((k, sym) in seens)) { seens[k, sym] = 1; S[k, ns[k]++] = sym }
		ins[k, v, sym] = $c["instructions_per_op"]; calls[k, v, sym] = $c["calls_per_op"]
		sum[k, v] += $c["instructions_per_op"]
	}
	function abs(x) { return x < 0 ? -x : x }
	END {
		for (i = 0; i < nk; i++) {
			k = K[i]; split(k, p, SUBSEP)
			printf "### %s, state %s\n\n", p[1], p[2]
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
