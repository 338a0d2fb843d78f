#!/bin/bash
# readme-figures.sh [--check | --write] [RUN]: the README's figures block,
# computed from a committed run's files (default: the run named in
# results/PUBLISHED): its manifest, cells.csv, summary.csv, attribution.csv
# and its rerun-check output (rerun-vs-*.txt). The block sits in README.md
# between the lines
#   <!-- readme-figures: begin (scripts/report/readme-figures.sh --write; do not edit) -->
#   <!-- readme-figures: end -->
# Without an option it prints the block; --write replaces the block in
# README.md; --check exits 1 with a diff when README.md's block differs from
# the data (tests/unit-readme.sh). No figure in the block is typed by hand.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

mode="print" run=""
while (($#)); do
	case $1 in
	--check) mode="check" && shift ;;
	--write) mode="write" && shift ;;
	-h | --help) die_usage "usage: readme-figures.sh [--check | --write] [RUN]" ;;
	-*) die_usage "readme-figures: unknown option '$1'; usage: readme-figures.sh [--check | --write] [RUN]" ;;
	*)
		[[ -z $run ]] || die_usage "readme-figures: one run id only"
		run=$1 && shift
		;;
	esac
done
results=${LAB_RESULTS:-$LAB_ROOT/results}
if [[ -z $run ]]; then
	[[ -f $results/PUBLISHED ]] || die_usage "readme-figures: no results/PUBLISHED; give a run id"
	run=$(<"$results/PUBLISHED")
fi
dir=$results/$run
for f in manifest.json cells.csv summary.csv; do
	[[ -f $dir/$f ]] || die_usage "readme-figures: no results/$run/$f"
done
readme=${LAB_README:-$LAB_ROOT/README.md}
begin='<!-- readme-figures: begin (scripts/report/readme-figures.sh --write; do not edit) -->'
end='<!-- readme-figures: end -->'

block() {
	local rerun="" attribution=$dir/attribution.csv
	# the newest comparison (its name holds the other run's id: a run id sorts by date)
	rerun=$(find "$dir" -maxdepth 1 -name 'rerun-vs-*.txt' | sort | tail -1)
	[[ -f $attribution ]] || attribution=/dev/null
	echo "$begin"
	jq -r --arg run "$run" '"Published run `\($run)`: lab commit `\(.lab.commit[0:7])` (publishable: \(.lab.publishable)), accel \(.accel), \(.matrix.reps) seeds a cell (\((.matrix.seeds // [range(1; .matrix.reps + 1)]) | map(tostring) | join(", "))\(if (.matrix.adaptive.extra_boots // []) | length > 0 then ", and \(.matrix.adaptive.extra_boots | length) extra boots for noisy cells (adaptive seeds, up to \(.matrix.adaptive.cap) a cell)" else "" end)), \(.matrix.variants | length) variants on \(if (.matrix.bases // []) | length > 0 then (.matrix.bases | map(.base) | join(" and ")) else "6.1" end), seed base \(.matrix.seed_base // 0)."' "$dir/manifest.json"
	echo
	# shellcheck disable=SC2016 # awk source
	awk -F, -v catalog="$(catalog_rows)" -v defbase="$LAB_DEFAULT_BASE" "$(cat "$LAB_ROOT/lib/bases.awk")"'
		BEGIN { load_catalog(catalog) }
		FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
		file == 1 {
			st = $c["status"]; n[st]++
			if ($c["raw"] != "") boot[$c["raw"]] = 1
			if (st != "ok") next
			k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
			x = $c["ns_per_op"] + 0
			if (!(k in lo) || x < lo[k]) lo[k] = x
			if (!(k in hi) || x > hi[k]) hi[k] = x
			wl[k] = $c["workload"]
			next
		}
		file == 2 {
			k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
			d[k] = $c["delta_ns_per_op"]; sig[k] = $c["significant"]; ops[k] = $c["median_ops_per_sec"]; ns[k] = $c["median_ns_per_op"]
			meth[k] = $c["method"]; dev[k] = $c["measure"] == "device-time"
			if ($c["error_control"] == "fdr-bh") { fdr = $c["fdr"]; fam++; if ($c["significant"] == "yes") disc++; if ($c["method"] == "exact") ex++ }
			if ($c["error_control"] == "fwer-holm") { gate++; fwer = $c["fdr"] }
			# (the A/A control must not differ; the codegen control is meant to)
			if (CR[$c["variant"]] == "seed-control" && $c["significant"] == "yes") ctl = ctl (ctl == "" ? "" : ", ") $c["variant"] "/" $c["state"] "/" $c["workload"]
			next
		}
		file == 3 {
			k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["workload"]
			if ($c["symbol"] == "[total]") { tot[k] = $c["instructions_per_op"]; ak[k] = 1 }
			next
		}
		function z(x) { return (x > -0.05 && x < 0.05) ? 0 : x }
		function cell(v, s, w,   k) {
			k = v SUBSEP s SUBSEP w
			if (!(k in d) || d[k] == "") return "—"
			return sprintf("%+.1f", z(d[k] + 0)) (sig[k] == "yes" ? "" : " n.s.")
		}
		function thou(x,   s, r) {
			s = sprintf("%.0f", x); r = ""
			while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
			return s r
		}
		function med(a, m,   i, j, t) {
			for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		END {
			nb = 0; for (b in boot) nb++
			printf "Cells: %d ok, %d n/a, %d failed, in %d boots. Significance: Benjamini-Hochberg at %s over %d hook-cost cells of the variants (%d exact); %d significant. A/A gate: Holm at a family-wise %s over %d tested A/A cells, and the exact ones exactly; A/A control cells significant: %s.\n", \
				n["ok"], n["n/a"], n["failed"] + n["timeout"], nb, fdr, fam, ex, disc, fwer, gate, ctl == "" ? "none" : ctl
			print ""
			print "| design | skipped op (NOP): off / idle / 1 syscall rule | audited op (OPENAT/CLOSE): off / idle / io_uring rule, miss | per syscall rule | per emitted record |"
			print "|---|---|---|---:|---:|"
			# a row per design and base tree of the run (its port there, lib/bases.awk)
			nd = split("upstream static-key rfc rfc-placement", D, " ")
			for (v in d) { split(v, p, SUBSEP); if (!(p[1] in CB)) continue; bb = CB[p[1]]; if (!(bb in bseen)) { bseen[bb] = 1; RBS[++nrb] = bb } }
			for (i = 2; i <= nrb; i++) for (j = i; j > 1 && vless(RBS[j], RBS[j - 1]); j--) { t = RBS[j]; RBS[j] = RBS[j - 1]; RBS[j - 1] = t }
			for (x = 1; x <= nrb * nd; x++) {
				bb = RBS[int((x - 1) / nd) + 1]; j = (x - 1) % nd + 1; v = ""
				for (u in CD) if (CD[u] == D[j] && CB[u] == bb && CR[u] != "seed-control") v = u
				if (v == "") continue
				r1 = v SUBSEP "syscall-1" SUBSEP "bench-openclose"; r100 = v SUBSEP "syscall-100" SUBSEP "bench-openclose"
				hm = v SUBSEP "uring-hit" SUBSEP "bench-openclose"; mm = v SUBSEP "uring-miss" SUBSEP "bench-openclose"
				pr = (r1 in d && r100 in d && d[r1] != "" && d[r100] != "") ? sprintf("%.1f", (d[r100] - d[r1]) / 99) : "—"
				pc = (hm in d && mm in d && d[hm] != "" && d[mm] != "") ? "+" thou(d[hm] - d[mm]) : "—"
				printf "| %s | %s / %s / %s | %s / %s / %s | %s | %s |\n", v (nrb > 1 ? " (" bb ")" : ""), cell(v, "off", "bench-nop"), cell(v, "idle", "bench-nop"), cell(v, "syscall-1", "bench-nop"), \
					cell(v, "off", "bench-openclose"), cell(v, "idle", "bench-openclose"), cell(v, "uring-miss", "bench-openclose"), pr, pc
			}
			print ""
			k = "upstream" SUBSEP "idle" SUBSEP "randread-qd128"; k2 = "upstream" SUBSEP "idle" SUBSEP "bench-nop"
			if ((k in ops) && (k2 in ops))
				printf "Example cells (upstream, audit idle): fio randread-qd128 %s IOPS = %.1f instructions per 4k read; uring-bench NOP %.2f M ops/s = %.1f instructions per NOP.\n\n", \
					thou(ops[k]), ns[k], ops[k2] / 1e6, ns[k2]
			# seed spread (max - min over the seeds of a cell) per workload, ok cells with >= 2 seeds
			for (k in lo) { w = wl[k]; sp = hi[k] - lo[k]; ns_[w]++; S[w, ns_[w]] = sp; if (sp > mx[w]) { mx[w] = sp; mk[w] = k } }
			print "| workload | cells | seed spread, median | seed spread, max (cell) |"
			print "|---|---:|---:|---|"
			m = split("randread-qd128 randread-qd1 bench-nop bench-read bench-openclose bench-personality bench-nop-async", WO, " ")
			for (i = 1; i <= m; i++) {
				w = WO[i]; if (!(w in ns_)) continue
				delete A; for (j = 1; j <= ns_[w]; j++) A[j] = S[w, j]
				split(mk[w], p, SUBSEP)
				printf "| %s | %d | %.2f | %.2f (%s / %s) |\n", w, ns_[w], med(A, ns_[w]), mx[w], p[1], p[2]
			}
			print ""
			# attribution: the window total per op against the timed figure, per attributed cell
			na = 0; amax = 0
			for (k in ak) if ((k in ns) && ns[k] != "") { na++; x = tot[k] - ns[k]; x = x < 0 ? -x : x; if (x > amax) { amax = x; amk = k } }
			if (na) { split(amk, p, SUBSEP); printf "Attribution boots (seed 1): the plugin'"'"'s window total per op against the timed figure (median over seeds) in %d cells: largest difference %.2f instructions/op (%s / %s / %s).\n\n", na, amax, p[1], p[2], p[3] }
		}' "$dir/cells.csv" "$dir/summary.csv" "$attribution"
	if [[ -n $rerun ]]; then
		local seeds hook
		seeds=$(sed -n 2p "$rerun")
		hook=$(grep -m1 '^hook-cost cells:' "$rerun" || true)
		echo "Rerun comparison ([$(basename "$rerun")](results/$run/$(basename "$rerun"))): ${seeds%%:*}; ${hook#hook-cost cells: }."
		grep -m1 '^NOT A PURE RERUN' "$rerun" | sed 's/^/- /' || true
		grep -A3 '^hook-cost cells:' "$rerun" | sed -n 's/^  *//p' | sed 's/^/- /'
		grep -m1 '^rerun-interval coverage' "$rerun" | sed 's/^/- /' || true
		grep -m1 '^hook-cost verdict flips' "$rerun" | sed 's/^/- /' || true
		grep -m1 '^A/A control cells' "$rerun" | sed 's/^/- /' || true
		echo
	fi
	echo "$end"
}

case $mode in
print) block ;;
write | check)
	if ! grep -qxF "$begin" "$readme" || ! grep -qxF "$end" "$readme"; then
		die_usage "readme-figures: README.md has no figures block (the begin and end marker lines)"
	fi
	tmp=$(mktemp)
	trap 'rm -f "$tmp" "$tmp.new"' EXIT
	block >"$tmp"
	awk -v b="$begin" -v e="$end" -v f="$tmp" '
		$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$readme" >"$tmp.new"
	if [[ $mode == write ]]; then
		cat "$tmp.new" >"$readme"
		log "readme-figures: README.md figures block rewritten from results/$run"
	elif ! diff -u "$readme" "$tmp.new" >&2; then
		die "readme-figures: README.md's figures block differs from results/$run (diff above); run scripts/report/readme-figures.sh --write"
	fi
	;;
esac
