#!/bin/bash
# summary.sh RUN: recompute results/RUN/summary.csv from results/RUN/cells.csv
# with bench/labstat: exact cells (tcg-icount, every seed within 0.01) get the
# exact delta; noisy cells the rank-sum test, the Hodges-Lehmann shift and its
# interval, against nohooks pooled with the A/A control nohooks-aa;
# Benjamini-Hochberg over all hook-cost cells (labstat -h); device-time
# workloads are never starred.
# Summaries are never edited by hand: this is the only writer.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

run=${1:-}
[[ -n $run ]] || die_usage "usage: run.sh summary RUN"
dir=$(results_dir "$run")
[[ -f $dir/cells.csv ]] || die_usage "summary: no results/$run/cells.csv; give a run id from results/"
labstat=$(host_tool bench "$LAB_CACHE/bin" labstat)
# a failed labstat leaves neither a .tmp nor a summary of older cells behind
trap 'rm -f "$dir/summary.csv.tmp"' EXIT
if ! "$labstat" summary -D "$(device_time_workloads)" "$dir/cells.csv" >"$dir/summary.csv.tmp"; then
	rm -f "$dir/summary.csv"
	die "summary: labstat rejected $dir/cells.csv (see above); no summary.csv written"
fi
mv "$dir/summary.csv.tmp" "$dir/summary.csv"
log "summary: $dir/summary.csv ($(($(wc -l <"$dir/summary.csv") - 1)) rows)"
