#!/bin/bash
# plots.sh RUN [--rules-workload W]: draw the figures of results/RUN/. Derives
# one CSV per figure from summary.csv (and profile.csv) into results/RUN/plots/
# and runs the gnuplot scripts in plots/ on it for a PNG and an SVG next to it:
#   ops-per-variant-W   ops/s per variant and state, one figure per workload W,
#                       axis from 0
#   overhead-W          Δ per op vs the baseline of the variant's base tree
#                       (nohooks on 6.1) per variant and state on one shared
#                       axis, intervals drawn, the A/A control's interval as a
#                       band, values printed
#   rules-scaling-W     cost per op vs number of syscall rules (linear axis), for
#                       one W (--rules-workload, else bench-openclose, where every
#                       design audits, else the first that ran in syscall-N states)
#   skipped-audited     per design: Δ per skipped op (NOP) against Δ per audited
#                       op (OPENAT/CLOSE), audit idle, log scale
#   audit-share-W       share of the op's instructions in functions named
#                       *audit* (the plugin's attribution.csv, exact counts)
# Device-time workloads (measure device-time: per-op counts of spin) get no
# figure: they are not hook-cost measures.
# Titles say what the figure and its interval are, read from summary.csv's
# estimator, interval and delta_interval columns (e.g. "minimum over 3 seeds
# [range]" under tcg-icount), and mark device-time workloads as not a hook-cost
# measure. A figure whose data is absent is skipped with a log line saying why.
# plots/ is rebuilt whole in a temp dir and swapped in at the end, with an
# index figures.tsv (file, caption) that report.sh reads.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

run="" rules_wl=""
while (($#)); do
	case $1 in
	--rules-workload)
		(($# >= 2)) || die_usage "plots: --rules-workload needs a workload name"
		rules_wl=$2
		shift 2
		;;
	-h | --help) die_usage "usage: plots.sh RUN [--rules-workload WORKLOAD]" ;;
	-*) die_usage "plots: unknown option '$1'; usage: plots.sh RUN [--rules-workload WORKLOAD]" ;;
	*)
		[[ -z $run ]] || die_usage "plots: one run id only (got '$run' and '$1')"
		run=$1
		shift
		;;
	esac
done
[[ -n $run ]] || die_usage "usage: plots.sh RUN [--rules-workload WORKLOAD] (a run id from ${LAB_RESULTS:-$LAB_ROOT/results}/)"
results=${LAB_RESULTS:-$LAB_ROOT/results}
dir=$results/$run
[[ -n $run && $run != */* && -d $dir ]] || die_usage "plots: no results/$run; give a run id from $results/"
if [[ ! -f $dir/summary.csv ]]; then
	[[ -f $dir/cells.csv ]] && die_usage "plots: results/$run has no summary.csv; run ./run.sh summary $run first"
	die_usage "plots: results/$run has no cells.csv or summary.csv; give the id of a finished run"
fi
command -v gnuplot >/dev/null || die "plots: gnuplot not found; install gnuplot-nox (./run.sh setup)"
[[ $LAB_ROOT != *"'"* ]] || die "plots: the lab path $LAB_ROOT contains a quote, which gnuplot -e cannot take; move the lab"

# --- shared awk: columns by header name, names checked, canonical orders --------
# shellcheck disable=SC2016 # awk source, expanded by awk
# roles per base tree from the catalog (lib/bases.awk); the catalog is names,
# digits, dots, spaces and semicolons: safe in an awk string
awk_lib=$(cat "$LAB_ROOT/lib/order.awk" "$LAB_ROOT/lib/bases.awk")"
BEGIN { defbase = \"$LAB_DEFAULT_BASE\"; load_catalog(\"$(catalog_rows)\") }"'
# rbase(): the base tree of the current row (its base column, else the catalog'"'"'s)
function rbase() { return vbase(f("variant"), ("base" in c) ? $c["base"] : "") }
function need(name) {
	if (!(name in c)) {
		printf "error: %s: no %s column in the header; regenerate it (./run.sh summary RUN)\n", FILENAME, name > "/dev/stderr"
		bad = 2; exit 2
	}
}
function header(cols,   i, n, a) {
	for (i = 1; i <= NF; i++) c[$i] = i
	n = split(cols, a, " ")
	for (i = 1; i <= n; i++) need(a[i])
}
function f(name) { return $c[name] }
function check_row(   i) {
	if (index($0, "\"")) {
		printf "error: %s:%d: quoted field; names with commas or quotes are not supported, rename the variant/state/workload\n", FILENAME, FNR > "/dev/stderr"
		bad = 2; exit 2
	}
	if (f("variant") !~ /^[A-Za-z0-9._+-]+$/ || f("state") !~ /^[A-Za-z0-9._+-]+$/ || f("workload") !~ /^[A-Za-z0-9._+-]+$/) {
		printf "error: %s:%d: variant/state/workload names may use only letters, digits and ._+-; rename them\n", FILENAME, FNR > "/dev/stderr"
		bad = 2; exit 2
	}
}
function num(x) { return x == "" ? "NaN" : x }
# order_states(): fill ord[0..nst-1] from st[0..nst-1] by state_rank, and pos[state]
function order_states(   i, j, t) {
	for (i = 0; i < nst; i++) ord[i] = st[i]
	for (i = 1; i < nst; i++)
		for (j = i; j > 0 && state_rank(ord[j - 1]) > state_rank(ord[j]); j--) {
			t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t
		}
	for (i = 0; i < nst; i++) pos[ord[i]] = i
}
'
summary=$dir/summary.csv
# the baselines of the run'"'"'s base trees, for captions: "nohooks", or "nohooks / nohooks-6-12"
baselines_label=$(csv_bases "$summary" | while read -r b; do catalog_one_on "$b" baseline; done | paste -sd/ | sed 's|/| / |g')
sumcols="variant state workload accel n median_ops_per_sec ops_ci_lo ops_ci_hi median_ns_per_op ns_ci_lo ns_ci_hi overhead_pct overhead_ci_lo overhead_ci_hi aa_floor_pct codegen_floor_pct significant estimator interval delta_interval measure"

# workloads in the canonical order (randread-qd128 first, then the others)
workloads=$(awk -F, "$awk_lib"'
	FNR == 1 { header("'"$sumcols"'"); next }
	{ check_row(); if (!(f("workload") in w)) { w[f("workload")] = workload_rank(f("workload")) } }
	END { if (bad) exit bad; for (x in w) print w[x], x }' "$summary" | sort -n | cut -d' ' -f2)
[[ -n $workloads ]] || die_usage "plots: results/$run/summary.csv has no rows; rerun ./run.sh summary $run"
if [[ -n $rules_wl ]] && ! grep -qxF -- "$rules_wl" <<<"$workloads"; then
	die_usage "plots: --rules-workload '$rules_wl' is not in results/$run/summary.csv; it has: $(echo "$workloads" | paste -sd' ')"
fi

# accelerator label and cost unit: manifest first, then the CSVs
run_accel_unit "$dir" "$summary" "unknown accel"
[[ $accel_label =~ ^[A-Za-z0-9\ ._+()-]+$ && $unit =~ ^[A-Za-z0-9._+-]+$ ]] ||
	die_usage "plots: accel '$accel' or unit '$unit' has odd characters; check manifest.json and cells.csv"

refuse_links "$dir"
stage=$(mktemp -d --suffix=.tmp "$dir/plots.XXXXXX")
trap 'rm -rf "$stage"' EXIT
drawn=0

# variants_of CSV COLUMN: the distinct values of COLUMN in first-appearance order
variants_of() {
	awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) k = i; next }
		!seen[$k]++ { printf "%s%s", sep, $k; sep = " " }' "$1"
}
rows_of() { echo $(($(wc -l <"$1") - 1)); }

# labels WORKLOAD [RULES]: what the figures and intervals of WORKLOAD's rows
# are, from summary.csv, as gnuplot -e assignments: opslabel ("maximum over 3
# seeds [range]"), nslabel ("minimum over 3 seeds [range]"), dlabel (the
# delta_interval, "range over 3x3 seed pairs"), devtime (1 if its measure is
# device-time). Distinct labels are joined by "; ". RULES=1: only the idle and
# syscall-N rows (the rules-scaling figure).
labels() {
	local out
	out=$(awk -F, -v wl="$1" -v rules="${2:-0}" "$awk_lib"'
		function kind(s) { sub(/ over .*/, "", s); sub(/ \(.*/, "", s); sub(/:.*/, "", s); return s }
		function add(what, l) {
			if ((what, l) in seen) return
			seen[what, l] = 1; L[what] = L[what] (L[what] == "" ? "" : "; ") l
		}
		FNR == 1 { header("'"$sumcols"'"); next }
		{ check_row() }
		f("workload") != wl || f("n") + 0 == 0 { next }
		rules && f("state") != "idle" && f("state") !~ /^syscall-[0-9]+$/ { next }
		{
			e = f("estimator"); n = f("n"); k = kind(f("interval"))
			s = " over " n " seed" (n == 1 ? "" : "s") " [" k "]"
			add("ops", (e == "min" ? "maximum" : e == "exact" ? "exact value" : e) s)
			add("ns", (e == "min" ? "minimum" : e == "exact" ? "exact value" : e) s)
			if (f("delta_interval") != "" && f("delta_interval") !~ /^none/) { add("d", f("delta_interval")); add("dk", kind(f("delta_interval"))) }
			if (f("measure") == "device-time") dev = 1
		}
		END {
			if (bad) exit bad
			printf "%s\t%s\t%s\t%d\t%s\n", L["ops"] == "" ? "none" : L["ops"], L["ns"] == "" ? "none" : L["ns"], \
				L["d"] == "" ? "none" : L["d"], dev, L["dk"] == "" ? "none" : L["dk"]
		}' "$summary") || return 1
	local ops ns d dev dk re='^[][A-Za-z0-9 .,%;:()=x+-]+$'
	IFS=$'\t' read -r ops ns d dev dk <<<"$out"
	# the labels go into gnuplot -e between single quotes
	[[ $ops =~ $re && $ns =~ $re && $d =~ $re && $dk =~ $re && $dev =~ ^[01]$ ]] ||
		die_usage "plots: odd estimator/interval labels for $1 in results/$run/summary.csv ($out); regenerate it with ./run.sh summary $run"
	echo "opslabel='$ops'; nslabel='$ns'; dlabel='$d'; dkind='$dk'; devtime=$dev"
}

# each variant's style key from the catalog, for plots/style.gp: its role and,
# for a design, the design's place among the designs (a design's ports share
# its colour); word i of each list belongs to word i of vnames
vstyle=$(catalog_rows | tr ';' '\n' | awk '
	{ n[++k] = $1; r[k] = $4; d = $4 == "design" ? $3 : ""; if (d != "" && !(d in di)) di[d] = ++nd; x[k] = d == "" ? 0 : di[d] }
	END { for (i = 1; i <= k; i++) { vn = vn (i > 1 ? " " : "") n[i]; vr = vr (i > 1 ? " " : "") r[i]; vk = vk (i > 1 ? " " : "") x[i] }
		printf "vnames=\047%s\047; vroles=\047%s\047; vks=\047%s\047", vn, vr, vk }')

# A figure is a pure function of its CSV, its gnuplot scripts and -e line,
# gnuplot and the fonts and libraries it renders with: each one is memoised
# (lib/cellstore.sh memo_stdout) under the sha256 of those, so a warm rerun
# of a matrix draws nothing it drew before.
# shellcheck disable=SC2016 # dpkg-query's format
gp_static=$(sha256sum "$LAB_ROOT/plots/"*.gp "$(readlink -f "$(command -v gnuplot)")" | sed "s|$LAB_ROOT/||"
	dpkg-query -W -f '${Package} ${Version}\n' gnuplot-nox libcairo2 libpango-1.0-0 fontconfig fonts-dejavu-core 2>/dev/null || true)
# gnuplot_to_stdout FIG TERM EXT BASE E: draw into the stage dir, print the figure
gnuplot_to_stdout() {
	(cd "$stage" && gnuplot -e "$5" "$LAB_ROOT/plots/style.gp" "$LAB_ROOT/plots/$1.gp") 2>"$stage/gnuplot.err" || return
	[[ -s $stage/$4.$3 ]] || return 1
	cat "$stage/$4.$3"
}

# draw FIGURE BASE CAPTION VARS: run plots/FIGURE.gp on BASE.csv into BASE.png
# and BASE.svg (gnuplot runs in the stage dir and sees only file names there)
draw() {
	local fig=$1 base=$2 caption=$3 vars=$4 term ext rc e key csvsha
	read -r csvsha _ < <(sha256sum "$stage/$base.csv")
	for term in pngcairo svg; do
		ext=${term/pngcairo/png}
		rc=0
		e="term='$term'; out='$base.$ext'; data='$base.csv'; accel='$accel_label'; unit='$unit'; $vstyle; $vars"
		read -r key _ < <(printf '%s\n' "$gp_static" "$fig" "$csvsha" "$e" | sha256sum)
		: >"$stage/gnuplot.err"
		memo_stdout plot "$key" gnuplot_to_stdout "$fig" "$term" "$ext" "$base" "$e" >"$stage/$base.$ext.tmp" || rc=$?
		mv "$stage/$base.$ext.tmp" "$stage/$base.$ext"
		if [[ -s $stage/gnuplot.err ]]; then
			sed "s|^|plots: gnuplot $fig ($base.$ext): |" "$stage/gnuplot.err" >&2
		fi
		if ((rc != 0)) || [[ ! -s $stage/$base.$ext ]]; then
			if [[ -s $stage/gnuplot.err ]]; then
				die "plots: gnuplot failed on plots/$fig.gp for $base.$ext (exit $rc); see its messages above"
			fi
			die "plots: gnuplot failed on plots/$fig.gp for $base.$ext (exit $rc) and printed nothing$(df_free "$stage")"
		fi
	done
	rm -f "$stage/gnuplot.err"
	printf '%s\t%s\n' "$base.png" "$caption" >>"$stage/figures.tsv"
	drawn=$((drawn + 1))
	log "plots: $base.png, $base.svg ($caption)"
}

# bars_csv WORKLOAD NAME VALUE LO HI [EXTRA] [SKIP_VARIANT]: rows of summary.csv
# for WORKLOAD with VALUE present, as cluster,state,variant,NAME,ci_lo,ci_hi[,EXTRA...]
# (EXTRA: space-separated column names; ci_lo/ci_hi hold the row's interval,
# whatever labstat says it is)
bars_csv() {
	awk -F, -v wl="$1" -v name="$2" -v val="$3" -v lo="$4" -v hi="$5" -v extra="${6:-}" -v skip="${7:-}" "$awk_lib"'
		FNR == 1 { header("'"$sumcols"'"); nx = split(extra, X, " "); next }
		{ check_row() }
		f("workload") != wl || f("variant") == skip || f(val) == "" { next }
		{
			s = f("state")
			if (!(s in have)) { have[s] = 1; st[nst++] = s }
			line[n + 0] = f("variant") "," num(f(val)) "," num(f(lo)) "," num(f(hi))
			for (i = 1; i <= nx; i++) line[n + 0] = line[n + 0] "," num(f(X[i]))
			lst[n++] = s
		}
		END {
			if (bad) exit bad
			order_states()
			hdr = "cluster,state,variant," name ",ci_lo,ci_hi"
			for (i = 1; i <= nx; i++) hdr = hdr "," X[i]
			print hdr
			for (i = 0; i < n; i++) print pos[lst[i]] "," lst[i] "," line[i]
		}' "$summary"
}

# delta_csv WORKLOAD: cluster,state,variant,delta,ci_lo,ci_hi,aa_lo,aa_hi for
# every variant but the baselines; aa_lo/aa_hi = the A/A control's Δ interval
# in that state and base tree (NaN without one): what seed noise alone gives
delta_csv() {
	awk -F, -v wl="$1" "$awk_lib"'
		FNR == 1 { delete c; header("'"$sumcols"' delta_ns_per_op delta_ci_lo delta_ci_hi"); next }
		{ check_row() }
		f("workload") != wl { next }
		NR == FNR { if (CR[f("variant")] == "seed-control") { alo[rbase(), f("state")] = f("delta_ci_lo"); ahi[rbase(), f("state")] = f("delta_ci_hi") } next }
		f("variant") == BL[rbase()] || f("delta_ns_per_op") == "" { next }
		{
			s2 = f("state"); b2 = rbase()
			if (!(s2 in have)) { have[s2] = 1; st[nst++] = s2 }
			line[n + 0] = f("variant") "," f("delta_ns_per_op") "," num(f("delta_ci_lo")) "," num(f("delta_ci_hi")) "," \
				num(alo[b2, s2]) "," num(ahi[b2, s2])
			lst[n++] = s2
		}
		END {
			if (bad) exit bad
			order_states()
			print "cluster,state,variant,delta,ci_lo,ci_hi,aa_lo,aa_hi"
			for (i = 0; i < n; i++) print pos[lst[i]] "," lst[i] "," line[i]
		}' "$summary" "$summary"
}
# The figures (scripts/report/plots-figures.sh, with the helpers above) are
# one pure function of the run's summary.csv, attribution.csv and
# profile.csv, the lab's code, the accelerator label and unit, gnuplot and
# its fonts: the whole set is memoised as one tar under their sha256, and a
# warm rerun of a matrix unpacks it (each figure keeps its own memo too, for
# a summary that changed in a few rows). Its log lines come with it.
figure_list=$(mktemp)
trap 'rm -rf "$stage" "$stage.tar" "$figure_list"' EXIT
{
	for f in summary.csv attribution.csv profile.csv; do echo "$dir/$f"; done
	find "$LAB_ROOT/scripts/report" "$LAB_ROOT/lib" "$LAB_ROOT/plots" "$(variants_dir)" -type f
} | LC_ALL=C sort >"$figure_list"
memo_key "$figure_list" "$gp_static
accel=$accel_label unit=$unit rules=$rules_wl
$(env | grep '^LAB_' | LC_ALL=C sort)" "$dir"
set_key=$REPLY
# draw_set: every figure into the stage, then the stage as a tar on stdout
draw_set() {
	local rc=0
	# shellcheck source=plots-figures.sh
	(. "$LAB_ROOT/scripts/report/plots-figures.sh") >"$stage/.log" 2>&1 || rc=$?
	if ((rc)); then
		cat "$stage/.log" >&2
		return "$rc"
	fi
	tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - .
}
memo_stdout plots "$set_key" draw_set >"$stage.tar" || die "plots: the figures of results/$run failed (see above)$(df_free "$stage")"
tar -C "$stage" -m -xf "$stage.tar"
cat "$stage/.log" >&2
rm -f "$stage/.log" "$stage.tar"
drawn=0
[[ ! -f $stage/figures.tsv ]] || drawn=$(wc -l <"$stage/figures.tsv")

# swap the new plots/ in whole: no mix of this run's and an older run's figures
rm -rf "$dir/plots"
mv "$stage" "$dir/plots"
trap - EXIT
chmod 755 "$dir/plots"
log "plots: $drawn figures in $dir/plots"
