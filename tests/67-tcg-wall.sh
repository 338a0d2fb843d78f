#!/bin/bash
# The real-time path, exercised (issue 24 item 7). --accel tcg-wall is QEMU
# TCG without icount: guest time is host time, as under KVM, and it takes the
# path a KVM user takes (lib/common.sh accel_realtime). A bad --accel is
# refused in one line before any work. Then a small matrix (nohooks and
# upstream, idle, bench-nop, 10 reps of 1 s, asked for --jobs 2) must run:
# one guest at a time (boot.info start/end times never overlap), kernels
# first, the variant order rotated every rep (log, cells.csv, manifest), ns
# units, the median with a 95% bootstrap CI (n = 10) and a rank-sum Δ in
# summary.csv, no cell stored (the store on, in an empty dir), and the
# summary, plots and report labelled "wall-clock under emulation (tcg-wall)".
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results

# --- validation: one line, before anything runs -----------------------------
# refused: exit 2 and exactly one stderr line matching PAT, within 20 s
refused() {
	local desc=$1 pat=$2 rc=0
	shift 2
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if ((rc == 2)) && [[ $(wc -l <"$tmp/err") == 1 ]] && grep -qE -e "$pat" "$tmp/err"; then
		ok "$desc"
	else
		echo "exit $rc (want 2, one line); stderr:"
		sed 's/^/    /' "$tmp/err" | head -5
		not_ok "$desc"
	fi
}
bad="--accel must be kvm, tcg, tcg-wall or auto \\(got 'tcg-walll'\\)"
refused "matrix --accel tcg-walll: one line, exit 2" "$bad" ./run.sh matrix --accel tcg-walll --variants nohooks
refused "boot --accel tcg-walll: one line, exit 2" "$bad" ./run.sh boot nohooks idle --accel tcg-walll
refused "boot.sh --accel TCG-WALL (no auto there): one line, exit 2" "--accel must be kvm, tcg or tcg-wall \\(got 'TCG-WALL'\\)" \
	guest/boot.sh --accel TCG-WALL --out "$tmp/x" nohooks idle
check "nothing was created by the refused commands" test ! -e "$LAB_RESULTS" -a ! -e "$tmp/x"
check "accel.sh tcg-wall is taken as it is (no KVM probe)" test "$(guest/accel.sh tcg-wall 2>/dev/null)" = tcg-wall
wall_args=$(guest/boot.sh --accel tcg-wall --accel-args)
no_icount() { [[ " $wall_args " == *" -accel tcg "* && $wall_args != *icount* ]]; }
check "tcg-wall's QEMU arguments: TCG without -icount ($wall_args)" no_icount
one_path() { accel_realtime kvm && accel_realtime tcg-wall && ! accel_realtime tcg &&
	[[ $(accel_unit tcg-wall) == ns && $(accel_unit kvm) == ns && $(boot_order tcg-wall) == "$(boot_order kvm)" ]]; }
check "kvm and tcg-wall share the real-time path (unit ns, interleaved order); tcg does not" one_path

if quick; then
	skip "tcg-wall matrix (builds and boots)" "--quick"
	exit 0
fi

# --- a small real-time matrix ----------------------------------------------
vs=(nohooks upstream) reps=10 run=wall
# the cell store on, in a dir of its own: nothing may land in it
export LAB_NO_CELL_STORE=0 LAB_CELLS=$tmp/cells
start=$(now)
rc=0
./run.sh matrix --accel tcg-wall --variants "$(IFS=,; echo "${vs[*]}")" --states idle --workloads bench-nop \
	--reps "$reps" --runtime 1 --profile none --jobs 2 --run-id "$run" >"$tmp/matrix.log" 2>&1 || rc=$?
if ((rc == 0)); then
	ok "matrix --accel tcg-wall, ${#vs[@]} variants x $reps reps completes ($(fmt_secs $(($(now) - start))))"
else
	tail -20 "$tmp/matrix.log"
	not_ok "matrix --accel tcg-wall completes (rc $rc)"
fi
d=$LAB_RESULTS/$run
nboots=$((${#vs[@]} * reps))

# serial: --jobs ignored, and no two guests' QEMU runs overlap in time
check "--jobs 2 is ignored: one guest at a time, interleaved order (log)" \
	both grep -qe '--jobs 2 ignored' "$tmp/matrix.log" -- grep -q "$nboots guest boots to run (0 n/a), 1 at a time, interleaved order" "$tmp/matrix.log"
# start end pairs of every boot, sorted by start; each starts after the last ended
cat "$d"/raw/*/boot.info 2>/dev/null | awk -F= '$1 == "started_at" { s = $2 } $1 == "ended_at" { print s, $2 }' | sort -n >"$tmp/spans"
serial() {
	[[ $(wc -l <"$tmp/spans") == "$nboots" ]] &&
		awk 'NR > 1 && $1 < end { bad = 1 } { end = $2 } END { exit bad }' "$tmp/spans"
}
check "serial: $nboots boots, no two QEMU runs overlap (boot.info started_at/ended_at)" serial
# manifest_has JQ_FILTER: the run's manifest.json satisfies it
manifest_has() { jq -e "$1" "$d/manifest.json" >/dev/null 2>&1; }
check "manifest: guests_at_once 1, boot_order interleaved" \
	manifest_has '.matrix.guests_at_once == 1 and (.boot_order | startswith("interleaved"))'

# interleaved: rep r runs the variants rotated by r-1, in the log and in cells.csv
want=$(for r in $(seq "$reps"); do
	for i in "${!vs[@]}"; do echo "${vs[$(((i + r - 1) % ${#vs[@]}))]} $r"; done
done)
got_log=$(sed -n 's|^\[[0-9]*/[0-9]*\] boot \([a-z0-9-]*\) / idle / rep \([0-9]*\) .*|\1 \2|p' "$tmp/matrix.log")
got_csv=$(awk -F, 'NR > 1 { print $1, $4 }' "$d/cells.csv" 2>/dev/null)
check "interleaved: boots in the log run in rotated variant order per rep ($(head -4 <<<"$got_log" | paste -sd, -), ...)" test "$got_log" = "$want"
check "interleaved: cells.csv rows in the same order" test "$got_csv" = "$want"

# units, accel, store
units_ok() {
	awk -F, 'NR > 1 { n++; if ($6 != "tcg-wall" || $10 != "ns" || $7 != "ok" || !($9 > 0)) bad = 1 } END { exit bad || n != want }' want="$nboots" "$d/cells.csv"
}
check "cells.csv: $nboots ok rows, accel tcg-wall, unit ns, ns_per_op > 0" units_ok
check "manifest: ns_per_op_unit says wall-clock under TCG, accel_args without -icount" \
	manifest_has '.accel == "tcg-wall" and (.ns_per_op_unit | test("wall-clock ns under TCG")) and (.accel_args | test("icount") | not)'
check "no cell stored: every boot.info says cell=off" test "$(cat "$d"/raw/*/boot.info 2>/dev/null | grep -c '^cell=off$')" = "$nboots"
# (.memo holds the analysis memos, summary.csv, figures and report sections:
# functions of the run's files, not of a boot, so kept for a real-time run too)
check "no cell stored: the store dir holds no entry" test -z "$(find "$LAB_CELLS" -mindepth 1 -maxdepth 1 ! -name .sha-memo ! -name .memo 2>/dev/null)"

# statistics: the median with a 95% bootstrap CI at n = 10, a rank-sum Δ
col() { awk -F, -v v="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$1 == v && $2 == "idle" && $3 == "bench-nop" { print $k[c] }' "$d/summary.csv" 2>/dev/null; }
for v in "${vs[@]}"; do
	med=$(col "$v" median_ns_per_op) lo=$(col "$v" ns_ci_lo) hi=$(col "$v" ns_ci_hi)
	ci_ok() {
		[[ $(col "$v" n) == "$reps" && $(col "$v" estimator) == median && $(col "$v" accel) == tcg-wall &&
			$(col "$v" interval) == "95% bootstrap CI over $reps seeds" ]] &&
			awk -v m="$med" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l != "" && h != "" && l <= m && m <= h && l < h) }'
	}
	check "summary $v: median $med ns/op, 95% bootstrap CI [$lo, $hi] over $reps seeds" ci_ok
done
delta_ok() { [[ $(col upstream method) == rank-sum && $(col upstream delta_interval) == Hodges-Lehmann* && -n $(col upstream p_value) ]]; }
check "summary upstream: Δ $(col upstream delta_ns_per_op) ns/op by rank-sum, $(col upstream delta_interval)" delta_ok

# labels
label="wall-clock under emulation (tcg-wall)"
check "report title names the accelerator '$label'" grep -qF "run $run, $label" "$d/report.md"
check "report headline: Δ in ns per op, $label" grep -q "^Δ = ns per op versus .*, $label" "$d/report.md"
check "report environment: accelerator and unit" grep -q "Accelerator: \*\*$label\*\*.*\*\*ns/op\*\*" "$d/report.md"
# every drawn plot names it (gnuplot writes the title text into the SVG)
plots_labelled() {
	local f n=0
	for f in "$d"/plots/*.svg; do
		[[ -f $f ]] || return 1
		grep -qF "$label" "$f" || return 1
		n=$((n + 1))
	done
	((n > 0))
}
check "plots drawn, every one's title names the accelerator '$label'" plots_labelled
echo "# tcg-wall, from this run: $(for v in "${vs[@]}"; do printf '%s %s ns/op [%s, %s]; ' "$v" "$(col "$v" median_ns_per_op)" "$(col "$v" ns_ci_lo)" "$(col "$v" ns_ci_hi)"; done)Δ upstream $(col upstream delta_ns_per_op) [$(col upstream delta_ci_lo), $(col upstream delta_ci_hi)] p $(col upstream p_value)"
