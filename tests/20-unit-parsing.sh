#!/bin/bash
# Unit tests of the host-side parsing and helpers, on recorded guest output
# (tests/data/parse/: real results streams from a tcg-icount boot).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
data=$LAB_ROOT/tests/data/parse
pr=$LAB_ROOT/scripts/analysis/parse-results.sh

out=$("$pr" "$data/ok-two-workloads.txt")
fio=$(grep '^workload=randread-qd128 ' <<<"$out" || true)
check "fio JSON block: rc 0 and IOPS parsed (161972.5)" grep -q 'rc=0 ops_per_sec=161972.5 ' <<<"$fio"
check "fio: ns_per_op = 1e9 / IOPS (6173.887)" grep -q 'ns_per_op=6173.887' <<<"$fio"
check "fio: clat percentiles parsed" grep -q 'clat_p50_ns=593920 clat_p99_ns=610304' <<<"$fio"
nop=$(grep '^workload=bench-nop ' <<<"$out" || true)
check "uring-bench result line parsed (3358322.5 ops/s, 297.768 ns/op)" grep -q 'ops_per_sec=3358322.5 ns_per_op=297.768' <<<"$nop"
check "exactly one line per workload block" test "$(grep -c '^workload=' <<<"$out")" = 2
# shellcheck source=lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"
check "uring-bench: the result line's ops kept as window_ops (6716672), read back by window_ops" \
	both grep -q ' window_ops=6716672$' <<<"$nop" -- test "$(window_ops "$data/ok-two-workloads.txt" bench-nop)" = 6716672

# two-pass fio (N then 2N I/Os, each timed by lab-time): the per-I/O figure
# is the difference quotient, recomputed here from the raw fields
two=$data/fio-two-pass.txt
out=$("$pr" "$two")
fio=$(grep '^workload=randread-qd128 ' <<<"$out" || true)
mapfile -t ts < <(tr -d '\r' <"$two" | awk '/^@@LAB begin workload=randread-qd128/ { on = 1 } /^@@LAB end/ { on = 0 } on && /^fio-pass / { sub(/.* ns=/, ""); sub(/ .*/, ""); print }')
mapfile -t ns < <(tr -d '\r' <"$two" | awk '/^@@LAB begin workload=randread-qd128/ { on = 1; next } /^@@LAB end/ { on = 0 } on && !/^fio-pass /' | jq -s '.[].jobs[0].read.total_ios')
want=$(awk -v t1="${ts[0]}" -v t2="${ts[1]}" -v n1="${ns[0]}" -v n2="${ns[1]}" 'BEGIN { printf "%.3f", (t2 - t1) / (n2 - n1) }')
check "two-pass fio: ns_per_op = (T2-T1)/(ios2-ios1) = $want (T ${ts[*]}, ios ${ns[*]})" grep -q "rc=0 ops_per_sec=[0-9.]* ns_per_op=$want " <<<"$fio"
check "two-pass fio: fio's own IOPS kept as fio_iops, clat from pass 2" grep -q 'clat_p50_ns=569344 clat_p99_ns=577536 fio_iops=169779' <<<"$fio"
coarse=$(awk -v x="$(sed -n 's/.* fio_iops=\([0-9.]*\).*/\1/p' <<<"$fio")" 'BEGIN { printf "%.3f", 1e9 / x }')
check "two-pass fio: the figure is not fio's ms-quantised 1e9/IOPS ($coarse)" bash -c "! grep -q 'ns_per_op=$coarse ' <<<'$fio'"
tmp=$(mktemp)
# (one awk: a tr piped into an awk that exits early died of SIGPIPE under pipefail)
awk '{ sub(/\r$/, "") } /^fio-pass pass=2/ { print; exit } { print }' "$two" >"$tmp"
printf '@@LAB end workload=randread-qd128 rc=0\n' >>"$tmp"
check "two-pass fio: a pass 2 with no JSON gives NA, not a number" grep -q '^workload=randread-qd128 rc=0 ops_per_sec=NA' <<<"$("$pr" "$tmp")"

# the I/O window (fio's exec_prerun/postrun stamps, tcg-icount boot of nohooks
# with disk_util=0): the quotient of the windows, not of the whole processes,
# and the 'Saving output of prerun' lines fio prints before its JSON are skipped
win=$data/fio-window.txt
wout=$(grep '^workload=randread-qd128 ' <<<"$("$pr" "$win")" || true)
mapfile -t ws < <(sed -n 's/^fio-pass .* window_ns=\([0-9]*\).*/\1/p' "$win")
mapfile -t es < <(sed -n 's/^fio-pass .* elapsed ns=\([0-9]*\).*/\1/p' "$win")
wwant=$(awk -v t1="${ws[0]}" -v t2="${ws[1]}" 'BEGIN { printf "%.3f", (t2 - t1) / 50000 }')
ewant=$(awk -v t1="${es[0]}" -v t2="${es[1]}" 'BEGIN { printf "%.3f", (t2 - t1) / 50000 }')
check "fio window: ns_per_op = (W2-W1)/(ios2-ios1) = $wwant, not the whole-process $ewant" \
	both grep -q "ns_per_op=$wwant " <<<"$wout" -- test "$wwant" != "$ewant"
check "fio window: JSON found after fio's prerun/postrun notices" grep -q 'clat_p50_ns=[0-9]' <<<"$wout"

out=$("$pr" "$data/died-mid-run.txt")
check "a guest that died mid-run keeps the finished workload" grep -q '^workload=randread-qd128 rc=0 ops_per_sec=161972.5' <<<"$out"
check "the unfinished workload is rc=died with no numbers" grep -q '^workload=bench-nop rc=died ops_per_sec=NA ns_per_op=NA' <<<"$out"
printf '@@LAB begin workload=x\n{ "jobs": [ { "read": { "iops": 0 } } ] }\n@@LAB end workload=x rc=0\n' >"$tmp"
check "zero IOPS is not a number (NA)" grep -q 'ops_per_sec=NA' <<<"$("$pr" "$tmp")"
printf '@@LAB begin workload=x\n{ "jobs": [ garbage\n@@LAB end workload=x rc=0\n' >"$tmp"
check "broken fio JSON gives NA, not a crash" grep -q '^workload=x rc=0 ops_per_sec=NA' <<<"$("$pr" "$tmp")"
rm -f "$tmp"
rc=0
"$pr" /nonexistent 2>/dev/null || rc=$?
check "missing results file: exit 2" test "$rc" = 2

prof=$("$LAB_ROOT/scripts/analysis/parse-profile.sh" "$data/profile-blocks.txt")
check "ftrace: io_issue_sqe hits and mean per call (137824, 3341.033 ns)" grep -q '^randread-qd128,io_issue_sqe,137824,460474500,3341.033,$' <<<"$prof"
check "ftrace: __audit_uring_entry parsed" grep -q '^randread-qd128,__audit_uring_entry,137824,' <<<"$prof"
check "perf: symbol shares parsed" grep -q '^randread-qd128,io_issue_sqe,,,,[0-9.]*$' <<<"$prof"

check "fmt_secs 59 -> 59s" test "$(fmt_secs 59)" = 59s
check "fmt_secs 125 -> 2m05s" test "$(fmt_secs 125)" = 2m05s
p=$(progress 3 10 "$(($(now) - 20))" "thing" 2>&1)
check "progress prints n/N, elapsed and an ETA ($p)" grep -qE '^\[3/10\] thing \(elapsed 2[01]s, ETA 1m[12][0-9]s\)$' <<<"$p"
check "known_variants lists upstream and rfc" bash -c ". '$LAB_ROOT/lib/common.sh'; known_variants | grep -qx upstream && known_variants | grep -qx rfc"
rc=0
(check_variant nosuch) 2>/dev/null || rc=$?
check "check_variant of an unknown name exits 2" test "$rc" = 2
