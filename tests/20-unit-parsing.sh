#!/bin/bash
# Unit tests of the host-side parsing and helpers, on recorded guest output
# (tests/data/parse/: real results streams from a tcg-icount boot).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
data=$LAB_ROOT/tests/data/parse
pr=$LAB_ROOT/scripts/parse-results.sh

out=$("$pr" "$data/ok-two-workloads.txt")
fio=$(grep '^workload=randread-qd128 ' <<<"$out" || true)
check "fio JSON block: rc 0 and IOPS parsed (161972.5)" grep -q 'rc=0 ops_per_sec=161972.5 ' <<<"$fio"
check "fio: ns_per_op = 1e9 / IOPS (6173.887)" grep -q 'ns_per_op=6173.887' <<<"$fio"
check "fio: clat percentiles parsed" grep -q 'clat_p50_ns=593920 clat_p99_ns=610304' <<<"$fio"
nop=$(grep '^workload=bench-nop ' <<<"$out" || true)
check "uring-bench result line parsed (3358322.5 ops/s, 297.768 ns/op)" grep -q 'ops_per_sec=3358322.5 ns_per_op=297.768' <<<"$nop"
check "exactly one line per workload block" test "$(grep -c '^workload=' <<<"$out")" = 2

out=$("$pr" "$data/died-mid-run.txt")
check "a guest that died mid-run keeps the finished workload" grep -q '^workload=randread-qd128 rc=0 ops_per_sec=161972.5' <<<"$out"
check "the unfinished workload is rc=died with no numbers" grep -q '^workload=bench-nop rc=died ops_per_sec=NA ns_per_op=NA' <<<"$out"
printf '@@LAB begin workload=x\n{ "jobs": [ { "read": { "iops": 0 } } ] }\n@@LAB end workload=x rc=0\n' >"${tmp:=$(mktemp)}"
check "zero IOPS is not a number (NA)" grep -q 'ops_per_sec=NA' <<<"$("$pr" "$tmp")"
printf '@@LAB begin workload=x\n{ "jobs": [ garbage\n@@LAB end workload=x rc=0\n' >"$tmp"
check "broken fio JSON gives NA, not a crash" grep -q '^workload=x rc=0 ops_per_sec=NA' <<<"$("$pr" "$tmp")"
rm -f "$tmp"
rc=0
"$pr" /nonexistent 2>/dev/null || rc=$?
check "missing results file: exit 2" test "$rc" = 2

prof=$("$LAB_ROOT/scripts/parse-profile.sh" "$data/profile-blocks.txt")
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
