#!/bin/bash
# scripts/run/slurm-run.sh against a real one-node Slurm on localhost
# (tests/slurm-lib.sh: munged, slurmctld, slurmd from the unpacked .debs,
# ~2 s to come up): one job array of 3 tasks, n/N progress, each cell's
# output and status in the shared dir, a failed cell named, SIGINT cancels
# the array. tests/unit-slurm.sh covers the same adapter with stand-ins.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/hosts-lib.sh
. "$LAB_ROOT/tests/hosts-lib.sh"
# shellcheck source=tests/slurm-lib.sh
. "$LAB_ROOT/tests/slurm-lib.sh"

if quick; then
	skip "local Slurm (starts munged, slurmctld and slurmd)" "--quick"
	exit 0
fi
if ((EUID != 0)); then
	skip "local Slurm" "needs root (slurmd runs jobs as their user)"
	exit 0
fi
# slurmctld and slurmd bind every address: the whole test runs in a network
# namespace of its own whose only interface is loopback. Slurm resolves its
# listen address with AI_ADDRCONFIG, which ignores 127.0.0.0/8, so lo also
# gets 10.254.254.1/32 (still lo: nothing leaves the namespace)
# The .debs are fetched here, before the namespace: inside it there is no
# route to the archive (a fresh machine's CI failed on exactly that).
if [[ -z ${LAB_SLURM_NETNS:-} ]]; then
	if ! "$LAB_ROOT/scripts/run/setup.sh" --host-debs slurm >/dev/null; then
		not_ok "munged, slurmctld and slurmd up on localhost (setup.sh --host-debs slurm failed)"
		exit 0
	fi
	# shellcheck disable=SC2016 # $0 belongs to the inner bash
	exec unshare -n env LAB_SLURM_NETNS=1 bash -c 'ip link set lo up && ip addr add 10.254.254.1/32 dev lo && exec bash "$0"' "$0"
fi
check "in a network namespace with loopback only" test "$(ip -o link | awk -F': ' '{ print $2 }' | paste -sd' ')" = lo
t0=$(date +%s.%N)
if ! slurm_up; then
	not_ok "munged, slurmctld and slurmd up on localhost"
	exit 0
fi
ok "munged, slurmctld and slurmd up on localhost ($(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s)"
printf 'c1\techo one; hostname >/dev/null\nc2\techo two; exit 3\nc3\techo three\n' >"$ST/jobs"
rc=0
LAB_SLURM_POLL=0.5 "$LAB_ROOT/scripts/run/slurm-run.sh" --shared "$ST/sh" --jobs "$ST/jobs" --partition=lab --time=5 2>"$ST/run.err" || rc=$?
sed 's/^/# /' "$ST/run.err"
check "a 3-task array: rc 1 with the failed cell named" both test "$rc" = 1 -- grep -qx 'slurm: failed cells: c2' "$ST/run.err"
check "one array job" test "$(grep -c '^slurm: job array [0-9]*, 3 cells' "$ST/run.err")" = 1
check "progress ends at [3/3]" grep -q '^  \[3/3\] cells done' "$ST/run.err"
check "each cell's stdout and status" test "$(cat "$ST/sh/out/c1") $(cat "$ST/sh/out/c3") $(cat "$ST/sh/out/c2.rc")" = "one three 3"
check "the queue is empty after" test -z "$(squeue -h)"

# boots as a job array: lib/remote.sh's slurm_dispatch with a stand-in QEMU
# (the same one on "both sides": jobs inherit this PATH), bundle in the
# shared dir, outputs collected as data
# shellcheck source=../lib/hosts.sh
. "$LAB_ROOT/lib/hosts.sh"
# shellcheck source=../lib/remote.sh
. "$LAB_ROOT/lib/remote.sh"
cat >"$ST/bin/qemu-system-x86_64" <<'Q'
#!/bin/bash
[[ ${1:-} == --version ]] && { echo "QEMU emulator version 7.2.99 (lab stand-in)"; exit 0; }
s=()
while (($#)); do [[ $1 == -serial ]] && { s+=("${2#file:}"); shift; }; shift; done
echo booted >"${s[0]}"
printf '@@LAB done\n' >"${s[1]}"
Q
chmod 755 "$ST/bin/qemu-system-x86_64"
r=$ST/run/remote
mkdir -p "$r/plans"
echo kernel >"$ST/bzImage"
for c in v.s.1 v.s.2 v.s.3; do
	printf '%s\0' timeout --signal=KILL 30 qemu-system-x86_64 -kernel "$ST/bzImage" -initrd "$ST/bzImage" \
		-serial file:@OUT@/console.log -serial file:@OUT@/results.txt >"$r/plans/$c"
done
id=$(bundle_make "$r")
rc=0
LAB_SLURM_POLL=0.5 LAB_CACHE=$ST/node-cache slurm_dispatch "$r" "$ST/shared" "$id" v.s.1 v.s.2 v.s.3 -- --partition=lab 2>"$ST/disp.err" || rc=$?
check "3 boots as one array: rc 0 ($rc), hosts.csv names the node" \
	both test "$rc" = 0 -- test "$(cut -d, -f2 "$r/hosts.csv" | sort -u)" = "slurm:root@$(hostname)"
good=1
for c in v.s.1 v.s.2 v.s.3; do
	remote_collect "$r/out/$c" "$ST/raw/$c" && grep -qx booted "$ST/raw/$c/console.log" || good=0
done
check "... every boot's outputs collected" test "$good" = 1

printf 'slow\tsleep 60\n' >"$ST/jobs-slow"
set -m
LAB_SLURM_POLL=0.5 "$LAB_ROOT/scripts/run/slurm-run.sh" --shared "$ST/sh2" --jobs "$ST/jobs-slow" 2>"$ST/slow.err" &
pid=$!
set +m
for _ in $(seq 100); do [[ -n $(squeue -h -t R) ]] && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
for _ in $(seq 50); do [[ -z $(squeue -h) ]] && break; sleep 0.2; done
check "SIGINT: rc 130, scancel, the queue empties (rc $rc)" both test "$rc" = 130 -- test -z "$(squeue -h)"
slurm_down
trap - EXIT
check "teardown: daemons stopped" bash -c "! kill -0 ${slurm_pids[*]} 2>/dev/null"
