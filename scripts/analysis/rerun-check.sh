#!/bin/bash
# rerun-check.sh [--tol X] [--out FILE] [--same-seeds] RUN_A RUN_B: do two runs
# of the same matrix reach the same conclusions? A rerun samples NEW seeds
# (./run.sh matrix --seed-base N): runs whose cells.csv share a seed are
# refused (exit 2) unless --same-seeds says this is a repeatability check of
# the same seeds, and the output says so.
# For every (variant, state, workload) with a Δ versus the baseline in both
# summary.csv files: Δ in A and in B, their difference, both verdicts, and
# whether each run's Δ interval holds the other run's Δ. Prints the cells that
# disagree (a verdict that flips, or |Δ_B - Δ_A| > X, default 0.1 unit/op),
# then per measure: verdict agreement, Δ agreement, interval coverage of the
# other run's estimate (tested cells, against the coverage the intervals
# state; exact cells: Δ equal within 0.01), and the A/A control cells
# significant in each run (the codegen control's Δ is meant to be nonzero).
# Exit 0 when every hook-cost verdict agrees, 1 when one flips (a flip of the
# codegen control is reported, not counted), 2 on bad input.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

usage="usage: rerun-check.sh [--tol X] [--out FILE] [--same-seeds] RUN_A RUN_B"
tol=0.1 out="" same_seeds=0 runs=()
while (($#)); do
	case $1 in
	--tol | --out)
		if (($# < 2)) || [[ -z $2 ]]; then die_usage "rerun-check: $1 needs a value; $usage"; fi
		[[ $1 == --tol ]] && tol=$2 || out=$2
		shift 2
		;;
	--same-seeds) same_seeds=1 && shift ;;
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
	[[ -f $d/cells.csv ]] || die_usage "rerun-check: no results/$r/cells.csv: its seeds are unknown"
done
if [[ -n $out ]]; then
	[[ -d $(dirname "$out") ]] || die_usage "rerun-check: --out $out: directory $(dirname "$out") does not exist"
fi
da=$(results_dir "${runs[0]}") db=$(results_dir "${runs[1]}")

# seeds_of CELLS: the distinct seeds of its ok rows, sorted
seeds_of() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!("seed" in c)) { bad = 1; exit } next }
		$c["status"] == "ok" { print $c["seed"] }
		END { exit bad ? 2 : 0 }' "$1" | sort -nu
}
seeds_a=$(seeds_of "$da/cells.csv") || die_usage "rerun-check: $da/cells.csv has no seed column"
seeds_b=$(seeds_of "$db/cells.csv") || die_usage "rerun-check: $db/cells.csv has no seed column"
shared=$(comm -12 <(echo "$seeds_a" | sort) <(echo "$seeds_b" | sort) | sort -n | paste -sd' ')
range() { awk 'NR == 1 { lo = $1 } { hi = $1; n++ } END { printf "%d seeds, %s..%s", n, lo, hi }' <<<"$1"; }
if [[ -n $shared ]] && ((!same_seeds)); then
	die_usage "rerun-check: ${runs[0]} and ${runs[1]} share seeds ($shared): not a rerun with new seeds; rerun the matrix with --seed-base N (seeds N+1.., A/A N+1001..) disjoint from both, or pass --same-seeds for a repeatability check"
fi
if [[ -n $shared ]]; then
	seednote="SAME SEEDS ($shared): a repeatability check of the same seeds, not independent samples; coverage below is not a test of the intervals"
else
	seednote="disjoint seeds: A $(range "$seeds_a"), B $(range "$seeds_b")"
fi

# a rerun changes the seeds only: a variant whose kernel differs between the
# two manifests is not compared (listed), and guests built from different
# initramfs images are said to differ in more than seeds
changed="" samenote=""
if [[ -f $da/manifest.json && -f $db/manifest.json ]]; then
	kern() { jq -r '.matrix.variants[]? | "\(.name) \(.bzimage_sha256)"' "$1" | sort; }
	changed=$(join <(kern "$da/manifest.json") <(kern "$db/manifest.json") | awk '$2 != $3 { print $1 }' | paste -sd' ')
	ia=$(jq -r '.initramfs_sha256 // ""' "$da/manifest.json") ib=$(jq -r '.initramfs_sha256 // ""' "$db/manifest.json")
	[[ $ia == "$ib" ]] || samenote="the guests differ (initramfs ${ia:0:12} against ${ib:0:12}: another commit's guest/ or bench/): differences are not seed noise alone"
	[[ -z $changed ]] || samenote="${samenote:+$samenote; }kernels differ for: $changed (their cells are left out below)"
fi

# the controls that must not be significant: each base tree's A/A control,
# from the catalog (the codegen control's Δ is its purpose, the codegen floor)
controls=$(sort -u -V <(csv_bases "$da/summary.csv") <(csv_bases "$db/summary.csv") | while read -r b; do
	bl=$(catalog_one_on "$b" baseline)
	[[ -z $bl ]] || seed_control_of "$bl"
done | grep . | paste -sd' ' || true)
# the codegen controls: their Δ is the control's purpose (a change doing no
# work), often near what the seeds can detect; a flip there is said, apart
# from the verdicts on hook costs, and does not fail the check
codegen=$(roles_by_base codegen-control | tr ',' '\n' | sed 's/^[^=]*=//' | paste -sd' ')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
# shellcheck disable=SC2016 # awk source
awk -F, -v tol="$tol" -v csv="$tmp/out.csv" -v a="${runs[0]}" -v b="${runs[1]}" -v seednote="$seednote" -v controls="$controls" -v codegen="$codegen" -v changed="$changed" -v samenote="$samenote" -v defbase="$LAB_DEFAULT_BASE" '
	function abs(x) { return x < 0 ? -x : x }
	function inside(x, lo, hi) { return lo != "" && hi != "" && x + 0 >= lo - 1e-9 && x + 0 <= hi + 1e-9 }
	FNR == 1 {
		delete c
		for (i = 1; i <= NF; i++) c[$i] = i
		split("variant state workload delta_ns_per_op delta_ci_lo delta_ci_hi significant measure method delta_coverage rerun_lo rerun_hi rerun_coverage", need, " ")
		for (i in need) if (!(need[i] in c)) { printf "rerun-check: %s has no %s column; regenerate it with ./run.sh summary\n", FILENAME, need[i] > "/dev/stderr"; bad = 2; exit 2 }
		file++
		next
	}
	{
		k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
		if ($c["delta_ns_per_op"] == "") next
		if (index(" " changed " ", " " $c["variant"] " ")) next
		D[file, k] = $c["delta_ns_per_op"]; SIG[file, k] = $c["significant"]; M[k] = $c["measure"]
		bs = ("base" in c && $c["base"] != "") ? $c["base"] : defbase; BASE[k] = bs
		LO[file, k] = $c["delta_ci_lo"]; HI[file, k] = $c["delta_ci_hi"]; ME[file, k] = $c["method"]; CV[file, k] = $c["delta_coverage"]
		RLO[file, k] = $c["rerun_lo"]; RHI[file, k] = $c["rerun_hi"]; RCV[file, k] = $c["rerun_coverage"]
		if (index(" " controls " ", " " $c["variant"] " ") && $c["significant"] == "yes") {
			ctl[file] = ctl[file] " " $c["variant"] "/" $c["state"] "/" $c["workload"]
			# labstat sets every verdict of this state and workload to no
			void[bs SUBSEP $c["state"] SUBSEP $c["workload"]] = 1
		}
		if (file == 1) K[nk++] = k
	}
	END {
		if (bad) exit bad
		print "variant,state,workload,measure,delta_a,delta_b,delta_change,significant_a,significant_b,verdict_agrees,delta_agrees,method_a,method_b,b_in_a_interval,a_in_b_interval,b_in_a_rerun_interval,a_in_b_rerun_interval" > csv
		printf "rerun-check: A = %s, B = %s; Δ = cost per op versus the baseline; tolerance %s per op\n", a, b, tol
		printf "%s\n", seednote
		if (samenote != "") printf "NOT A PURE RERUN: %s\n", samenote
		print ""
		printf "%-16s %-12s %-20s %-11s %12s %12s %9s  %s\n", "variant", "state", "workload", "measure", "Δ A", "Δ B", "B - A", "verdict A/B"
		for (i = 0; i < nk; i++) {
			k = K[i]
			if (!((2, k) in D)) continue
			split(k, p, SUBSEP); m = M[k]
			dd = D[2, k] - D[1, k]
			va = (SIG[1, k] == SIG[2, k]); da = (abs(dd) <= tol + 1e-9)
			n[m]++; if (va) vok[m]++; if (da) dok[m]++
			bina = inside(D[2, k], LO[1, k], HI[1, k]); ainb = inside(D[1, k], LO[2, k], HI[2, k])
			if (ME[1, k] == "exact" && ME[2, k] == "exact") { nex[m]++; if (abs(dd) < 0.01 + 1e-9) exok[m]++ }
			rbina = inside(D[2, k], RLO[1, k], RHI[1, k]); rainb = inside(D[1, k], RLO[2, k], RHI[2, k])
			if (ME[1, k] == "rank-sum" && ME[2, k] == "rank-sum") {
				nt[m]++; cba[m] += bina; cab[m] += ainb; sa[m] += CV[1, k]; sb[m] += CV[2, k]
				rba[m] += rbina; rab[m] += rainb; rsa[m] += RCV[1, k]; rsb[m] += RCV[2, k]
			}
			wl = p[3] SUBSEP m; nw[wl]++; if (da) wok[wl]++; if (!(wl in wseen)) { wseen[wl] = 1; W[nwl++] = wl }
			if (abs(dd) > maxd[m]) { maxd[m] = abs(dd); maxk[m] = p[1] " / " p[2] " / " p[3] }
			if (!va && m == "hook-cost") { if (index(" " codegen " ", " " p[1] " ")) cgflips++; else { flips++; if ((BASE[k] SUBSEP p[2] SUBSEP p[3]) in void) vflips++ } }
			if (m == "hook-cost" && !((BASE[k] SUBSEP p[2] SUBSEP p[3]) in void)) { nv++; if (va) nvok++ }
			printf "%s,%s,%s,%s,%s,%s,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", p[1], p[2], p[3], m, D[1, k], D[2, k], dd, SIG[1, k], SIG[2, k], \
				va ? "yes" : "no", da ? "yes" : "no", ME[1, k], ME[2, k], bina ? "yes" : "no", ainb ? "yes" : "no", rbina ? "yes" : "no", rainb ? "yes" : "no" > csv
			if (!va || !da)
				printf "%-16s %-12s %-20s %-11s %12.3f %12.3f %+9.3f  %s/%s%s\n", p[1], p[2], p[3], m, D[1, k], D[2, k], dd, SIG[1, k], SIG[2, k], va ? "" : "  FLIP"
		}
		print ""
		for (m in n) {
			printf "%s cells: %d compared, verdicts agree in %d (%.1f%%), Δ within %s in %d; largest |B - A| %.3f (%s)\n", m, n[m], vok[m], 100 * vok[m] / n[m], tol, dok[m], maxd[m], maxk[m]
			if (nex[m]) printf "  exact in both: %d, Δ equal within 0.01 in %d\n", nex[m], exok[m]
			if (nt[m]) {
				printf "  tested in both: %d; rerun intervals: A'"'"'s hold B'"'"'s Δ in %d (%.1f%%, stated %.1f%%), B'"'"'s hold A'"'"'s in %d (%.1f%%, stated %.1f%%)\n", \
					nt[m], rba[m], 100 * rba[m] / nt[m], 100 * rsa[m] / nt[m], rab[m], 100 * rab[m] / nt[m], 100 * rsb[m] / nt[m]
				printf "    shift intervals (for the true shift, not a rerun): A'"'"'s hold B'"'"'s Δ in %d (%.1f%%, stated %.1f%%), B'"'"'s hold A'"'"'s in %d (%.1f%%, stated %.1f%%)\n", \
					cba[m], 100 * cba[m] / nt[m], 100 * sa[m] / nt[m], cab[m], 100 * cab[m] / nt[m], 100 * sb[m] / nt[m]
				tnt += nt[m]; trb += rba[m] + rab[m]; trs += rsa[m] + rsb[m]
			}
		}
		print "  (a rerun interval is where a rerun'"'"'s Δ falls at its stated rate (labstat: each side resampled from its residuals, two runs drawn); an interval for the shift covers the true shift, and a rerun'"'"'s estimate, with noise of its own, falls inside it less often)"
		if (tnt) {
			# the binomial check: is the observed coverage consistent with the stated rate?
			cov = trb / (2 * tnt); st = trs / (2 * tnt); se = sqrt(st * (1 - st) / (2 * tnt))
			printf "rerun-interval coverage over all tested cells, both ways: %.1f%% of %d against a stated %.1f%% (%s: %.1f standard errors%s)\n", \
				100 * cov, 2 * tnt, 100 * st, (cov >= st - 2 * se ? "holds" : "BELOW the stated rate"), (cov - st) / (se > 0 ? se : 1), \
				", the two directions are not independent"
		}
		printf "hook-cost verdict flips: %d outside the codegen control%s%s\n", flips, cgflips ? sprintf("; %d of the codegen control (%s), whose Δ is a change doing no work, near what its seeds detect", cgflips, codegen) : "", \
			vflips ? sprintf("; %d of the %d in a base, state and workload whose A/A control is significant in A or B (labstat sets every verdict there to no), and outside those hook-cost verdicts agree in %d of %d (%.1f%%)", vflips, flips, nvok, nv, nv ? 100 * nvok / nv : 0) : ""
		print ""
		cl = controls; gsub(/ /, ", ", cl)
		printf "A/A control cells (%s) significant: A %s; B %s\n", cl, ctl[1] == "" ? "none" : substr(ctl[1], 2), ctl[2] == "" ? "none" : substr(ctl[2], 2)
		print ""
		print "Δ within tolerance, per workload:"
		for (i = 0; i < nwl; i++) { split(W[i], q, SUBSEP); printf "  %-20s %-11s %d of %d\n", q[1], q[2], wok[W[i]], nw[W[i]] }
		exit flips ? 1 : 0
	}' "$da/summary.csv" "$db/summary.csv" || rc=$?
((rc == 2)) && exit 2
if [[ -n $out ]]; then
	cp "$tmp/out.csv" "$out.tmp"
	mv "$out.tmp" "$out"
	log "rerun-check: wrote $out"
fi
exit "$rc"
