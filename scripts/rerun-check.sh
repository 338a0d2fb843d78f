#!/bin/bash
# rerun-check.sh [--tol X] [--out FILE] RUN_A RUN_B: do two runs of the same
# matrix reach the same conclusions? For every (variant, state, workload) with
# a Δ versus the baseline in both summary.csv files: Δ in A and in B, their
# difference, and both significance verdicts. Prints the cells that disagree
# (a verdict that flips, or |Δ_B - Δ_A| > X, default 0.1 unit/op), then the
# counts per measure (hook-cost, device-time) and per workload.
# Exit 0 when every hook-cost verdict agrees, 1 when one flips, 2 on bad input.
# A verdict is not a verdict if it flips on a rerun (issue 14).
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

usage="usage: rerun-check.sh [--tol X] [--out FILE] RUN_A RUN_B"
tol=0.1 out="" runs=()
while (($#)); do
	case $1 in
	--tol | --out)
		if (($# < 2)) || [[ -z $2 ]]; then die_usage "rerun-check: $1 needs a value; $usage"; fi
		[[ $1 == --tol ]] && tol=$2 || out=$2
		shift 2
		;;
	-h | --help) die_usage "$usage" ;;
	-*) die_usage "rerun-check: unknown option '$1'; $usage" ;;
	*) runs+=("$1") && shift ;;
	esac
done
((${#runs[@]} == 2)) || die_usage "rerun-check: needs two run ids, got ${#runs[@]}; $usage"
[[ $tol =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "rerun-check: --tol '$tol' is not a non-negative decimal number"
for r in "${runs[@]}"; do
	d=$(results_dir "$r")
	[[ -f $d/summary.csv ]] || die_usage "rerun-check: no results/$r/summary.csv; run ./run.sh summary $r first"
done
if [[ -n $out ]]; then
	[[ -d $(dirname "$out") ]] || die_usage "rerun-check: --out $out: directory $(dirname "$out") does not exist"
fi
sa=$(results_dir "${runs[0]}")/summary.csv sb=$(results_dir "${runs[1]}")/summary.csv

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
# shellcheck disable=SC2016 # awk source
awk -F, -v tol="$tol" -v csv="$tmp/out.csv" -v a="${runs[0]}" -v b="${runs[1]}" '
	function abs(x) { return x < 0 ? -x : x }
	FNR == 1 {
		delete c
		for (i = 1; i <= NF; i++) c[$i] = i
		split("variant state workload delta_ns_per_op significant measure", need, " ")
		for (i in need) if (!(need[i] in c)) { printf "rerun-check: %s has no %s column; regenerate it with ./run.sh summary\n", FILENAME, need[i] > "/dev/stderr"; bad = 2; exit 2 }
		file++
		next
	}
	{
		k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
		if ($c["delta_ns_per_op"] == "") next
		D[file, k] = $c["delta_ns_per_op"]; SIG[file, k] = $c["significant"]; M[k] = $c["measure"]
		if (file == 1) K[nk++] = k
	}
	END {
		if (bad) exit bad
		print "variant,state,workload,measure,delta_a,delta_b,delta_change,significant_a,significant_b,verdict_agrees,delta_agrees" > csv
		printf "rerun-check: A = %s, B = %s; Δ = cost per op versus the baseline; tolerance %s per op\n\n", a, b, tol
		printf "%-16s %-12s %-20s %-11s %12s %12s %9s  %s\n", "variant", "state", "workload", "measure", "Δ A", "Δ B", "B - A", "verdict A/B"
		for (i = 0; i < nk; i++) {
			k = K[i]
			if (!((2, k) in D)) continue
			split(k, p, SUBSEP); m = M[k]
			dd = D[2, k] - D[1, k]
			va = (SIG[1, k] == SIG[2, k]); da = (abs(dd) <= tol + 1e-9)
			n[m]++; if (va) vok[m]++; if (da) dok[m]++
			wl = p[3] SUBSEP m; nw[wl]++; if (da) wok[wl]++; if (!(wl in wseen)) { wseen[wl] = 1; W[nwl++] = wl }
			if (abs(dd) > maxd[m]) { maxd[m] = abs(dd); maxk[m] = p[1] " / " p[2] " / " p[3] }
			if (!va && m == "hook-cost") flips++
			printf "%s,%s,%s,%s,%s,%s,%.3f,%s,%s,%s,%s\n", p[1], p[2], p[3], m, D[1, k], D[2, k], dd, SIG[1, k], SIG[2, k], va ? "yes" : "no", da ? "yes" : "no" > csv
			if (!va || !da)
				printf "%-16s %-12s %-20s %-11s %12.3f %12.3f %+9.3f  %s/%s%s\n", p[1], p[2], p[3], m, D[1, k], D[2, k], dd, SIG[1, k], SIG[2, k], va ? "" : "  FLIP"
		}
		print ""
		for (m in n)
			printf "%s cells: %d compared, verdicts agree in %d, Δ within %s in %d; largest |B - A| %.3f (%s)\n", m, n[m], vok[m], tol, dok[m], maxd[m], maxk[m]
		print ""
		print "Δ within tolerance, per workload:"
		for (i = 0; i < nwl; i++) { split(W[i], q, SUBSEP); printf "  %-20s %-11s %d of %d\n", q[1], q[2], wok[W[i]], nw[W[i]] }
		exit flips ? 1 : 0
	}' "$sa" "$sb" || rc=$?
((rc == 2)) && exit 2
if [[ -n $out ]]; then
	cp "$tmp/out.csv" "$out.tmp"
	mv "$out.tmp" "$out"
	log "rerun-check: wrote $out"
fi
exit "$rc"
