#!/bin/bash
# report-decision.sh RUN_DIR: the decision table (issue 22), markdown on
# stdout. One row per design (lib/catalog.sh: variants_with design), every
# figure read from the run's files or the design's own folder:
#   - Δ instructions/op versus the design's baseline (catalog_one_on its base)
#     on each path under each rule load (LAB_DECISION_STATES, default idle
#     watch syscall-1 uring-hit): inline skipped (bench-nop), inline audited
#     (bench-openclose), io-wq (bench-nop-async, bench-openclose-async) from
#     RUN_DIR/summary.csv; SQPOLL (bench-openclose-sqpoll) from
#     RUN_DIR/footprint.csv: the instructions from io_submit_sqes' entry to its
#     return (scripts/run/attribute.sh, the plugin's sub= count), so the SQPOLL
#     thread's idle spin is left out;
#   - i-cache: Δ kernel text lines per op and Δ hot text bytes
#     (footprint.csv, see scripts/run/attribute.sh);
#   - correctness: the record stream (the count of stream-expect lines in the
#     design's README: differences from the reference's stream that tests/61
#     expects), runtime-disable= and proofs= in the design's meta;
#   - a sentence, built from the same columns: what the design gains and pays
#     against its base's reference design (reference_on);
#   - Pareto: marked when no other design is at least as good on every
#     column both have and better on one. Better means: beyond both
#     intervals (summary.csv's delta_ci_lo/hi; an exact cell is its value)
#     for timed cells (a cell not judged, one seed a side, is compared with
#     nothing), by more than LAB_DECISION_TOL_INSNS (1.0) for the one-boot
#     SQPOLL counts and LAB_DECISION_TOL_LINES (1.0: a kernel's layout alone
#     moves a path by about a line) for lines.
# A cell missing from the run prints as "—" and is compared with nothing.
# Prints nothing when no design has a row in summary.csv. Called by
# scripts/report.sh.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

(($# == 1)) || die_usage "usage: report-decision.sh RUN_DIR"
summary=$1/summary.csv
[[ -f $summary ]] || die_usage "report-decision: no $summary; run ./run.sh summary first"
footprint=$1/footprint.csv
[[ -f $footprint ]] || footprint=/dev/null
loads=${LAB_DECISION_STATES:-idle watch syscall-1 uring-hit}
tol_insns=${LAB_DECISION_TOL_INSNS:-1.0} tol_lines=${LAB_DECISION_TOL_LINES:-1.0}
for s in $loads; do check_name state "$s"; done

# one line per design: name, its baseline, its reference, runtime-disable,
# stream-expect count, proofs (from the catalog and the design's README)
info=""
for d in $(variants_with design); do
	b=$(variant_base "$d")
	base=$(catalog_one_on "$b" baseline)
	ref=$(reference_on "$b")
	n=$(grep -c '^stream-expect:' "$(variants_dir)/$d/README" 2>/dev/null || true)
	info+="$d ${base:--} ${ref:--} $(variant_meta "$d" runtime-disable -) ${n:-0} $(variant_meta "$d" proofs -);"
done

# shellcheck disable=SC2016 # awk source
awk -F, -v info="$info" -v loads="$loads" -v tol_i="$tol_insns" -v tol_l="$tol_lines" '
FILENAME == ARGV[1] {
	if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
	k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
	if ($c["delta_ns_per_op"] == "") next
	D[k] = $c["delta_ns_per_op"] + 0
	# judged: an interval, or an exact cell (its value is its interval)
	J[k] = $c["delta_ci_lo"] != "" || $c["method"] == "exact"
	LO[k] = $c["delta_ci_lo"] != "" ? $c["delta_ci_lo"] + 0 : D[k]
	HI[k] = $c["delta_ci_hi"] != "" ? $c["delta_ci_hi"] + 0 : D[k]
	SIG[k] = $c["significant"]; seen[$c["variant"]] = 1; sstate[$c["state"]] = 1
	next
}
FILENAME == ARGV[2] {
	if (FNR == 1) { for (i = 1; i <= NF; i++) a[$i] = i; next }
	k = $a["variant"] SUBSEP $a["state"] SUBSEP $a["workload"]
	if ($a["kernel_lines_per_op"] != "") { LPO[k] = $a["kernel_lines_per_op"] + 0; HOT[k] = $a["hot_text_bytes"] + 0 }
	if ($a["sub_instructions_per_op"] != "") SUB[k] = $a["sub_instructions_per_op"] + 0
	next
}
function abs(x) { return x < 0 ? -x : x }
function z(x) { return (x > -0.05 && x < 0.05) ? 0 : x }
# column j of design d: set V[d, j] (value), L/H (interval) when measured
function put(d, j, v, lo, hi) { V[d, j] = v; VL[d, j] = lo; VH[d, j] = hi; has[d, j] = 1 }
# is x better than y on column j (lower is better; beyond the noise)?
function better(x, y, j,   t) {
	if (kind[j] == "timed") return VJ[x, j] && VJ[y, j] && VH[x, j] < VL[y, j] && V[y, j] - V[x, j] >= 0.01
	t = kind[j] == "lines" ? tol_l : kind[j] == "insns" ? tol_i : 0
	return V[y, j] - V[x, j] > t
}
function cellfmt(d, j,   s) {
	if (!has[d, j]) return "—"
	if (kind[j] == "lines") return sprintf("%+.2f", V[d, j])
	s = sprintf("%+.1f", z(V[d, j]))
	return (kind[j] == "timed" && SIGN[d, j] != "yes") ? "(" s ")" : s
}
BEGIN {
	np = split("bench-nop bench-openclose bench-nop-async bench-openclose-async bench-openclose-sqpoll", P, " ")
	split("skipped op|audited op|skipped op on io-wq|audited op on io-wq|audited op by SQPOLL", PN, "|")
	nl = split(loads, LD, " ")
	nd = split(info, I, ";")
	for (i = 1; i <= nd; i++) {
		if (I[i] == "") continue
		split(I[i], f, " ")
		DS[++ndes] = f[1]; BASE[f[1]] = f[2]; REF[f[1]] = f[3]; RTD[f[1]] = f[4]; NSTR[f[1]] = f[5]; PROOF[f[1]] = f[6]
	}
}
END {
	# the columns: Δ per load and path, i-cache lines, correctness
	nc = 0
	for (l = 1; l <= nl; l++)
		for (p = 1; p <= np; p++) { ++nc; kind[nc] = (P[p] == "bench-openclose-sqpoll") ? "insns" : "timed"; CS[nc] = LD[l]; CW[nc] = P[p]; CN[nc] = LD[l] ", " PN[p] }
	ndelta = nc
	for (l = 1; l <= nl && l <= 2; l++)
		for (p = 1; p <= 2; p++) { ++nc; kind[nc] = "lines"; CS[nc] = LD[l]; CW[nc] = P[p]; CN[nc] = "i-cache lines/op, " LD[l] ", " PN[p] }
	nlines_end = nc
	jstream = ++nc; kind[nc] = "count"; CN[nc] = "record-stream differences"
	jrtd = ++nc; kind[nc] = "count"; CN[nc] = "runtime disable"
	jaudn = ++nc; kind[nc] = "count"; CN[nc] = "CONFIG_AUDIT=n build"
	jlock = ++nc; kind[nc] = "count"; CN[nc] = "lockdep"
	for (i = 1; i <= ndes; i++) {
		d = DS[i]; b = BASE[d]
		for (j = 1; j <= ndelta; j++) {
			k = d SUBSEP CS[j] SUBSEP CW[j]; kb = b SUBSEP CS[j] SUBSEP CW[j]
			if (kind[j] == "timed" && (k in D)) { put(d, j, D[k], LO[k], HI[k]); VJ[d, j] = J[k]; SIGN[d, j] = SIG[k]; ndata[d]++ }
			if (kind[j] == "insns" && (k in SUB) && (kb in SUB)) { put(d, j, SUB[k] - SUB[kb]); ndata[d]++ }
		}
		for (j = ndelta + 1; j <= nlines_end; j++) {
			k = d SUBSEP CS[j] SUBSEP CW[j]; kb = b SUBSEP CS[j] SUBSEP CW[j]
			if ((k in LPO) && (kb in LPO)) { put(d, j, LPO[k] - LPO[kb]); HB[d, j] = HOT[k] - HOT[kb] }
		}
		put(d, jstream, NSTR[d] + 0)
		if (RTD[d] == "bug" || RTD[d] == "survives") put(d, jrtd, RTD[d] == "bug")
		pr = "," PROOF[d] ","
		if (index(pr, ",audit-n,")) put(d, jaudn, 0)
		if (index(pr, ",lockdep,") || index(pr, ",no-lock,")) put(d, jlock, 0)
	}
	# Pareto over the designs with data in this run
	for (i = 1; i <= ndes; i++) {
		x = DS[i]; if (!ndata[x]) continue
		dom[x] = ""
		for (m = 1; m <= ndes; m++) {
			y = DS[m]; if (y == x || !ndata[y]) continue
			shared = 0; worse = 0; bet = 0
			for (j = 1; j <= nc; j++) {
				if (!has[x, j] || !has[y, j]) continue
				if (j <= ndelta) shared++
				if (better(x, y, j)) worse = 1
				if (better(y, x, j)) bet = 1
			}
			if (shared && bet && !worse) { dom[x] = y; break }
		}
	}
	for (i = 1; i <= ndes; i++) if (ndata[DS[i]]) any = 1
	if (!any) exit
	print "## Decision table"
	print ""
	print "One row per design (the variant catalog). Δ = instructions per op versus the design'"'"'s baseline in the same"
	print "audit state (tcg-icount); each load cell lists five paths: **inline skipped** (bench-nop) / **inline audited**"
	print "(bench-openclose) / **io-wq skipped** (bench-nop-async) / **io-wq audited** (bench-openclose-async) /"
	print "**SQPOLL audited**‡ (bench-openclose-sqpoll). Loads: idle = audit enabled, no rule; watch = one file watch on"
	print "a path no workload touches (a counted rule that matches nothing); syscall-1 = one syscall rule that never"
	print "matches; uring-hit = an io_uring rule matching every opcode (every audited op emits a record). (x): not"
	print "significant at the run'"'"'s false discovery rate, or not judged (one seed a side); —: not measured in this run."
	print ""
	print "‡ SQPOLL: the kernel instructions from `io_submit_sqes` entry to its return in the SQPOLL thread, counted by"
	print "the attribution plugin (`sub=io_submit_sqes`, footprint.csv: one boot, seed 1, no interval): the thread'"'"'s"
	print "idle spin runs outside `io_submit_sqes` and is not counted; the timed bench-openclose-sqpoll and randread-sqpoll"
	print "cells count it (device time) and are not used. randread-sqpoll (fio) opens no plugin window: not in the table."
	print ""
	print "i-cache: Δ kernel text lines per op (64-byte lines; a line run on every op counts 1, one run once per"
	print "32-op batch counts 1/32; footprint.csv) on the inline skipped / audited op; hot text: Δ bytes of the kernel"
	print "instructions run at least once per 64 ops. Record stream: differences from the reference'"'"'s stream that the"
	print "design'"'"'s README declares (`stream-expect` lines, checked by tests/61). Runtime disable: tests/62, from the"
	print "design'"'"'s meta. CONFIG_AUDIT=n and lockdep: the proofs recorded in its meta (`proofs=`)."
	print "**Pareto**: no other design is at least as good on every column both have and better on one (better ="
	print "beyond both intervals for timed cells, and a cell not judged (one seed a side) is compared with nothing; by more"
	print "than " tol_i " instructions/op for SQPOLL (one boot) and " tol_l " lines/op for i-cache (a kernel'"'"'s layout alone moves a"
	print "path by about a line))."
	print ""
	hdr = "| design | Pareto |"; sep = "|---|:---:|"
	for (l = 1; l <= nl; l++) { hdr = hdr " " LD[l] (LD[l] in sstate ? "" : " (not in run)") " |"; sep = sep "---:|" }
	for (l = 1; l <= nl && l <= 2; l++) { hdr = hdr " i-cache Δ lines/op, " LD[l] " |"; sep = sep "---:|" }
	hdr = hdr " hot text Δ bytes, " LD[1] " | record stream | runtime disable | CONFIG_AUDIT=n | lockdep | what a maintainer gains and pays |"
	sep = sep "---:|---|---|---|---|---|"
	print hdr; print sep
	for (i = 1; i <= ndes; i++) {
		d = DS[i]
		line = "| " d " | " (!ndata[d] ? "—" : dom[d] == "" ? "**yes**" : "no (" dom[d] ")") " |"
		for (l = 1; l <= nl; l++) {
			s = ""
			for (p = 1; p <= np; p++) { j = (l - 1) * np + p; s = s (p > 1 ? " / " : "") cellfmt(d, j) }
			line = line " " s " |"
		}
		for (l = 1; l <= nl && l <= 2; l++) {
			j = ndelta + (l - 1) * 2
			line = line " " cellfmt(d, j + 1) " / " cellfmt(d, j + 2) " |"
		}
		j = ndelta + 1
		line = line " " (has[d, j] ? sprintf("%+d / %+d", HB[d, j], HB[d, j + 1]) : "—") " |"
		line = line " " (REF[d] == d ? "the reference" : NSTR[d] == 0 ? "same as the reference" : NSTR[d] " expected difference" (NSTR[d] == 1 ? "" : "s")) " |"
		line = line " " (RTD[d] == "bug" ? "**kernel BUG**" : RTD[d] == "survives" ? "survives" : "not recorded") " |"
		pr = "," PROOF[d] ","
		line = line " " (index(pr, ",audit-n,") ? "builds" : "not recorded") " |"
		line = line " " (index(pr, ",lockdep,") ? "clean" : index(pr, ",no-lock,") ? "no lock added" : "not recorded") " |"
		line = line " " sentence(d) " |"
		print line
	}
	print ""
}
# what d gains and pays against its reference (the reference: against the
# baseline), from the columns above
function sentence(d,   r, j, gi, gj, pj, pi, gl, glj, pl, plj, ng, npay, g, s, out) {
	if (!ndata[d]) return "not in this run"
	r = REF[d]
	if (r == d || r == "-" || !ndata[r]) {
		# the reference (or a design without one): its own cost over the
		# baseline, the first load on the two inline paths, and the most
		# it costs under a load whose rule matches nothing (no record)
		pi = ""
		for (j = 1; j <= ndelta; j++)
			if (has[d, j] && CS[j] != "uring-hit" && (pi == "" || V[d, j] > pi)) { pi = V[d, j]; pj = j }
		out = (r == d ? "The reference (the base tree as is): " : "No reference to compare with: ") cellfmt(d, 1) " / " cellfmt(d, 2) \
			" instructions per skipped / audited op over the baseline (" LD[1] ")"
		if (pi != "") out = out ", up to " sprintf("%+.1f", pi) " with no matching rule (" CN[pj] ")"
		if (RTD[d] == "bug") out = out "; kernel BUG on runtime disable"
		return out "."
	}
	# instruction columns: how many paths each way, and the largest step;
	# lines columns: the largest step each way
	gi = pi = gl = pl = ng = npay = 0
	for (j = 1; j <= nlines_end; j++) {
		if (!has[d, j] || !has[r, j]) continue
		g = V[r, j] - V[d, j]
		if (better(d, r, j)) {
			if (kind[j] == "lines") { if (g > gl) { gl = g; glj = j } }
			else { ng++; if (g > gi) { gi = g; gj = j } }
		}
		if (better(r, d, j)) {
			if (kind[j] == "lines") { if (-g > pl) { pl = -g; plj = j } }
			else { npay++; if (-g > pi) { pi = -g; pj = j } }
		}
	}
	s = ""
	if (ng) s = "up to " sprintf("%.1f", gi) " instructions/op less (" CN[gj] "; " ng " cell" (ng == 1 ? "" : "s") ")"
	if (has[d, jrtd] && has[r, jrtd] && V[d, jrtd] < V[r, jrtd]) s = s (s == "" ? "" : "; ") "survives runtime disable"
	if (gl) s = s (s == "" ? "" : "; ") sprintf("%.2f", gl) " fewer i-cache lines/op (" CS[glj] ", " (CW[glj] == "bench-nop" ? "skipped" : "audited") " op)"
	out = "Against " r ", gains: " (s == "" ? "nothing measurable" : s)
	s = ""
	if (npay) s = "up to " sprintf("%+.1f", pi) " instructions/op (" CN[pj] "; " npay " cell" (npay == 1 ? "" : "s") ")"
	if (has[d, jrtd] && has[r, jrtd] && V[d, jrtd] > V[r, jrtd]) s = s (s == "" ? "" : "; ") "kernel BUG on runtime disable"
	if (NSTR[d] > NSTR[r]) s = s (s == "" ? "" : "; ") NSTR[d] - NSTR[r] " record-stream difference" (NSTR[d] - NSTR[r] == 1 ? "" : "s")
	if (pl) s = s (s == "" ? "" : "; ") sprintf("%+.2f", pl) " i-cache lines/op (" CS[plj] ", " (CW[plj] == "bench-nop" ? "skipped" : "audited") " op)"
	return out "; pays: " (s == "" ? "nothing measurable" : s) "."
}
' "$summary" "$footprint"

# --- the footprint per variant and headline cell (footprint.csv) ---------------
[[ $footprint != /dev/null ]] || exit 0
order=$(variants_with baseline design codegen-control config-floor | paste -sd' ')
bases=""
for v in $order; do bases+="$v=$(catalog_one_on "$(variant_base "$v")" baseline);"; done
echo "### i-cache footprint and SQPOLL submissions (attribution boots, footprint.csv)"
echo
echo "Per attribution boot (tcg-icount, nokaslr, seed 1; scripts/run/attribute.sh): the distinct 64-byte lines of kernel"
echo "text the measured window ran, the lines per op (each line weighed min(1, executions of its busiest instruction"
echo "/ ops)), the bytes of kernel instructions run at least once per 64 ops (hot text), and the kernel instructions"
echo "per op from \`io_submit_sqes\` entry to its return (the submission subtree; for bench-openclose-sqpoll the SQPOLL"
echo "thread's submissions without its idle spin; its lines and bytes are the whole window's, spin included). Δ versus"
echo "the variant's baseline in the same state and workload."
echo
echo "<details><summary>$(($(wc -l <"$footprint") - 1)) rows</summary>"
echo
# shellcheck disable=SC2016 # awk source
awk -F, -v order="$order" -v bases="$bases" "$(cat "$LAB_ROOT/lib/order.awk")"'
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		v = $c["variant"]; s = $c["state"]; w = $c["workload"]; k = v SUBSEP s SUBSEP w
		R[k] = $0; if (!((s, w) in sw)) { sw[s, w] = 1; SS[ns++] = s SUBSEP w }
		L[k] = $c["kernel_lines"]; LPO[k] = $c["kernel_lines_per_op"]; TB[k] = $c["kernel_text_bytes"]; HB[k] = $c["hot_text_bytes"]
		SUBI[k] = $c["sub_instructions_per_op"]
	}
	function d(x, y, p) { return (x == "" || y == "") ? "—" : sprintf("%+." p "f", x - y) }
	function n(x) { return x == "" ? "—" : x }
	END {
		nv = split(order, V, " ")
		m = split(bases, B, ";")
		for (i = 1; i <= m; i++) { split(B[i], kv, "="); base[kv[1]] = kv[2] }
		# states, then workloads, in the canonical orders
		for (i = 1; i < ns; i++)
			for (j = i; j > 0; j--) {
				split(SS[j - 1], a, SUBSEP); split(SS[j], b, SUBSEP)
				if (state_rank(a[1]) > state_rank(b[1]) || (a[1] == b[1] && workload_rank(a[2]) > workload_rank(b[2]))) { t = SS[j]; SS[j] = SS[j - 1]; SS[j - 1] = t }
				else break
			}
		print "| state | workload | variant | lines | lines/op | Δ lines/op | text bytes | hot text bytes | Δ hot bytes | io_submit_sqes subtree instr/op | Δ |"
		print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 0; i < ns; i++) {
			split(SS[i], a, SUBSEP)
			for (x = 1; x <= nv; x++) {
				v = V[x]; k = v SUBSEP a[1] SUBSEP a[2]; kb = base[v] SUBSEP a[1] SUBSEP a[2]
				if (!(k in R)) continue
				isb = base[v] == v || !(kb in R)
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", a[1], a[2], v, n(L[k]), n(LPO[k]),
					isb ? "—" : d(LPO[k], LPO[kb], 2), n(TB[k]), n(HB[k]), isb ? "—" : d(HB[k], HB[kb], 0),
					SUBI[k] == "" ? "—" : sprintf("%.2f", SUBI[k]), isb ? "—" : d(SUBI[k], SUBI[kb], 2)
			}
		}
	}' "$footprint"
echo
echo "</details>"
echo
