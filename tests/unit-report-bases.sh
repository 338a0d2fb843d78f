#!/bin/bash
# unit-report-bases.sh: scripts/report/report-bases.sh (do the oldest base's
# verdicts hold on the others?) on a constructed two-base summary and
# attribution: the count of verdicts that hold, a flip, an exact move the
# attribution explains, a noisy move it does not, a move within the noise
# left out, and nothing for a one-base run. The designs and baselines are the
# catalog's (the first design with a port on both bases).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bases=$(known_bases | paste -sd' ')
read -r b0 b1 _ <<<"$bases"
if [[ -z ${b1:-} ]]; then
	skip "report-bases on two bases" "the catalog knows one base tree ($bases)"
	exit 0
fi
d0="" d1=""
for v in $(variants_on "$b0" design); do
	p=$(port_on "$b1" "$v")
	[[ -n $p ]] || continue
	d0=$v d1=$p
	break
done
n0=$(catalog_one_on "$b0" baseline) n1=$(catalog_one_on "$b1" baseline)
mkdir -p "$tmp/run"
{
	echo "variant,state,workload,measure,method,delta_ns_per_op,delta_ci_lo,delta_ci_hi,significant,base"
	# holds, exact, no move
	echo "$d0,idle,bench-nop,hook-cost,exact,8.000,8.000,8.000,yes,$b0"
	echo "$d1,idle,bench-nop,hook-cost,exact,8.000,8.000,8.000,yes,$b1"
	# exact move of +2.0, explained by the attribution (io_issue_sqe +2)
	echo "$d0,off,bench-read,hook-cost,exact,6.000,6.000,6.000,yes,$b0"
	echo "$d1,off,bench-read,hook-cost,exact,8.000,8.000,8.000,yes,$b1"
	# noisy, significant -> n.s. (a flip), intervals overlap: no move
	echo "$d0,idle,randread-qd1,hook-cost,rank-sum,3.000,2.500,3.500,yes,$b0"
	echo "$d1,idle,randread-qd1,hook-cost,rank-sum,1.000,-2.000,4.000,no,$b1"
	# noisy move beyond both intervals, no attribution window: unexplained
	echo "$d0,idle,randread-qd128,hook-cost,rank-sum,8.000,7.500,8.500,yes,$b0"
	echo "$d1,idle,randread-qd128,hook-cost,rank-sum,12.000,11.500,12.500,yes,$b1"
	# a device-time row is never compared
	echo "$d0,idle,randread-polled,device-time,rank-sum,1.000,0.000,2.000,no,$b0"
	echo "$d1,idle,randread-polled,device-time,rank-sum,9.000,8.000,10.000,yes,$b1"
	# a baseline's own row is no design's
	echo "$n0,idle,bench-nop,hook-cost,exact,0.000,0.000,0.000,no,$b0"
} >"$tmp/run/summary.csv"
{
	echo "variant,state,workload,seed,accel,unit,symbol,instructions_per_op,mem_accesses_per_op,calls_per_op"
	for v in "$d0" "$d1" "$n0" "$n1"; do
		case $v in "$d0") x=6 ;; "$d1") x=8 ;; *) x=0 ;; esac
		echo "$v,off,bench-read,1,tcg,instructions,io_issue_sqe,$((100 + x)).0,10,1"
		echo "$v,off,bench-read,1,tcg,instructions,[user],50.0,10,0"
		echo "$v,off,bench-read,1,tcg,instructions,[total],$((150 + x)).0,20,0"
	done
} >"$tmp/run/attribution.csv"
out=$("$LAB_ROOT/scripts/report/report-bases.sh" "$tmp/run" 2>&1) || true
printf '%s\n' "$out" | sed 's/^/    /' | head -30
row() { grep "^| $d0 | $1 | $2 |" <<<"$out" || true; }
check "the section's title names both trees" grep -q "^## Do the linux-source-$b0 verdicts hold on linux-source-$b1?" <<<"$out"
check "verdicts hold in 3 of 4 hook-cost cells (the flip is the fourth; device-time left out)" \
	grep -qF "**The $b0 verdicts hold on $b1 in 3 of 4 cells.** 2 cell(s) moved beyond the noise, 1 of them explained by the attribution." <<<"$out"
# (backquotes in the report's text, not a shell expansion)
# shellcheck disable=SC2016
explained_ok() { grep -qF '| +2.0 | significant → significant | attribution moves +2.0 (`io_issue_sqe` +2.0)' <<<"$(row off bench-read)" && ! grep -q unexplained <<<"$(row off bench-read)"; }
check "the exact move of +2.0 is explained by io_issue_sqe +2.0" explained_ok
unexplained_ok() { grep -qF '| +4.0 | significant → significant | **unexplained**: no attribution boot in this cell (fio opens no window)' <<<"$(row idle randread-qd128)"; }
check "the noisy move of +4.0 without an attribution window is marked unexplained" unexplained_ok
flip_ok() { grep -qF '| within the noise | significant → n.s. **(flips)**' <<<"$(row idle randread-qd1)"; }
check "the flip within the noise is listed as a flip, not a move" flip_ok
check "a cell that holds and does not move is not listed" test -z "$(row idle bench-nop)"
check "a device-time row is never compared" test -z "$(row idle randread-polled)"
grep -v ",$b1\$" "$tmp/run/summary.csv" >"$tmp/run/one.csv"
mv "$tmp/run/one.csv" "$tmp/run/summary.csv"
check "a one-base run: no section" test -z "$("$LAB_ROOT/scripts/report/report-bases.sh" "$tmp/run")"
