#!/bin/bash
# Cells on worker hosts (lib/hosts.sh, lib/remote.sh, guest/cell-worker.sh)
# against two SSH hosts on loopback (tests/hosts-lib.sh): hosts-check, host
# lines as data, a bundle sent once per host, cells through parallel
# --sshloginfile with the joblog kept, a broken host's cells retried on the
# other, a host with another QEMU identity refused with one line, and a
# hostile worker's output kept inside the run dir. The "QEMU" here is a
# stand-in script, the same bytes on the coordinator and on both hosts (so
# the identities match), that writes what a guest would: the dispatch is
# under test, not the guest (tests/50 boots real ones).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/hosts-lib.sh
. "$LAB_ROOT/tests/hosts-lib.sh"
# shellcheck source=../lib/hosts.sh
. "$LAB_ROOT/lib/hosts.sh"
# shellcheck source=../lib/remote.sh
. "$LAB_ROOT/lib/remote.sh"
cd "$LAB_ROOT"

# bad input: one line, exit 2, before any results dir, build or ssh
bad_tmp=$(mktemp -d)
printf '1/ssh -p 22 lab@box; touch %s/pwned\n' "$bad_tmp" >"$bad_tmp/evil-hosts"
echo 'lab@box1' >"$bad_tmp/good-hosts"
for a in "--hosts $bad_tmp/none" "--hosts $bad_tmp/evil-hosts" "--hosts $bad_tmp/good-hosts --slurm $bad_tmp/s" "--sbatch --partition=x" "--slurm $bad_tmp/s --sbatch a;b"; do
	rc=0
	read -r -a args <<<"$a"
	LAB_RESULTS=$bad_tmp/results timeout 30 scripts/run/matrix.sh "${args[@]}" --accel tcg >/dev/null 2>"$bad_tmp/err" || rc=$?
	check "matrix ${a//$bad_tmp\//}: one line, rc 2 ($rc), no results dir" \
		bash -c "test $rc = 2 && test \$(wc -l <'$bad_tmp/err') = 1 && test ! -e '$bad_tmp/results' && test ! -e '$bad_tmp/pwned'"
done
rm -rf "$bad_tmp"

if quick; then
	skip "loopback SSH hosts (starts two sshd and runs cells through them)" "--quick"
	exit 0
fi
if ((EUID != 0)); then
	skip "loopback SSH hosts" "needs root to create the hosts' throwaway users"
	exit 0
fi
t0=$(date +%s.%N)
hosts_up 2
ok "two sshd hosts up on 127.0.0.1 ($(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
check "they listen on loopback only" bash -c "! ss -Hltnp | grep -F \"pid=${hosts_pids[0]},\" | grep -vq '127.0.0.1:'"
u1=$(cat "$HT/user1") u2=$(cat "$HT/user2")
h1=$HT/home/$u1 h2=$HT/home/$u2

# Same bytes: the quick matrix through --hosts against a local run (real
# kernels and QEMU; cells.csv compared with wall_secs, the host's wall time,
# blanked); then --resume dispatches nothing
if quick; then
	skip "matrix --hosts: same cells as a local run" "--quick (builds and boots)"
else
	export LAB_RESULTS=$HT/results
	mkdir -p "$LAB_RESULTS"
	read -r -a margs <<<"${LAB_TEST_HOSTS_MATRIX:---quick --runtime 2}"
	t0=$(now)
	rc=0
	"$LAB_ROOT/run.sh" matrix "${margs[@]}" --run-id local >"$HT/local.log" 2>&1 || rc=$?
	t1=$(now)
	"$LAB_ROOT/run.sh" matrix "${margs[@]}" --run-id hosts --hosts "$HT/hosts" >"$HT/hosts.log" 2>&1 || rc=$((rc + $?))
	t2=$(now)
	blank() { awk -F, -v OFS=, '{ $13 = ""; print }' "$1"; }
	n=$(($(wc -l <"$LAB_RESULTS/local/cells.csv") - 1))
	check "matrix local ($(fmt_secs $((t1 - t0)))) and --hosts ($(fmt_secs $((t2 - t1)))): rc 0 ($rc)" test "$rc" = 0
	grep -E '^  (host|\[)|--hosts:' "$HT/hosts.log" | head -12
	nb=$(find "$LAB_RESULTS/local/cells" -name '*.csv' | wc -l)
	check "--hosts ran all $nb boots ($n cells) on the hosts" grep -q "matrix --hosts: $nb of $nb boots ran on the hosts" "$HT/hosts.log"
	check "cells.csv of --hosts is the local run's (wall_secs blanked)" cmp <(blank "$LAB_RESULTS/local/cells.csv") <(blank "$LAB_RESULTS/hosts/cells.csv")
	# when they differ: were the inputs the same? (the cache's initramfs is
	# shared with other checkouts, which may rebuild it between the two runs)
	for b in "$LAB_RESULTS"/local/raw/*/boot.info; do
		diff <(grep -E '^(bzimage|initramfs)_sha256=' "$b") \
			<(grep -E '^(bzimage|initramfs)_sha256=' "$LAB_RESULTS/hosts/raw/$(basename "$(dirname "$b")")/boot.info" 2>/dev/null) |
			sed 's/^/# inputs differ: /' || true
	done
	check "the manifest records which host ran each boot" test "$(jq '.ran_on | length' "$LAB_RESULTS/hosts/manifest.json")" -gt 0
	check "the parallel joblog is kept in the run dir" test -s "$LAB_RESULTS/hosts/remote/joblog"
	rc=0
	"$LAB_ROOT/run.sh" matrix --resume hosts --hosts "$HT/hosts" >"$HT/again.log" 2>&1 || rc=$?
	check "run again: 0 boots dispatched (rc $rc)" both test "$rc" = 0 -- bash -c "! grep -q 'boots to dispatch' '$HT/again.log'"
	# try --hosts: a patch from the list built here, its cells on the hosts
	# (one state, bench-nop, one rep: the baseline's, upstream's and the patch's boot)
	patch=$(throwaway_patch "$HT/try")
	rc=0
	LAB_TRY_STATES=idle LAB_TRY_WORKLOADS=bench-nop "$LAB_ROOT/scripts/run/try.sh" --reps 1 --hosts "$HT/hosts" "$patch" >"$HT/try.out" 2>"$HT/try.err" || rc=$?
	sed 's/^/    /' "$HT/try.out"
	grep -E -- '--hosts:' "$HT/try.err" | sed 's/^/    /' || true
	check "try --hosts: rc 0 ($rc) and a decision table" both test "$rc" = 0 -- grep -q '^idle  *bench-nop ' "$HT/try.out"
	check "try --hosts: its 3 boots ran on the hosts" grep -q 'matrix --hosts: 3 of 3 boots ran on the hosts' "$HT/try.err"
	rc=0
	"$LAB_ROOT/scripts/run/try.sh" --hosts "$HT/bad-try-hosts" "$patch" >/dev/null 2>"$HT/try-bad.err" || rc=$?
	check "try --hosts with a missing hosts file: one line, rc 2 ($rc), before any build" \
		both test "$rc" = 2 -- test "$(wc -l <"$HT/try-bad.err")" = 1
fi

# the stand-in QEMU: --version like QEMU's; a boot writes both serial files
mkdir -p "$HT/bin"
cat >"$HT/bin/qemu-system-x86_64" <<'Q'
#!/bin/bash
[[ ${1:-} == --version ]] && { echo "QEMU emulator version 7.2.99 (lab stand-in)"; exit 0; }
k="" s=()
while (($#)); do
	case $1 in -kernel) k=$2; shift ;; -serial) s+=("${2#file:}"); shift ;; esac
	shift
done
echo "booted $(sha256sum <"$k" | cut -c1-16)" >"${s[0]}"
printf '@@LAB result x\n@@LAB done\n' >"${s[1]}"
Q
chmod 755 "$HT/bin/qemu-system-x86_64"
for h in "$h1" "$h2"; do cp "$HT/bin/qemu-system-x86_64" "$h/bin/"; done
chown -R "$u1:" "$h1/bin"
chown -R "$u2:" "$h2/bin"
export PATH=$HT/bin:$PATH

# hosts-check: one line per host
rc=0
scripts/run/hosts-check.sh "$HT/hosts" >"$HT/check.out" 2>&1 || rc=$?
check "hosts-check: rc 0, one ok line per host" both test "$rc" = 0 -- test "$(grep -c '^ok .*QEMU identity matches' "$HT/check.out")" = 2
printf '1/ssh -p 22 lab@box; touch %s/pwned\n' "$HT" >"$HT/bad-hosts"
rc=0
scripts/run/hosts-check.sh "$HT/bad-hosts" >"$HT/bad.out" 2>&1 || rc=$?
check "a host line with shell syntax is refused with one line (rc $rc)" both test "$rc" = 2 -- test "$(wc -l <"$HT/bad.out")" = 1
check "... and never run" test ! -e "$HT/pwned"

# a bundle of four cells, two images
r=$HT/run/remote
mkdir -p "$r/plans"
head -c 300000 /dev/urandom >"$HT/bzImage-a"
head -c 200000 /dev/urandom >"$HT/bzImage-b"
echo initrd >"$HT/initrd"
cells=(c1 c2 c3 c4)
for c in "${cells[@]}"; do
	img=$HT/bzImage-a
	[[ $c == c3 || $c == c4 ]] && img=$HT/bzImage-b
	printf '%s\0' timeout --signal=KILL 30 qemu-system-x86_64 -kernel "$img" -initrd "$HT/initrd" \
		-serial file:@OUT@/console.log -serial file:@OUT@/results.txt >"$r/plans/$c"
done
id=$(bundle_make "$r")
check "bundle id is its sha256 and holds each image once ($(du -k "$r/bundle.tar" | cut -f1) KB)" \
	both test "$(find "$r/bundle/img" -type f | wc -l)" = 3 -- test "$(sha256_of "$r/bundle.tar" | cut -c1-16)" = "$id"
remote_hosts "$r" "$HT/hosts" 2>"$HT/hosts.err"
check "remote_hosts: both usable, one line each" both test "$(wc -l <"$r/sshlogins")" = 2 -- test "$(grep -c '^  host ok ' "$HT/hosts.err")" = 2
remote_push "$r" "$id"
check "bundle pushed to both hosts" both host_run 1 "test -f ~/.cache/uring-audit-lab/bundles/$id/.complete" -- host_run 2 "test -f ~/.cache/uring-audit-lab/bundles/$id/.complete"
mapfile -t lines < <(host_lines "$HT/hosts")
host_run 1 "touch ~/.cache/uring-audit-lab/bundles/$id/marker"
bundle_push "${lines[0]}" "$id" "$r/bundle.tar"
check "a second push to a host that has the bundle sends nothing" host_run 1 "test -f ~/.cache/uring-audit-lab/bundles/$id/marker"

# all four cells on the two hosts
t0=$(date +%s.%N)
rc=0
remote_run "$r" "$id" 2 "${cells[@]}" 2>"$HT/run1.err" || rc=$?
el=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
check "4 cells over SSH: rc 0 (${el}s wall, $(awk -v e="$el" 'BEGIN { printf "%.2f", e / 4 }')s per cell)" test "$rc" = 0
check "n/N progress lines, 4 of them" test "$(grep -c '^  \[[0-9]/4\] c[0-9] on ' "$HT/run1.err")" = 4
check "joblog kept, one row per cell" test "$(tail -n +2 "$r/joblog" | wc -l)" = 4
check "hosts.csv: every cell and the host that ran it" test "$(cut -d, -f1 "$r/hosts.csv" | paste -sd' ')" = "c1 c2 c3 c4"
check "both hosts ran cells" test "$(cut -d, -f2 "$r/hosts.csv" | sort -u | wc -l)" = 2
good=1
for c in "${cells[@]}"; do
	want=$(sha256sum <"$HT/bzImage-a" | cut -c1-16)
	[[ $c == c3 || $c == c4 ]] && want=$(sha256sum <"$HT/bzImage-b" | cut -c1-16)
	remote_collect "$r/out/$c" "$HT/run/raw/$c" 2>>"$HT/run1.err" || good=0
	[[ $(cat "$HT/run/raw/$c/console.log" 2>/dev/null) == "booted $want" ]] || good=0
	grep -q '^qemu_rc=0$' "$HT/run/raw/$c/worker.info" 2>/dev/null || good=0
done
check "every cell's outputs came back: its own image booted, qemu_rc 0" test "$good" = 1
check "the workers left no work dirs behind" both host_run 1 "! ls ~/.cache/uring-audit-lab/work/*/* 2>/dev/null" -- host_run 2 "! ls ~/.cache/uring-audit-lab/work/*/* 2>/dev/null"

# dispatch overhead: N stand-in cells run by the worker on this machine, one
# after another, against the same N over SSH on one host with one slot and on
# both hosts; (SSH - local) / N is what dispatch costs a cell
N=${LAB_TEST_OVERHEAD_CELLS:-12}
ocells=()
for ((k = 1; k <= N; k++)); do
	cp "$r/plans/c1" "$r/plans/o$k"
	ocells+=("o$k")
done
oid=$(bundle_make "$r")
mkdir -p "$HT/local-bundle"
tar -xf "$r/bundle.tar" -C "$HT/local-bundle"
touch "$HT/local-bundle/.complete"
t0=$(date +%s.%N)
for c in "${ocells[@]}"; do
	LAB_CACHE=$HT/local-cache bash "$HT/local-bundle/cell-worker.sh" run "$c" >/dev/null
done
t1=$(date +%s.%N)
cp "$r/sshlogins" "$HT/sshlogins.both"
sed -n '1s|^[0-9]*/|1/|p' "$HT/sshlogins.both" >"$r/sshlogins"
remote_push "$r" "$oid"
rm -rf "$r/out" "$r/joblog"
t2=$(date +%s.%N)
remote_run "$r" "$oid" 0 "${ocells[@]}" 2>/dev/null || true
t3=$(date +%s.%N)
cp "$HT/sshlogins.both" "$r/sshlogins"
remote_push "$r" "$oid"
rm -rf "$r/out" "$r/joblog"
t4=$(date +%s.%N)
remote_run "$r" "$oid" 0 "${ocells[@]}" 2>/dev/null || true
t5=$(date +%s.%N)
read -r loc one two per < <(awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" -v n="$N" \
	'BEGIN { printf "%.2f %.2f %.2f %.2f\n", b - a, d - c, f - e, ((d - c) - (b - a)) / n }')
echo "# dispatch: $N cells: local ${loc}s, SSH 1 host x 1 slot ${one}s, SSH 2 hosts ${two}s; overhead ${per}s per cell"
check "dispatch overhead over SSH is at most 1 s a cell (${per}s)" awk -v p="$per" 'BEGIN { exit !(p <= 1) }'

# retry: host 1's timeout(1) is broken (and leaves a trace of each call);
# its cells run on host 2
printf '#!/bin/sh\nmktemp -p ~ broken.XXXXXX >/dev/null\nexit 1\n' >"$h1/bin/timeout"
chmod 755 "$h1/bin/timeout"
chown "$u1:" "$h1/bin/timeout"
rm -rf "$r/out" "$r/joblog"
rc=0
remote_run "$r" "$id" 2 "${cells[@]}" 2>"$HT/run2.err" || rc=$?
check "a broken host: run ends rc 0 ($rc)" test "$rc" = 0
check "... every cell ran on the other host" test "$(cut -d, -f2 "$r/hosts.csv" | sort -u)" = "$u2@127.0.0.1"
check "... after attempts on the broken host ($(find "$h1" -maxdepth 1 -name 'broken.*' | wc -l))" test -n "$(find "$h1" -maxdepth 1 -name 'broken.*')"
rm -f "$h1/bin/timeout"

# refusal: host 2's QEMU reports another version
cat >"$h2/bin/qemu-system-x86_64" <<'Q'
#!/bin/sh
[ "$1" = --version ] && { echo "QEMU emulator version 8.2.0"; exit 0; }
exit 0
Q
rc=0
scripts/run/hosts-check.sh "$HT/hosts" >"$HT/check2.out" 2>&1 || rc=$?
check "hosts-check: the other identity is one FAIL line naming host and difference" \
	both test "$rc" = 1 -- grep -q "^FAIL $u2@127.0.0.1:[0-9]*: QEMU identity differs: qemu_version 'QEMU emulator version 8.2.0'" "$HT/check2.out"
rc=0
host_run 2 "bash ~/.cache/uring-audit-lab/bundles/$id/cell-worker.sh run c1" >/dev/null 2>"$HT/refuse.err" || rc=$?
check "the worker refuses a cell: exit 3, one line naming host and difference" \
	both test "$rc" = 3 -- test "$(grep -c "^worker $u2@[^:]*: refused: QEMU identity differs: qemu_version 'QEMU emulator version 8.2.0'" "$HT/refuse.err")" = "$(wc -l <"$HT/refuse.err")"
rm -rf "$r/out" "$r/joblog"
rc=0
{ remote_hosts "$r" "$HT/hosts" && remote_run "$r" "$id" 2 "${cells[@]}"; } 2>"$HT/run3.err" || rc=$?
check "the run refuses that host with one line naming it and the difference" \
	test "$(grep -c "^  host FAIL $u2@127.0.0.1:[0-9]*: QEMU identity differs: qemu_version" "$HT/run3.err")" = 1
check "... and its cells ran on the host that matches: rc $rc, all on host 1" \
	both test "$rc" = 0 -- test "$(cut -d, -f2 "$r/hosts.csv" | sort -u)" = "$u1@127.0.0.1"
# a cell the refused host gets anyway (a stale host list) fails there and
# runs elsewhere: the worker's own check
cp "$HT/hosts" "$r/sshlogins"
rm -rf "$r/out" "$r/joblog"
rc=0
remote_run "$r" "$id" 3 "${cells[@]}" 2>"$HT/run4.err" || rc=$?
check "cells dispatched to the refused host anyway end on the other: rc $rc" \
	both test "$rc" = 0 -- test "$(cut -d, -f2 "$r/hosts.csv" | sort -u)" = "$u1@127.0.0.1"

# a hostile worker's output stays in the run dir: paths, links, extra files
mkdir -p "$HT/evil/a" "$HT/evil-out"
(cd "$HT/evil" && echo x >console.log && ln -s /etc/passwd results.txt && tar -cf "$HT/evil-link.tar" console.log results.txt)
(cd "$HT/evil/a" && echo pwned >x && tar -cf "$HT/evil-path.tar" ../a/x --absolute-names)
tar -cf "$HT/evil-abs.tar" --absolute-names "$HT/evil/console.log" 2>/dev/null
(cd "$HT/evil" && echo y >extra && tar -cf "$HT/evil-extra.tar" console.log extra)
bad=0
for e in link path abs extra; do
	remote_collect "$HT/evil-$e.tar" "$HT/evil-out/$e" 2>>"$HT/evil.err" && bad=1
done
check "outputs with a link, ../, an absolute path or an extra file are refused" test "$bad" = 0
check "... each with one line" test "$(grep -c '^collect: refused' "$HT/evil.err")" = 4
check "... and nothing written" test -z "$(find "$HT/evil-out" -mindepth 1)"

# teardown leaves nothing running and no user behind
pids=("${hosts_pids[@]}") users=("${hosts_users[@]}")
hosts_down
trap - EXIT
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
check "teardown: both sshd stopped" test "$alive" = 0
check "teardown: the hosts' users removed" bash -c "! getent passwd ${users[*]}"
