#!/bin/bash
# Build+boot smoke: ./run.sh matrix --quick (upstream, rfc x off, idle x
# randread-qd128) with a short runtime into a scratch results dir; the cells
# must be ok with parsed, non-zero numbers, the manifest complete, raw logs
# kept; --resume of the finished run must redo nothing.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "matrix --quick smoke (builds and boots)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp
run=smoke
start=$(now)
if "$LAB_ROOT/run.sh" matrix --quick --runtime 2 --run-id "$run" >"$tmp/matrix.log" 2>&1; then
	ok "matrix --quick --runtime 2 completes ($(fmt_secs $(($(now) - start))))"
else
	tail -20 "$tmp/matrix.log"
	not_ok "matrix --quick --runtime 2 completes"
fi
grep -E '^\[[0-9]+/[0-9]+\]' "$tmp/matrix.log" | head -8
# with a cold cache rfc builds in the background while upstream's guests run
if grep -q 'build rfc: make bzImage' "$tmp/matrix.log"; then
	first_boot=$(grep -n '^\[[0-9]*/[0-9]*\] boot upstream' "$tmp/matrix.log" | head -1 | cut -d: -f1)
	rfc_done=$(grep -n 'build rfc: done' "$tmp/matrix.log" | head -1 | cut -d: -f1)
	check "upstream's guests boot while rfc builds (log lines ${first_boot:-none} < ${rfc_done:-none})" test "${first_boot:-999999}" -lt "${rfc_done:-0}"
else
	skip "upstream's guests boot while rfc builds" "rfc was already built in the cache, so there was no build to overlap"
fi
d=$tmp/$run
check "cells.csv has a header and 4 rows" test "$(wc -l <"$d/cells.csv" 2>/dev/null)" = 5
for v in upstream rfc; do
	for s in off idle; do
		row=$(grep "^$v,$s,randread-qd128,1," "$d/cells.csv" 2>/dev/null || true)
		IFS=, read -r _ _ _ _ _ accel status ops ns unit _ <<<"$row"
		if [[ $status == ok ]] && awk -v o="$ops" -v n="$ns" 'BEGIN { exit !(o > 1000 && n > 0) }'; then
			ok "$v/$s: ok, $ops ops/s, $ns $unit/op on $accel"
		else
			echo "row: $row"
			not_ok "$v/$s: ok with non-zero ops/s and ns/op"
		fi
	done
done
accel=$(jq -r .accel "$d/manifest.json" 2>/dev/null || true)
check "manifest.json names the accelerator ($accel)" test -n "$accel"
check "manifest.json has both variants' bzImage sha256" test "$(jq '[.matrix.variants[].bzimage_sha256 | select(length == 64)] | length' "$d/manifest.json" 2>/dev/null)" = 2
check "manifest.json has qemu and package versions" jq -e '.qemu and .packages.fio and .packages["linux-source-6.1"]' "$d/manifest.json"
check "raw console and results logs kept per cell" test "$(find "$d/raw" -name console.log | wc -l)" = 4
if out=$("$LAB_ROOT/run.sh" matrix --resume "$run" 2>&1); then
	check "--resume of a finished run redoes nothing" grep -q '4 of 4 boots already done, 0 to run' <<<"$out"
else
	printf '%s\n' "$out" | tail -5
	not_ok "--resume of a finished run redoes nothing"
fi
# a killed run: drop one finished boot and resume; exactly that boot reruns
rm -f "$d/cells/rfc.idle.1.csv"
if out=$("$LAB_ROOT/run.sh" matrix --resume "$run" 2>&1) && grep -q '3 of 4 boots already done, 1 to run' <<<"$out" &&
	grep -q '^rfc,idle,randread-qd128,1,.*,ok,' "$d/cells.csv"; then
	ok "--resume after a lost boot reruns exactly that one"
else
	printf '%s\n' "$out" | tail -5
	not_ok "--resume after a lost boot reruns exactly that one"
fi
# a real kill: SIGTERM a resuming matrix while its guests run; it must stop
# them, keep what was finished, and a --resume must redo exactly the rest
rm -f "$d/cells/upstream.idle.1.csv" "$d/cells/rfc.off.1.csv"
"$LAB_ROOT/run.sh" matrix --resume "$run" >"$tmp/kill.log" 2>&1 &
mpid=$!
for _ in $(seq 120); do
	grep -q '^\[1/2\] boot' "$tmp/kill.log" && break
	sleep 0.5
done
sleep 2
kill -TERM "$mpid"
rc=0
wait "$mpid" || rc=$?
sleep 1
check "a killed matrix exits 130 and says how to go on (rc $rc)" both test "$rc" = 130 -- grep -q "interrupted; .*--resume $run" "$tmp/kill.log"
if pgrep -af "qemu-system.*$d/raw"; then not_ok "a killed matrix leaves no guest running"; else ok "a killed matrix leaves no guest running"; fi
if out=$("$LAB_ROOT/run.sh" matrix --resume "$run" 2>&1) && grep -q '2 of 4 boots already done, 2 to run' <<<"$out" &&
	test "$(grep -c ',ok,' "$d/cells.csv")" = 4; then
	ok "--resume after the kill reruns the 2 unfinished boots and ends with 4 ok cells"
else
	printf '%s\n' "$out" | tail -5
	not_ok "--resume after the kill reruns the 2 unfinished boots and ends with 4 ok cells"
fi
