#!/bin/bash
# unit-decision.sh: scripts/report/report-decision.sh on constructed inputs
# (tests/data/decision: summary.csv and footprint.csv for the baseline and
# four catalog designs), scripts/run/attribute.sh --footprint on a recorded
# attribution boot's line and sub records (tests/data/attrib-footprint), and
# the catalog's proofs= against the series. No boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$LAB_ROOT/tests/data/decision
"$LAB_ROOT/scripts/report/report-decision.sh" "$data" >"$tmp/md"
md=$(cat "$tmp/md")
row() { grep -E "^\| $1 \| " "$tmp/md" | head -1; }
# has TEXT: the table holds TEXT (a whole row's prefix or a cell sequence)
has() { grep -qF -- "$1" "$tmp/md"; }
nd=$(variants_with design | wc -l)
check "one row per catalog design ($nd)" test "$(for d in $(variants_with design); do row "$d"; done | grep -c .)" -eq "$nd"
check "the reference: its Δ per path and load, SQPOLL from the io_submit_sqes subtree (1875.89 - 1787.59)" \
	grep -qF '| upstream | **yes** | +8.0 / +55.0 / +6.0 / +60.0 / +88.3 | +8.0 / +200.0 / +6.0 / +210.0 / +90.0 |' <<<"$(row upstream)"
check "a design worse on every measured column is not Pareto, and says by whom" grep -qF '| rfc | no (upstream) |' <<<"$(row rfc)"
check "designs that each win a column are Pareto" both has '| static-key | **yes** |' -- has '| gate-flag | **yes** |'
check "not significant cells in parentheses; an SQPOLL Δ inside the tolerance stays a number" \
	grep -qF '| (+0.0) / (+0.8) / +5.0 / +60.0 / +0.4 |' <<<"$(row static-key)"
check "i-cache Δ lines/op (idle, watch) and hot text Δ bytes" grep -qF '| +0.04 / +0.06 | +4.00 / +20.00 | +0 / +8 |' <<<"$(row static-key)"
check "correctness: stream-expect count, runtime-disable and proofs from the catalog" \
	both grep -qF '| 1 expected difference | survives | builds | clean |' <<<"$(row static-key)" -- \
	has '| 7 expected differences | **kernel BUG** | builds | no lock added |'
check "the sentence: gains and pays against the reference, from the columns" \
	grep -qF 'Against upstream, gains: up to 87.9 instructions/op less (idle, audited op by SQPOLL; 7 cells); survives runtime disable; 9.39 fewer i-cache lines/op (idle, audited op); pays: up to +45.0 instructions/op (watch, audited op by SQPOLL; 7 cells); 1 record-stream difference; +10.00 i-cache lines/op (watch, audited op).' <<<"$(row static-key)"
check "a design not in the run: no Pareto mark, 'not in this run'" grep -qE '^\| key-calls \| — \| .*\| not in this run \|$' <<<"$(row key-calls)"
check "footprint table: one row per footprint.csv row, Δ versus the baseline" \
	both test "$(grep -cE '^\| (idle|watch) \| bench-' <<<"$md")" -eq 30 -- \
	has '| idle | bench-openclose-sqpoll | upstream | 1533 | 198.53 | +0.00 | 60179 | 22331 | +0 | 1875.89 | +88.30 |'
# one seed a side (no interval, method none): those cells are compared with
# nothing; the one-boot SQPOLL count still is
mkdir -p "$tmp/oneseed"
cp "$data/footprint.csv" "$tmp/oneseed/"
awk -F, -v OFS=, '$1 == "static-key" { $7 = ""; $8 = ""; $9 = "-"; $10 = "none" } 1' "$data/summary.csv" >"$tmp/oneseed/summary.csv"
"$LAB_ROOT/scripts/report/report-decision.sh" "$tmp/oneseed" >"$tmp/md1"
check "cells not judged (one seed a side) are compared with nothing: only SQPOLL and i-cache differ" \
	grep -qF 'Against upstream, gains: up to 87.9 instructions/op less (idle, audited op by SQPOLL; 1 cell); survives runtime disable; 9.39 fewer i-cache lines/op (idle, audited op); pays: up to +45.0 instructions/op (watch, audited op by SQPOLL; 1 cell);' "$tmp/md1"
# no state of the table in the run: marked in the header
mkdir -p "$tmp/run"
grep -v ',watch,' "$data/summary.csv" >"$tmp/run/summary.csv"
"$LAB_ROOT/scripts/report/report-decision.sh" "$tmp/run" >"$tmp/md2"
check "a load the run lacks is marked in the header; no footprint.csv, no footprint table" \
	both grep -qF '| watch (not in run) |' "$tmp/md2" -- test "$(grep -c '^### i-cache footprint' "$tmp/md2")" -eq 0
head -1 "$data/summary.csv" >"$tmp/run/summary.csv"
check "no design in summary.csv: no section" test -z "$("$LAB_ROOT/scripts/report/report-decision.sh" "$tmp/run")"
rc=0
"$LAB_ROOT/scripts/report/report-decision.sh" "$tmp/none" >/dev/null 2>"$tmp/err" || rc=$?
check "no summary.csv: exit 2 with one line" both test "$rc" -eq 2 -- test "$(wc -l <"$tmp/err")" -eq 1

# attribute.sh --footprint on a recorded boot (nohooks, idle, three workloads;
# the line records kept are a few of each window's)
fp=$("$LAB_ROOT/scripts/run/attribute.sh" --footprint "$LAB_ROOT/tests/data/attrib-footprint" nohooks idle bench-nop,bench-openclose,bench-openclose-sqpoll)
check "footprint: the io_submit_sqes subtree per op (758796545 / 3450176 = 219.9298) and calls per op" \
	grep -qxF 'nohooks,idle,bench-nop,1,tcg,3450176,3,1.07,29,17,io_submit_sqes,219.9298,98.3984,0.0312' <<<"$fp"
check "footprint: lines min(1, max/ops) summed; hot bytes only of lines run once per 64 ops" \
	grep -qxF 'nohooks,idle,bench-openclose-sqpoll,1,tcg,443968,2,1.00,40,24,io_submit_sqes,1787.5892,878.8682,0.0312' <<<"$fp"
check "footprint: one row per window" test "$(grep -c . <<<"$fp")" -eq 3

# proofs=: no-lock only where the series adds no lock and flips no key (what
# tests/61 looks for before it boots a lockdep flavour)
no_locking() {
	local p vdir
	vdir=$(variants_dir)/$1
	! series_patches "$vdir/series" | while read -r p; do cat "$vdir/$p"; done |
		grep -qE '^\+.*\b(mutex_lock|spin_lock[a-z_]*|static_branch_(enable|disable)|static_key_(enable|disable))\('
}
for d in $(variants_with design); do
	pr=,$(variant_meta "$d" proofs),
	[[ $pr == *,no-lock,* ]] || continue
	check "$d: proofs=no-lock and its series adds no lock and flips no key" no_locking "$d"
done
