#!/bin/bash
# summary.sh RUN: recompute results/RUN/summary.csv from results/RUN/cells.csv
# with bench/labstat: the estimator matched to the accelerator's noise
# (tcg-icount: minimum over seeds with the range; real-time accels: median,
# bootstrap CI only at n >= 10, else the range; the interval column says
# which), overhead versus nohooks, the seed floor (nohooks-aa) and the codegen
# floor (nohooks-codegen); device-time workloads are never starred.
# Summaries are never edited by hand: this is the only writer.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

run=${1:-}
[[ -n $run ]] || die_usage "usage: run.sh summary RUN"
dir=$(results_dir "$run")
[[ -f $dir/cells.csv ]] || die_usage "summary: no results/$run/cells.csv; give a run id from results/"
labstat=$(host_tool bench "$LAB_CACHE/bin" labstat)
# a failed labstat leaves neither a .tmp nor a summary of older cells behind
trap 'rm -f "$dir/summary.csv.tmp"' EXIT
# the baseline, its seed control and the codegen control come from the catalog
base=$(catalog_one baseline)
[[ -n $base ]] || die "summary: no variant has role=baseline in its meta (lib/catalog.sh)"
aa=$(seed_control_of "$base") codegen=$(catalog_one codegen-control)
if ! "$labstat" summary -B "$base" ${aa:+-a "$aa"} ${codegen:+-g "$codegen"} -D "$(device_time_workloads)" "$dir/cells.csv" >"$dir/summary.csv.tmp"; then
	rm -f "$dir/summary.csv"
	die "summary: labstat rejected $dir/cells.csv (see above); no summary.csv written"
fi
mv "$dir/summary.csv.tmp" "$dir/summary.csv"
log "summary: $dir/summary.csv ($(($(wc -l <"$dir/summary.csv") - 1)) rows)"
