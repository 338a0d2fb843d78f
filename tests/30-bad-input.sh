#!/bin/bash
# Bad input: one clear line naming the problem, exit 2, nothing half-written.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results

# expect DESC RC PATTERN CMD...: CMD exits RC and its stderr matches PATTERN
expect() {
	local desc=$1 want=$2 pat=$3 rc=0
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if ((rc == want)) && grep -qE -e "$pat" "$tmp/err"; then
		ok "$desc"
	else
		echo "exit $rc (want $want); stderr:"
		sed 's/^/    /' "$tmp/err" | head -5
		not_ok "$desc"
	fi
}

expect "no subcommand prints usage, exit 2" 2 '^usage: ./run.sh' ./run.sh
expect "unknown subcommand named, exit 2" 2 "unknown command 'frobnicate'" ./run.sh frobnicate
expect "build of an unknown variant lists the known ones, exit 2" 2 "unknown variant 'nosuch'; known: .*upstream" ./run.sh build nosuch
expect "build without a variant prints usage, exit 2" 2 '^usage' ./run.sh build
expect "boot of an unknown variant, exit 2" 2 "unknown variant 'nosuch'" ./run.sh boot nosuch idle
expect "boot in an unknown state lists the known ones, exit 2" 2 "unknown state 'sleepy'; known: .*idle" ./run.sh boot upstream sleepy
expect "matrix with an unknown variant, exit 2" 2 "unknown variant 'nosuch'" ./run.sh matrix --variants upstream,nosuch
expect "matrix with an unknown workload, exit 2" 2 "unknown workload 'nosuch'" ./run.sh matrix --workloads nosuch
expect "matrix with --reps 0, exit 2" 2 "--reps must be a whole number from 1 to 100" ./run.sh matrix --reps 0
expect "matrix with an unknown option, exit 2" 2 "unknown option '--frob'" ./run.sh matrix --frob
expect "matrix --resume of a missing run, exit 2" 2 "matrix.conf not found" ./run.sh matrix --resume nosuch-run
expect "matrix with --seed-base abc, exit 2" 2 "--seed-base must be a whole number from 0 to 98000" ./run.sh matrix --seed-base abc
expect "matrix with --seed-base and --resume, exit 2" 2 "keeps the seeds in its matrix.conf" ./run.sh matrix --seed-base 100 --resume nosuch-run
expect "matrix with an unknown accelerator, exit 2" 2 "--accel must be kvm, tcg, tcg-wall or auto \\(got 'xen'\\)" ./run.sh matrix --accel xen
expect "matrix --bases 9.9: one line naming the unknown base and the known ones, exit 2" 2 "^error: unknown base '9.9'; known: 6\.1 " ./run.sh matrix --bases 9.9
check "matrix --bases 9.9 says so in exactly one line, before any work" test "$(./run.sh matrix --bases 9.9 2>&1 | wc -l)" = 1
expect "matrix --bases 6.1,6.1, exit 2" 2 "bad base list '6.1,6.1': '6.1' is given twice" ./run.sh matrix --bases 6.1,6.1
expect "matrix --bases ../x, exit 2" 2 "bad base name '../x'" ./run.sh matrix --bases 6.1,../x
expect "matrix --bases with --resume, exit 2" 2 "takes the run's own matrix.conf" ./run.sh matrix --bases 6.1 --resume nosuch-run
expect "explain --base 9.9, exit 2" 2 "unknown base '9.9'" ./run.sh explain upstream --base 9.9
expect "test with an unknown option, exit 2" 2 "unknown option '--slow'" ./run.sh test --slow
expect "summary of a missing run, exit 2" 2 "no results/nosuch/cells.csv" ./run.sh summary nosuch
if [[ ! -e $LAB_RESULTS ]] || [[ -z $(find "$LAB_RESULTS" -mindepth 1 -print -quit) ]]; then
	ok "rejected matrix runs left no results directory behind"
else
	find "$LAB_RESULTS" | head
	not_ok "rejected matrix runs left no results directory behind"
fi
