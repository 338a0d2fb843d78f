#!/bin/bash
# summary.sh RUN: recompute results/RUN/summary.csv from results/RUN/cells.csv
# with bench/labstat (bootstrap CIs, overhead versus nohooks, A/A floor).
# Summaries are never edited by hand: this is the only writer.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

run=${1:-}
dir=${LAB_RESULTS:-$LAB_ROOT/results}/$run
[[ -n $run && -f $dir/cells.csv ]] || die_usage "summary: no results/$run/cells.csv; give a run id from results/"
bindir=$LAB_CACHE/bin
mkdir -p "$bindir"
make -s -C "$LAB_ROOT/bench" O="$bindir" "$bindir/labstat" >&2
"$bindir/labstat" summary "$dir/cells.csv" >"$dir/summary.csv.tmp"
mv "$dir/summary.csv.tmp" "$dir/summary.csv"
log "summary: $dir/summary.csv ($(($(wc -l <"$dir/summary.csv") - 1)) rows)"
