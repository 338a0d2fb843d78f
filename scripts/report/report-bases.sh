#!/bin/bash
# report-bases.sh RUN_DIR: do the verdicts of the oldest base tree hold on the
# others (issue 23)? Markdown on stdout; nothing for a run on one base.
# For every design (lib/catalog.sh: role design, ports by design=) with a port
# on the oldest base and on another, and every hook-cost cell (state x
# workload) of summary.csv that both ports have, each against the baseline of
# its own base tree:
#   - the verdict holds when both ports are significant with the same sign,
#     or neither is;
#   - the Δ moves when the two differ by more than LAB_BASES_EXACT_TOL (0.05
#     instructions/op; an exact cell's seeds agree within 0.01) and either
#     both cells are exact or their intervals (delta_ci_lo/hi) do not overlap;
#   - a moved Δ is explained by the attribution boots (attribution.csv): the
#     change, from one base to the other, of each kernel symbol's Δ against
#     the baseline; the symbols that move by LAB_ATTRIB_MIN (0.5) or more are
#     listed, and the move counts as explained when the attribution's own
#     total moves as the timed Δ does (within 0.5, or 10% of the move).
#     Otherwise it is marked unexplained (fio cells have no attribution
#     window). `./run.sh explain VARIANT --base B --state S --workload W`
#     shows the executed-path diff of io_issue_sqe behind it.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

(($# == 1)) || die_usage "usage: report-bases.sh RUN_DIR"
summary=$1/summary.csv
[[ -f $summary ]] || die_usage "report-bases: no $summary; run ./run.sh summary first"
attribution=$1/attribution.csv
[[ -f $attribution ]] || attribution=/dev/null
(($(csv_bases "$summary" | wc -l) > 1)) || exit 0
tol=${LAB_BASES_EXACT_TOL:-0.05} min=${LAB_ATTRIB_MIN:-0.5}

# shellcheck disable=SC2016 # awk source
awk -F, -v catalog="$(catalog_rows)" -v defbase="$LAB_DEFAULT_BASE" -v tol="$tol" -v min="$min" "$(cat "$LAB_ROOT/lib/bases.awk")"'
BEGIN { load_catalog(catalog) }
function abs(x) { return x < 0 ? -x : x }
function fmt(x) { return sprintf("%+.1f", x) }
FILENAME == ARGV[1] {
	if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
	v = $c["variant"]; b = vbase(v, ("base" in c) ? $c["base"] : "")
	if (!(b in seenb)) { seenb[b] = 1; B[nb++] = b }
	if ($c["measure"] != "hook-cost" || CR[v] != "design" || $c["delta_ns_per_op"] == "") next
	d = CD[v]; k = d SUBSEP b SUBSEP $c["state"] SUBSEP $c["workload"]
	has[k] = 1; port[d, b] = v
	dl[k] = $c["delta_ns_per_op"]; lo[k] = $c["delta_ci_lo"]; hi[k] = $c["delta_ci_hi"]
	sig[k] = $c["significant"]; ex[k] = ($c["method"] == "exact")
	if (!((d, $c["state"], $c["workload"]) in seenc)) { seenc[d, $c["state"], $c["workload"]] = 1; C[nc++] = d SUBSEP $c["state"] SUBSEP $c["workload"] }
	if (!(d in seend)) { seend[d] = 1; D[nd++] = d }
	next
}
{	# attribution.csv
	if (FNR == 1) { for (i = 1; i <= NF; i++) a[$i] = i; next }
	ins[$a["variant"], $a["state"], $a["workload"], $a["symbol"]] = $a["instructions_per_op"]
	att[$a["variant"], $a["state"], $a["workload"]] = 1
	# each state and workload'"'"'s symbols, in the order they first appear
	if (!(($a["state"], $a["workload"], $a["symbol"]) in seensym)) {
		seensym[$a["state"], $a["workload"], $a["symbol"]] = 1
		SY[$a["state"], $a["workload"], ++nsy[$a["state"], $a["workload"]]] = $a["symbol"]
	}
}
# symbol s Δ of variant v against its base tree baseline, in state st, workload w
function sd(v, b, st, w, s) { return ins[v, st, w, s] - ins[BL[b], st, w, s] }
END {
	# the oldest base against each other one
	b0 = B[0]; for (i = 1; i < nb; i++) if (vless(B[i], b0)) b0 = B[i]
	for (i = 0; i < nb; i++) {
		b1 = B[i]; if (b1 == b0) continue
		n = held = moved = expl = 0; rows = ""; split("", per); split("", perh)
		for (j = 0; j < nc; j++) {
			split(C[j], p, SUBSEP); d = p[1]; st = p[2]; w = p[3]
			k0 = d SUBSEP b0 SUBSEP st SUBSEP w; k1 = d SUBSEP b1 SUBSEP st SUBSEP w
			if (!(k0 in has) || !(k1 in has)) continue
			n++; per[d]++
			h = (sig[k0] == "yes") == (sig[k1] == "yes") && (sig[k0] != "yes" || (dl[k0] > 0) == (dl[k1] > 0))
			if (h) { held++; perh[d]++ }
			mv = dl[k1] - dl[k0]
			m = abs(mv) > tol + 0 && ((ex[k0] && ex[k1]) || lo[k1] > hi[k0] || hi[k1] < lo[k0])
			if (!m && h) continue
			if (m) moved++
			v0 = port[d, b0]; v1 = port[d, b1]; why = ""
			if ((v0, st, w) in att && (v1, st, w) in att && (BL[b0], st, w) in att && (BL[b1], st, w) in att) {
				tot = sd(v1, b1, st, w, "[total]") - sd(v0, b0, st, w, "[total]")
				ns = nsy[st, w]; list = ""; shown = 0
				# the symbols that move by min or more, each move computed once
				nm = 0
				for (q = 1; q <= ns; q++) {
					s = SY[st, w, q]; if (s == "[total]") continue
					x = sd(v1, b1, st, w, s) - sd(v0, b0, st, w, s)
					if (abs(x) >= min + 0) { nm++; MS[nm] = s; MX[nm] = x }
				}
				# the symbols that move most, up to four
				for (r = 0; r < 4; r++) {
					best = ""; bv = 0
					for (q = 1; q <= nm; q++) {
						s = MS[q]; if (s in used) continue
						if (abs(MX[q]) > abs(bv)) { best = s; bv = MX[q] }
					}
					if (best == "") break
					used[best] = 1; list = list (shown++ ? ", " : "") sprintf("`%s` %+.1f", best, bv)
				}
				split("", used)
				ok = abs(tot - mv) <= (abs(mv) * 0.1 > 0.5 ? abs(mv) * 0.1 : 0.5)
				if (m && ok) expl++
				why = (ok ? "" : "**unexplained**: ") "attribution moves " sprintf("%+.1f", tot) (list != "" ? " (" list ")" : "")
			} else why = (m ? "**unexplained**: " : "") "no attribution boot in this cell" (w ~ /^randread/ ? " (fio opens no window)" : "")
			rows = rows sprintf("| %s | %s | %s | %s%s | %s%s | %s | %s | %s |\n", d, st, w,
				fmt(dl[k0]), (ex[k0] ? "" : sprintf(" [%.1f, %.1f]", lo[k0], hi[k0])),
				fmt(dl[k1]), (ex[k1] ? "" : sprintf(" [%.1f, %.1f]", lo[k1], hi[k1])),
				(m ? fmt(mv) : "within the noise"),
				(sig[k0] == "yes" ? "significant" : "n.s.") " → " (sig[k1] == "yes" ? "significant" : "n.s.") (h ? "" : " **(flips)**"), why)
		}
		if (!n) continue
		printf "## Do the linux-source-%s verdicts hold on linux-source-%s?\n\n", b0, b1
		printf "Each design'"'"'s port on %s against its %s port, in every hook-cost cell (state x workload) both have,\n", b1, b0
		printf "each Δ against the baseline of its own tree (`%s`, `%s`). A verdict holds when both are\n", BL[b0], BL[b1]
		printf "significant with the same sign, or neither is. A Δ moves when the two differ by more than %s and\n", tol
		printf "both cells are exact or their intervals do not overlap. A move is explained when the total of the\n"
		printf "attribution boots moves as much (within 0.5, or 10%%); the symbols that move by %s or more are named.\n\n", min
		printf "**The %s verdicts hold on %s in %d of %d cells.** %d cell(s) moved beyond the noise, %d of them explained by the attribution.\n\n", b0, b1, held, n, moved, expl
		for (j = 0; j < nd; j++) if (D[j] in per) printf "- %s: %d of %d verdicts hold\n", D[j], perh[D[j]], per[D[j]]
		printf "\n"
		if (rows != "") {
			printf "Cells that moved or whose verdict flips (Δ instructions/op; [interval] for a noisy cell):\n\n"
			printf "| design | state | workload | Δ %s | Δ %s | moved | verdict %s → %s | explained by |\n", b0, b1, b0, b1
			printf "|---|---|---|---:|---:|---:|---|---|\n%s\n", rows
			printf "The executed path behind a move: `./run.sh explain VARIANT --base %s --state S --workload W`.\n\n", b1
		}
	}
}' "$summary" "$attribution"
