#!/bin/bash
# run-tests.sh [--check-args] [--quick]: run every tests/NN-*.sh (and
# unit-*.sh) file, each under a timeout, renumber their 'ok - ...' /
# 'not ok - ...' lines into one TAP stream (in file order) and end with
# 'N passed, N failed, N skipped'.
# --quick skips the tests that build kernels and boot guests. Files run nproc
# at a time (LAB_TEST_JOBS), the slowest of the last run first: a guest boot
# keeps one core busy (one vCPU under TCG), so a full run that boots in one
# file and builds or boots in another uses both cores; builds of one kernel
# are locked (kernel/build.sh), so two files never build it twice.
# --check-args only checks the arguments (run.sh does, before setup).
# Ctrl-C (SIGINT) or SIGTERM stops the running files, and the run, at once.
# LAB_TEST_DIR: run the files of another directory (the runner's own test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LAB_TEST_QUICK=0
check_only=0
[[ ${1:-} == --check-args ]] && { check_only=1; shift; }
case ${1:-} in
--quick) LAB_TEST_QUICK=1 ;;
"") ;;
*) echo "error: run.sh test: unknown option '$1' (use --quick or nothing)" >&2; exit 2 ;;
esac
(($# <= 1)) || { echo "error: run.sh test: unexpected argument '$2' (use --quick or nothing)" >&2; exit 2; }
((check_only)) && exit 0

dir=${LAB_TEST_DIR:-$here}
files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -maxdepth 1 -name '[0-9]*-*.sh' -o -maxdepth 1 -name 'unit-*.sh' | sort)
jobs=${LAB_TEST_JOBS:-$(nproc)}
# a file's limit: a hang, not a slow file (from an empty cache on 2 cores,
# 43, 60 and 61 build the kernels they boot, each up to ~30 min beside another file)
limit=${LAB_TEST_TIMEOUT:-3600}
n=0 pass=0 fail=0 skip=0
start=$(date +%s)
outs=$(mktemp -d)
declare -A idx_of=() # running timeout(1) pid -> file index
rc_of=() began=() took=()

# stop: every running file with everything it started (timeout(1) passes the
# signal to its process group), then the runner
stop() {
	local pid
	trap '' INT TERM
	for pid in "${!idx_of[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${!idx_of[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$outs"
	echo "# interrupted: stopped ${#idx_of[@]} running test file(s)" >&2
	exit 130
}
trap stop INT TERM
trap 'rm -rf "$outs"' EXIT

launch() {
	local i=$1
	began[i]=$(date +%s)
	timeout --signal=KILL "$limit" bash "${files[$i]}" >"$outs/$i" 2>&1 &
	idx_of[$!]=$i
}
# reap: wait for any running file and note its exit status
reap() {
	local pid rc=0 i
	wait -n -p pid || rc=$?
	[[ -n ${pid:-} && -n ${idx_of[$pid]:-} ]] || return 0
	i=${idx_of[$pid]}
	unset "idx_of[$pid]"
	rc_of[i]=$rc took[i]=$(($(date +%s) - began[i]))
}
# report I: file I's lines, renumbered
report() {
	local i=$1 name line rc seen_fail=0
	name=$(basename "${files[$i]}" .sh)
	rc=${rc_of[$i]}
	echo "# $name (${took[$i]}s, done $(($(date +%s) - start))s into the run)"
	while IFS= read -r line; do
		case $line in
		"not ok - "*)
			n=$((n + 1)) fail=$((fail + 1)) seen_fail=1
			echo "not ok $n - $name: ${line#not ok - }"
			;;
		"ok - "*"# SKIP"*)
			n=$((n + 1)) skip=$((skip + 1))
			echo "ok $n - $name: ${line#ok - }"
			;;
		"ok - "*)
			n=$((n + 1)) pass=$((pass + 1))
			echo "ok $n - $name: ${line#ok - }"
			;;
		*) echo "# $line" ;;
		esac
	done <"$outs/$i"
	rm -f "$outs/$i"
	if ((rc != 0 && seen_fail == 0)); then
		n=$((n + 1)) fail=$((fail + 1))
		if ((rc == 137)); then
			echo "not ok $n - $name: killed after ${limit}s timeout"
		else
			echo "not ok $n - $name: exited with status $rc"
		fi
	fi
}
# the files' reports in file order, as soon as each and those before it are done
next=0
print_ready() {
	while ((next < ${#files[@]})) && [[ -n ${rc_of[$next]:-} ]]; do
		report "$next"
		next=$((next + 1))
	done
}

# launch order: the slowest files of the last run first (their times are
# kept in the cache), so that the last file to end is a short one; the
# report stays in file order
times=${LAB_CACHE:-$HOME/.cache/uring-audit-lab}/test-times
((LAB_TEST_QUICK == 0)) || times+=-quick
order=()
while read -r _ i; do order+=("$i"); done < <(
	for i in "${!files[@]}"; do
		t=$(awk -v n="$(basename "${files[$i]}" .sh)" '$1 == n { t = $2 } END { print t + 0 }' "$times" 2>/dev/null || echo 0)
		echo "$t $i"
	done | sort -k1,1nr -k2,2n)

echo "TAP version 13"
for i in "${order[@]}"; do
	while ((${#idx_of[@]} >= jobs)); do reap; print_ready; done
	launch "$i"
done
while ((${#idx_of[@]})); do reap; print_ready; done
print_ready
if [[ -z ${LAB_TEST_DIR:-} ]] && mkdir -p "$(dirname "$times")" 2>/dev/null; then
	if for i in "${!files[@]}"; do echo "$(basename "${files[$i]}" .sh) ${took[$i]}"; done >"$times.$$"; then
		mv "$times.$$" "$times"
	fi
fi
echo "1..$n"
echo "# total $(($(date +%s) - start))s ($jobs file(s) at a time)"
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
