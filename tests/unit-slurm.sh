#!/bin/bash
# scripts/run/slurm-run.sh against stand-ins for sbatch, squeue and scancel (the
# adapter's contract: one array job, the user's sbatch options passed on,
# n/N progress, per-cell outputs and status, failed cells listed, scancel on
# SIGINT, a bad job list refused before submission). tests/66-slurm.sh runs
# the same adapter against a real slurmctld/slurmd on localhost.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"
tmp=$(mktemp -d)
fake=$tmp/bin
cleanup() {
	[[ -f $fake/runner.pid ]] && kill -- -"$(cat "$fake/runner.pid")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$fake"
# sbatch: record argv, run the array's tasks (a copy of the script, as
# slurmd does) one by one in a session of their own
cat >"$fake/sbatch" <<'F'
#!/bin/bash
d=$(dirname "$0")
printf '%s\n' "$@" >"$d/sbatch.args"
n=$(printf '%s\n' "$@" | sed -n 's/^--array=1-\([0-9]*\)$/\1/p')
# like slurmd: the tasks run a copy of the script, in another directory
mkdir -p "$d/spool"
cp "${!#}" "$d/spool/slurm_script"
script=$d/spool/slurm_script
setsid bash -c 'for i in $(seq "$1"); do SLURM_ARRAY_TASK_ID=$i "$2"; done' runner "$n" "$script" </dev/null >/dev/null 2>&1 &
echo $! >"$d/runner.pid"
echo "4242;cluster"
F
cat >"$fake/squeue" <<'F'
#!/bin/bash
kill -0 "$(cat "$(dirname "$0")/runner.pid")" 2>/dev/null && echo 4242_1
exit 0
F
cat >"$fake/scancel" <<'F'
#!/bin/bash
d=$(dirname "$0")
echo "$@" >"$d/scancel.args"
kill -- -"$(cat "$d/runner.pid")" 2>/dev/null
exit 0
F
chmod +x "$fake"/*
export PATH=$fake:$PATH LAB_SLURM_POLL=0.2

printf 'c1\techo one\nc2\techo two >&2; exit 1\nc3\tprintf three\n' >"$tmp/jobs"
rc=0
scripts/run/slurm-run.sh --shared "$tmp/sh" --jobs "$tmp/jobs" --partition=lab --time=5 2>"$tmp/err" || rc=$?
check "a failed cell: exit 1, named in one line (rc $rc)" both test "$rc" = 1 -- grep -qx 'slurm: failed cells: c2' "$tmp/err"
check "one array job of 3 tasks, the user's sbatch options passed on" \
	bash -c "grep -qxe --array=1-3 '$fake/sbatch.args' && grep -qxe --partition=lab '$fake/sbatch.args' && grep -qxe --time=5 '$fake/sbatch.args'"
check "n/N progress ends at 3/3" grep -q '^  \[3/3\] cells done' "$tmp/err"
check "each cell's stdout, stderr and status in the shared dir" \
	both test "$(cat "$tmp/sh/out/c1") $(cat "$tmp/sh/out/c3") $(cat "$tmp/sh/out/c2.err")" = "one three two" -- test "$(cat "$tmp/sh/out/c2.rc")" = 1
printf 'c1\techo one\nc3\ttrue\n' >"$tmp/jobs-ok"
rc=0
scripts/run/slurm-run.sh --shared "$tmp/sh2" --jobs "$tmp/jobs-ok" 2>"$tmp/err" || rc=$?
check "all cells ok: exit 0" test "$rc" = 0

rm -f "$fake/sbatch.args"
for bad in 'c1 no tab' $'../x\techo' $'c1\ttrue\nc1\ttrue'; do
	printf '%s\n' "$bad" >"$tmp/bad"
	rc=0
	scripts/run/slurm-run.sh --shared "$tmp/sh3" --jobs "$tmp/bad" 2>"$tmp/err" || rc=$?
	check "bad job list '${bad//$'\n'/|}' refused with one line before sbatch (rc $rc)" \
		both test "$rc" = 2 -- bash -c "test \$(wc -l <'$tmp/err') = 1 && test ! -e '$fake/sbatch.args'"
done

printf 'slow\tsleep 30\n' >"$tmp/jobs-slow"
# job control on: a background job of a script otherwise starts with SIGINT ignored
set -m
scripts/run/slurm-run.sh --shared "$tmp/sh4" --jobs "$tmp/jobs-slow" 2>"$tmp/err" &
pid=$!
set +m
# (up to 30 s: on a loaded machine the script takes seconds to submit)
for _ in $(seq 300); do grep -q 'job array 4242' "$tmp/err" && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
check "SIGINT cancels the array (scancel 4242) and exits 130 (rc $rc)" both test "$rc" = 130 -- grep -qx 4242 "$fake/scancel.args"
sleep 0.5
# dead: gone, or a zombie nobody has reaped yet
check "... and the cell is gone" bash -c "! ps -o stat= -s \$(cat '$fake/runner.pid') | grep -qv '^Z'"
