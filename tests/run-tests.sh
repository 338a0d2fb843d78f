#!/bin/bash
# run-tests.sh [--quick]: run every tests/NN-*.sh (and unit-*.sh) file, each
# under a timeout, renumber their 'ok - ...' / 'not ok - ...' lines into one
# TAP stream and end with 'N passed, N failed, N skipped'.
# --quick skips the tests that build kernels and boot guests.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LAB_TEST_QUICK=0
case ${1:-} in
--quick) LAB_TEST_QUICK=1 ;;
"") ;;
*) echo "error: run.sh test: unknown option '$1' (use --quick or nothing)" >&2; exit 2 ;;
esac

files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$here" -maxdepth 1 -name '[0-9]*-*.sh' -o -maxdepth 1 -name 'unit-*.sh' | sort)
n=0 pass=0 fail=0 skip=0
start=$(date +%s)
echo "TAP version 13"
for f in "${files[@]}"; do
	name=$(basename "$f" .sh)
	limit=${LAB_TEST_TIMEOUT:-1500}
	echo "# $name ($(($(date +%s) - start))s into the run)"
	out=$(mktemp)
	rc=0
	timeout --signal=KILL "$limit" bash "$f" >"$out" 2>&1 || rc=$?
	seen_fail=0
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
	done <"$out"
	rm -f "$out"
	if ((rc != 0 && seen_fail == 0)); then
		n=$((n + 1)) fail=$((fail + 1))
		if ((rc == 137)); then
			echo "not ok $n - $name: killed after ${limit}s timeout"
		else
			echo "not ok $n - $name: exited with status $rc"
		fi
	fi
done
echo "1..$n"
echo "# total $(($(date +%s) - start))s"
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
