#!/bin/bash
# unit-report.sh: the reporting layer on a small synthetic run: summary.sh,
# plots.sh, report.sh and compare.sh with LAB_RESULTS (and LAB_CACHE) in a
# temp dir. The data are constructed: upstream +20% and rfc +5% in the audit
# states, both +0% with audit off, an A/A control 0.1% off on the noisy fio
# workload (bench-nop is exact, as under icount), one timed-out cell,
# a profile whose hook calls per io_issue_sqe (1.00) agree with the plugin's
# attribution.csv for rfc and disagree for upstream (the plugin says 0.50). Prints one unnumbered 'ok - ...' / 'not ok - ...' line
# per check (tests/run-tests.sh numbers them).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results LAB_CACHE=$tmp/cache
scripts=$LAB_ROOT/scripts

# run NAME CMD...: CMD's stdout in $tmp/NAME.out, stderr in .err, status in
# .rc; never aborts this script, so the later checks still run
run() {
	local name=$1 rc=0
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	echo "$rc" >"$tmp/$name.rc"
}
rc_is() { [[ $(cat "$tmp/$1.rc") == "$2" ]]; }
# exits_2_saying NAME TEXT: that run exited 2 with one stderr line containing TEXT
exits_2_saying() {
	rc_is "$1" 2 && [[ $(wc -l <"$tmp/$1.err") == 1 ]] && grep -qF -- "$2" "$tmp/$1.err"
}
# get CSV VARIANT STATE WORKLOAD COLUMN: one field of a summary-like CSV
get() {
	awk -F, -v v="$2" -v s="$3" -v w="$4" -v col="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["variant"] == v && $c["state"] == s && $c["workload"] == w { print $c[col]; exit }' "$1"
}
# row MD VARIANT STATE WORKLOAD: the summary table row of report.md
row() { grep -E "^\| $2 \| $3 \| $4 \| " "$1"; }
between() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]] && awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# make_run DIR [FACTOR]: cells.csv, profile.csv and manifest.json of a
# synthetic TCG run; FACTOR scales rfc / idle / randread-qd128 (for compare)
make_run() {
	local d=$1 factor=${2:-1}
	mkdir -p "$d"
	awk -v factor="$factor" 'BEGIN {
		OFS = ","
		print "variant,state,workload,rep,seed,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit,clat_p50_ns,clat_p99_ns,wall_secs,raw"
		nv = split("nohooks nohooks-aa upstream rfc", V, " ")
		ns = split("off idle syscall-1 syscall-10", S, " ")
		nw = split("randread-qd128 bench-nop", W, " ")
		base["randread-qd128"] = 4000; base["bench-nop"] = 800
		rules["off"] = 0; rules["idle"] = 0; rules["syscall-1"] = 1; rules["syscall-10"] = 10
		# cost per op relative to nohooks in the same state
		F["upstream", "off"] = 1.00; F["upstream", "idle"] = 1.20; F["upstream", "syscall-1"] = 1.25; F["upstream", "syscall-10"] = 1.40
		F["rfc", "off"] = 1.00; F["rfc", "idle"] = 1.05; F["rfc", "syscall-1"] = 1.05; F["rfc", "syscall-10"] = 1.06
		split("0.998 1.000 1.002", M, " ")	# rep-to-rep noise
		split("0.999 1.001 1.003", A, " ")	# the A/A control: other seeds, +0.1%
		for (r = 1; r <= 3; r++)
			for (i = 1; i <= nv; i++)
				for (j = 1; j <= ns; j++)
					for (k = 1; k <= nw; k++) {
						v = V[i]; s = S[j]; w = W[k]
						f = ((v, s) in F) ? F[v, s] : 1
						if (v == "rfc" && s == "idle" && w == "randread-qd128") f *= factor
						# bench-nop is exact under icount (every seed the same), fio is not
						x = (base[w] + 2 * rules[s]) * f * (w == "bench-nop" ? 1 : v == "nohooks-aa" ? A[r] : M[r])
						seed = v == "nohooks-aa" ? 1000 + r : r
						raw = "raw/" v "." s ".r" r
						if (v == "rfc" && s == "syscall-10" && w == "bench-nop" && r == 3)
							print v, s, w, r, seed, "tcg", "timeout", "", "", "instructions", "", "", 0, raw
						else
							print v, s, w, r, seed, "tcg", "ok", sprintf("%.1f", 1e9 / x), sprintf("%.3f", x), "instructions", "", "", 12, raw
					}
	}' >"$d/cells.csv"
	awk 'BEGIN {
		OFS = ","
		print "variant,state,workload,rep,function,hits,total_ns,avg_ns,perf_share_pct"
		issue["nohooks"] = 2000; issue["nohooks-aa"] = 2000; issue["upstream"] = 6000; issue["rfc"] = 2200
		# hook avg_ns per call: upstream entry+exit is 1800 per audited op
		# against a timed delta of 800 (disagrees), rfc 200 against 200 (agrees);
		# audit_reset_context and audit_filter_uring run inside exit
		h["upstream", "__audit_uring_entry"] = 300; h["upstream", "__audit_uring_exit"] = 1500
		h["upstream", "audit_reset_context"] = 900; h["upstream", "audit_filter_uring"] = 1300
		h["rfc", "__audit_uring_entry"] = 80; h["rfc", "__audit_uring_exit"] = 120
		h["rfc", "audit_reset_context"] = 30; h["rfc", "audit_filter_uring"] = 20
		nf = split("__audit_uring_entry __audit_uring_exit audit_reset_context audit_filter_uring", FN, " ")
		nv = split("nohooks nohooks-aa upstream rfc", V, " ")
		hits = 100000
		for (i = 1; i <= nv; i++)
			for (r = 1; r <= 3; r++)
				for (s = 1; s <= 2; s++) {
					v = V[i]; st = s == 1 ? "off" : "idle"
					a = st == "off" ? 2000 : issue[v]
					print v, st, "randread-qd128", r, "io_issue_sqe", hits, a * hits, a, ""
					if (st == "idle")
						for (k = 1; k <= nf; k++)
							if ((v, FN[k]) in h)
								print v, st, "randread-qd128", r, FN[k], hits, h[v, FN[k]] * hits, h[v, FN[k]], (v == "upstream" ? "10.0" : "")
				}
	}' >"$d/profile.csv"
	# the plugin's exact calls: rfc one entry and exit per io_issue_sqe (as the
	# profile), upstream half as many (the constructed disagreement)
	awk 'BEGIN {
		OFS = ","
		print "variant,state,workload,seed,accel,unit,symbol,instructions_per_op,mem_accesses_per_op,calls_per_op"
		print "rfc,idle,randread-qd128,1,tcg,instructions,io_issue_sqe,60,20,1.0000"
		print "rfc,idle,randread-qd128,1,tcg,instructions,__audit_uring_entry,30,10,1.0000"
		print "rfc,idle,randread-qd128,1,tcg,instructions,__audit_uring_exit,20,8,1.0000"
		print "upstream,idle,randread-qd128,1,tcg,instructions,io_issue_sqe,60,20,1.0000"
		print "upstream,idle,randread-qd128,1,tcg,instructions,__audit_uring_entry,30,10,0.5000"
		print "upstream,idle,randread-qd128,1,tcg,instructions,__audit_uring_exit,20,8,0.5000"
		print "rfc,idle,randread-qd128,1,tcg,instructions,[total],200,,"
		print "upstream,idle,randread-qd128,1,tcg,instructions,[total],400,,"
	}' >"$d/attribution.csv"
	jq -n --arg run "$(basename "$d")" '{run_id: $run, created: "2024-01-01T00:00:00Z", accel: "tcg",
		accel_args: "-accel tcg -icount shift=0,sleep=off,align=off -cpu max -smp 1",
		ns_per_op_unit: "guest ns under tcg-icount shift=0 = executed guest instructions",
		host: {name: "synthhost", kernel: "6.1.0-synth", cpu: "Synthetic CPU", cpus: "4", memory: "8000000 kB"},
		qemu: "QEMU emulator version 7.2.synth",
		packages: {"linux-source-6.1": "6.1.synth-1", "qemu-system-x86": "1:7.2.synth", fio: "3.33-3",
			"liburing-dev": "2.3-3", "libaudit-dev": "1:3.0.9-1", "linux-perf": "6.1.synth-1"},
		lab: {commit: "c0ffee0000000000000000000000000000c0ffee", uncommitted_files: 2},
		matrix: {variants: [{name: "nohooks", kernel: "nohooks", bzimage_sha256: "1111"},
			{name: "nohooks-aa", kernel: "nohooks", bzimage_sha256: "1111"},
			{name: "upstream", kernel: "upstream", bzimage_sha256: "2222"},
			{name: "rfc", kernel: "rfc", bzimage_sha256: "3333"}],
			states: ["off", "idle", "syscall-1", "syscall-10"], workloads: ["randread-qd128", "bench-nop"],
			reps: 3, runtime_guest_secs: 5, layout: "synthetic"}}' >"$d/manifest.json"
}

R=$LAB_RESULTS
make_run "$R/synth-a"
make_run "$R/synth-b" 1.10
rm "$R/synth-b/profile.csv"
# no syscall-N states and no attribution: rules-scaling and audit-share skip
mkdir -p "$R/nosys"
grep -v ',syscall-' "$R/synth-a/cells.csv" >"$R/nosys/cells.csv"
cp "$R/synth-a/manifest.json" "$R/nosys/"
# no A/A control
mkdir -p "$R/noaa"
grep -v '^nohooks-aa,' "$R/synth-a/cells.csv" >"$R/noaa/cells.csv"
# cells but no summary yet
mkdir -p "$R/unsummed"
cp "$R/synth-a/cells.csv" "$R/unsummed/"

summaries_ok() {
	local r
	for r in synth-a synth-b nosys noaa; do
		"$scripts/analysis/summary.sh" "$r" 2>"$tmp/summary-$r.err" || return 1
	done
}
if summaries_ok; then ok "labstat summary (scripts/analysis/summary.sh) runs on the synthetic runs"; else
	sed 's/^/    /' "$tmp"/summary-*.err | head -10
	not_ok "labstat summary (scripts/analysis/summary.sh) runs on the synthetic runs"
fi
check "synthetic data: upstream/idle/randread-qd128 is significant and rfc/off/randread-qd128 is not" \
	test "$(get "$R/synth-a/summary.csv" upstream idle randread-qd128 significant)/$(get "$R/synth-a/summary.csv" rfc off randread-qd128 significant)" = yes/no

# --- plots ---------------------------------------------------------------------------
run plots "$scripts/report/plots.sh" synth-a
check "plots.sh exits 0 on the synthetic run" rc_is plots 0
if grep -qi 'warning' "$tmp/plots.err"; then
	grep -i warning "$tmp/plots.err" | head -5 | sed 's/^/    /'
	not_ok "plots.sh: gnuplot prints no warnings"
else
	ok "plots.sh: gnuplot prints no warnings"
fi
P=$R/synth-a/plots
is_png() { [[ -s $1 && $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; }
is_svg() { [[ -s $1 ]] && grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }
both_images() { is_png "$1.png" && is_svg "$1.svg"; }
for fig in ops-per-variant-randread-qd128 ops-per-variant-bench-nop overhead-randread-qd128 \
	overhead-bench-nop rules-scaling-randread-qd128 audit-share-randread-qd128; do
	check "figure $fig: PNG and SVG exist, non-empty, well-formed" both_images "$P/$fig"
done
check "plots/ holds no temp files or staging dirs afterwards" \
	test -z "$(find "$R/synth-a" -name '*.tmp' -print -quit)"
# the derived CSVs carry the summary's numbers
# Δ of upstream/idle (Hodges-Lehmann, 798.000) and the A/A interval in idle as the band
overhead_csv_ok() {
	awk -F, '$2 == "idle" && $3 == "upstream" && $4 == "798.000" && $7 == "-12.000" && $8 == "20.000" { f = 1 } END { exit !f }' "$P/overhead-randread-qd128.csv" &&
		[[ $(get "$R/synth-a/summary.csv" upstream idle randread-qd128 delta_ns_per_op) == 798.000 ]]
}
check "Δ CSV: upstream's Δ and the A/A control's interval (the band) copied from summary.csv" overhead_csv_ok
# share = instructions in *audit* symbols / the window's [total]: rfc (30 + 20) / 200, upstream (30 + 20) / 400
audit_share_ok() {
	awk -F, '$2 == "idle" && $3 == "rfc" && $4 == "25.000" { a = 1 } $2 == "idle" && $3 == "upstream" && $4 == "12.500" { b = 1 } END { exit !(a && b) }' \
		"$P/audit-share-randread-qd128.csv"
}
check "audit-share CSV: instructions in *audit* functions over the plugin's [total], as specified (not ftrace time)" audit_share_ok
check "rules-scaling CSV: idle is 0 rules, syscall-N is N, one row per variant and state" \
	test "$(awk -F, '$1 == "upstream" { printf "%s:%s ", $2, $3 }' "$P/rules-scaling-randread-qd128.csv")" = "0:idle 1:syscall-1 10:syscall-10 "

run plots_nosys "$scripts/report/plots.sh" nosys
plots_skip_ok() {
	rc_is plots_nosys 0 &&
		grep -q 'skip rules-scaling: no syscall-N state' "$tmp/plots_nosys.err" &&
		grep -q 'skip audit-share: .*no attribution.csv' "$tmp/plots_nosys.err" &&
		[[ ! -e $R/nosys/plots/rules-scaling-randread-qd128.png && -s $R/nosys/plots/overhead-randread-qd128.png ]]
}
check "plots.sh skips rules-scaling and audit-share with a reason when their data are absent" plots_skip_ok

# --- report --------------------------------------------------------------------------
run report "$scripts/report/report.sh" synth-a
M=$R/synth-a/report.md
check "report.sh exits 0 and writes report.md, no report.md.tmp left" \
	both rc_is report 0 -- test -s "$M" -a ! -e "$M.tmp"
check "report title names the run id and the accelerator" \
	grep -qE '^# .*synth-a.*tcg-icount' "$M"
floor_first() {
	local nf ns
	nf=$(grep -n '^## Noise and significance' "$M" | cut -d: -f1) ns=$(grep -n '^## Summary' "$M" | cut -d: -f1)
	[[ -n $nf && -n $ns ]] && ((nf < ns)) &&
		grep -qxF '| idle | randread-qd128 | +4.000 [-12.000, 20.000] | p 0.7000, q 1.0000 | n.s. | — | — | — |' "$M" &&
		grep -qxF '| idle | bench-nop | 0.000 [0.000, 0.000] | exact | n.s. | — | — | — |' "$M"
}
check "noise and significance section comes before the summary and lists the A/A control's Δ, test and verdict (codegen absent)" floor_first
# 3 against 3 seeds: the smallest exact rank-sum p is 0.1, above Holm's 0.05/4, so the gate cannot fire: said, not hidden
check "A/A gate: the tested controls counted under Holm, and a gate that cannot fire at 3 against 3 seeds says so" \
	both grep -qE '^  0 of 4 tested A/A cells are significant\. 0 of them have seeds enough to reach Holm.s first threshold 0\.05/4$' "$M" -- \
	grep -qF '**The gate cannot fire at these seed counts: this run has no A/A check.**' "$M"
every_variant() {
	local v
	for v in nohooks nohooks-aa upstream rfc; do row "$M" "$v" idle randread-qd128 >/dev/null || return 1; done
}
check "summary table has a row for every variant" every_variant
check "constructed large overhead (upstream, idle) is starred" \
	grep -qE '^\| upstream \| idle \| randread-qd128 \|.*\| \* \|' "$M"
null_unstarred() {
	local r
	r=$(row "$M" rfc off randread-qd128) && [[ -n $r && $r != *"| * |"* && $r == *"| -0.05 [-0.40, 0.30] |"* ]]
}
check "constructed null overhead (rfc, off) is in the table and not starred" null_unstarred
check "nohooks rows marked as the baseline that does not audit io_uring" \
	grep -qE '^\| nohooks \| off \| randread-qd128 \|.*baseline — does not audit io_uring' "$M"
# verdict_from_csv V S W TAIL: the verdict line the summary row implies, with
# the figure and interval labels read from its estimator and delta_interval
verdict_from_csv() {
	local v=$1 s=$2 w=$3 tail=$4 sum=$R/synth-a/summary.csv
	awk -v o="$(get "$sum" "$v" "$s" "$w" overhead_pct)" -v lo="$(get "$sum" "$v" "$s" "$w" overhead_ci_lo)" \
		-v hi="$(get "$sum" "$v" "$s" "$w" overhead_ci_hi)" -v v="$v" -v s="$s" -v w="$w" -v t="$tail" \
		-v e="$(get "$sum" "$v" "$s" "$w" estimator)" -v d="$(get "$sum" "$v" "$s" "$w" delta_interval)" \
		'BEGIN { x = sprintf("%+.1f", o); if (x ~ /^[-+]0\.0$/) x = substr(x, 2)
			printf "- %s: %s%% [%.1f, %.1f] per %s op with audit %s; %s over seeds, %s %s\n", v, x, lo, hi, w, s,
				(e == "min" ? "minimum" : e == "exact" ? "exact value" : e), d, t }'
}
# pq V S W: "p P, q Q" from the summary row
pq() { echo "p $(get "$R/synth-a/summary.csv" "$1" "$2" "$3" p_value), q $(get "$R/synth-a/summary.csv" "$1" "$2" "$3" q_value)"; }
verdicts_ok() {
	grep -qxF -- "$(verdict_from_csv rfc idle randread-qd128 "(significant, $(pq rfc idle randread-qd128))")" "$M" &&
		grep -qxF -- "$(verdict_from_csv upstream idle bench-nop '(significant, exact Δ +160.000 instructions/op)')" "$M" &&
		grep -qxF -- "$(verdict_from_csv rfc off randread-qd128 "(n.s., $(pq rfc off randread-qd128))")" "$M" &&
		grep -qxF -- "$(verdict_from_csv rfc off bench-nop '(n.s.: exact Δ 0.000 instructions/op, below the 0.01 resolution)')" "$M" &&
		between "$(get "$R/synth-a/summary.csv" rfc idle randread-qd128 overhead_pct)" 4.9 5.1
}
check "verdict lines carry the summary's overhead, its interval and their labels, significant or not" verdicts_ok
# the decision table (scripts/report/report-decision.sh; tests/unit-decision.sh checks it in detail)
check "decision table after the headline: a row per catalog design, upstream +Δ idle bench-nop from summary.csv" \
	both test "$(sed -n '/^## Decision table/,/^## /p' "$M" | grep -cE '^\| [a-z0-9-]+ \| (\*\*yes\*\*|no|—) \|')" -eq "$(LAB_ROOT=$LAB_ROOT bash -c '. "$LAB_ROOT/lib/common.sh"; . "$LAB_ROOT/lib/catalog.sh"; variants_with design' | wc -l)" -- \
	grep -qE "^\| upstream \| [^|]+ \| \+$(get "$R/synth-a/summary.csv" upstream idle bench-nop delta_ns_per_op | awk '{ printf "%.1f", $1 }') / " "$M"
check "one verdict line per variant and headline cell (randread-qd128 and bench-nop, idle and off)" \
	test "$(sed -n '/^## Verdicts/,/^## /p' "$M" | grep -cE '^- (nohooks|nohooks-aa|upstream|rfc): .* per (randread-qd128|bench-nop) op with audit (idle|off)')" = 16
check "A/A verdict says it is the A/A control and its test, baseline verdict says it does not audit" \
	both grep -qE '^- nohooks-aa: .*\(A/A control, p 0\.7000, q 1\.0000: n\.s\.\)' "$M" -- \
	grep -qE '^- nohooks: baseline — does not audit io_uring' "$M"
failed_listed() {
	grep -qxF -- '- rfc / syscall-10 / bench-nop: 1 failed, 0 n/a, 2 ok' "$M" &&
		grep -qF -- 'timeout: rfc / syscall-10 / bench-nop rep 3' "$M"
}
check "failed cells listed: the timed-out rfc / syscall-10 / bench-nop rep" failed_listed
check "profile cross-check: WARNING where the profiler's hook calls per io_issue_sqe disagree with the plugin's (upstream, idle)" \
	grep -qxF 'WARNING: upstream / idle / randread-qd128: the profiler counts 1.00 entry and 1.00 exit calls per io_issue_sqe, the plugin 0.50 and 0.50' "$M"
agree_no_warning() {
	grep -qxF '| rfc | idle | randread-qd128 | 1.00 | 1.00 | 1.00 | 1.00 | yes |' "$M" && ! grep -q '^WARNING: rfc' "$M"
}
check "profile cross-check: agreement and no WARNING where profiler and plugin count the same calls (rfc)" agree_no_warning
no_ftrace_cost() { ! sed -n '/^## Profile cross-check/,/^## [^P]/p' "$M" | grep -qE 'instructions/audited op|ns/audited op'; }
check "profile section prints no ftrace time as a cost (only hit counts)" no_ftrace_cost
embedded() {
	local n=0 f
	while read -r f; do
		[[ -s $R/synth-a/$f ]] || return 1
		n=$((n + 1))
	done < <(grep -oE '\]\(plots/[^)]+\.png\)' "$M" | sed 's/^](//; s/)$//')
	((n == 6))
}
check "report embeds every figure with a relative link that resolves" embedded
environment_ok() {
	grep -q 'synthhost' "$M" && grep -q 'QEMU emulator version 7.2.synth' "$M" && grep -q 'liburing-dev 2.3-3' "$M" &&
		grep -q 'c0ffee0000000000000000000000000000c0ffee.*2 uncommitted files' "$M" &&
		grep -q 'executed guest instructions' "$M"
}
check "environment: host, QEMU, packages, lab commit and its uncommitted files, unit meaning" environment_ok
run report_noaa "$scripts/report/report.sh" noaa
check "a run without the A/A control gets a loud note in the noise floor section" \
	both rc_is report_noaa 0 -- grep -q '^> \*\*WARNING: this run has no A/A control' "$R/noaa/report.md"
check "report without figures says how to draw them" grep -qF "No figures: draw them with \`scripts/report/plots.sh noaa\`" "$R/noaa/report.md"

# a broken summary.csv: exit 2, the old report.md left as it was
cp "$M" "$tmp/report.before"
cp "$R/synth-a/summary.csv" "$tmp/summary.good"
sed '1s/overhead_pct,/ovh,/' "$tmp/summary.good" >"$R/synth-a/summary.csv"
run report_bad "$scripts/report/report.sh" synth-a
cp "$tmp/summary.good" "$R/synth-a/summary.csv"
bad_summary_ok() {
	exits_2_saying report_bad "no overhead_pct column" && cmp -s "$M" "$tmp/report.before" && [[ ! -e $M.tmp ]]
}
check "summary.csv missing a column: exit 2 naming it, report.md untouched, no .tmp" bad_summary_ok

# --- labels: what each figure and interval is (issue 14) -------------------------------
# synth-a is tcg-icount with n = 3: the range, never a "95% CI"
no_ci_at_small_n() {
	local f
	[[ $(get "$R/synth-a/summary.csv" rfc idle randread-qd128 interval) == "range over 3 seeds" ]] || return 1
	! grep -qF '95% CI' "$M" || return 1
	for f in "$P"/*.svg; do
		! grep -qF '95% CI' "$f" || return 1
	done
}
check "tcg-icount, n = 3: no '95% CI' in report.md or any plot's SVG text" no_ci_at_small_n
labels_from_summary() {
	grep -qF 'whiskers: Hodges-Lehmann 90.0% CI; Hodges-Lehmann 95.2% CI; grey band: A/A interval' "$P/overhead-randread-qd128.svg" &&
		grep -qF 'whiskers: exact; grey band: A/A interval' "$P/overhead-bench-nop.svg" &&
		grep -qF 'figure and bars: median over 3 seeds [range]' "$P/ops-per-variant-randread-qd128.svg" &&
		grep -qF 'figure and bars: exact value over 3 seeds [exact]; exact value over 2 seeds [exact]' "$P/ops-per-variant-bench-nop.svg" &&
		grep -qF 'figure and bars: median over 3 seeds [range]' "$P/rules-scaling-randread-qd128.svg" &&
		grep -qF 'exact counts from the plugin attribution' "$P/audit-share-randread-qd128.svg" &&
		grep -qF 'instructions/op median over 3 seeds [range]; exact value over 3 seeds [exact]; exact value over 2 seeds [exact], ops/s median over 3 seeds [range]; exact value over 3 seeds [exact]; exact value over 2 seeds [exact].' "$M" &&
		grep -qF '| ops/s [range; exact] | instructions/op [range; exact] | Δ instructions/op vs nohooks [Hodges-Lehmann 90.0% CI; exact; Hodges-Lehmann 95.2% CI] | overhead % [Hodges-Lehmann 90.0% CI; exact; Hodges-Lehmann 95.2% CI] |' "$M"
}
# the header lists every distinct label: rfc / syscall-10 / bench-nop has 2 seeds (one timed out)
check "plot titles and report headers say what the figure is (median with the range, or exact) and what the whiskers are" labels_from_summary
# the labels are read from summary.csv, not hard-coded: relabel the interval
relabel() {
	sed -i 's/,range over 3 seeds,/,range over 3 seeds (relabelled),/; s/,Hodges-Lehmann 95.2% CI (n=3 vs 6),/,Hodges-Lehmann 95.2% relabelled (n=3 vs 6),/' "$R/synth-a/summary.csv"
}
cp "$R/synth-a/summary.csv" "$tmp/summary.keep"
cp "$M" "$tmp/report.keep"
relabel
run report_relabel "$scripts/report/report.sh" synth-a
relabelled_ok() {
	rc_is report_relabel 0 && grep -qF 'Hodges-Lehmann 95.2% relabelled (n=3 vs 6)' "$M" &&
		grep -qE '^- rfc: .* randread-qd128 op with audit idle; median over seeds, Hodges-Lehmann 95\.2% relabelled \(n=3 vs 6\) \(significant, p ' "$M"
}
check "report labels follow summary.csv's interval columns (relabelled rows, relabelled report)" relabelled_ok
cp "$tmp/summary.keep" "$R/synth-a/summary.csv"
cp "$tmp/report.keep" "$M"
# shellcheck disable=SC2016 # backquotes are the report's markdown
noise_rule_ok() {
	grep -qF -- '- **Benjamini-Hochberg** over all 16 hook-cost cells of the variants (8 exact, entering with p = 0 or 1; 8 tested): a cell is' "$M" &&
		grep -qF '12 are significant (6 exact, 6 tested).' "$M" &&
		grep -qF 'plus one neutral reordering of a test inside `io_issue_sqe`' "$M" &&
		grep -qF 'That is a practical reading of one control, not a test: it never changes a verdict.' "$M" &&
		! grep -qiE 'seed floor|CI excludes 0' "$M"
}
check "noise and significance prose states labstat's rule (exact, rank-sum, BH over the variants' cells with its counts, the A/A rows apart); the codegen floor is no part of it" noise_rule_ok

# artefacts: a device-time workload (randread-polled, from its workload file),
# noaudit (+2% with audit off, n/a elsewhere), a codegen control at +0.6%
# and a variant 'tiny' at +0.3% whose seeds interleave with the A/A control's
mkdir -p "$R/artef"
awk -F, -v OFS=, 'NR == 1 { print; next }
	{ print }
	$3 == "randread-qd128" { r = $0; $3 = "randread-polled"; print; $0 = r }
	$1 == "upstream" {
		r = $0; $1 = "noaudit"
		if ($2 != "off") { $7 = "n/a"; $8 = ""; $9 = "" } else if ($7 == "ok") { $9 = sprintf("%.3f", $9 * 1.02); $8 = sprintf("%.1f", 1e9 / $9) }
		print; $0 = r
	}
	$1 == "nohooks" && $7 == "ok" {
		r = $0
		$1 = "nohooks-codegen"; $9 = sprintf("%.3f", $9 * 1.006); $8 = sprintf("%.1f", 1e9 / $9); print
		$0 = r
		$1 = "tiny"; $9 = sprintf("%.3f", $9 * 1.003); $8 = sprintf("%.1f", 1e9 / $9); print
		$0 = r
	}' "$R/synth-a/cells.csv" >"$R/artef/cells.csv"
cp "$R/synth-a/manifest.json" "$R/artef/"
run sum_artef "$scripts/analysis/summary.sh" artef
run plots_artef "$scripts/report/plots.sh" artef
run report_artef "$scripts/report/report.sh" artef
A=$R/artef/report.md
check "artefact run: summary, plots and report exit 0" \
	test "$(cat "$tmp/sum_artef.rc")$(cat "$tmp/plots_artef.rc")$(cat "$tmp/report_artef.rc")" = 000
check "summary.csv: randread-polled is measure=device-time with significant=n/a (from its workload file)" \
	test "$(get "$R/artef/summary.csv" upstream idle randread-polled measure)/$(get "$R/artef/summary.csv" upstream idle randread-polled significant)" = device-time/n/a
devtime_row_ok() {
	local r
	r=$(row "$A" upstream idle randread-polled) &&
		[[ $r == *"not a hook-cost measure (per-op count includes device-time spin)"* && $r != *"| * |"* ]] &&
		row "$A" upstream idle randread-qd128 | grep -qF '| * |'
}
check "device-time rows: labelled 'not a hook-cost measure (per-op count includes device-time spin)', never starred" devtime_row_ok
check "device-time workload: no Δ or ops/s figure, and the plots log says why" \
	both grep -qF 'skip ops-per-variant-randread-polled and overhead-randread-polled: device-time workload, not a hook-cost measure' "$tmp/plots_artef.err" -- \
	test ! -e "$R/artef/plots/overhead-randread-polled.svg"
noaudit_ok() {
	local n
	n=$(grep -cE '^- noaudit: \+(1\.9|2\.0)% .* \(differs from nohooks, .*\) — a different kernel configuration: whole-kernel codegen changes; a floor, not a baseline$' "$A")
	[[ $(get "$R/artef/summary.csv" noaudit off bench-nop significant) == yes && $n == 2 ]] &&
		! grep -qE '^- noaudit: .*\(significant\)' "$A" &&
		row "$A" noaudit off bench-nop | grep -qF '|  | a different kernel configuration: whole-kernel codegen changes; a floor, not a baseline |'
}
check "noaudit: every verdict line with an overhead says 'a different kernel configuration ... a floor, not a baseline', never starred" noaudit_ok
# the codegen control +0.6%: all 3 of its seeds above all 6 base seeds, so it is
# significant and flagged; tiny (+0.3%, its seeds interleave with the A/A's) is not
codegen_ctl_ok() {
	grep -qE '^\| idle \| randread-qd128 \| \+4\.000 \[-12\.000, 20\.000\] \| p 0\.7000, q [0-9.]+ \| n\.s\. \| \+22\.000 \[[-0-9., ]+\] \| p 0\.0238, q [0-9.]+ \| \*\*significant\*\* \|$' "$A" &&
		! grep -q 'WARNING: A/A control cells significant:.*nohooks-codegen' "$A" &&
		grep -qE '^- nohooks-codegen: .* randread-qd128 op with audit idle; .*\(codegen control, p 0\.0238, q [0-9.]+: the codegen floor of this cell\)' "$A" &&
		grep -qE '^- tiny: \+0\.2% .* randread-qd128 op with audit idle; .*\(n\.s\., p ' "$A"
}
check "codegen control: tested like any cell; at +0.6% it is significant, the codegen floor of its cell, and no warning (its Δ is its purpose); +0.3% interleaved is n.s." codegen_ctl_ok
# the codegen floor (labstat codegen_floor, beyond_codegen): tiny's exact +0.3%
# is significant but smaller than the codegen control's +0.6%: said so
# shellcheck disable=SC2016 # backquotes are the report's markdown
within_floor_ok() {
	grep -qE '^- tiny: \+0\.3% .*\(significant, exact Δ \+[0-9.]+ instructions/op\) — within the codegen floor: `nohooks-codegen` moved this cell by [0-9.]+ instructions/op$' "$A" &&
		! grep -qE '^- upstream: .*within the codegen floor' "$A"
}
check "a significant Δ within the codegen floor says so in its sentence; one beyond it does not" within_floor_ok
# an A/A control that differs from its base (an exact +0.5 on bench-nop): the
# warning names it, and every verdict of its state and workload is no
mkdir -p "$R/aabad"
awk -F, -v OFS=, 'NR > 1 && $1 == "nohooks-aa" && $3 == "bench-nop" && $7 == "ok" { $9 = sprintf("%.3f", $9 + 0.5); $8 = sprintf("%.1f", 1e9 / $9) } { print }' \
	"$R/artef/cells.csv" >"$R/aabad/cells.csv"
cp "$R/synth-a/manifest.json" "$R/aabad/"
run sum_aabad "$scripts/analysis/summary.sh" aabad
run report_aabad "$scripts/report/report.sh" aabad
aa_warning_ok() {
	rc_is report_aabad 0 && grep -qE '^> \*\*WARNING: A/A control cells significant:\*\* nohooks-aa/[a-z0-9-]+/bench-nop \(exact' "$R/aabad/report.md" &&
		test "$(get "$R/aabad/summary.csv" nohooks-aa idle bench-nop significant)/$(get "$R/aabad/summary.csv" upstream idle bench-nop significant)" = yes/no
}
check "an A/A control that differs from its base is warned about, and gates its cells' verdicts to no" aa_warning_ok

# --- compare -------------------------------------------------------------------------
snapshot() { (cd "$R" && find synth-a synth-b -type f -print0 | sort -z | xargs -0 sha256sum); }
snapshot >"$tmp/snap.before"
run compare "$scripts/analysis/compare.sh" synth-a synth-b
snapshot >"$tmp/snap.after"
check "compare.sh exits 0" rc_is compare 0
check "compare: rfc / idle / randread-qd128 changed by +10% and is starred" \
	grep -qE '^rfc +idle +randread-qd128 +3 +3 +4200\.0 +4620\.0 +\+10\.00 \[[0-9.]+, [0-9.]+\] +\*$' "$tmp/compare.out"
check "compare: unchanged rfc / off / randread-qd128 shows no change and no star" \
	grep -qE '^rfc +off +randread-qd128 +3 +3 +4000\.0 +4000\.0 +0\.00 \[-[0-9.]+, [0-9.]+\]$' "$tmp/compare.out"
check "compare writes nothing in either run dir" cmp -s "$tmp/snap.before" "$tmp/snap.after"
run compare_out "$scripts/analysis/compare.sh" --out "$tmp/cmp.csv" synth-a synth-b
compare_out_ok() {
	rc_is compare_out 0 && head -1 "$tmp/cmp.csv" | grep -q '^variant,state,workload,n_a,n_b,.*,change_pct,' &&
		grep -q '^rfc,idle,randread-qd128,3,3,4200.000,4620.000,10.000,' "$tmp/cmp.csv"
}
check "compare --out FILE writes labstat's CSV there" compare_out_ok

# --- rerun-check -----------------------------------------------------------------------
# a rerun that reproduces synth-a exactly, and one in which a verdict flips
# (their cells.csv: synth-a's with every seed moved by 100, a rerun with --seed-base 100)
mkdir -p "$R/synth-a2" "$R/synth-flip"
cp "$R/synth-a/summary.csv" "$R/synth-a2/"
for d in synth-a2 synth-flip; do
	awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } { $c["seed"] += 100; print }' \
		"$R/synth-a/cells.csv" >"$R/$d/cells.csv"
done
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	$c["variant"] == "rfc" && $c["state"] == "idle" && $c["workload"] == "bench-nop" { $c["significant"] = "no"; $c["delta_ns_per_op"] += 0.5 }
	{ print }' "$R/synth-a/summary.csv" >"$R/synth-flip/summary.csv"
run rerun_same "$scripts/analysis/rerun-check.sh" synth-a synth-a2
rerun_same_ok() {
	rc_is rerun_same 0 && grep -qE '^hook-cost cells: ([0-9]+) compared, verdicts agree in \1 \(100\.0%\), Δ within 0.1 in \1;' "$tmp/rerun_same.out" &&
		! grep -q FLIP "$tmp/rerun_same.out" &&
		grep -qxF 'disjoint seeds: A 6 seeds, 1..1003, B 6 seeds, 101..1103' "$tmp/rerun_same.out" &&
		grep -qxF "  tested in both: 12; rerun intervals: A's hold B's Δ in 12 (100.0%, stated 95.0%), B's hold A's in 12 (100.0%, stated 95.0%)" "$tmp/rerun_same.out" &&
		grep -qxF "    shift intervals (for the true shift, not a rerun): A's hold B's Δ in 12 (100.0%, stated 93.5%), B's hold A's in 12 (100.0%, stated 93.5%)" "$tmp/rerun_same.out" &&
		grep -q '^rerun-interval coverage over all tested cells, both ways: 100.0% of 24 against a stated 95.0% (holds' "$tmp/rerun_same.out" &&
		! grep -q 'NOT A PURE RERUN' "$tmp/rerun_same.out" &&
		grep -qxF '  exact in both: 12, Δ equal within 0.01 in 12' "$tmp/rerun_same.out" &&
		grep -qxF 'A/A control cells (nohooks-aa) significant: A none; B none' "$tmp/rerun_same.out"
}
check "rerun-check: a rerun with the same summary agrees on every verdict and Δ, exit 0" rerun_same_ok
run rerun_seeds "$scripts/analysis/rerun-check.sh" synth-a synth-a
check "rerun-check: two runs sharing seeds are refused, one line naming the seeds, exit 2" \
	exits_2_saying rerun_seeds "share seeds (1 2 3 1001 1002 1003): not a rerun with new seeds"
run rerun_same_seeds "$scripts/analysis/rerun-check.sh" --same-seeds synth-a synth-a
check "rerun-check --same-seeds: runs, and says it is a repeatability check, not independent samples" \
	both rc_is rerun_same_seeds 0 -- grep -qF 'SAME SEEDS (1 2 3 1001 1002 1003): a repeatability check' "$tmp/rerun_same_seeds.out"
run rerun_flip "$scripts/analysis/rerun-check.sh" --out "$tmp/rerun.csv" synth-a synth-flip
rerun_flip_ok() {
	rc_is rerun_flip 1 && grep -qE '^rfc +idle +bench-nop +hook-cost .* \+0\.500 +yes/no +FLIP$' "$tmp/rerun_flip.out" &&
		grep -q '^rfc,idle,bench-nop,hook-cost,.*,yes,no,no,no,exact,exact,no,yes,no,yes$' "$tmp/rerun.csv"
}
check "rerun-check: a flipped verdict (and a Δ moved by 0.5) is listed as FLIP, written to --out, exit 1" rerun_flip_ok
# the same flip where B's A/A control is significant: both flips there (rfc's and
# the control's own) are counted as voided (labstat sets every verdict of that
# state and workload to no), and the agreement is given without them
mkdir -p "$R/synth-flip-aa"
cp "$R/synth-flip/cells.csv" "$R/synth-flip-aa/"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	$c["variant"] == "nohooks-aa" && $c["state"] == "idle" && $c["workload"] == "bench-nop" { $c["significant"] = "yes"; n++ }
	{ print } END { if (n != 1) exit 1 }' "$R/synth-flip/summary.csv" >"$R/synth-flip-aa/summary.csv"
run rerun_void "$scripts/analysis/rerun-check.sh" synth-a synth-flip-aa
check "rerun-check: a flip where an A/A control is significant is counted as voided, agreement given outside" \
	both rc_is rerun_void 1 -- grep -qE '^hook-cost verdict flips: 2 outside .*; 2 of the 2 in a base, state and workload whose A/A control is significant in A or B .*, and outside those hook-cost verdicts agree in ([0-9]+) of \1 \(100\.0%\)$' "$tmp/rerun_void.out"
# a variant whose kernel differs between the manifests is no rerun: left out, and said
for d in synth-a synth-a2; do
	mkdir -p "$R/$d-k"
	cp "$R/$d/cells.csv" "$R/$d/summary.csv" "$R/$d-k/"
	printf '{"initramfs_sha256":"i-%s","matrix":{"variants":[{"name":"nohooks","bzimage_sha256":"k0"},{"name":"rfc","bzimage_sha256":"%s"}]}}\n' "$d" "$d" >"$R/$d-k/manifest.json"
done
run rerun_kern "$scripts/analysis/rerun-check.sh" synth-a-k synth-a2-k
check "rerun-check: a changed kernel (rfc) and initramfs are said (NOT A PURE RERUN) and rfc's cells left out" \
	both rc_is rerun_kern 0 -- bash -c "grep -q '^NOT A PURE RERUN: the guests differ (initramfs i-synth-a .*kernels differ for: rfc' '$tmp/rerun_kern.out' && ! grep -q '^rfc ' '$tmp/rerun_kern.out' && grep -q 'verdicts agree' '$tmp/rerun_kern.out'"
run bad_rerun "$scripts/analysis/rerun-check.sh" --tol x synth-a synth-a2
check "rerun-check: a bad --tol is one line, exit 2" exits_2_saying bad_rerun "--tol 'x' is not a non-negative decimal number"

# --- publish ---------------------------------------------------------------------------
mkdir -p "$tmp/elsewhere/synth-pub/raw/nohooks.idle.r1" "$tmp/elsewhere/synth-dirty"
cp "$R/synth-a/cells.csv" "$tmp/elsewhere/synth-pub/"
jq '.lab.publishable = true' "$R/synth-a/manifest.json" >"$tmp/elsewhere/synth-pub/manifest.json"
echo "@@LAB done" >"$tmp/elsewhere/synth-pub/raw/nohooks.idle.r1/results.txt"
cp "$R/synth-a/cells.csv" "$tmp/elsewhere/synth-dirty/"
jq '.lab.publishable = false' "$R/synth-a/manifest.json" >"$tmp/elsewhere/synth-dirty/manifest.json"
run publish "$scripts/report/publish.sh" "$tmp/elsewhere/synth-pub"
publish_ok() {
	rc_is publish 0 && [[ $(cat "$R/PUBLISHED") == synth-pub ]] && [[ -f $R/synth-pub/report.md && -f $R/synth-pub/summary.csv ]] &&
		tar -tJf "$R/synth-pub/raw.tar.xz" | grep -qx 'raw/nohooks.idle.r1/results.txt'
}
check "publish: copies the run into results/, packs raw/ into raw.tar.xz, recomputes summary and report, names it in PUBLISHED" publish_ok
run publish_dirty "$scripts/report/publish.sh" "$tmp/elsewhere/synth-dirty"
publish_dirty_ok() {
	exits_2_saying publish_dirty "made from a tree with uncommitted changes" && [[ ! -e $R/synth-dirty ]] &&
		[[ $(cat "$R/PUBLISHED") == synth-pub ]]
}
check "publish: a run with lab.publishable=false is refused (exit 2), nothing copied, PUBLISHED unchanged" publish_dirty_ok
mkdir -p "$tmp/elsewhere/synth-broken"
echo "not,a,cells,file" >"$tmp/elsewhere/synth-broken/cells.csv"
cp "$tmp/elsewhere/synth-pub/manifest.json" "$tmp/elsewhere/synth-broken/"
run publish_broken "$scripts/report/publish.sh" "$tmp/elsewhere/synth-broken"
check "publish: a run whose summary fails is not left half-published in results/ (non-zero exit, no copy, PUBLISHED unchanged)" \
	both test "$(cat "$tmp/publish_broken.rc")" != 0 -- test ! -e "$R/synth-broken" -a "$(cat "$R/PUBLISHED")" = synth-pub

# --- bad input ------------------------------------------------------------------------
run bad_plots "$scripts/report/plots.sh" nosuch
check "plots.sh with an unknown run id: exit 2, one line naming it" exits_2_saying bad_plots "no results/nosuch"
run bad_report "$scripts/report/report.sh" nosuch
check "report.sh with an unknown run id: exit 2, one line naming it" exits_2_saying bad_report "no results/nosuch"
run bad_compare "$scripts/analysis/compare.sh" synth-a nosuch
check "compare.sh with an unknown run id: exit 2, one line naming it" exits_2_saying bad_compare "no results/nosuch/cells.csv"
run bad_unsummed "$scripts/report/report.sh" unsummed
check "report.sh on a run without summary.csv: exit 2, says to run summary" \
	exits_2_saying bad_unsummed "run ./run.sh summary unsummed first"
run bad_noargs "$scripts/report/report.sh"
check "report.sh without a run id: exit 2 with usage" exits_2_saying bad_noargs "usage: report.sh RUN"
check "rejected runs left no report or plots behind" \
	test ! -e "$R/unsummed/report.md" -a ! -e "$R/unsummed/plots" -a ! -e "$R/nosuch"

# --- base trees (issue 23): a two-base run where the 6.12 baseline differs ----------
# synth-a's cells on 6.1, and on 6.12 a baseline (nohooks-6-12) and A/A 1.5x
# nohooks' and a design port (upstream-6-12) 1.5x upstream's: on bench-nop
# (exact) upstream's Δ is 960 - 800 = +160 on 6.1 and 1440 - 1200 = +240 on
# 6.12; a Δ across bases would be 1440 - 800 = +640. The 6.12 folders live in
# a scratch catalog (the real ones may not exist yet), beside the real ones.
export LAB_VARIANTS=$tmp/variants
mkdir -p "$LAB_VARIANTS"
for d in "$LAB_ROOT"/kernel/variants/*/; do ln -s "${d%/}" "$LAB_VARIANTS/$(basename "$d")"; done
rm -f "$LAB_VARIANTS/nohooks-6-12" "$LAB_VARIANTS/upstream-6-12"
for m in "nohooks-6-12 role=baseline design=nohooks seed-control=nohooks-6-12-aa order=10" \
	"upstream-6-12 role=design design=upstream reference=yes order=1"; do
	read -r v meta <<<"$m"
	mkdir "$LAB_VARIANTS/$v"
	printf '# base: 6.12\n' >"$LAB_VARIANTS/$v/series"
	tr ' ' '\n' <<<"$meta" >"$LAB_VARIANTS/$v/meta"
done
mkdir -p "$R/synth-2b"
cp "$R/synth-a/manifest.json" "$R/synth-2b/"
awk -F, -v OFS=, 'NR == 1 { print $0, "base"; next }
	{ print $0, "6.1" }
	$1 != "rfc" && $7 == "ok" {
		$1 = $1 == "nohooks-aa" ? "nohooks-6-12-aa" : $1 "-6-12"
		$9 = sprintf("%.3f", $9 * 1.5); $8 = sprintf("%.1f", 1e9 / $9)
		print $0, "6.12"
	}' "$R/synth-a/cells.csv" >"$R/synth-2b/cells.csv"
run sum2b "$scripts/analysis/summary.sh" synth-2b
S2=$R/synth-2b/summary.csv
check "two bases: summary.csv carries each row's base (upstream 6.1, upstream-6-12 6.12)" \
	test "$(get "$S2" upstream idle bench-nop base)/$(get "$S2" upstream-6-12 idle bench-nop base)" = 6.1/6.12
check "two bases: each Δ against its own base's baseline: +160 on 6.1, +240 on 6.12 (never the cross-base +640)" \
	test "$(get "$S2" upstream idle bench-nop delta_ns_per_op)/$(get "$S2" upstream-6-12 idle bench-nop delta_ns_per_op)" = 160.000/240.000
check "two bases: each A/A control against its own baseline (nohooks-6-12-aa: exact 0 on bench-nop)" \
	test "$(get "$S2" nohooks-6-12-aa idle bench-nop delta_ns_per_op)/$(get "$S2" nohooks-6-12 idle bench-nop delta_ns_per_op)" = 0.000/
run rep2b "$scripts/report/report.sh" synth-2b
M2=$R/synth-2b/report.md
# shellcheck disable=SC2016 # backquotes of markdown
two_base_headline() {
	grep -qF 'On **linux-source-6.12** (versus `nohooks-6-12`):' "$M2" &&
		grep -qF '| 6.1: skipped op: off | 6.1: skipped op: idle |' "$M2" && grep -qF '| 6.12: skipped op: off | 6.12: skipped op: idle |' "$M2" &&
		[[ $(awk -F' [|] ' '$1 == "| upstream" { print $3 "/" $9; exit }' "$M2") == +160.0/+240.0 ]]
}
check "two bases: the headline has a block per base and the hook-design table a column group per base (upstream: +160 on 6.1, +240 on 6.12)" two_base_headline
check "two bases: the noise section has an A/A table per base, with nohooks-6-12-aa on 6.12" \
	both grep -qxF 'On 6.12:' "$M2" -- grep -qF '| state | workload | nohooks-6-12-aa Δ instructions/op' "$M2"
check "two bases: no Δ of +640 (upstream-6-12 against 6.1's nohooks) anywhere in the report" bash -c "! grep -q '+640' '$M2'"
