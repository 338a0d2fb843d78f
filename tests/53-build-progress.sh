#!/bin/bash
# kernel/build.sh with a fake make (tests/fake-lab.sh; the tree and config
# are real): a progress meter whose find fails (kbuild deleting files while it
# walks; here the marker is deleted) must not fail a healthy build, and a
# build.sh stopped by a signal must take its make with it.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "build progress and make lifetime (prepares a kernel tree and config)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake_lab "$tmp" fakebuild
export FAKE_PIDS=$tmp/pids
b=$(build_of fakebuild)
# 1. the progress find fails at its first tick (30 s): the build must still succeed
rm -f "$b/.lab-stamp"
rc=0
FAKE_MAKE_RM_MARKER=1 FAKE_MAKE_SECS=33 "$LAB_ROOT/kernel/build.sh" fakebuild >"$tmp/b1.log" 2>&1 || rc=$?
if ((rc == 0)) && grep -q 'objects compiled' "$tmp/b1.log" && grep -q 'build fakebuild: done' "$tmp/b1.log"; then
	ok "a progress find that fails does not fail a healthy build"
else
	echo "rc $rc"; tail -5 "$tmp/b1.log"
	not_ok "a progress find that fails does not fail a healthy build (rc $rc)"
fi

# 2. SIGTERM build.sh while make runs: make must not outlive it
rm -f "$b/.lab-stamp"
: >"$FAKE_PIDS"
FAKE_MAKE_SECS=120 "$LAB_ROOT/kernel/build.sh" fakebuild >"$tmp/b2.log" 2>&1 &
bpid=$!
wait_for 120 have_pid make || true
mpid=$(fake_pid make)
kill -TERM "$bpid" 2>/dev/null || true
rc=0
wait "$bpid" || rc=$?
if [[ -n $mpid ]] && wait_for 5 bash -c "! kill -0 $mpid 2>/dev/null"; then
	ok "make does not outlive a build.sh stopped by SIGTERM (build.sh rc $rc)"
else
	ps -o pid,pgid,args -p "${mpid:-1}" || true
	not_ok "make does not outlive a build.sh stopped by SIGTERM (make pid ${mpid:-none} still alive)"
	[[ -n $mpid ]] && kill -TERM "$mpid" 2>/dev/null
fi
