#!/bin/bash
# Matrix integrity with fake kernels and a fake QEMU (tests/fake-lab.sh): every
# planned boot is in report.md (ok / not run with the reason), --resume of a
# committed run (cells.csv, no cells/) keeps its cells, a truncated cell file
# is rerun, and a run dir whose owner holds its lock is refused.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "matrix integrity with fake kernels (prepares kernel trees)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake_lab "$tmp" fakea fakeb
# attribution boots need the real QEMU plugin: none here (tests/56 does the same)
export LAB_ATTRIB_WORKLOADS=none
m=$LAB_ROOT/scripts/run/matrix.sh
args=(--workloads bench-nop --reps 1 --runtime 1 --profile none --accel tcg)
rc=0
FAKE_MAKE_FAIL=fakeb $m --variants fakea,fakeb --states off,idle "${args[@]}" --run-id r1 >"$tmp/r1.log" 2>&1 || rc=$?
d=$LAB_RESULTS/r1
check "a run with a kernel that fails to build exits non-zero (rc $rc)" test "$rc" -ne 0
check "report.md names every planned boot: fakea ok" grep -q '^- fakea / off: rep 1 ok' "$d/report.md"
check "report.md names the boots not run and why" grep -q '^- fakeb / idle: rep 1 not run (kernel fakeb failed to build' "$d/report.md"
# a committed run: cells.csv but no cells/ or raw/
before=$(grep -c ',ok,' "$d/cells.csv" || true)
rm -rf "$d/cells" "$d/raw"
rc=0
FAKE_MAKE_FAIL=fakeb $m --resume r1 >"$tmp/r2.log" 2>&1 || rc=$?
check "--resume of a committed run keeps its $before ok cells" test "$(grep -c ',ok,' "$d/cells.csv" || true)" = "$before"
check "--resume of a committed run reruns none of them" grep -q '2 of 4 boots already done' "$tmp/r2.log"
# a truncated cell file is not done
head -c 20 "$d/cells/fakea.off.1.csv" >"$d/cells/x" && mv "$d/cells/x" "$d/cells/fakea.off.1.csv"
FAKE_MAKE_FAIL=fakeb $m --resume r1 >"$tmp/r3.log" 2>&1 || true
check "a truncated cell file is rerun on --resume" grep -q '^fakea,off,bench-nop,1,.*,ok,' "$d/cells.csv"
# --seed-base: a rerun samples new seeds, and says which
rc=0
$m --variants fakea --states off "${args[@]}" --seed-base 500 --run-id r4 >"$tmp/r4.log" 2>&1 || rc=$?
d4=$LAB_RESULTS/r4
seeds_recorded() {
	grep -q '^fakea,off,bench-nop,1,501,.*,ok,' "$d4/cells.csv" && grep -qx 'seed_base=500' "$d4/matrix.conf" &&
		[[ $(jq -c '[.matrix.seed_base, .matrix.seeds, .matrix.aa_seeds]' "$d4/manifest.json") == '[500,[501],[1501]]' ]]
}
check "--seed-base 500 (rc $rc): rep 1 boots with seed 501, in cells.csv, matrix.conf and the manifest" seeds_recorded
# the lock: a live owner makes --resume refuse
flock "$d/.lock" sleep 20 &
lpid=$!
sleep 1
rc=0
$m --resume r1 >"$tmp/r4.log" 2>&1 || rc=$?
check "--resume of a run whose owner is alive is refused (rc $rc)" both test "$rc" -ne 0 -- grep -q 'in use by a running matrix' "$tmp/r4.log"
kill "$lpid" 2>/dev/null || true
wait "$lpid" 2>/dev/null || true
# two matrices with one run id: exactly one claims it
$m --variants fakea "${args[@]}" --states off --run-id twin >"$tmp/t1.log" 2>&1 & p1=$!
$m --variants fakea "${args[@]}" --states off --run-id twin >"$tmp/t2.log" 2>&1 & p2=$!
r1=0 r2=0
wait "$p1" || r1=$?
wait "$p2" || r2=$?
check "two matrices with one --run-id: one runs, one is refused (rc $r1, $r2)" test "$(( (r1 == 0) + (r2 == 0) ))" = 1
