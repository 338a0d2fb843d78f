#!/bin/bash
# report-boots.sh RUN_DIR: the report's per-boot section (markdown on stdout).
# Every boot the run planned (matrix.conf, else manifest.json: variants x
# states x reps) is named with its status: ok, failed (with the cells'
# statuses), n/a, or not run (with the reason from not-run.csv, else "no
# cells recorded"), so a boot that never ran cannot vanish from the report.
# Boots beyond the planned reps (adaptive seeds, scripts/run/adaptive-seeds.sh)
# follow their variant and state's planned ones, marked extra.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

(($# == 1)) || die_usage "usage: report-boots.sh RUN_DIR"
dir=$1
variants="" states="" reps=""
if [[ -f $dir/matrix.conf ]]; then
	# data, never sourced
	conf() { sed -n "s/^$1=//p" "$dir/matrix.conf" | tail -1; }
	variants=$(conf variants) states=$(conf states) reps=$(conf reps)
elif [[ -f $dir/manifest.json ]]; then
	variants=$(jq -r '[.matrix.variants[].name] | join(",")' "$dir/manifest.json")
	states=$(jq -r '.matrix.states | join(",")' "$dir/manifest.json")
	reps=$(jq -r '.matrix.reps' "$dir/manifest.json")
fi
echo "## Every planned boot"
echo
if [[ -z $variants || -z $states || ! $reps =~ ^[1-9][0-9]*$ ]]; then
	echo "The run's plan is unknown (no matrix.conf or manifest.json): only the cells in cells.csv are reported."
	echo
	exit 0
fi
cells=$dir/cells.csv
[[ -f $cells ]] || cells=/dev/null
notrun=$dir/not-run.csv
[[ -f $notrun ]] || notrun=/dev/null
awk -F, -v variants="$variants" -v states="$states" -v reps="$reps" '
	FILENAME == ARGV[1] { why[$1] = substr($0, length($1) + 2); next }
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		k = $c["variant"] SUBSEP $c["state"] SUBSEP $c["rep"]; st = $c["status"]
		n[k]++
		if ($c["rep"] + 0 > maxr[$c["variant"], $c["state"]]) maxr[$c["variant"], $c["state"]] = $c["rep"] + 0
		if (st == "ok") ok[k]++
		else if (st == "n/a") na[k]++
		else if (!index(" " bad[k] " ", " " st " ")) bad[k] = bad[k] (bad[k] == "" ? "" : " ") st
	}
	END {
		nv = split(variants, V, ","); ns = split(states, S, ",")
		for (i = 1; i <= nv; i++) for (j = 1; j <= ns; j++) {
			line = "- " V[i] " / " S[j] ":"
			top = maxr[V[i], S[j]] > reps ? maxr[V[i], S[j]] : reps
			for (r = 1; r <= top; r++) {
				k = V[i] SUBSEP S[j] SUBSEP r; total++
				if (r > reps) extra++
				if (!n[k]) {
					kern = V[i]; sub(/-aa$/, "", kern)
					s = "not run (" (kern in why ? "kernel " kern " " why[kern] : "no cells recorded") ")"; cnt["not run"]++
				} else if (ok[k] == n[k]) { s = "ok"; cnt["ok"]++ }
				else if (na[k] == n[k]) { s = "n/a"; cnt["n/a"]++ }
				else {
					s = "failed (" bad[k] ": " n[k] - ok[k] - na[k] " of " n[k] " cells)"; cnt["failed"]++
				}
				line = line (r > 1 ? "," : "") " rep " r (r > reps ? " (extra seed)" : "") " " s
			}
			out[++no] = line
		}
		printf "%d boots planned%s: %d ok, %d failed, %d n/a, %d not run.\n\n", total, extra ? sprintf(" (%d of them extra seeds for noisy cells)", extra) : "", cnt["ok"], cnt["failed"], cnt["n/a"], cnt["not run"]
		for (i = 1; i <= no; i++) print out[i]
		print ""
	}' "$notrun" "$cells"
