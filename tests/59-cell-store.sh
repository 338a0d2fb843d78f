#!/bin/bash
# 59-cell-store.sh: the cell store (lib/cellstore.sh, issue 19). Without
# boots: the key changes when any input changes and not when only the output
# path does; kvm cells and host-caused outcomes are never stored; an entry is
# written whole; a corrupt or partial entry is detected and removed. With
# boots (nohooks, bench-nop, 1 guest second): a stored cell is restored with
# identical bytes and no boot; a corrupt entry is recomputed; a timeout is not
# stored; LAB_CELL_VERIFY=1 catches a planted difference. A scratch store
# (LAB_CELLS), so the shared one is never touched.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
unset LAB_NO_CELL_STORE
t=$(mktemp -d "${TMPDIR:-/tmp}/lab-cells.XXXXXX")
trap 'rm -rf "$t"' EXIT
export LAB_CELLS=$t/cells
# shellcheck source=lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

# --- keys -------------------------------------------------------------------
mkdir -p "$t/in" "$t/bin" "$t/fw"
echo kernel >"$t/in/bzImage"
echo initrd >"$t/in/initrd"
echo plugin >"$t/in/plugin.so"
echo map >"$t/in/System.map"
printf '#!/bin/sh\necho "QEMU emulator version 7.2.0 (fake)"\n' >"$t/bin/qemu-system-x86_64"
chmod +x "$t/bin/qemu-system-x86_64"
for f in "${LAB_CELL_FIRMWARE[@]}"; do echo "$f" >"$t/fw/$f"; done
export LAB_CELL_FIRMWARE_DIRS=$t/fw
# key [NAME=VALUE...]: the key of a boot record with these inputs changed
key() {
	local out=$t/out state=idle wl=bench-nop prof="" script="" runtime=1 seed=1 cmdline="console=ttyS0 lab.pad=px" mem=1024 plug="insns=io_issue_sqe"
	(($# == 0)) || local "$@"
	PATH=$t/bin:$PATH cell_record "$out" "$state" "$wl" "$prof" "$script" "$runtime" "$seed" "$cmdline" -- \
		qemu-system-x86_64 -accel tcg -m "$mem" -seed "$seed" -kernel "$t/in/bzImage" -initrd "$t/in/initrd" \
		-append "$cmdline" -serial "file:$out/console.log" \
		-plugin "file=$t/in/plugin.so,map=$t/in/System.map,out=$out/attrib.out,$plug" >"$t/rec"
	cell_key "$t/rec"
}
base=$(key)
check "key: same inputs give the same key" test "$base" = "$(key)"
check "key: another output path gives the same key" test "$base" = "$(key out="$t/elsewhere")"
changed=() same=()
for change in state=off wl=bench-read prof=bench-nop script=disable-bug runtime=2 seed=2 \
	cmdline="console=ttyS0 lab.pad=pxx" mem=2048 plug=insns=other; do
	if [[ $(key "$change") == "$base" ]]; then same+=("$change"); else changed+=("$change"); fi
done
# content of files the argv names, QEMU's binary, a firmware ROM, a workload file
for f in "$t/in/bzImage" "$t/in/initrd" "$t/in/plugin.so" "$t/in/System.map" \
	"$t/bin/qemu-system-x86_64" "$t/fw/bios-256k.bin" "$t/fw/vgabios-stdvga.bin"; do
	cp "$f" "$f.orig"
	echo "# changed" >>"$f"
	if [[ $(key) == "$base" ]]; then same+=("${f#"$t"/}"); else changed+=("${f#"$t"/}"); fi
	mv "$f.orig" "$f"
done
check "key: returns to the base key once inputs are restored" test "$base" = "$(key)"
check "key: every input changes it (${#changed[@]} changed; unchanged: ${same[*]:-none})" test ${#same[@]} -eq 0
record_ok() { grep -q '^schema=' "$t/rec" && grep -q '^firmware=bios-256k.bin [0-9a-f]\{64\}$' "$t/rec" && ! grep -q "$t/out" "$t/rec"; }
check "key record: schema and firmware sha256 present, no output path" record_ok

# --- store rules and integrity, no boot --------------------------------------
store_on_rules() { ! cell_store_on kvm && ! cell_store_on tcg-wall && cell_store_on tcg && ! LAB_NO_CELL_STORE=1 cell_store_on tcg; }
check "store: on for tcg cells, off for kvm and tcg-wall cells and with LAB_NO_CELL_STORE=1" store_on_rules
host_stored=""
for s in timeout killed qemu-error verify-mismatch; do cell_storable "$s" && host_stored+=" $s"; done
guest_stored=""
for s in ok panic kernel-warning guest-error; do cell_storable "$s" && guest_stored+=" $s"; done
check "store: host outcomes never stored (stored:${host_stored:- none}), guest outcomes stored (${guest_stored# })" \
	test -z "$host_stored" -a "$guest_stored" = " ok panic kernel-warning guest-error"
mkdir -p "$t/o1"
echo console >"$t/o1/console.log"
echo results >"$t/o1/results.txt"
k=$(cell_key "$t/rec")
cell_store "$k" "$t/rec" "$t/o1" ok 0 3.1
check "store: an entry is found after it is stored, with no temp dir left" \
	both cell_lookup "$k" -- test -z "$(find "$LAB_CELLS" -maxdepth 1 -name '.tmp.*')"
echo tampered >>"$(cell_dir "$k")/out/results.txt"
rc=0
warn=$(cell_lookup "$k" 2>&1) || rc=$?
check "store: a tampered entry is a miss, named in a warning, and removed ($warn)" \
	both test "$rc" = 1 -- both grep -q "WARNING: entry $k is corrupt" <<<"$warn" -- test ! -e "$(cell_dir "$k")"
cell_store "$k" "$t/rec" "$t/o1" ok 0 3.1
rm "$(cell_dir "$k")/sha256sums"
miss() { ! cell_lookup "$1" 2>/dev/null; }
check "store: a partial entry (no sha256sums) is a miss" miss "$k"
# the batch lookup (a warm matrix's): the same verdicts as one by one
for n in 1 2 3 4; do echo "record $n" >"$t/rec$n"; kk[n]=$(cell_key "$t/rec$n"); cell_store "${kk[n]}" "$t/rec$n" "$t/o1" ok 0 1.0; done
echo tampered >>"$(cell_dir "${kk[2]}")/out/console.log"
rm "$(cell_dir "${kk[3]}")/outcome"
cp "$t/rec1" "$(cell_dir "${kk[4]}")/record" # a record that is not its key's
(cd "$(cell_dir "${kk[4]}")" && find record outcome out -type f | LC_ALL=C sort | xargs sha256sum >sha256sums)
warn=$(cell_lookup_many "${kk[@]}" "$(printf '%064d' 0)" 2>&1)
cell_lookup_many "${kk[1]}" "${kk[2]}" "${kk[3]}" "${kk[4]}" 2>/dev/null
check "store: a batch lookup keeps the intact entry only (${!CELL_INTACT[*]}) and warns of the 3 damaged ones" \
	both test "${!CELL_INTACT[*]}" = "${kk[1]}" -- both test "$(grep -c 'is corrupt' <<<"$warn")" = 3 -- \
	test ! -e "$(cell_dir "${kk[2]}")" -a ! -e "$(cell_dir "${kk[3]}")" -a ! -e "$(cell_dir "${kk[4]}")"
# the parsed-lines memo (parse-results.sh --each): equal to a fresh parse, and
# a memo whose content was changed is not trusted
pr() { "$LAB_ROOT/scripts/analysis/parse-results.sh" "$@"; }
res=$LAB_ROOT/tests/data/parse/fio-two-pass.txt
fresh=$( (echo "@@file $res"; pr "$res") )
m1=$(pr --each "$res") m2=$(pr --each "$res")
memo=$(find "$LAB_CELLS/.parsed" -type f ! -name '*.sum' | head -1)
echo "workload=planted rc=0 ops_per_sec=1 ns_per_op=1" >>"$memo"
m3=$(pr --each "$res")
check "parse memo: first and second --each equal a fresh parse; a tampered memo is parsed afresh ($(basename "$res"))" \
	both test -n "$memo" -a "$m1" = "$fresh" -- both test "$m2" = "$fresh" -- test "$m3" = "$fresh"
# analysis memos (memo_stdout): a miss runs and stores, a hit does not run,
# a tampered memo is warned of and computed again, a failure stores nothing
calls=$t/memo-calls
step() { echo run >>"$calls"; printf 'out %s\n' "$1"; }
fails() { echo partial; return 3; }
mo1=$(memo_stdout test k1 step a 2>/dev/null) mo2=$(memo_stdout test k1 step a 2>/dev/null)
check "memo: a miss runs the step and stores it, a hit reads it without running it" \
	both test "$mo1" = "out a" -a "$mo2" = "out a" -- test "$(wc -l <"$calls")" = 1
echo planted >>"$LAB_CELLS/.memo/test/k1"
mo3=$(memo_stdout test k1 step a 2>"$t/memo.err")
check "memo: a tampered memo is named, not trusted, and computed again" \
	both test "$mo3" = "out a" -a "$(wc -l <"$calls")" = 2 -- grep -q 'memo .*k1 does not match its sum' "$t/memo.err"
rc=0
memo_stdout test k2 fails >/dev/null 2>&1 || rc=$?
check "memo: a failing step keeps its status and stores nothing" both test "$rc" = 3 -- test ! -e "$LAB_CELLS/.memo/test/k2"
# a full disk while the copy is written (its temp file is /dev/full): the
# step's output still comes out whole, and nothing is stored
ln -s /dev/full "$LAB_CELLS/.memo/test/.k3.$$"
rc=0
mo4=$(memo_stdout test k3 step c 2>/dev/null) || rc=$?
check "memo: a copy that cannot be written (a full disk) is not stored; the output comes out whole" \
	both test "$rc" = 0 -a "$mo4" = "out c" -- test ! -e "$LAB_CELLS/.memo/test/k3" -a ! -e "$LAB_CELLS/.memo/test/k3.sum"
# memo_key: a run's files key alike in any run dir, and a byte changes the key
mkdir -p "$t/runA" "$t/runB"
echo "cells 1" | tee "$t/runA/cells.csv" >"$t/runB/cells.csv"
printf '%s\n' "$t/runA/cells.csv" "$t/runA/missing.csv" >"$t/listA"
printf '%s\n' "$t/runB/cells.csv" "$t/runB/missing.csv" >"$t/listB"
memo_key "$t/listA" x "$t/runA"; kA=$REPLY
memo_key "$t/listB" x "$t/runB"; kB=$REPLY
echo "cells 2" >"$t/runB/cells.csv"
memo_key "$t/listB" x "$t/runB"; kC=$REPLY
memo_key "$t/listA" y "$t/runA"; kD=$REPLY
check "memo key: the same files in another run dir give the same key; a changed file or text another" \
	both test "$kA" = "$kB" -- test "$kC" != "$kA" -a "$kD" != "$kA"

# the analysis of a run (summary.sh, plots.sh, report.sh): a small run cut
# from the published one (nohooks, its A/A, upstream; off and idle), then a
# copy under another run id: the copy computes nothing (every memo a hit, the
# tampered figure set aside, which is named and drawn again) and gives the
# same summary.csv, figures and report
# (a store of its own, so that only these memos are counted)
analysis() { LAB_CELLS=$t/an-cells LAB_RESULTS=$t/results "$LAB_ROOT/scripts/analysis/summary.sh" "$1" && LAB_CELLS=$t/an-cells LAB_RESULTS=$t/results "$LAB_ROOT/scripts/report/plots.sh" "$1" &&
	LAB_CELLS=$t/an-cells LAB_RESULTS=$t/results "$LAB_ROOT/scripts/report/report.sh" "$1"; }
pub=$LAB_ROOT/results/$(head -1 "$LAB_ROOT/results/PUBLISHED")
if quick; then
	skip "memo: a run's analysis read back under another run id" "--quick"
elif [[ ! -f $pub/attribution.csv ]]; then
	skip "memo: a run's analysis read back under another run id" "the published run $pub has no attribution.csv"
else
	a=$t/results/cut-a keep='^(nohooks|nohooks-aa|upstream),(off|idle),'
	mkdir -p "$a/paths"
	for f in cells.csv attribution.csv footprint.csv; do awk -v k="$keep" 'NR == 1 || ($0 ~ k)' "$pub/$f" >"$a/$f"; done
	sed -e 's/^variants=.*/variants=nohooks,nohooks-aa,upstream/' -e 's/^states=.*/states=off,idle/' -e 's/^bases=.*/bases=6.1/' "$pub/matrix.conf" >"$a/matrix.conf"
	cp "$pub/manifest.json" "$a/"
	grep ' variant=upstream ' "$pub/streams.txt" >"$a/streams.txt" || true
	cp "$pub"/paths/{nohooks,upstream}.{off,idle}.* "$a/paths/"
	cp -r "$a" "$t/results/cut-b"
	rc=0
	analysis cut-a >"$t/an1.log" 2>&1 || rc=$?
	nmemo=$(find "$t/an-cells/.memo" -type f | wc -l)
	echo planted >>"$(find "$t/an-cells/.memo/plots" -type f ! -name '*.sum' | head -1)"
	analysis cut-b >"$t/an2.log" 2>&1 || rc=$?
	check "memo: a copy of a run under another id reads its summary, its figure set ($(find "$t/an-cells/.memo/plot" -name '*.sum' | wc -l) figures) and 5 report sections back; the tampered figure set is named and drawn again, from the figures' own memos" \
		both test "$rc" = 0 -a "$nmemo" = "$(find "$t/an-cells/.memo" -type f | wc -l)" -a "$(grep -c 'does not match its sum' "$t/an2.log")" = 1 -- \
		both test "$(ls "$t/an-cells/.memo")" = "$(printf '%s\n' plot plots report-attribution report-bases report-decision report-findings report-headline summary)" -- \
		both cmp -s "$a/summary.csv" "$t/results/cut-b/summary.csv" -- both diff -r "$a/plots" "$t/results/cut-b/plots" -- \
		cmp -s <(sed 's/cut-a/RUN/g' "$a/report.md") <(sed 's/cut-b/RUN/g' "$t/results/cut-b/report.md")
fi

if quick; then
	skip "store: boots (hit, corrupt, timeout, verify)" "--quick"
	exit 0
fi
accel=$("$LAB_ROOT/guest/accel.sh" auto 2>/dev/null || echo none)
if [[ $accel != tcg ]]; then
	skip "store: boots (hit, corrupt, timeout, verify)" "accelerator is $accel: only tcg-icount cells are stored"
	exit 0
fi
# --- boots -------------------------------------------------------------------
# boot N [boot.sh options]: one nohooks bench-nop boot into $t/bN; prints cell= and status=
boot() {
	local n=$1
	shift
	"$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads bench-nop --out "$t/b$n" "$@" nohooks idle \
		2>"$t/b$n.err" || true
	echo "$(sed -n 's/^cell=//p' "$t/b$n/boot.info") $(sed -n 's/^status=//p' "$t/b$n/boot.info")"
}
same_bytes() { cmp -s "$t/b$1/results.txt" "$t/b$2/results.txt" && cmp -s "$t/b$1/console.log" "$t/b$2/console.log"; }
s0=$(now)
r1=$(boot 1)
w1=$(($(now) - s0))
check "boot: the first boot runs and is stored ($r1, ${w1}s)" test "$r1" = "stored ok"
k=$(sed -n 's/^cell_key=//p' "$t/b1/boot.info")
s0=$(now)
r2=$(boot 2)
w2=$(($(now) - s0))
check "boot: the second is restored from the store, byte-identical ($r2, ${w2}s)" \
	both test "$r2" = "hit ok" -- same_bytes 1 2
check "boot: a hit keeps the computing boot's wall time (cells.csv stays byte-identical)" \
	test "$(grep wall_secs "$t/b1/boot.info")" = "$(grep wall_secs "$t/b2/boot.info")"
# corrupt: truncate the stored results
: >"$(cell_dir "$k")/out/results.txt"
r3=$(boot 3)
check "boot: a corrupt entry is named, recomputed and stored again, byte-identical ($r3)" \
	both grep -q 'is corrupt' "$t/b3.err" -- both test "$r3" = "stored ok" -- same_bytes 1 3
# a host-caused outcome is never stored: a deadline too short to boot
r4=$(boot 4 --seed 7 --timeout 2)
k4=$(sed -n 's/^cell_key=//p' "$t/b4/boot.info")
check "boot: a timeout is not stored ($r4)" both test "$r4" = "miss timeout" -- test ! -e "$(cell_dir "$k4")"
# verify: rerun every hit; first an intact entry, then one with a planted difference
r5=$(LAB_CELL_VERIFY=1 boot 5)
check "verify: an intact entry reruns identical ($r5)" test "$r5" = "verified ok"
d=$(cell_dir "$k")
sed -i 's/^result mode=\([a-z]*\) ops=/result mode=\1 ops=9/' "$d/out/results.txt"
grep -q . "$d/out/results.txt" && ! cmp -s "$d/out/results.txt" "$t/b1/results.txt" || echo "# planting failed"
(cd "$d" && find record outcome out -type f | LC_ALL=C sort | xargs sha256sum >sha256sums)
rc=0
LAB_CELL_VERIFY=1 "$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads bench-nop --out "$t/b6" nohooks idle 2>"$t/b6.err" || rc=$?
check "verify: a planted difference fails the boot loudly (rc $rc, $(grep -o 'VERIFY FAILED.*files: [a-z. ]*' "$t/b6.err" | head -1))" \
	both test "$rc" = 1 -- both grep -q '^status=verify-mismatch' "$t/b6/boot.info" -- grep -q 'VERIFY FAILED.*results.txt' "$t/b6.err"
check "verify: the disagreeing entry is moved out of the store (kept in .mismatch/), so the next boot recomputes it" \
	both test ! -e "$d" -- test -n "$(find "$LAB_CELLS/.mismatch" -mindepth 1 -maxdepth 1 -name "$k.*")"
# --- the batch restore (guest/boot.sh --restore-batch: a warm matrix's path) ---
r7=$(boot 7)
r10=$(boot 10)
k7=$(sed -n 's/^cell_key=//p' "$t/b7/boot.info")
initrd=$("$LAB_ROOT/guest/build-initramfs.sh" 2>/dev/null)
printf '%s\n' "$t/b8 1 1 bench-nop - nohooks idle" "$t/b9 9 1 bench-nop - nohooks idle" >"$t/batch"
batch() { LAB_BOOT_INITRD=$initrd "$LAB_ROOT/guest/boot.sh" --accel tcg --restore-batch "$t/batch" 2>"$t/batch.err"; }
restored=$(batch)
# info_as N: boot N's boot.info with its output dir named OUT
info_as() { sed "s#$t/b$1#OUT#g" "$t/b$1/boot.info"; }
check "batch: the stored boot is restored ($r7, then $r10 one by one) with the same boot.info and bytes as a hit; the unstored one is left alone" \
	both test "$restored" = "$t/b8" -- both test "$(info_as 8)" = "$(info_as 10)" -- both same_bytes 8 10 -- test ! -e "$t/b9/boot.info"
: >"$(cell_dir "$k7")/out/console.log"
restored=$(batch)
check "batch: a corrupt entry is not restored, named in a warning, and removed" \
	both test -z "$restored" -- both grep -q "entry $k7 is corrupt" "$t/batch.err" -- test ! -e "$(cell_dir "$k7")"
# --- a warm matrix: its boots restored in batches (matrix.sh restore jobs) ---
mx() { LAB_RESULTS=$t/results "$LAB_ROOT/run.sh" matrix --variants nohooks --states off,idle --workloads bench-nop \
	--reps 2 --cells-only --accel tcg --run-id "$1" >"$t/$1.log" 2>&1; }
mx cold1 || true
mx warm1 || true
nboot=$(grep -c '^\[[0-9]*/[0-9]*\] boot ' "$t/warm1.log" || true)
check "matrix: a second run restores every boot in a batch (${nboot} booted; $(grep -o 'restored [0-9]* boots' "$t/warm1.log" | paste -sd, -)) with the first run's cells.csv" \
	both test "$nboot" = 0 -- both grep -q 'restored 4 boots from the cell store' "$t/warm1.log" -- \
	cmp -s "$t/results/cold1/cells.csv" "$t/results/warm1/cells.csv"
