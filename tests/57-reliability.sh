#!/bin/bash
# Reliability round 2 (issue 20), the quick probes: a published or committed
# run is never rewritten by --resume (byte for byte), state files and
# matrix.conf are data (never run, never paths), nothing is written through a
# link in a run dir, arguments are checked before setup installs anything,
# empty/duplicate list entries and unbounded numbers are refused, a hostile
# cells.csv row writes nothing, a full disk leaves no half-written file,
# extra arguments are refused, and Ctrl-C stops the test runner.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"
tmp=$(mktemp -d)
mnt=""
cleanup() {
	[[ -z $mnt ]] || umount "$mnt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
real_results=$LAB_ROOT/results
export LAB_RESULTS=$tmp/results LAB_TREES=$tmp/trees
mkdir -p "$LAB_RESULTS"

# setup must not run before the arguments are checked: these fakes record
# any call of the package tools setup.sh uses, and fail
mkdir -p "$tmp/fakebin"
for t in dpkg-query apt-get sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/setup-calls"\nexit 1\n' "$t" "$tmp" >"$tmp/fakebin/$t"
	chmod +x "$tmp/fakebin/$t"
done
# and no kernel build or guest may start: make's bzImage target and QEMU fail
cat >"$tmp/fakebin/make" <<'EOF'
#!/bin/bash
case " $* " in *" bzImage "*) echo "fake make: no kernel builds in this test" >&2; exit 1 ;; esac
exec /usr/bin/make "$@"
EOF
printf '#!/bin/sh\necho "fake qemu: no guests in this test" >&2\nexit 1\n' >"$tmp/fakebin/qemu-system-x86_64"
chmod +x "$tmp/fakebin/make" "$tmp/fakebin/qemu-system-x86_64"
export PATH=$tmp/fakebin:$PATH

# expect DESC RC PATTERN CMD...: CMD exits RC within 60 s, its stderr
# matches PATTERN, and (with one_line=1) is one line
one_line=1
expect() {
	local desc=$1 want=$2 pat=$3 rc=0
	shift 3
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if ((rc == want)) && grep -qE -e "$pat" "$tmp/err" && ((one_line == 0 || $(wc -l <"$tmp/err") == 1)); then ok "$desc"; else
		echo "exit $rc (want $want), stderr:"
		head -5 "$tmp/err" | sed 's/^/    /'
		not_ok "$desc"
	fi
}
# tree_sum DIR: names, types and contents of everything under DIR
tree_sum() { (cd "$1" && find . -printf '%p %y %s\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) | sha256sum; }
m=scripts/run/matrix.sh

# 1. --resume of the published run and of a committed run: refused in one
# line, no byte changed, no .lock left
pub=$(cat "$real_results/PUBLISHED")
before=$(tree_sum "$real_results/$pub")
: >"$tmp/setup-calls"
expect "matrix --resume of the published run $pub is refused" 2 "read-only \(it is the published run" \
	env LAB_RESULTS="$real_results" ./run.sh matrix --resume "$pub"
check "the published run is byte-identical after the refused --resume" test "$(tree_sum "$real_results/$pub")" = "$before"
check "a refused --resume ran no setup" test ! -s "$tmp/setup-calls"
repo=$tmp/repo
mkdir -p "$repo/results/r1"
printf 'variants=upstream\nstates=off\nworkloads=bench-nop\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' >"$repo/results/r1/matrix.conf"
printf 'variant,state,workload,rep,seed,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit,clat_p50_ns,clat_p99_ns,wall_secs,raw\n' >"$repo/results/r1/cells.csv"
git -C "$repo" init -q && git -C "$repo" add results &&
	git -C "$repo" -c user.name=lab -c user.email=lab@example.org commit -qm run
before=$(tree_sum "$repo/results/r1")
expect "matrix --resume of a committed run is refused" 2 "read-only \(git tracks its files" \
	env LAB_RESULTS="$repo/results" $m --resume r1
check "the committed run is byte-identical after the refused --resume (no .lock)" test "$(tree_sum "$repo/results/r1")" = "$before"

# 2. state files are data on the host: not run by attribute.sh, and
# check_state_file refuses code hidden in or after state_setup
lab=$tmp/lab
mkdir -p "$lab"
cp -a lib scripts workloads tools bench kernel "$lab/"
printf 'STATE_NEEDS_AUDIT=0\nstate_setup() { :; }; touch %s/pwned1 # }\n' "$tmp" >"$lab/workloads/states/evil.state"
printf 'STATE_NEEDS_AUDIT=0\nstate_setup() {\n\t:\n} ; touch %s/pwned2 ; _x() {\n}\n' "$tmp" >"$lab/workloads/states/evil2.state"
for s in evil evil2; do
	check "check_state_file refuses $s.state" bash -c ". '$lab/lib/common.sh'; ! (check_state_file '$lab/workloads/states/$s.state') 2>/dev/null"
	mkdir -p "$tmp/attr-$s"
	printf 'variants=upstream\nstates=%s\nworkloads=bench-nop\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' "$s" >"$tmp/attr-$s/matrix.conf"
	LAB_CACHE=$tmp/cache timeout 60 "$lab/scripts/run/attribute.sh" "$tmp/attr-$s" >/dev/null 2>&1 || true
done
check "attribute.sh never runs a state file's code on the host" test ! -e "$tmp/pwned1" -a ! -e "$tmp/pwned2"
rm -f "$lab/workloads/states/evil.state" "$lab/workloads/states/evil2.state"

# 3. matrix.conf names are names: a path in variants= or states= is refused
mkdir -p "$tmp/victim.off" "$tmp/attr-path"
touch "$tmp/victim.off/keep"
printf 'variants=../../../../../../..%s/victim\nstates=off\nworkloads=bench-nop\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' "$tmp" >"$tmp/attr-path/matrix.conf"
expect "attribute.sh refuses variants=../../../victim in matrix.conf" 2 "bad variant name" \
	env LAB_CACHE="$tmp/cache" scripts/run/attribute.sh "$tmp/attr-path"
check "nothing outside the run dir was removed" test -e "$tmp/victim.off/keep"
printf 'variants=upstream\nstates=../../x\nworkloads=bench-nop\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' >"$tmp/attr-path/matrix.conf"
expect "attribute.sh refuses states=../../x in matrix.conf" 2 "bad state name" \
	env LAB_CACHE="$tmp/cache" scripts/run/attribute.sh "$tmp/attr-path"

# 4. no write through a link in a run dir: publish, summary, report, save
pubsrc=$tmp/pubsrc/r-link
mkdir -p "$pubsrc"
cp "$repo/results/r1/cells.csv" "$pubsrc/"
echo '{"lab": {"publishable": true}}' >"$pubsrc/manifest.json"
echo precious >"$tmp/target"
ln -s "$tmp/target" "$pubsrc/summary.csv.tmp"
rc=0
scripts/report/publish.sh "$pubsrc" >/dev/null 2>"$tmp/err" || rc=$?
check "publish refuses a run dir holding a symlink (rc $rc)" both test "$rc" -ne 0 -- grep -q 'symbolic link' "$tmp/err"
check "publish wrote nothing through the link" test "$(cat "$tmp/target")" = precious
check "publish copied nothing into results/" test ! -e "$LAB_RESULTS/r-link"
mkdir -p "$LAB_RESULTS/r2"
cp "$pubsrc/cells.csv" "$LAB_RESULTS/r2/"
ln -s "$tmp/target" "$LAB_RESULTS/r2/summary.csv"
scripts/analysis/summary.sh r2 >/dev/null 2>&1 || true
check "summary never writes through a summary.csv link" test "$(cat "$tmp/target")" = precious
check "save refuses to write through a link" bash -c ". lib/common.sh; ! (save '$LAB_RESULTS/r2/summary.csv' echo x) 2>/dev/null && test \"\$(cat '$tmp/target')\" = precious"
check "save leaves no temp file when its command fails" bash -c ". lib/common.sh; echo old >'$tmp/s.txt'; ! (save '$tmp/s.txt' false) 2>/dev/null; test \"\$(cat '$tmp/s.txt')\" = old && ! ls -a '$tmp' | grep -q '^\.s\.txt\.'"

# 5. arguments are checked before setup may install anything
: >"$tmp/setup-calls"
expect "build ../x: one line, exit 2" 2 "bad variant name" ./run.sh build ../x
expect "matrix --frob: one line, exit 2" 2 "unknown option '--frob'" ./run.sh matrix --frob
expect "test --slow: one line, exit 2" 2 "unknown option '--slow'" ./run.sh test --slow
expect "boot upstream idle --runtime abc: one line, exit 2" 2 "--runtime must be a whole number" ./run.sh boot upstream idle --runtime abc
check "none of them ran setup (calls: $(head -c 80 "$tmp/setup-calls" | tr '\n' ' '))" test ! -s "$tmp/setup-calls"
check "setup's install failure says how to recover an interrupted dpkg" grep -q 'dpkg --configure -a' scripts/run/setup.sh

# 6. empty and duplicate list entries
for l in upstream,,rfc ,upstream ',' 'upstream,'; do
	expect "--variants '$l' is refused" 2 "an empty entry" $m --variants "$l" --accel tcg
done
expect "--variants upstream,upstream is refused" 2 "'upstream' is given twice" $m --variants upstream,upstream --accel tcg
expect "--states off,off is refused" 2 "'off' is given twice" $m --states off,off --accel tcg
mkdir -p "$LAB_RESULTS/empty"
printf 'variants=\nstates=off\nworkloads=\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' >"$LAB_RESULTS/empty/matrix.conf"
expect "variants= in matrix.conf is refused by --resume" 2 "an empty entry" $m --resume empty

# 7. huge and unbounded values, named with their bounds
expect "--reps 99999999999999999999 is refused" 2 "--reps must be a whole number from 1 to 100" $m --reps 99999999999999999999 --accel tcg
expect "--runtime 1e20 is refused" 2 "--runtime must be a whole number from 1 to 3600" $m --runtime 1e20 --accel tcg
expect "--jobs 65 is refused" 2 "--jobs must be a whole number from 1 to 64" $m --jobs 65 --accel tcg
expect "--profile with a path is refused" 2 "bad workload name" $m --profile ../x --accel tcg
expect "boot --runtime 1e20 is refused" 2 "--runtime must be a whole number from 1 to 3600" ./run.sh boot upstream idle --runtime 1e20
expect "boot.sh --timeout abc is refused" 2 "--timeout must be a whole number from 1 to 86400" guest/boot.sh --timeout abc --out "$tmp/b" upstream idle
expect "boot.sh --seed 100001 is refused" 2 "--seed must be a whole number from 0 to 100000" guest/boot.sh --seed 100001 --out "$tmp/b" upstream idle
expect "boot.sh --mode 'x init=/bin/sh' is refused" 2 "--mode must be run or probe" guest/boot.sh --mode 'x init=/bin/sh' --out "$tmp/b" upstream idle
left=$(find "$LAB_RESULTS" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | paste -sd' ')
check "no rejected run left a results dir ($left)" test "$left" = "empty r2"

# 12. a hostile cells.csv row: refused, nothing written outside the run dir
mkdir -p "$LAB_RESULTS/hostile"
printf 'variants=upstream\nstates=off\nworkloads=bench-nop\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' >"$LAB_RESULTS/hostile/matrix.conf"
{
	head -1 "$repo/results/r1/cells.csv"
	echo "../evil,off,bench-nop,1,1,tcg,ok,1000,1000000,instructions,,,1,raw/x"
} >"$LAB_RESULTS/hostile/cells.csv"
one_line=0
expect "--resume with a hostile cells.csv row is refused" 1 "not a cell of this run" $m --resume hostile
check "no file was written outside cells/" test -z "$(find "$LAB_RESULTS" -name '*evil*')"

# 13. small things: missing values and extra arguments
one_line=1
expect "boot --accel without a value" 2 "--accel needs a value" ./run.sh boot upstream idle --accel
expect "boot --out without a value" 2 "--out needs a value" ./run.sh boot upstream idle --out
expect "list --bogus" 2 "unexpected argument '--bogus'" ./run.sh list --bogus
expect "test --quick extra" 2 "unexpected argument 'extra'" ./run.sh test --quick extra
expect "summary a b" 2 "usage: run.sh summary RUN" ./run.sh summary a b
check "setup.sh cites only test files that exist" bash -c "for f in \$(grep -o 'tests/[0-9A-Za-z_-]*\.sh' scripts/run/setup.sh); do test -f \"\$f\" || exit 1; done"

# 11. a full disk: one clear line, no file lost or half-written
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=256k tmpfs "$tmp/full" 2>/dev/null; then
	mnt=$tmp/full
	mkdir -p "$mnt/results/r3"
	cp "$repo/results/r1/cells.csv" "$mnt/results/r3/"
	echo "old summary" >"$mnt/results/r3/summary.csv"
	dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null || true
	rc=0
	LAB_RESULTS=$mnt/results $m --variants upstream --states off --workloads bench-nop --accel tcg --run-id full1 >/dev/null 2>"$tmp/err" || rc=$?
	check "a run started on a full disk fails with one clear line (rc $rc: $(tail -1 "$tmp/err"))" \
		both test "$rc" -ne 0 -- grep -q 'no space left on' "$tmp/err"
	check "it leaves no run dir to block the run id" test ! -e "$mnt/results/full1"
	LAB_RESULTS=$mnt/results scripts/analysis/summary.sh r3 >/dev/null 2>"$tmp/err" || true
	check "summary on a full disk keeps the old summary.csv ($(tail -1 "$tmp/err"))" test "$(cat "$mnt/results/r3/summary.csv")" = "old summary"
	check "and leaves no temp file" test -z "$(find "$mnt/results" -name '.*.??????' -o -name '*.tmp')"
	# mid-run: a boot whose guest output fills the disk; its cell's rows
	# cannot be written. A copy of the lab whose guest/boot.sh is a stub
	# that writes a finished boot's files and then fills the file system.
	lab=$tmp/lab-copy
	mkdir -p "$lab/guest"
	cp -r scripts lib workloads kernel "$lab/"
	cat >"$lab/guest/boot.sh" <<'STUB'
#!/bin/bash
out=${*: -3:1}
printf 'status=ok\nqemu_rc=0\nwall_secs=1.0\n' >"$out/boot.info"
printf 'workload=bench-nop rc=0 ops_per_sec=100 ns_per_op=10\n@@LAB done\n' >"$out/results.txt"
dd if=/dev/zero of="$out/fill" bs=4k 2>/dev/null
exit 0
STUB
	chmod +x "$lab/guest/boot.sh"
	rm -f "$mnt/fill"
	mkdir -p "$mnt/results/mid/cells" "$mnt/results/mid/raw"
	rc=0
	"$lab/scripts/run/matrix-cell.sh" "$mnt/results/mid" upstream off 1 1 bench-nop "" tcg 1 ns >/dev/null 2>"$tmp/err" || rc=$?
	check "mid-run, a cell whose rows cannot be written fails (rc $rc: $(tail -1 "$tmp/err"))" test "$rc" -ne 0
	check "and leaves neither a partial cell nor a temp file in cells/" test -z "$(find "$mnt/results/mid/cells" -type f)"
else
	skip "full-disk probes on a small tmpfs" "cannot mount a tmpfs here (not root)"
fi

# 8. Ctrl-C stops the test runner and the file it runs; no later file runs
# (one file at a time, so "later" has not started when the signal comes)
td=$tmp/runner
mkdir -p "$td"
printf '#!/bin/bash\necho $$ >%s/slow.pid\nsleep 60 & echo $! >%s/sleep.pid\nwait\n' "$td" "$td" >"$td/10-slow.sh"
printf '#!/bin/bash\ntouch %s/later-ran\necho "ok - later"\n' "$td" >"$td/20-later.sh"
set -m
LAB_TEST_JOBS=1 LAB_TEST_DIR=$td tests/run-tests.sh >"$td/out" 2>&1 &
rpid=$!
set +m
until_ready() { local n=50; while ((n-- > 0)) && [[ ! -s $td/sleep.pid ]]; do sleep 0.2; done; }
until_ready
kill -INT "$rpid" 2>/dev/null || true
gone() { ! kill -0 "$1" 2>/dev/null; }
check "SIGINT stops run-tests.sh at once" wait_for 5 gone "$rpid"
check "and the test file it was running, with its children" wait_for 5 gone "$(cat "$td/sleep.pid" 2>/dev/null || echo 1)"
check "and no later test file runs" test ! -e "$td/later-ran"
for f in "$td/sleep.pid" "$td/slow.pid"; do
	p=$(cat "$f" 2>/dev/null || true)
	if [[ $p =~ ^[1-9][0-9]+$ ]]; then kill -KILL "$p" 2>/dev/null || true; fi
done
kill -KILL "$rpid" 2>/dev/null || true
wait "$rpid" 2>/dev/null || true
