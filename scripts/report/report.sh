#!/bin/bash
# report.sh RUN: write results/RUN/report.md from the run's own files:
# summary.csv (./run.sh summary RUN), manifest.json, cells.csv, profile.csv
# if the run was profiled, and the figures of scripts/report/plots.sh RUN if drawn.
# Sections: the headline (scripts/report/report-headline.sh: a table per design and
# a verdict line each, throughput and the hardware bridge), the findings
# (scripts/report/report-findings.sh), then the appendix: noise and significance (the rule, the controls), one verdict line per variant and
# headline cell (randread-qd128 and bench-nop in states idle and off), the
# environment, the summary table, the figures, failed and n/a cells, and the
# ftrace profile's hook cost next to the timed per-op delta (a WARNING line
# where the two disagree beyond the delta's interval). Every number, and what
# each figure and interval is (summary.csv's estimator, interval and
# delta_interval columns), is read from those files; the report is written to
# report.md.tmp and moved into place.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

# the labels of the artefacts (issue 14): the config floor is another kernel
# configuration, and device-time workloads count spin, not hooks
noaudit_note="a different kernel configuration: whole-kernel codegen changes; a floor, not a baseline"
devtime_note="not a hook-cost measure (per-op count includes device-time spin)"
headline_workloads="randread-qd128 bench-nop"
headline_states="idle off"

(($# == 1)) || die_usage "usage: report.sh RUN (a run id from ${LAB_RESULTS:-$LAB_ROOT/results}/)"
run=$1
results=${LAB_RESULTS:-$LAB_ROOT/results}
dir=$results/$run
[[ -n $run && $run != */* && -d $dir ]] || die_usage "report: no results/$run; give a run id from $results/"
if [[ ! -f $dir/summary.csv ]]; then
	[[ -f $dir/cells.csv ]] && die_usage "report: results/$run has no summary.csv; run ./run.sh summary $run first"
	die_usage "report: results/$run has no cells.csv or summary.csv; give the id of a finished run"
fi
summary=$dir/summary.csv
manifest=$dir/manifest.json
if [[ -f $manifest ]] && ! jq -e . "$manifest" >/dev/null 2>&1; then
	die_usage "report: results/$run/manifest.json is not valid JSON; regenerate it with scripts/run/manifest.sh"
fi

# the roles come from the variant catalog (kernel/variants/*/meta), per base
# tree (summary.csv's base column; none: the default base): each row's Δ is
# against its own base's baseline (lib/bases.awk). The names in the prose are
# the one base's, or each base's joined by "` / `" on several.
catalog=$(catalog_rows)
run_bases=$(csv_bases "$summary" | paste -sd' ')
# names_on FUNC [ARGS]: FUNC BASE ARGS for each base of the run, joined by "` / `"
names_on() {
	local b n names=""
	for b in $run_bases; do
		n=$("$1" "$b" "${@:2}")
		[[ -z $n ]] || names+="${names:+\` / \`}$n"
	done
	echo "$names"
}
aa_on() { seed_control_of "$(catalog_one_on "$1" baseline)"; }
base_variant=$(names_on catalog_one_on baseline)
aa_variant=$(names_on aa_on)
codegen_variant=$(names_on catalog_one_on codegen-control)
noaudit_variant=$(names_on catalog_one_on config-floor)

# accelerator and cost unit: the manifest first, then the CSVs
run_accel_unit "$dir" "$summary" "unknown accelerator"
unit_meaning=""
[[ -f $manifest ]] && unit_meaning=$(jq -r '.ns_per_op_unit // empty' "$manifest")
if [[ -z $unit_meaning ]]; then
	if [[ $unit == instructions ]]; then
		unit_meaning="guest ns under TCG icount shift=0, where 1 guest ns = 1 executed guest instruction"
	elif [[ -n $accel ]]; then
		unit_meaning=$(accel_unit_meaning "$accel")
	fi
	unit_meaning=${unit_meaning:-guest wall-clock ns}
fi

# --- shared awk: columns by header name, canonical orders, number formats -------
# shellcheck disable=SC2016 # awk source, expanded by awk
awk_lib=$(cat "$LAB_ROOT/lib/order.awk")'
function header(cols,   i, n, a) {
	delete c
	for (i = 1; i <= NF; i++) c[$i] = i
	n = split(cols, a, " ")
	for (i = 1; i <= n; i++)
		if (!(a[i] in c)) {
			printf "error: %s: no %s column in the header; regenerate the file (./run.sh summary RUN for summary.csv)\n", FILENAME, a[i] > "/dev/stderr"
			bad = 2; exit 2
		}
}
function f(name) { return (name in c) ? $c[name] : "" }
function check_row() {
	if (index($0, "\"")) {
		printf "error: %s:%d: quoted field; names with commas or quotes are not supported, rename the variant/state/workload\n", FILENAME, FNR > "/dev/stderr"
		bad = 2; exit 2
	}
}
# sort_by_rank(arr, n, kind): sort arr[0..n-1] in place by state or workload rank
function sort_by_rank(arr, n, kind,   i, j, t) {
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && rank(arr[j - 1], kind) > rank(arr[j], kind); j--) {
			t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t
		}
}
function rank(x, kind) { return kind == "state" ? state_rank(x) : workload_rank(x) }
# numbers: "-" when empty, never "-0.0"; sfmt with a sign
function fmt(x, p,   s) {
	if (x == "") return "—"
	s = sprintf("%." p "f", x)
	if (s ~ /^-0(\.0*)?$/) s = substr(s, 2)
	return s
}
function sfmt(x, p,   s) {
	if (x == "") return "—"
	s = sprintf("%+." p "f", x)
	if (s ~ /^[-+]0(\.0*)?$/) s = substr(s, 2)
	return s
}
function ci(lo, hi, p) { return (lo == "" || hi == "") ? "" : " [" fmt(lo, p) ", " fmt(hi, p) "]" }
# roles from the catalog (lib/bases.awk): kernels that do not audit io_uring
# (a baseline, a config floor); the baseline of v'"'"'s own base tree
function is_baseline(v) { return CR[v] == "baseline" || CR[v] == "config-floor" }
function is_base(v) { return v == BL[RB[v]] }
function is_aa(v) { return CR[v] == "seed-control" }
function is_cg(v) { return CR[v] == "codegen-control" }
function is_floor(v) { return CR[v] == "config-floor" }
# load_summary(): the row of each (variant, state, workload) in S[key, column],
# variants in first-appearance order V[0..nv-1], states ST[], workloads WL[]
function load_summary(   k, i, n, a) {
	if (FNR == 1) { header(sumcols); return }
	check_row()
	k = f("variant") SUBSEP f("state") SUBSEP f("workload")
	if (!(k in have)) K[nk++] = k
	have[k] = 1
	n = split(sumcols, a, " ")
	for (i = 1; i <= n; i++) S[k, a[i]] = f(a[i])
	# optional (the codegen floor of labstat; a summary before it has none)
	S[k, "codegen_floor"] = f("codegen_floor"); S[k, "beyond_codegen"] = f("beyond_codegen"); S[k, "error_control"] = f("error_control")
	if (!(f("variant") in vseen)) { vseen[f("variant")] = 1; V[nv++] = f("variant") }
	RB[f("variant")] = vbase(f("variant"), f("base"))
	if (!(f("state") in sseen)) { sseen[f("state")] = 1; ST[nst++] = f("state") }
	if (!(f("workload") in wseen)) { wseen[f("workload")] = 1; WL[nwl++] = f("workload") }
	if (!((f("state"), f("workload")) in pseen)) { pseen[f("state"), f("workload")] = 1 }
}
function sorted_axes() { sort_by_rank(ST, nst, "state"); sort_by_rank(WL, nwl, "workload") }
# what an interval is, short: "range over 3 seeds" -> "range", "95% bootstrap
# CI over 12 seeds" -> "95% bootstrap CI", "none (1 seed)" -> "none"
function iv_kind(s) { sub(/ over .*/, "", s); sub(/ \(.*/, "", s); sub(/:.*/, "", s); return s }
# the figure of row k, from its estimator column: "minimum" (tcg-icount; the
# maximum for ops/s) or "median"
function est_word(k, ops,   e) {
	e = S[k, "estimator"]
	if (e == "min") return ops ? "maximum" : "minimum"
	if (e == "exact") return "exact value"
	return e
}
# fig_label(k, ops): "minimum over 3 seeds [range]", from the row itself
function fig_label(k, ops,   n) {
	n = S[k, "n"]
	return est_word(k, ops) " over " n " seed" (n == 1 ? "" : "s") " [" iv_kind(S[k, "interval"]) "]"
}
# run_labels(what): the distinct labels over the rows with data, joined by
# "; ": what = "ops" / "ns" (figure labels), "delta" (delta_interval), "kind"
# (short interval kinds of the figures), "dkind" (of the changes)
function run_labels(what,   i, k, l, seen, out) {
	out = ""
	for (i = 0; i < nk; i++) {
		k = K[i]
		if (S[k, "n"] + 0 == 0) continue
		if (what == "delta" || what == "dkind") {
			l = S[k, "delta_interval"]
			if (l == "" || l ~ /^none/) continue
			if (what == "dkind") l = iv_kind(l)
		} else if (what == "kind") l = iv_kind(S[k, "interval"])
		else l = fig_label(k, what == "ops")
		if (l in seen) continue
		seen[l] = 1; out = out (out == "" ? "" : "; ") l
	}
	return out == "" ? "none" : out
}
function has_estimator(e,   i) {
	for (i = 0; i < nk; i++) if (S[K[i], "estimator"] == e && S[K[i], "n"] + 0 > 0) return 1
	return 0
}
function is_devtime(k) { return S[k, "measure"] == "device-time" }
# starred: significant per labstat, and never an artefact
function starred(v, k) { return S[k, "significant"] == "yes" && !is_devtime(k) && !is_floor(v) }
'
sumcols="variant state workload accel n failed na median_ops_per_sec ops_ci_lo ops_ci_hi median_ns_per_op ns_ci_lo ns_ci_hi delta_ns_per_op delta_ci_lo delta_ci_hi overhead_pct overhead_ci_lo overhead_ci_hi aa_floor_pct codegen_floor_pct significant estimator interval delta_interval measure method p_value q_value fdr delta_coverage"

# summary_awk PROGRAM [FILES...]: run PROGRAM (its END block renders) over
# summary.csv then FILES, with the library, the names and the unit
summary_awk() {
	local prog=$1
	shift
	awk -F, -v sumcols="$sumcols" -v base="$base_variant" -v aa="$aa_variant" -v cg="$codegen_variant" \
		-v noaudit="$noaudit_variant" -v noaudit_note="$noaudit_note" -v devtime_note="$devtime_note" \
		-v catalog="$catalog" -v defbase="$LAB_DEFAULT_BASE" -v run_bases="$run_bases" -v unit="$unit" -v hw="$headline_workloads" \
		-v hs="$headline_states" -v run="$run" \
		"$(cat "$LAB_ROOT/lib/bases.awk")$awk_lib"'BEGIN { load_catalog(catalog) } FILENAME == ARGV[1] { load_summary(); next }'"$prog" "$summary" "$@"
}

# --- noise and significance: the rule, the controls ---------------------------------
noise_floor() {
	echo "## Noise and significance"
	echo
	# shellcheck disable=SC2016 # awk source
	summary_awk '
	function pq(k) {
		if (S[k, "method"] == "exact") return "exact"
		if (S[k, "p_value"] == "") return "—"
		return "p " S[k, "p_value"] (S[k, "q_value"] != "" ? ", q " S[k, "q_value"] : "")
	}
	function ctl(k) {
		if (!(k in have) || S[k, "delta_ns_per_op"] == "") return "— | — | —"
		return sfmt(S[k, "delta_ns_per_op"], 3) ci(S[k, "delta_ci_lo"], S[k, "delta_ci_hi"], 3) " | " pq(k) " | " \
			(S[k, "significant"] == "yes" ? "**significant**" : S[k, "significant"] == "no" ? "n.s." : S[k, "significant"])
	}
	# rs_level(n1, n2, t): the chance, under exchangeable seeds (no ties),
	# that the exact two-sided rank-sum p of n1 against n2 values is <= t
	function rs_level(n1, n2, t,   N, i, k, s, c, tot, mu, w, x, lev, hi) {
		N = n1 + n2; split("", c); c[0, 0] = 1
		hi = 0; for (i = N - n1 + 1; i <= N; i++) hi += i
		for (i = 1; i <= N; i++)
			for (k = (i < n1 ? i : n1); k >= 1; k--)
				for (s = hi; s >= i; s--) if ((k - 1, s - i) in c) c[k, s] += c[k - 1, s - i]
		tot = 0; for (s = 0; s <= hi; s++) if ((n1, s) in c) tot += c[n1, s]
		mu = n1 * (N + 1) / 2; lev = 0
		for (w = 0; w <= hi; w++) {
			if (!((n1, w) in c)) continue
			x = 0
			for (s = 0; s <= hi; s++) if ((n1, s) in c && abs(s - mu) >= abs(w - mu) - 1e-9) x += c[n1, s]
			if (x / tot <= t + 1e-12) lev += c[n1, w] / tot
		}
		return lev
	}
	function abs(x) { return x < 0 ? -x : x }
	END {
		if (bad) exit bad
		sorted_axes()
		# the A/A gate (labstat error_control fwer-holm): Holm over the tested
		# A/A cells; the exact chance of each, under exchangeable seeds, to
		# reach the first Holm threshold fdr/M (their sum bounds P(any fires))
		naa = kaa = eaa = able = 0
		for (i = 0; i < nk; i++) if (S[K[i], "error_control"] == "fwer-holm") { naa++; alpha = S[K[i], "fdr"] + 0 }
		for (i = 0; i < nk; i++) {
			k = K[i]
			if (S[k, "error_control"] != "fwer-holm") continue
			split(k, p, SUBSEP)
			bk = BL[RB[p[1]]] SUBSEP p[2] SUBSEP p[3]
			if (!(bk in have)) continue
			lv = rs_level(S[k, "n"] + 0, S[bk, "n"] + 0, alpha / naa)
			eaa += lv; able += (lv > 0); kaa += (S[k, "significant"] == "yes")
		}
		for (i = 0; i < nk; i++) {
			k = K[i]
			split(k, p, SUBSEP)
			if (is_aa(p[1]) && S[k, "significant"] == "yes") bad_ctl = bad_ctl (bad_ctl == "" ? "" : ", ") p[1] "/" p[2] "/" p[3] " (" pq(k) ")"
			if (S[k, "error_control"] != "fdr-bh") continue
			fam++; q = S[k, "fdr"]
			if (S[k, "method"] == "exact") nex++; else nrs++
			if (S[k, "significant"] == "yes") { disc++; if (S[k, "method"] == "exact") dex++ }
		}
		print "How a change versus `" base "` is judged (`labstat -h`):"
		if (unit == "instructions") {
			print "- **exact** cells: every seed of both sides within 0.01 " unit "/op (tcg-icount repeats a boot bit for bit). The Δ is"
			print "  exact; it counts when |Δ| ≥ 0.01. No test: there is no seed noise to test against."
		} else {
			print "- **exact** cells: none. This run is real time (" unit "/op of wall clock): every cell is noisy, its figure the median"
			print "  with a 95% bootstrap CI at n ≥ 10 (the range below), and every change is tested as below."
		}
		print "- **noisy** cells (fio, openclose, ...): the two-sided rank-sum (Wilcoxon-Mann-Whitney) test on the per-seed values, its"
		print "  exact permutation p-value, and the Hodges-Lehmann shift with its distribution-free interval; the coverage that"
		print "  interval reaches is in each row (`delta_interval`). The base sample is `" base "` pooled with `" aa "` (the same kernel,"
		print "  other seeds): at 3 seeds a side the smallest possible p is 0.1, at 3 against 6 it is 2/84 = 0.024, reached only when"
		print "  every seed of the variant lies beyond every seed of the base."
		print "- **Benjamini-Hochberg** over all " fam + 0 " hook-cost cells of the variants (" nex + 0 " exact, entering with p = 0 or 1; " nrs + 0 " tested): a cell is"
		print "  significant when its q ≤ " q ", so at most " q " of the significant cells are expected to be false discoveries."
		print "  " disc + 0 " are significant (" dex + 0 " exact, " disc - dex " tested). Device-time workloads are never judged: " devtime_note "."
		print "- **The A/A gate.** `" aa "` is not a finding but a check that the base repeats under other seeds, judged apart:"
		print "  an exact cell is significant when |Δ| ≥ 0.01; the tested ones form one family under Holm'"'"'s step-down rule at a"
		print "  family-wise error rate of " (naa ? alpha : q) ", so that when the seeds are exchangeable the chance that any A/A cell of the run is"
		print "  significant is at most " (naa ? alpha : q) ". A cell whose A/A cell is significant is not significant: the base does not repeat there."
		if (naa) {
			printf "  %d of %d tested A/A cells are significant. %d of them have seeds enough to reach Holm'"'"'s first threshold %.2g/%d\n", kaa, naa, able, alpha, naa
			printf "  = %.2g (the exact rank-sum p can be that small at their seed counts); under exchangeable seeds the chance that any\n", alpha / naa
			printf "  fires is at most %.4f (the sum of each one'"'"'s exact chance to reach it).\n", eaa
			if (!able) {
				print "  **The gate cannot fire at these seed counts: this run has no A/A check.** Adaptive seeds (tcg-icount) give the"
				print "  A/A cells and their baseline the seeds it needs; a run without them needs more `--reps`."
			}
		}
		print ""
		print "The controls: `" aa "` is `" base "` under other seeds (tested against `" base "` alone, in the gate above);"
		print "`" cg "` is `" base "` plus one neutral reordering of a test inside `io_issue_sqe` (the same semantics, different"
		print "code: its README). Its |Δ| in a cell is the **codegen floor** (summary.csv `codegen_floor`): a design whose Δ lies"
		print "within it (`beyond_codegen` = no) moved that cell no more than a change doing no work did, and its sentence says so."
		print "That is a practical reading of one control, not a test: it never changes a verdict. Code-generation effects are"
		print "part of each design'"'"'s Δ and are traced per instruction in the attribution section."
		if (unit != "instructions")
			print "In real time its layout also moves the figure through cache and branch behaviour: it is a second seed control too."
		print ""
		if (bad_ctl != "") {
			print "> **WARNING: A/A control cells significant:** " bad_ctl ". Every verdict in those cells is void (not"
			print "> significant). Under Holm'"'"'s rule that happens by chance in at most " alpha " of runs: read it as a seed range"
			print "> that is not exchangeable with the baseline'"'"'s, and look at the cells'"'"' per-seed values."
			print ""
		}
		# one table per base tree: its own A/A and codegen controls
		nb = split(run_bases, RBS, " ")
		for (b = 1; b <= nb; b++) {
			if (nb > 1) { print "On " RBS[b] ":"; print "" }
			print "| state | workload | " AA[RBS[b]] " Δ " unit "/op [interval] | test | verdict | " CG[RBS[b]] " Δ [interval] | test | verdict |"
			print "|---|---|---|---|---|---|---|---|"
			for (i = 0; i < nwl; i++)
				for (j = 0; j < nst; j++) {
					p2 = ST[j] SUBSEP WL[i]
					if (!(p2 in pseen)) continue
					k = AA[RBS[b]] SUBSEP p2; kc = CG[RBS[b]] SUBSEP p2
					if (!(k in have) && !(kc in have)) { missing = missing (missing == "" ? "" : ", ") (nb > 1 ? RBS[b] "/" : "") ST[j] "/" WL[i]; continue }
					print "| " ST[j] " | " WL[i] " | " ctl(k) " | " ctl(kc) " |"
					nr++
				}
			print ""
		}
		if (!nr) {
			print "> **WARNING: this run has no A/A control** (`" aa "`, `" cg "`): the base is not pooled and nothing checks the test."
			print ""
		} else if (missing != "") {
			print "> **WARNING: no control for " missing ".**"
			print ""
		}
	}'
}

# --- verdicts for the headline cells -------------------------------------------------
verdicts() {
	echo "## Verdicts"
	echo
	# shellcheck disable=SC2016 # awk source
	summary_awk '
	function verdict(v, s, w,   k, o, lo, hi, sig, fa, fc, m, line, lbl) {
		k = v SUBSEP s SUBSEP w
		if (!(k in have)) return v ": not measured per " w " op with audit " s
		if (is_base(v))
			return v ": baseline — does not audit io_uring; " fmt(S[k, "median_ns_per_op"], 1) " " unit "/op" \
				ci(S[k, "ns_ci_lo"], S[k, "ns_ci_hi"], 1) " per " w " op with audit " s "; " fig_label(k, 0)
		if (S[k, "n"] == 0)
			return v ": no data per " w " op with audit " s " (" S[k, "failed"] " failed, " S[k, "na"] " n/a cells" \
				(S[k, "na"] > 0 && S[k, "failed"] == 0 ? ": the kernel cannot run this state" : "") ")"
		o = S[k, "overhead_pct"]; lo = S[k, "overhead_ci_lo"]; hi = S[k, "overhead_ci_hi"]
		if (o == "") return v ": no overhead per " w " op with audit " s " (no " (RB[v] in BL ? BL[RB[v]] : "baseline") " cells to compare with)"
		# what the figure and its interval are, from the row
		lbl = est_word(k, 0) " over seeds"
		if (S[k, "delta_interval"] != "" && S[k, "delta_interval"] !~ /^none/) lbl = lbl ", " S[k, "delta_interval"]
		line = v ": " sfmt(o, 1) "%" ci(lo, hi, 1) " per " w " op with audit " s "; " lbl
		sig = S[k, "significant"]
		t = S[k, "method"] == "exact" ? "exact Δ " sfmt(S[k, "delta_ns_per_op"], 3) " " unit "/op" : \
			S[k, "p_value"] != "" ? "p " S[k, "p_value"] (S[k, "q_value"] != "" ? ", q " S[k, "q_value"] : "") : ""
		if (is_devtime(k)) line = line " — " devtime_note
		else if (is_aa(v)) line = line " (A/A control, " t ": " (sig == "yes" ? "SIGNIFICANT: the base does not repeat under other seeds" : "n.s.") ")"
		else if (is_cg(v)) line = line " (codegen control, " t ": " (sig == "yes" ? "the codegen floor of this cell" : "n.s.: no codegen effect seen here") ")"
		else if (sig == "yes") line = line (is_floor(v) ? " (differs from " BL[RB[v]] ", " t ")" : " (significant, " t ")")
		else if (sig == "no" && S[k, "method"] == "exact") line = line " (n.s.: " t ", below the 0.01 resolution)"
		else if (sig == "no") line = line " (n.s., " t ")"
		else line = line " (not judged: one seed on a side)"
		if (is_floor(v)) line = line " — " noaudit_note
		else if (is_baseline(v)) line = line " — baseline — does not audit io_uring"

		if (sig == "yes" && S[k, "beyond_codegen"] == "no") line = line " — within the codegen floor: `" CG[RB[v]] "` moved this cell by " S[k, "codegen_floor"] " " unit "/op"
		return line
	}
	END {
		if (bad) exit bad
		nh = 0
		nhw = split(hw, W, " "); nhs = split(hs, H, " ")
		for (a = 1; a <= nhw; a++)
			for (b = 1; b <= nhs; b++)
				if ((H[b], W[a]) in pseen) { cw[nh] = W[a]; cs[nh++] = H[b] }
		if (!nh) {
			print "No headline cell (" hw " in states " hs ") in this run; see the summary table."
			print ""
			exit
		}
		print "Headline cells: overhead of the cost per op versus `" base "` in the same state; figures: " run_labels("ns") ";"
		print "interval of the overhead: " run_labels("delta") "."
		print ""
		for (i = 0; i < nv; i++) {
			for (j = 0; j < nh; j++) print "- " verdict(V[i], cs[j], cw[j])
		}
		print ""
	}'
}

# --- environment, from manifest.json ------------------------------------------------
environment() {
	echo "## Environment"
	echo
	if [[ ! -f $manifest ]]; then
		echo "> **WARNING: results/$run has no manifest.json**: host, QEMU, packages and kernel hashes are unknown,"
		echo "> so this run cannot be reproduced from its record."
		echo
		echo "- Accelerator: $accel_label; cost per op in $unit/op: $unit_meaning"
		echo
		return
	fi
	jq -r --arg acc "$accel_label" --arg unit "$unit" '
		def v: if . == null or . == "" then "unknown" else tostring end;
		"- Run: `\(.run_id | v)`, created \(.created | v)",
		"- Host: \(.host.name | v), kernel \(.host.kernel | v), \(.host.cpu | v), \(.host.cpus | v) CPUs, \(.host.memory | v) memory",
		"- QEMU: \(.qemu | v)",
		"- Accelerator: **\($acc)** (`\(.accel_args | v)`); cost per op is in **\($unit)/op**: \(.ns_per_op_unit | v)",
		"- Packages: " + ([("linux-source-6.1", "qemu-system-x86", "fio", "liburing-dev", "libaudit-dev", "auditd", "gcc-12", "linux-perf", "libgsl-dev", "gnuplot-nox") as $p
			| select(.packages[$p] != null) | "\($p) \(.packages[$p])"] | join(", ") | if . == "" then "unknown" else . end),
		"- Lab commit: `\(.lab.commit | v)`" + (if (.lab.uncommitted_files // 0) > 0
			then " — **with \(.lab.uncommitted_files) uncommitted files: the commit alone does not reproduce this run**"
			else ", clean tree" end),
		"- Matrix: \(.matrix.reps | v) reps × \(.matrix.runtime_guest_secs | v) guest seconds; states \((.matrix.states // []) | join(", ")); workloads \((.matrix.workloads // []) | join(", "))",
		"- Variants: " + ([(.matrix.variants // [])[] | "\(.name | v) (kernel \(.kernel | v), bzImage \((.bzimage_sha256 // "") | .[0:12] | v))"] | join(", ")),
		"- Layout: \(.matrix.layout | v)"' "$manifest"
	echo
}

# --- the summary table ---------------------------------------------------------------
summary_table() {
	echo "## Summary"
	echo
	# shellcheck disable=SC2016 # awk source
	summary_awk '
	END {
		if (bad) exit bad
		sorted_axes()
		iv = run_labels("kind"); dv = run_labels("dkind")
		print "Figures over ok reps (labstat summary): " unit "/op " run_labels("ns") ", ops/s " run_labels("ops") "."
		print "Δ and overhead versus `" base "` in the same state and workload, interval: " run_labels("delta") "."
		print "`*` = significant at the run'"'"'s false discovery rate (exact Δ ≥ 0.01, or rank-sum q ≤ fdr; see Noise and significance); never on a"
		print "device-time workload, which is " devtime_note ", nor on `" noaudit "`, which is " noaudit_note "."
		print ""
		# (several bases: "nohooks / nohooks-6-12", each row against its own base'"'"'s)
		bplain = base; gsub(/` \/ `/, " / ", bplain)
		print "| variant | state | workload | n | ops/s [" iv "] | " unit "/op [" iv "] | Δ " unit "/op vs " bplain " [" dv "] | overhead % [" dv "] | sig | note |"
		print "|---|---|---|---:|---:|---:|---:|---:|:---:|---|"
		for (i = 0; i < nwl; i++)
			for (j = 0; j < nst; j++)
				for (x = 0; x < nv; x++) {
					k = V[x] SUBSEP ST[j] SUBSEP WL[i]
					if (!(k in have)) continue
					n = S[k, "n"]
					if (S[k, "failed"] > 0) n = n " (" S[k, "failed"] " failed)"
					if (S[k, "na"] > 0) n = n " (" S[k, "na"] " n/a)"
					note = is_floor(V[x]) ? noaudit_note : is_baseline(V[x]) ? "baseline — does not audit io_uring" : \
						is_aa(V[x]) ? "A/A control (base kernel, other seeds)" : is_cg(V[x]) ? "codegen control (neutral reordering in io_issue_sqe)" : ""
					if (is_devtime(k)) note = note (note == "" ? "" : "; ") devtime_note
					ovh = is_base(V[x]) ? "—" : S[k, "overhead_pct"] == "" ? "—" : \
						sfmt(S[k, "overhead_pct"], 2) ci(S[k, "overhead_ci_lo"], S[k, "overhead_ci_hi"], 2)
					dl = S[k, "delta_ns_per_op"] == "" ? "—" : sfmt(S[k, "delta_ns_per_op"], 1) ci(S[k, "delta_ci_lo"], S[k, "delta_ci_hi"], 1)
					printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", V[x], ST[j], WL[i], n,
						fmt(S[k, "median_ops_per_sec"], 0) ci(S[k, "ops_ci_lo"], S[k, "ops_ci_hi"], 0),
						fmt(S[k, "median_ns_per_op"], 1) ci(S[k, "ns_ci_lo"], S[k, "ns_ci_hi"], 1),
						dl, ovh, (starred(V[x], k) ? "*" : ""), note
				}
		print ""
	}'
}

# --- figures drawn by scripts/report/plots.sh -------------------------------------------------
figures() {
	echo "## Figures"
	echo
	local idx=$dir/plots/figures.tsv png caption n=0
	if [[ ! -f $idx ]]; then
		echo "No figures: draw them with \`scripts/report/plots.sh $run\`, then rerun \`scripts/report/report.sh $run\`."
		echo
		return
	fi
	if [[ $idx -ot $summary ]]; then
		echo "> **Note: the figures are older than summary.csv**; redraw them with \`scripts/report/plots.sh $run\`."
		echo
	fi
	while IFS=$'\t' read -r png caption; do
		[[ $png == *.png && -s $dir/plots/$png ]] || continue
		echo "### $caption"
		echo
		echo "![$caption](plots/$png)"
		[[ -s $dir/plots/${png%.png}.svg ]] && echo "([SVG](plots/${png%.png}.svg), data: [CSV](plots/${png%.png}.csv))"
		echo
		n=$((n + 1))
	done <"$idx"
	if ((n == 0)); then
		echo "No figure had data; see the log of \`scripts/report/plots.sh $run\` for why each was skipped."
		echo
	fi
}

# --- failed and n/a cells --------------------------------------------------------------
failures() {
	echo "## Failed and n/a cells"
	echo
	# shellcheck disable=SC2016 # awk source
	summary_awk '
	FILENAME != ARGV[1] && FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; cells = 1; next }
	FILENAME != ARGV[1] {
		st = f("status"); count[st]++
		if (!(st in sorder)) { sorder[st] = 1; so[nso++] = st }
		if (st != "ok" && st != "n/a" && st != "na")
			bad_cells[nb++] = "  - " st ": " f("variant") " / " f("state") " / " f("workload") " rep " f("rep") (f("raw") != "" ? " (`" f("raw") "`)" : "")
	}
	END {
		if (bad) exit bad
		sorted_axes()
		if (cells) {
			line = "Cells by status:"
			for (i = 0; i < nso; i++) line = line (i ? "," : "") " " so[i] " " count[so[i]]
			print line "."
			print ""
		}
		# failed: one line per group; n/a: one line per variant and state
		for (x = 0; x < nv; x++)
			for (j = 0; j < nst; j++)
				for (i = 0; i < nwl; i++) {
					k = V[x] SUBSEP ST[j] SUBSEP WL[i]
					if (!(k in have)) continue
					if (S[k, "failed"] > 0) {
						fl[nfl++] = "- " V[x] " / " ST[j] " / " WL[i] ": " S[k, "failed"] " failed, " S[k, "na"] " n/a, " S[k, "n"] " ok"
						tf += S[k, "failed"]
					}
					if (S[k, "na"] > 0) {
						if (!((V[x], ST[j]) in nav)) { nav[V[x], ST[j]] = 1; nal[nnal++] = V[x] SUBSEP ST[j] }
						nac[V[x], ST[j]] += S[k, "na"]; naw[V[x], ST[j]]++
						tn += S[k, "na"]
					}
				}
		if (!nfl && !nnal) { print "None: every cell ran ok."; print ""; exit }
		if (nfl) {
			print "Groups with failed cells (timeout, panic, ... as well as failed):"
			print ""
			for (i = 0; i < nfl; i++) print fl[i]
			print ""
		}
		if (nnal) {
			print "n/a (the kernel cannot run that state, e.g. an audit state on a kernel built without audit):"
			print ""
			for (i = 0; i < nnal; i++) {
				split(nal[i], q, SUBSEP)
				print "- " q[1] " / " q[2] ": " nac[nal[i]] " n/a cells in " naw[nal[i]] " workloads"
			}
			print ""
		}
		print "Total: " tf + 0 " failed and " tn + 0 " n/a cells."
		if (nb) {
			print ""
			print "Cells that did not run ok (n/a left out):"
			print ""
			for (i = 0; i < nb; i++) print bad_cells[i]
		}
		print ""
	}' "${cells_file[@]}"
}

# --- ftrace profile: a cross-check of call counts only ------------------------------
# The profiler adds ~147 instructions to every traced call, so its times are
# not costs (issue 13); the attribution section has the exact per-function
# cost. What it can check independently is how often the hooks run: its hit
# counts per io_issue_sqe call against the plugin's exact calls_per_op.
profile_section() {
	[[ -f $dir/profile.csv ]] || return 0
	local attr=()
	[[ -f $dir/attribution.csv ]] && attr=("$dir/attribution.csv")
	echo "## Profile cross-check (ftrace function profiler in the guest)"
	echo
	# shellcheck disable=SC2016 # awk source
	summary_awk '
	FILENAME != ARGV[1] && FNR == 1 {
		# attribution.csv, when present, is the last file: the exact call counts
		isattr = (FILENAME == ARGV[ARGC - 1] && has_attr)
		if (isattr) header("variant state workload seed accel unit symbol instructions_per_op mem_accesses_per_op calls_per_op")
		else header("variant state workload rep function hits total_ns avg_ns")
		next
	}
	FILENAME != ARGV[1] && isattr {
		check_row()
		k = f("variant") SUBSEP f("state") SUBSEP f("workload")
		s = f("symbol")
		if (s == "__audit_uring_entry" || s == "__audit_uring_exit" || s == "io_issue_sqe") {
			ac[k, s] += f("calls_per_op"); if (!((k, s, f("seed")) in aseen)) { aseen[k, s, f("seed")] = 1; an[k, s]++ }
		}
		next
	}
	FILENAME != ARGV[1] {
		check_row()
		k = f("variant") SUBSEP f("state") SUBSEP f("workload"); fn = f("function")
		if (!(k in pk)) { pk[k] = 1; P[np++] = k }
		if (f("hits") == "") next	# perf rows: a share of samples, no hit count
		if (fn ~ /^(__audit_uring_entry|__audit_uring_exit|audit_reset_context|audit_filter_.*)$/) {
			if (!((k, fn) in fseen)) { fseen[k, fn] = 1; F[k, nf[k]++] = fn }
			fh[k, fn] += f("hits")
		}
		if (fn == "__audit_uring_entry") entries[k] += f("hits")
		if (fn == "__audit_uring_exit") exits[k] += f("hits")
		if (fn == "io_issue_sqe") issues[k] += f("hits")
	}
	function aper(k, s) { return (an[k, s] && an[k, "io_issue_sqe"] && ac[k, "io_issue_sqe"] > 0) ? (ac[k, s] / an[k, s]) / (ac[k, "io_issue_sqe"] / an[k, "io_issue_sqe"]) : "" }
	END {
		if (bad) exit bad
		print "The ftrace function profiler adds about 147 instructions to every traced call, so its per-call"
		print "times are not a cost and are not printed; the exact per-function cost is in the attribution"
		print "section. Its hit counts are an independent check of how often the hooks run."
		print ""
		print "| variant | state | workload | function | calls | calls per io_issue_sqe |"
		print "|---|---|---|---|---:|---:|"
		for (i = 0; i < np; i++) {
			k = P[i]; split(k, p, SUBSEP)
			for (j = 0; j < nf[k]; j++) {
				fn = F[k, j]
				printf "| %s | %s | %s | %s | %d | %s |\n", p[1], p[2], p[3], fn, fh[k, fn],
					(issues[k] > 0 ? fmt(fh[k, fn] / issues[k], 2) : "—")
				rowsn++
			}
		}
		if (!rowsn) print "| (no hook function ran in any profiled cell) | | | | | |"
		print ""
		if (!has_attr) { print "(no attribution.csv in this run: the hit counts are not cross-checked)"; print ""; exit }
		print "Hook calls per io_issue_sqe call: the profiler against the plugin (attribution.csv, exact):"
		print ""
		print "| variant | state | workload | entry: profiler | entry: plugin | exit: profiler | exit: plugin | agree |"
		print "|---|---|---|---:|---:|---:|---:|:---:|"
		for (i = 0; i < np; i++) {
			k = P[i]; split(k, p, SUBSEP)
			if (!(issues[k] > 0) || aper(k, "io_issue_sqe") == "") continue
			pe = entries[k] / issues[k]; px = exits[k] / issues[k]
			ae = aper(k, "__audit_uring_entry"); ax = aper(k, "__audit_uring_exit")
			if (ae == "") ae = 0; if (ax == "") ax = 0
			d1 = pe - ae; d2 = px - ax; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
			ok = (d1 <= 0.01 && d2 <= 0.01) ? "yes" : "**no**"
			if (ok != "yes") {
				w = sprintf("WARNING: %s / %s / %s: the profiler counts %s entry and %s exit calls per io_issue_sqe, the plugin %s and %s", \
					p[1], p[2], p[3], fmt(pe, 2), fmt(px, 2), fmt(ae, 2), fmt(ax, 2))
				warn[nw++] = w; print w > "/dev/stderr"
			}
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], p[3], fmt(pe, 2), fmt(ae, 2), fmt(px, 2), fmt(ax, 2), ok
			nrow++
		}
		if (!nrow) print "| (no profiled cell has attribution rows) | | | | | | | |"
		print ""
		for (i = 0; i < nw; i++) { print warn[i]; print "" }
		if (nrow && !nw) { print "Profiler and plugin agree on the hook calls per io_issue_sqe in every cell both cover."; print "" }
	}' has_attr="${#attr[@]}" "$dir/profile.csv" "${attr[@]}"
}

# The section scripts read only the run's data files and the lab's code and
# data: each one's markdown is memoised (lib/cellstore.sh memo_stdout) under
# the sha256 of all of those, the LAB_* settings and the awk and jq binaries,
# so a warm rerun of a matrix (the same cells, so the same files) reads them back.
section_list=$(mktemp)
sec_dir=$(mktemp -d)
trap 'rm -rf "$section_list" "$sec_dir"' EXIT
{
	for f in summary.csv cells.csv attribution.csv footprint.csv profile.csv streams.txt matrix.conf not-run.csv; do echo "$dir/$f"; done
	[[ ! -d $dir/paths ]] || find "$dir/paths" -type f
	find "$LAB_ROOT/scripts" "$LAB_ROOT/lib" "$(variants_dir)" "$LAB_ROOT/workloads" "$LAB_ROOT/tests/data/consoles" "$LAB_ROOT/tests/data/streams" -type f
	readlink -f "$(command -v awk)" "$(command -v jq)"
} | LC_ALL=C sort >"$section_list"
memo_key "$section_list" "$(env | grep '^LAB_' | LC_ALL=C sort)" "$dir"
section_key=$REPLY
# The section scripts run side by side, each into a file of its own
# (sections_start), and go into the report in its order (section NAME: its
# markdown, its messages and its exit status, once it is done)
declare -A sec_pid=()
sections_start() {
	local s
	for s in "$@"; do
		memo_stdout "report-$s" "$section_key" "$LAB_ROOT/scripts/report/report-$s.sh" "$dir" >"$sec_dir/$s" 2>"$sec_dir/$s.err" &
		sec_pid[$s]=$!
	done
}
section() {
	local rc=0
	wait "${sec_pid[$1]}" || rc=$?
	cat "$sec_dir/$1.err" >&2
	((rc == 0)) || return "$rc"
	cat "$sec_dir/$1"
}

cells_file=()
[[ -f $dir/cells.csv ]] && cells_file=("$dir/cells.csv")
out=$dir/report.md
refuse_links "$dir"
report_md() {
	echo "# io_uring audit hook cost: run $run, $accel_label"
	echo
	echo "Accelerator **$accel_label**; cost per op in **$unit/op** ($unit_meaning)$([[ $unit == instructions ]] && echo "; ops/s are per guest second, 10^9 instructions")."
	echo "Generated by \`scripts/report/report.sh $run\` from summary.csv$([[ -f $manifest ]] && echo ", manifest.json")$([[ -f $dir/cells.csv ]] && echo ", cells.csv")$([[ -f $dir/profile.csv ]] && echo ", profile.csv")$([[ -f $dir/streams.txt ]] && echo ", streams.txt")."
	echo
	sections_start headline decision bases findings attribution
	section headline
	section decision
	section bases
	section findings
	noise_floor
	verdicts
	environment
	summary_table
	figures
	failures
	"$LAB_ROOT/scripts/report/report-boots.sh" "$dir"
	profile_section
	section attribution
}
save "$out" report_md
log "report: $out"
