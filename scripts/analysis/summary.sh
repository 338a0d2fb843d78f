#!/bin/bash
# summary.sh RUN: recompute results/RUN/summary.csv from results/RUN/cells.csv
# with tools/labstat: exact cells (tcg-icount, every seed within 0.01) get the
# exact delta; noisy cells the rank-sum test, the Hodges-Lehmann shift and its
# interval, against nohooks pooled with the A/A control nohooks-aa;
# Benjamini-Hochberg over all hook-cost cells (labstat -h); device-time
# workloads are never starred. Each base tree (cells.csv's base column; a run
# without one is on the default base) has its own baseline, A/A control and
# codegen control: a Δ is only taken within one base (labstat -B B=V,...).
# Summaries are never edited by hand: this is the only writer.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

run=${1:-}
[[ -n $run && $# == 1 ]] || die_usage "usage: run.sh summary RUN"
dir=$(results_dir "$run")
[[ -f $dir/cells.csv ]] || die_usage "summary: no results/$run/cells.csv; give a run id from results/"
refuse_links "$dir"
# written to a temp file (mktemp) and moved into place; labstat rejecting the
# cells removes the old summary (never one of older cells left as if
# current), a write that fails for want of space leaves it as it was
tmp=$(mktemp "$dir/.summary.csv.XXXXXX") || die "summary: cannot create a file in $dir$(df_free "$dir")"
trap 'rm -f "$tmp"' EXIT
# (labstat, its arguments from the catalog and the memo: lib/cellstore.sh summary_of)
if ! summary_of "$dir/cells.csv" >"$tmp"; then
	full=$(df_free "$dir")
	[[ -n $full ]] && die "summary: writing $dir/summary.csv failed$full; the old summary.csv is kept"
	rm -f "$dir/summary.csv"
	die "summary: labstat rejected $dir/cells.csv (see above); no summary.csv written"
fi
chmod 644 "$tmp"
mv -T "$tmp" "$dir/summary.csv"
log "summary: $dir/summary.csv ($(($(wc -l <"$dir/summary.csv") - 1)) rows)"
