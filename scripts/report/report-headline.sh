#!/bin/bash
# report-headline.sh RUN_DIR: the report's opening section (markdown on
# stdout). Every figure comes from the run's files or the lab's own records:
#   - one conclusion sentence per design: Δ per skipped op (bench-nop: NOP,
#     which upstream and static-key skip) and per audited op (bench-openclose:
#     OPENAT/CLOSE, which every design audits), with audit off and idle, and
#     with a syscall rule loaded; its record stream against its base's
#     reference (lib/common.sh run_streams: the run's streams.txt, else the
#     recorded tests/61 boots); its
#     runtime-disable behaviour (runtime-disable= in the variant's catalog meta,
#     which tests/62 checks) - from RUN_DIR/summary.csv;
#   - the hook-design table (what differs between designs: off, idle, a rule
#     that misses);
#   - the audit-core table: costs every design pays the same (per syscall
#     rule, per emitted record), apart from the hook designs;
#   - throughput next to cost, and the inputs of a hardware model from
#     RUN_DIR/attribution.csv (Δ instructions and Δ memory accesses per
#     skipped op), with no cycles figure: the lab has no measured or cited
#     cycles-per-op calibration.
# A cell missing from the run prints as "—". Called by scripts/report.sh.
# Base trees (issue 23): every Δ is against the baseline of the row's own base
# tree (summary.csv's base column). A run on several bases gets a block of
# sentences per base, a column group per base in the hook-design table (a
# row per design, its port on each base) and a base column in the others.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

(($# == 1)) || die_usage "usage: report-headline.sh RUN_DIR"
summary=$1/summary.csv
[[ -f $summary ]] || die_usage "report-headline: no $summary; run ./run.sh summary first"
attribution=$1/attribution.csv
[[ -f $attribution ]] || attribution=/dev/null
streams=$(run_streams "$1")
streams=${streams:-/dev/null}

# the designs and each base's baseline, from the variant catalog (kernel/variants/*/meta)
designs=$(variants_with design | paste -sd' ')
catalog=$(catalog_rows)
# runtime-disable: each design's catalog entry (bug or survives), as v=what;...
rtd=""
for v in $designs; do
	l=$(variant_meta "$v" runtime-disable)
	[[ -n $l ]] && rtd+="$v=$l;"
done

# the run's accelerator and unit (lib/common.sh): instructions under
# tcg-icount, wall-clock ns under a real-time accelerator (kvm, tcg-wall)
run_accel_unit "$1" "$summary" "unknown accelerator"

# the i-cache footprint, when the run has one (scripts/run/attribute.sh)
fp=0
[[ -f $1/footprint.csv ]] && fp=1
# shellcheck disable=SC2016 # awk source
awk -F, -v fp="$fp" -v designs="$designs" -v catalog="$catalog" -v defbase="$LAB_DEFAULT_BASE" -v rtd="$rtd" \
	-v unit="$unit" -v acc="$accel_label" "$(cat "$LAB_ROOT/lib/bases.awk")"'
BEGIN { load_catalog(catalog) }
FILENAME == ARGV[1] {
	if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
	k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
	rb[$c["variant"]] = vbase($c["variant"], ("base" in c) ? $c["base"] : "")
	d[k] = $c["delta_ns_per_op"]; lo[k] = $c["delta_ci_lo"]; hi[k] = $c["delta_ci_hi"]
	ops[k] = $c["median_ops_per_sec"]; sig[k] = $c["significant"]; meth[k] = $c["method"]
	q[k] = $c["q_value"]; fdr = ($c["fdr"] != "" ? $c["fdr"] : fdr)
	seen[$c["variant"]] = 1
	next
}
FILENAME == ARGV[2] {
	if (FNR == 1) { for (i = 1; i <= NF; i++) a[$i] = i; next }
	k = $a["variant"] SUBSEP $a["state"] SUBSEP $a["workload"]
	# [total] is the whole window, the sum of the other rows: not added twice
	if ($a["symbol"] == "[total]") next
	mem[k] += $a["mem_accesses_per_op"]; ins[k] += $a["instructions_per_op"]; att[k] = 1
	if ($a["workload"] == "bench-openclose") oc_att = 1
	next
}
/^stream / {
	v = ""; same = 0; okk = 0
	nf = split($0, F, " ")
	for (i = 2; i <= nf; i++) {
		split(F[i], kv, "=")
		if (kv[1] == "variant") v = kv[2]
		if (kv[1] == "got") same = kv[2] == "same"
		if (kv[1] == "ok") okk = kv[2] == "1"
	}
	ns_[v]++; nsame[v] += same; nok[v] += okk
}
# no "-0.0": a delta that rounds to zero is +0.0
function z(x) { return (x > -0.05 && x < 0.05) ? 0 : x }
function has(v, s, w,   k) { k = v SUBSEP s SUBSEP w; return (k in d) && d[k] != "" }
function num(v, s, w) { return has(v, s, w) ? z(d[v SUBSEP s SUBSEP w] + 0) : "" }
# a cell: the Δ, "n.s." when not significant at the run FDR
function cell(v, s, w,   k) {
	k = v SUBSEP s SUBSEP w
	if (!has(v, s, w)) return "—"
	return sprintf("%+.1f", z(d[k] + 0)) (sig[k] == "yes" ? "" : sig[k] == "n/a" ? " (device time)" : " n.s.")
}
function big(x) { return (x >= 1000 || x <= -1000) ? sprintf("%+.0f", x) : sprintf("%+.1f", x) }
# the baseline a variant is compared with: its own base tree'"'"'s
function bl(v) { return (rb[v] in BL) ? BL[rb[v]] : "" }
function thr(v, s, w,   k, b) {
	k = v SUBSEP s SUBSEP w; b = bl(v) SUBSEP s SUBSEP w
	if (!(k in ops) || !(b in ops) || ops[b] + 0 <= 0) return "—"
	return sprintf("%+.2f%%", 100 * (ops[k] / ops[b] - 1))
}
function rule_cost(v) {
	if (!has(v, "syscall-1", "bench-openclose") || !has(v, "syscall-100", "bench-openclose")) return ""
	return (num(v, "syscall-100", "bench-openclose") - num(v, "syscall-1", "bench-openclose")) / 99
}
function rec_cost(v) {
	if (!has(v, "uring-hit", "bench-openclose") || !has(v, "uring-miss", "bench-openclose")) return ""
	return num(v, "uring-hit", "bench-openclose") - num(v, "uring-miss", "bench-openclose")
}
function dmem(v, s, w,   k, b) {
	k = v SUBSEP s SUBSEP w; b = bl(v) SUBSEP s SUBSEP w
	if (!(k in att) || !(b in att)) return "—"
	return sprintf("%+.1f", z(mem[k] - mem[b]))
}
function dins(v, s, w,   k, b) {
	k = v SUBSEP s SUBSEP w; b = bl(v) SUBSEP s SUBSEP w
	if (!(k in att) || !(b in att)) return "—"
	return sprintf("%+.1f", z(ins[k] - ins[b]))
}
function sentence(v,   line, so, si, s1, ao, ai, st, r) {
	line = "- **" v "**: "
	if (has(v, "off", "bench-nop") || has(v, "idle", "bench-nop"))
		line = line cell(v, "off", "bench-nop") " / " cell(v, "idle", "bench-nop") " " unit " per skipped op (audit off / idle)" \
			(has(v, "syscall-1", "bench-nop") ? ", " cell(v, "syscall-1", "bench-nop") " with one syscall rule loaded" : "") "; "
	if (has(v, "off", "bench-openclose") || has(v, "idle", "bench-openclose"))
		line = line cell(v, "off", "bench-openclose") " / " cell(v, "idle", "bench-openclose") " per audited op (off / idle), " \
			cell(v, "uring-miss", "bench-openclose") " with an io_uring rule that misses; "
	if (REF[rb[v]] == v) st = "record stream: the reference"
	else if (v in ns_) st = sprintf("record stream: identical to %s in %d of %d scenarios (%d of %d as its README expects)", REF[rb[v]], nsame[v], ns_[v], nok[v], ns_[v])
	else st = "record stream: not recorded"
	r = ""
	n = split(rtd, R, ";")
	for (i = 1; i <= n; i++) { split(R[i], kv, "="); if (kv[1] == v) r = kv[2] }
	line = line st "; runtime disable with an io_uring rule: " (r == "bug" ? "**kernel BUG** (tests/62)" : r == "survives" ? "survives (tests/62)" : "not recorded") "."
	return line
}
# bcol(v): the base column of a row in a run on several bases
function bcol(v) { return multi ? " " rb[v] " |" : "" }
function design_row(v) { return (v in seen) && (!multi || rb[v] == B[bi]) }
END {
	nd = split(designs, D, " ")
	# the bases of the run, oldest first
	nb = 0
	for (v in rb) if (!((rb[v]) in bseen)) { bseen[rb[v]] = 1; B[++nb] = rb[v] }
	for (i = 2; i <= nb; i++) for (j = i; j > 1 && vless(B[j], B[j - 1]); j--) { t = B[j]; B[j] = B[j - 1]; B[j - 1] = t }
	multi = nb > 1
	bhead = multi ? " base |" : ""; bsep = multi ? "---|" : ""
	# the designs as rows of the hook-design table: by design, their port on each base
	for (j = 1; j <= nd; j++) {
		v = D[j]; if (!(v in seen)) continue
		d0 = (v in CD) ? CD[v] : v
		if (!(d0 in dn_seen)) { dn_seen[d0] = 1; DN[++ndn] = d0 }
		P[d0, rb[v]] = v
	}
	bls = ""
	for (i = 1; i <= nb; i++) bls = bls (i > 1 ? ", " : "") B[i] ": `" BL[B[i]] "`"
	print "## Headline"
	print ""
	bsl = multi ? "the baseline of the same base tree (" bls ")" : "`" BL[B[1]] "`"
	xb = multi ? "; a Δ is never taken across base trees" : ""
	if (unit == "instructions") {
		print "Δ = instructions per op versus " bsl " in the same audit state, " acc xb ". Exact where every seed agrees"
		print "within 0.01; otherwise the Hodges-Lehmann shift of the seeds. \"n.s.\": not significant at a false"
	} else {
		print "Δ = " unit " per op versus " bsl " in the same audit state, " acc xb ": real time, so every cell is noisy;"
		print "Δ is the Hodges-Lehmann shift of the per-rep values (a cell'"'"'s figure: the median, with a bootstrap CI at n ≥ 10)."
		print "\"n.s.\": not significant at a false"
	}
	print "discovery rate of " (fdr == "" ? "—" : fdr) " (Benjamini-Hochberg over every hook-cost cell; see Noise and significance)."
	print "A **skipped op** is an IORING_OP_NOP (bench-nop), which upstream and static-key skip through `audit_skip`;"
	print "an **audited op** is an OPENAT or CLOSE (bench-openclose), which every design audits."
	print ""
	for (bi = 1; bi <= nb; bi++) {
		if (multi) { print "On **linux-source-" B[bi] "** (versus `" BL[B[bi]] "`):"; print "" }
		for (j = 1; j <= nd; j++) if (design_row(D[j])) print sentence(D[j])
		print ""
	}
	print "### Hook designs"
	print ""
	print "What differs between the designs: the hooks with audit off, idle (enabled, no rules), one syscall rule"
	print "(it turns a runtime switch on for every op) and an io_uring rule that matches nothing."
	print ""
	if (!multi) {
		print "| design | skipped op: off | skipped op: idle | skipped op: 1 syscall rule | audited op: off | audited op: idle | audited op: io_uring rule, miss |"
		print "|---|---:|---:|---:|---:|---:|---:|"
	} else {
		print "A column group per base tree; a row per design, its port on each base (\"—\": no port, or not in this run)."
		print ""
		h = "| design |"; hs = "|---|"
		for (i = 1; i <= nb; i++) {
			h = h " " B[i] ": skipped op: off | " B[i] ": skipped op: idle | " B[i] ": skipped op: 1 syscall rule | " B[i] ": audited op: off | " B[i] ": audited op: idle | " B[i] ": audited op: io_uring rule, miss |"
			hs = hs "---:|---:|---:|---:|---:|---:|"
		}
		print h; print hs
	}
	for (j = 1; j <= ndn; j++) {
		line = "| " DN[j] " |"
		for (i = 1; i <= nb; i++) {
			v = P[DN[j], B[i]]
			if (v == "") { line = line " — | — | — | — | — | — |"; continue }
			line = line sprintf(" %s | %s | %s | %s | %s | %s |", cell(v, "off", "bench-nop"), cell(v, "idle", "bench-nop"), cell(v, "syscall-1", "bench-nop"),
				cell(v, "off", "bench-openclose"), cell(v, "idle", "bench-openclose"), cell(v, "uring-miss", "bench-openclose"))
		}
		print line
	}
	print ""
	print "### Audit core (every design pays it)"
	print ""
	print "Costs of the audit core that the hook designs share: the syscall-rule list walk per audited op, and"
	print "emitting a record (an io_uring rule that matches, against one that misses). Per rule = (Δ at 100 rules"
	print "- Δ at 1 rule) / 99; per record = Δ(uring-hit) - Δ(uring-miss), on bench-openclose."
	print ""
	print "| design |" bhead " 1 syscall rule | 10 rules | 100 rules | per rule | rule misses | rule matches | per record |"
	print "|---|" bsep "---:|---:|---:|---:|---:|---:|---:|"
	for (bi = 1; bi <= nb; bi++) {
		nr = nc = 0
		for (j = 1; j <= nd; j++) {
			v = D[j]; if (!design_row(v)) continue
			pr = rule_cost(v); pc = rec_cost(v)
			if (pr != "") { if (!nr++ || pr < rmin) rmin = pr; if (nr == 1 || pr > rmax) rmax = pr }
			if (pc != "") { if (!nc++ || pc < cmin) cmin = pc; if (nc == 1 || pc > cmax) cmax = pc }
			printf "| %s |%s %s | %s | %s | %s | %s | %s | %s |\n", v, bcol(v), cell(v, "syscall-1", "bench-openclose"), cell(v, "syscall-10", "bench-openclose"),
				cell(v, "syscall-100", "bench-openclose"), (pr == "" ? "—" : sprintf("%.1f", pr)), cell(v, "uring-miss", "bench-openclose"),
				cell(v, "uring-hit", "bench-openclose"), (pc == "" ? "—" : big(pc))
		}
		rng[bi] = ""
		if (nr) rng[bi] = sprintf("Per syscall rule: %.1f to %.1f %s per audited op across the designs", rmin, rmax, unit)
		if (nc) rng[bi] = rng[bi] (nr ? "; per" : "Per") " emitted record: " big(cmin) " to " big(cmax)
	}
	print ""
	for (bi = 1; bi <= nb; bi++) if (rng[bi] != "") print (multi ? "On " B[bi] ": " : "") rng[bi] "."
	print ""
	print "### Throughput next to cost, and what a hardware model would need"
	print ""
	print "The 2021 thread reported throughput on hardware (a random-read test \"slowed down by nearly 5%\" with the"
	if (unit == "instructions") {
		print "hooks and no rules, as LWN'"'"'s \"Auditing io_uring\", 2021, reports it); the lab counts executed instructions per op. ops/s below are per guest second"
		print "(10^9 instructions), so they restate the Δ, not a hardware rate. A hardware estimate needs the extra"
	} else {
		print "hooks and no rules, as LWN'"'"'s \"Auditing io_uring\", 2021, reports it). This run is " acc ": ops/s below are wall-clock on this host,"
		print "so they restate the Δ in time" (acc ~ /tcg-wall/ ? " under emulation (TCG-translated code), not a hardware rate" : "") ". A hardware estimate needs the extra"
	}
	print "instructions and memory accesses per op (from the attribution boots, `attribution.csv`: all symbols,"
	print "seed 1), the extra i-cache lines (" (fp ? "measured: the decision table and footprint.csv" : "not measured in this run") ") and a measured cycles-per-op for the op on the target"
	print "machine (none in this lab): no cycles or percent-of-hardware figure is given."
	print ""
	print "| design |" bhead " state | Δ/skipped op | NOP ops/s | Δ instr. / Δ mem. accesses per NOP (attribution) | Δ/audited op | OPENAT+CLOSE ops/s | fio randread-qd128 Δ/op | fio ops/s |"
	print "|---|" bsep "---|---:|---:|---:|---:|---:|---:|---:|"
	for (bi = 1; bi <= nb; bi++)
		for (j = 1; j <= nd; j++) {
			v = D[j]; if (!design_row(v)) continue
			for (t = 1; t <= 2; t++) {
				s = t == 1 ? "off" : "idle"
				printf "| %s |%s %s | %s | %s | %s / %s | %s | %s | %s | %s |\n", v, bcol(v), s, cell(v, s, "bench-nop"), thr(v, s, "bench-nop"),
					dins(v, s, "bench-nop"), dmem(v, s, "bench-nop"),
					cell(v, s, "bench-openclose"), thr(v, s, "bench-openclose"), cell(v, s, "randread-qd128"), thr(v, s, "randread-qd128")
			}
		}
	print ""
	if (!oc_att) {
		print "bench-openclose is not attributed per symbol (the attribution boots run bench-nop and bench-read), so the"
		print "audited-op Δs are not split per function in this run."
	} else print "The audited-op Δs are split per function in the attribution section (bench-openclose)."
	print ""
}' "$summary" "$attribution" "$streams"
