#!/bin/bash
# Kills and a failing gnuplot, with fake kernels and a fake QEMU
# (tests/fake-lab.sh): guest/boot.sh tells a QEMU killed from outside
# (status killed) from one that ran past its deadline (timeout); a SIGKILLed
# matrix takes its matrix-cell.sh and QEMUs with it, and no guest writes into
# a raw dir afterwards; a killed timeout(1) wrapper takes QEMU with it; a
# gnuplot that fails makes ./run.sh matrix exit non-zero with a clear line,
# summary.csv intact.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "kill chain and plot failure with fake kernels (prepares a kernel tree)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
# anything of ours still alive at the end is stopped by pid (recorded by the fakes)
cleanup() {
	local _ p
	while read -r _ p; do kill -KILL "$p" 2>/dev/null || true; done < <(cat "$tmp"/pids.* 2>/dev/null)
	rm -rf "$tmp"
}
trap cleanup EXIT
fake_lab "$tmp" fakea
# attribution boots need the real QEMU plugin: none here
export LAB_ATTRIB_WORKLOADS=none
# each part records its fake QEMUs in a file of its own (FAKE_PIDS)
export FAKE_PIDS=$tmp/pids.1
: >"$FAKE_PIDS"
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! alive "$1"; }
status_of() { sed -n 's/^status=//p' "$1/boot.info" 2>/dev/null; }
# qemu_count N: the fakes have recorded at least N QEMUs
qemu_count() { (($(grep -c '^qemu ' "$FAKE_PIDS") >= $1)); }
boot=(--accel tcg --runtime 1 --workloads bench-nop)

# 1a. QEMU SIGKILLed from outside, long before its deadline: killed
FAKE_QEMU_MODE=hang "$LAB_ROOT/guest/boot.sh" "${boot[@]}" --timeout 60 --out "$tmp/b1" fakea off >"$tmp/b1.log" 2>&1 &
bpid=$!
wait_for 60 qemu_count 1 || true
qpid=$(fake_pid qemu)
[[ -n $qpid ]] && kill -KILL "$qpid"
wait "$bpid" || true
check "boot.sh: a QEMU killed with kill -9 before its deadline is 'killed' (got '$(status_of "$tmp/b1")')" \
	test "$(status_of "$tmp/b1")" = killed

# 1b. QEMU that runs past its deadline: timeout
FAKE_QEMU_MODE=hang "$LAB_ROOT/guest/boot.sh" "${boot[@]}" --timeout 3 --out "$tmp/b2" fakea off >"$tmp/b2.log" 2>&1 || true
check "boot.sh: a QEMU that runs past its deadline is 'timeout' (got '$(status_of "$tmp/b2")')" \
	test "$(status_of "$tmp/b2")" = timeout

# 2a. the timeout(1) wrapper SIGKILLed: QEMU dies with it
FAKE_PIDS=$tmp/pids.2
: >"$FAKE_PIDS"
FAKE_QEMU_MODE=hang "$LAB_ROOT/guest/boot.sh" "${boot[@]}" --timeout 60 --out "$tmp/b3" fakea off >"$tmp/b3.log" 2>&1 &
bpid=$!
wait_for 60 qemu_count 1 || true
qpid=$(fake_pid qemu)
tpid=$(ps -o ppid= -p "${qpid:-1}" | tr -d ' ')
if [[ -n $qpid && $(ps -o comm= -p "$tpid") == timeout ]]; then
	kill -KILL "$tpid"
	if wait_for 3 dead "$qpid"; then
		ok "a SIGKILLed timeout wrapper takes its QEMU with it"
	else
		not_ok "a SIGKILLed timeout wrapper takes its QEMU with it (QEMU $qpid alive 3 s later)"
	fi
else
	not_ok "a SIGKILLed timeout wrapper takes its QEMU with it (QEMU ${qpid:-not seen}, its parent is not timeout)"
fi
wait "$bpid" || true

# 2b. the matrix SIGKILLed while two guests run: no QEMU or matrix-cell.sh
# lives on, and the guests (due to finish 6 s after they start) write nothing later
FAKE_PIDS=$tmp/pids.3
: >"$FAKE_PIDS"
m=$LAB_ROOT/scripts/run/matrix.sh
margs=(--variants fakea --workloads bench-nop --reps 1 --runtime 1 --profile none --accel tcg --jobs 2)
d=$LAB_RESULTS/k1
FAKE_QEMU_MODE=late FAKE_QEMU_SECS=6 "$m" "${margs[@]}" --states off,idle --run-id k1 >"$tmp/k1.log" 2>&1 &
mpid=$!
wait_for 60 qemu_count 2 || true
killed_at=$(now)
mapfile -t qpids < <(awk '$1 == "qemu" { print $2 }' "$FAKE_PIDS")
mapfile -t cpids < <(pgrep -f "matrix-cell.sh $d " || true)
kill -KILL "$mpid"
wait "$mpid" 2>/dev/null || true
gone() {
	local p
	for p in "${qpids[@]}" "${cpids[@]}"; do alive "$p" && return 1; done
	return 0
}
if ((${#qpids[@]} == 2 && ${#cpids[@]} == 2)) && wait_for 3 gone; then
	ok "SIGKILL of the matrix: its 2 matrix-cell.sh and 2 QEMUs are gone within 3 s"
else
	ps -o pid,ppid,args -p "${qpids[*]} ${cpids[*]}" || true
	not_ok "SIGKILL of the matrix: its matrix-cell.sh and QEMUs are gone within 3 s (saw ${#cpids[@]} cells, ${#qpids[@]} QEMUs)"
fi
# the guests would have written '@@LAB done late' 6 s after they started
wait_left=$((killed_at + 8 - $(now)))
((wait_left <= 0)) || sleep "$wait_left"
late=$(grep -l '@@LAB done' "$d"/raw/*/results.txt 2>/dev/null || true)
check "after SIGKILL of the matrix no guest writes into its raw dirs${late:+ (written: $late)}" test -z "$late"
check "after SIGKILL of the matrix no process holds the run's lock" flock -n "$d/.lock" true

# 3. gnuplot fails: ./run.sh matrix exits non-zero, says so, summary.csv intact
rc=0
"$LAB_ROOT/run.sh" matrix "${margs[@]}" --states off --run-id p1 >"$tmp/p1.log" 2>&1 || rc=$?
check "./run.sh matrix with a working gnuplot exits 0 (rc $rc)" test "$rc" = 0
cp "$LAB_RESULTS/p1/summary.csv" "$tmp/summary.before" 2>/dev/null || true
mkdir -p "$tmp/badbin"
printf '#!/bin/sh\necho "fake gnuplot: failing as asked" >&2\nexit 1\n' >"$tmp/badbin/gnuplot"
chmod +x "$tmp/badbin/gnuplot"
rc=0
PATH=$tmp/badbin:$PATH "$LAB_ROOT/run.sh" matrix --resume p1 >"$tmp/p2.log" 2>&1 || rc=$?
check "a failing gnuplot makes ./run.sh matrix exit non-zero (rc $rc)" test "$rc" -ne 0
check "... with a clear line: 'matrix: plots failed (summary.csv is intact)'" grep -q '^matrix: plots failed (summary.csv is intact)' "$tmp/p2.log"
check "... naming gnuplot's failure" grep -q 'plots: gnuplot failed on plots/.*(exit 1)' "$tmp/p2.log"
check "... and summary.csv is intact (header and 1 row, as before)" \
	both test "$(grep -c . "$LAB_RESULTS/p1/summary.csv" 2>/dev/null)" = 2 -- cmp -s "$tmp/summary.before" "$LAB_RESULTS/p1/summary.csv"
