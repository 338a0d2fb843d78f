#!/bin/bash
# unit-attribution.sh: scripts/run/attribute.sh --rows and
# scripts/report/report-attribution.sh on a recorded attribution boot
# (tests/data/attrib-nohooks: nohooks, idle, bench-nop, tcg-icount, with
# the lab-attrib plugin) and a constructed second variant that adds 8
# instructions to io_issue_sqe. No boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$LAB_ROOT/tests/data/attrib-nohooks
att=$LAB_ROOT/scripts/run/attribute.sh

rows=$("$att" --rows "$data" nohooks idle bench-nop)
check "rows: window total 999994751 insns / 3450624 ops = 289.8011" grep -qxF 'nohooks,idle,bench-nop,1,tcg,instructions,[total],289.8011,,' <<<"$rows"
check "rows: io_issue_sqe 53 instructions and 1 entry per NOP" grep -qx 'nohooks,idle,bench-nop,1,tcg,instructions,io_issue_sqe,53.0000,[0-9.]*,1.0000' <<<"$rows"
sum_ok() { awk -F, '$7 != "[total]" { s += $8 } $7 == "[total]" { t = $8 } END { d = s - t; exit !(d < 0.01 && -d < 0.01) }' <<<"$rows"; }
check "rows: symbols (incl. [user]) sum to the window total" sum_ok
rc=0
"$att" --rows "$data" nohooks idle bench-nop,bench-read >/dev/null 2>"$tmp/err" || rc=$?
check "rows: fewer windows than workloads fails and says so" \
	both test "$rc" -ne 0 -- grep -q '1 windows for 2 workloads' "$tmp/err"
rc=0
"$att" --rows "$tmp/none" nohooks idle bench-nop >/dev/null 2>"$tmp/err" || rc=$?
check "rows: a dir without results.txt/attrib.out exits 2 with one line" \
	both test "$rc" -eq 2 -- test "$(wc -l <"$tmp/err")" -eq 1

mkdir -p "$tmp/run"
{
	echo "variant,state,workload,seed,accel,unit,symbol,instructions_per_op,mem_accesses_per_op,calls_per_op"
	echo "$rows"
	awk -F, -v OFS=, '{ $1 = "upstream" } $7 == "io_issue_sqe" || $7 == "[total]" { $8 += 8 } 1' <<<"$rows"
} >"$tmp/run/attribution.csv"
md=$("$LAB_ROOT/scripts/report/report-attribution.sh" "$tmp/run")
# shellcheck disable=SC2016 # backquotes are markdown
check "report: io_issue_sqe row with nohooks 53.00 and upstream +8.00 (1.00)" grep -qF '| `io_issue_sqe` | 53.00 | +8.00 (1.00) |' <<<"$md"
check "report: Σ all symbols +8.00" grep -qF '| Σ all symbols | 289.80 | +8.00 |' <<<"$md"
# shellcheck disable=SC2016 # backquotes are markdown
check "report: symbols with no Δ are left out" test "$(grep -c '^| `' <<<"$md")" -eq 1
check "report: no attribution.csv, no section" test -z "$("$LAB_ROOT/scripts/report/report-attribution.sh" "$tmp")"
check "tools/lab-attrib.c builds with -Wall -Wextra -Werror as a shared object" \
	make -s -C "$LAB_ROOT/tools" O="$tmp" "$tmp/lab-attrib.so"
