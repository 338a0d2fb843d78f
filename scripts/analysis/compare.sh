#!/bin/bash
# compare.sh [--out FILE] RUN_A RUN_B: change of the median cost per op from
# run A to run B for every (variant, state, workload) in both, from `labstat
# compare` on the two cells.csv, printed as a table. The figure follows the
# noise: tcg-icount the minimum over seeds with the range over seed pairs;
# real-time accels the median with a bootstrap CI at n >= 10, else the range.
# Writes nothing in either run dir; --out FILE also writes labstat's CSV to
# FILE (through FILE.tmp).
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

usage="usage: compare.sh [--out FILE] RUN_A RUN_B"
out="" runs=()
while (($#)); do
	case $1 in
	--out)
		if (($# < 2)) || [[ -z $2 ]]; then die_usage "compare: --out needs a file name; $usage"; fi
		out=$2
		shift 2
		;;
	-h | --help) die_usage "$usage" ;;
	-*) die_usage "compare: unknown option '$1'; $usage" ;;
	*)
		runs+=("$1")
		shift
		;;
	esac
done
((${#runs[@]} == 2)) || die_usage "compare: needs two run ids, got ${#runs[@]}; $usage"
results=${LAB_RESULTS:-$LAB_ROOT/results}
for r in "${runs[@]}"; do
	[[ -n $r && $r != */* && -f $results/$r/cells.csv ]] ||
		die_usage "compare: no results/$r/cells.csv; give run ids from $results/"
done
a=${runs[0]} b=${runs[1]}
cells_a=$results/$a/cells.csv cells_b=$results/$b/cells.csv
if [[ -n $out ]]; then
	[[ -d $(dirname "$out") ]] || die_usage "compare: --out $out: directory $(dirname "$out") does not exist; create it first"
	[[ ! -d $out ]] || die_usage "compare: --out $out is a directory; give a file name"
fi

labstat=$(host_tool tools "$LAB_CACHE/tools" labstat)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$labstat" compare "$cells_a" "$cells_b" >"$tmp/compare.csv" 2>"$tmp/err" || rc=$?
# labstat's notes (groups in one run only) and errors, as they are
[[ -s $tmp/err ]] && sed 's/^/compare: /' "$tmp/err" >&2
((rc == 0)) || exit "$rc"

# accel and unit of a run: its cells.csv (the first row that names them)
first_of() {
	awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) k = i; next }
		k && $k != "" { print $k; exit }' "$1"
}
label_of() {
	local acc unit
	acc=$(first_of "$1" accel) unit=$(first_of "$1" ns_per_op_unit)
	[[ -n $unit || -z $acc ]] || unit=$(accel_unit "$acc")
	echo "${unit:-ns} $(if [[ -n $acc ]]; then accel_label "$acc"; else echo unknown accel; fi)"
}
read -r unit_a acc_a <<<"$(label_of "$cells_a")"
read -r unit_b acc_b <<<"$(label_of "$cells_b")"
unit=$unit_a
echo "compare: A = $a ($acc_a, $unit_a/op), B = $b ($acc_b, $unit_b/op)"
if [[ $acc_a != "$acc_b" || $unit_a != "$unit_b" ]]; then
	echo "WARNING: the runs used different accelerators or units ($acc_a $unit_a/op vs $acc_b $unit_b/op): the change mixes setups, it is not a kernel difference"
	unit="$unit_a|$unit_b"
fi
est=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "estimator") k = i; next } k { print $k; exit }' "$tmp/compare.csv")
if [[ $est == min ]]; then
	echo "change % = 100 * (min B / min A - 1) of $unit/op (minimum over seeds); + = B is slower; [interval] = range over seed pairs; * = the range excludes 0"
else
	echo "change % = 100 * (median B / median A - 1) of $unit/op; + = B is slower; [interval] = 95% bootstrap CI where n >= 10 on both sides, else the range over seed pairs; * = it excludes 0"
fi
echo

# shellcheck disable=SC2016 # awk source
awk -F, -v unit="$unit" '
	function fmt(x, p,   s) {
		if (x == "") return "-"
		s = sprintf("%." p "f", x)
		if (s ~ /^-0(\.0*)?$/) s = substr(s, 2)
		return s
	}
	function sfmt(x, p,   s) {
		if (x == "") return "-"
		s = sprintf("%+." p "f", x)
		if (s ~ /^[-+]0(\.0*)?$/) s = substr(s, 2)
		return s
	}
	function width(i, s) { if (length(s) > w[i]) w[i] = length(s) }
	NR == 1 {
		for (i = 1; i <= NF; i++) c[$i] = i
		nn = split("variant state workload n_a n_b median_ns_a median_ns_b change_pct change_ci_lo change_ci_hi significant", need, " ")
		for (i = 1; i <= nn; i++)
			if (!(need[i] in c)) { printf "compare: labstat compare output has no %s column; rebuild labstat\n", need[i] > "/dev/stderr"; exit 1 }
		n = 0
		cell[n, 1] = "variant"; cell[n, 2] = "state"; cell[n, 3] = "workload"; cell[n, 4] = "n A"; cell[n, 5] = "n B"
		cell[n, 6] = "A " unit "/op"; cell[n, 7] = "B " unit "/op"; cell[n, 8] = "change % [interval]"; cell[n, 9] = ""
		for (i = 1; i <= 9; i++) width(i, cell[n, i])
		n++
		next
	}
	{
		ch = sfmt($c["change_pct"], 2)
		if ($c["change_ci_lo"] != "") ch = ch " [" fmt($c["change_ci_lo"], 2) ", " fmt($c["change_ci_hi"], 2) "]"
		sig = $c["significant"] == "yes" ? "*" : ""
		if (sig == "*") { if ($c["change_pct"] > 0) slower++; else faster++ } else if ($c["significant"] == "no") same++; else noci++
		cell[n, 1] = $c["variant"]; cell[n, 2] = $c["state"]; cell[n, 3] = $c["workload"]
		cell[n, 4] = $c["n_a"]; cell[n, 5] = $c["n_b"]
		cell[n, 6] = fmt($c["median_ns_a"], 1); cell[n, 7] = fmt($c["median_ns_b"], 1)
		cell[n, 8] = ch; cell[n, 9] = sig
		for (i = 1; i <= 9; i++) width(i, cell[n, i])
		n++
	}
	END {
		if (n <= 1) { print "no (variant, state, workload) group is in both runs: nothing to compare"; exit }
		for (r = 0; r < n; r++) {
			line = ""
			for (i = 1; i <= 9; i++) {
				# names left-aligned, numbers right-aligned
				f = (i <= 3 || i == 9) ? "%-" w[i] "s" : "%" w[i] "s"
				line = line (i > 1 ? "  " : "") sprintf(f, cell[r, i])
			}
			sub(/ +$/, "", line)
			print line
		}
		printf "\n%d groups: %d slower in B, %d faster in B, %d without a significant change, %d without an interval (n < 2)\n",
			n - 1, slower, faster, same, noci
	}' "$tmp/compare.csv"

if [[ -n $out ]]; then
	cp "$tmp/compare.csv" "$out.tmp"
	mv "$out.tmp" "$out"
	log "compare: wrote $out"
fi
