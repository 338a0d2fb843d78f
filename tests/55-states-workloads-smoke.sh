#!/bin/bash
# Every audit state and every workload, by a short smoke run: one rfc boot
# per state (rfc audits every opcode, so uring-hit makes the most records)
# running that state's workloads for 1 guest second each, plus the profiled
# passes in idle. Every cell must come back ok with numbers; the sink must
# see records in uring-hit and lose none; the profile must see io_issue_sqe.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "every state and workload in a guest" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp
start=$(now)
if "$LAB_ROOT/run.sh" matrix --variants rfc --reps 1 --runtime 1 --profile randread-qd128,bench-nop --run-id smoke >"$tmp/log" 2>&1; then
	ok "rfc x every state x its workloads completes ($(fmt_secs $(($(now) - start))))"
else
	grep -vE '^\s+[a-z-]+: ok' "$tmp/log" | tail -15
	not_ok "rfc x every state x its workloads completes"
fi
d=$tmp/smoke
for s in $(known_states); do
	rows=$(grep "^rfc,$s," "$d/cells.csv" 2>/dev/null || true)
	n=$(grep -c . <<<"$rows" || true)
	bad=$(awk -F, '$7 != "ok" || !($8 > 0) { print $3 ":" $7 }' <<<"$rows" | paste -sd' ')
	if ((n > 0)) && [[ -z $bad ]]; then
		ok "state $s: $n workloads ok ($(cut -d, -f3 <<<"$rows" | paste -sd' '))"
	else
		not_ok "state $s: all workloads ok (rows $n, bad: $bad)"
	fi
done
for w in $(known_workloads); do
	check "workload $w ran ok in at least one state" grep -q "^rfc,[^,]*,$w,1,[^,]*,[^,]*,ok," "$d/cells.csv"
done
sink=$d/raw/rfc.uring-hit.r1/sink.txt
uringop=$(sed -n 's/^sink type=1336 .*count=\([0-9]*\).*/\1/p' "$sink" 2>/dev/null)
lost=$(sed -n 's/^sink records=.* lost=\([-0-9]*\).*/\1/p' "$sink" 2>/dev/null)
lost0=$(sed -n 's/^sink status .*lost_start=\([0-9]*\).*/\1/p' "$sink" 2>/dev/null)
check "uring-hit: the sink counted URINGOP records (${uringop:-none})" test "${uringop:-0}" -gt 1000
echo "uring-hit sink: $(tr '\n' ';' <"$sink" 2>/dev/null)"
check "uring-hit: the kernel lost no records (lost ${lost:-?} - start ${lost0:-?})" test "$((${lost:--1} - ${lost0:-0}))" = 0
hits=$(awk -F, '$2 == "idle" && $3 == "randread-qd128" && $5 == "io_issue_sqe" && $6 != "" { print $6; exit }' "$d/profile.csv" 2>/dev/null)
check "idle profile: ftrace counted io_issue_sqe calls (${hits:-none})" test "${hits:-0}" -gt 1000
# shellcheck disable=SC2016 # awk program
check "idle profile: perf sampled symbols" awk -F, '$2 == "idle" && $9 > 0 { f = 1 } END { exit !f }' "$d/profile.csv"
