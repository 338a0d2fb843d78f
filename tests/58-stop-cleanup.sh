#!/bin/bash
# Nothing outlives a stop, and nothing corrupt is trusted (issue 20), with
# fake kernels and a fake QEMU (tests/fake-lab.sh): SIGINT and SIGKILL of the
# matrix during its attribution boots leave no attribute.sh, boot.sh or QEMU
# and no holder of the run's lock; SIGKILL of the matrix during a build
# leaves no build running; --resume retries a boot the host failed (killed,
# qemu-error) and exits non-zero while one remains; a truncated bzImage or
# initramfs in the cache is rebuilt, not booted.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "stop cleanup with fake kernels (prepares kernel trees)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
# anything of ours still alive at the end is stopped by pid
cleanup() {
	local p
	for p in $(cat "$tmp"/pids.* 2>/dev/null | awk '{ print $2 }') ${watch_pids:-}; do
		kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
[[ -z ${LAB_TEST_KEEP:-} ]] || trap - EXIT
fake_lab "$tmp" fakea fakeb
m=$LAB_ROOT/scripts/run/matrix.sh
alive() { kill -0 "$1" 2>/dev/null; }
qemu_count() { (($(grep -c '^qemu ' "$FAKE_PIDS") >= $1)); }
# all_gone PID...: none of them is alive
all_gone() {
	local p
	for p; do alive "$p" && return 1; done
	return 0
}
margs=(--variants fakea --states idle --workloads bench-nop --reps 1 --runtime 1 --profile none --accel tcg --jobs 1)

# 1. a stop during the attribution boots (SIGINT, then SIGKILL): the fake
# QEMU hangs in every attribution boot (nokaslr) and the matrix is stopped
# while one runs
for sig in INT KILL; do
	export FAKE_PIDS=$tmp/pids.$sig
	: >"$FAKE_PIDS"
	d=$LAB_RESULTS/a-${sig,,}
	set -m
	LAB_ATTRIB_WORKLOADS=bench-nop FAKE_QEMU_MODE=hang-attrib "$m" "${margs[@]}" --run-id "a-${sig,,}" >"$tmp/a-$sig.log" 2>&1 &
	mpid=$!
	set +m
	# the cell's QEMU, then the attribution boot's
	wait_for 120 qemu_count 2 || true
	sleep 1
	mapfile -t pids < <({ awk '{ print $2 }' "$FAKE_PIDS"; pgrep -f "attribute.sh --cell $d" || true; pgrep -f "boot.sh .*--out $d/" || true; } | sort -u)
	watch_pids="${pids[*]} $mpid"
	have_attr=$(pgrep -f "attribute.sh --cell $d" | wc -l)
	kill "-$sig" "$mpid" 2>/dev/null || true
	if ((have_attr > 0)) && wait_for 10 all_gone "$mpid" "${pids[@]}"; then
		ok "SIG$sig of the matrix during an attribution boot: matrix, attribute.sh, boot.sh and QEMU (${#pids[@]} processes) gone within 10 s"
	else
		ps -o pid,ppid,args -p "$(IFS=,; echo "${pids[*]:-1}")" || true
		tail -3 "$tmp/a-$sig.log"
		not_ok "SIG$sig of the matrix during an attribution boot: everything gone within 10 s (attribute.sh seen: $have_attr)"
	fi
	wait "$mpid" 2>/dev/null || true
	# one plan: the attribution boot is the timed cell's successor in the
	# matrix's own loop and progress line, not a second scheduler's
	check "after SIG$sig: the matrix's progress line counted the attribution boot as boot 2 of 2" \
		grep -q '^\[2/2\] attribution boot fakea / idle (bench-nop' "$tmp/a-$sig.log"
	check "after SIG$sig no process holds the run's lock" flock -n "$d/.lock" true
	check "after SIG$sig no process is left in the run dir's boots" test -z "$(pgrep -f "$d/" || true)"
done

# 2. SIGKILL of the matrix while a kernel builds: the build goes with it
export FAKE_PIDS=$tmp/pids.build
: >"$FAKE_PIDS"
set -m
LAB_ATTRIB_WORKLOADS=none FAKE_MAKE_SECS=120 "$m" "${margs[@]}" --variants fakeb --run-id b1 >"$tmp/b1.log" 2>&1 &
mpid=$!
set +m
wait_for 120 have_pid make || true
mk=$(fake_pid make)
bpids=$(pgrep -f "kernel/build.sh fakeb" | paste -sd' ' || true)
watch_pids="$mk $bpids $mpid"
kill -KILL "$mpid"
wait "$mpid" 2>/dev/null || true
# shellcheck disable=SC2086 # pid lists
if [[ -n $mk ]] && wait_for 10 all_gone "$mk" $bpids; then
	ok "SIGKILL of the matrix during a build: build.sh and make gone within 10 s"
else
	not_ok "SIGKILL of the matrix during a build: build.sh and make gone within 10 s (make ${mk:-not seen}, build.sh ${bpids:-none})"
fi

# 3. --resume retries boots the host failed, and fails while one remains
export FAKE_PIDS=$tmp/pids.resume
: >"$FAKE_PIDS"
margs=(--variants fakea --states off --workloads bench-nop --reps 1 --runtime 1 --profile none --accel tcg)
export LAB_ATTRIB_WORKLOADS=none
"$m" "${margs[@]}" --run-id r1 >"$tmp/r1.log" 2>&1 || true
d=$LAB_RESULTS/r1
cell=$d/cells/fakea.off.1.csv
mark() { awk -F, -v OFS=, -v st="$1" '{ $7 = st; $8 = ""; $9 = "" } 1' "$cell" >"$cell.x" && mv "$cell.x" "$cell"; }
mark killed
rc=0
"$m" --resume r1 >"$tmp/r2.log" 2>&1 || rc=$?
check "--resume retries a boot whose QEMU was killed (rc $rc)" \
	both grep -q "failed on the host's side (killed); it runs again" "$tmp/r2.log" -- grep -q '^fakea,off,bench-nop,1,.*,ok,' "$d/cells.csv"
mark killed
rc=0
FAKE_QEMU_MODE=fail "$m" --resume r1 >"$tmp/r3.log" 2>&1 || rc=$?
check "--resume exits non-zero while a host-caused failure remains (rc $rc)" \
	both test "$rc" -ne 0 -- grep -q '^fakea,off,bench-nop,1,.*,qemu-error,' "$d/cells.csv"
check "... and says so (1 failed cells)" grep -q ' 1 failed cells' "$tmp/r3.log"

# 4. a corrupt cache is not trusted: a truncated bzImage is rebuilt
image=$(build_of fakea)/arch/x86/boot/bzImage
head -c 5 "$image" >"$image.x" && mv "$image.x" "$image"
"$LAB_ROOT/kernel/build.sh" fakea >"$tmp/k.log" 2>&1 || true
check "a truncated bzImage is found out and rebuilt" \
	both grep -q 'does not match the sha256 recorded when it was built' "$tmp/k.log" -- test "$(sha256_of "$image")" = "$(cat "$(build_of fakea)/.lab-image-sha256")"
check "... and its image is whole again" grep -q 'fake bzImage' "$image"

# and a truncated initramfs (in a cache of this test's own)
c=$tmp/cache
mkdir -p "$c"
ln -s "$LAB_CACHE/guest-debs" "$c/guest-debs"
if LAB_CACHE=$c "$LAB_ROOT/guest/build-initramfs.sh" >"$tmp/i1.out" 2>"$tmp/i1.log"; then
	img=$(cat "$tmp/i1.out")
	size=$(stat -c %s "$img")
	truncate -s 4096 "$img"
	LAB_CACHE=$c "$LAB_ROOT/guest/build-initramfs.sh" >"$tmp/i2.out" 2>"$tmp/i2.log" || true
	# (the same size: file mtimes differ between two builds, so the bytes do)
	check "a truncated initramfs is found out and rebuilt" \
		both grep -q 'does not match the sha256 recorded when it was built' "$tmp/i2.log" -- \
		test "$(stat -c %s "$img"):$(sha256_of "$img")" = "$size:$(cat "$img.sha256")"
else
	tail -3 "$tmp/i1.log"
	not_ok "the initramfs builds in a fresh cache"
fi
