#!/bin/bash
# run.sh: the lab's entry point, a thin dispatcher over scripts/, kernel/,
# guest/ and tests/. See README.md.
# Every command's arguments are checked (LAB_CHECK_ARGS=1 runs of the script,
# which only validate) before setup may install anything.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)

usage() {
	cat >&2 <<'USAGE'
usage: ./run.sh COMMAND [ARGS]
  setup                      install the Debian packages the lab needs
  list                       kernel variants, audit states, workloads
  build VARIANT              build a variant's bzImage (cached)
  boot VARIANT [STATE] [--workloads a,b] [--runtime S] [--accel A] [--seed N] [--out DIR]
                             boot one guest (default state idle) and show its results
  matrix [--quick] [--variants a,b] [--states x,y] [--workloads w] [--reps N]
         [--runtime S] [--accel kvm|tcg|tcg-wall|auto] [--jobs N] [--seed-base N] [--resume RUN] [--verify P]
         [--cells-only] [--hosts FILE] [--bases 6.1,6.12]
         [--slurm SHARED_DIR [--sbatch 'OPTIONS']]
                             run the measurement matrix into results/<run-id>/
                             (--bases: the variants' designs ported to each base tree,
                             each with its own baseline and A/A control)
  hosts-check FILE           check worker hosts (sshlogin lines): ssh, tools, QEMU identity, disk
  summary RUN                recompute results/RUN/summary.csv from its cells
  plots RUN                  draw results/RUN/plots/ (gnuplot, PNG and SVG)
  report RUN                 summary + plots + results/RUN/report.md
  try PATCH... [--on VARIANT] [--reps N] [--hosts FILE | --slurm DIR [--sbatch 'OPTIONS']]
                             build and measure a patch from the list against nohooks and VARIANT (upstream)
  compare RUN_A RUN_B        per-cell change between two runs, with CIs
  rerun-check [--same-seeds] RUN_A RUN_B
                             two runs with disjoint seeds: verdicts, Δs, interval coverage
  publish RUN_DIR            make a finished run the published one (results/, raw.tar.xz)
  disasm VARIANT [FUNCTION]  objdump of FUNCTION (io_issue_sqe) against nohooks
  explain VARIANT [--function F] [--workload W] [--state S] [--base B]
                             F's executed instructions per op against the baseline of its
                             base tree (TCG plugin); --base B: VARIANT's port on base B
  test [--quick]             run the test suite (TAP)
USAGE
	exit 2
}

cmd=${1:-}
(($#)) && shift
case $cmd in
setup) exec "$root/scripts/run/setup.sh" "$@" ;;
list) exec "$root/scripts/run/list.sh" "$@" ;;
build)
	(($# == 1)) || usage
	LAB_CHECK_ARGS=1 "$root/kernel/build.sh" "$1"
	"$root/scripts/run/setup.sh"
	exec "$root/kernel/build.sh" "$1"
	;;
boot) exec "$root/scripts/run/boot-one.sh" "$@" ;;
matrix)
	LAB_CHECK_ARGS=1 "$root/scripts/run/matrix.sh" "$@"
	"$root/scripts/run/setup.sh"
	exec "$root/scripts/run/matrix.sh" "$@"
	;;
hosts-check) exec "$root/scripts/run/hosts-check.sh" "$@" ;;
try)
	"$root/scripts/run/setup.sh"
	exec "$root/scripts/run/try.sh" "$@"
	;;
summary) exec "$root/scripts/analysis/summary.sh" "$@" ;;
plots) exec "$root/scripts/report/plots.sh" "$@" ;;
report)
	(($# == 1)) || usage
	"$root/scripts/analysis/summary.sh" "$1"
	"$root/scripts/report/plots.sh" "$1"
	exec "$root/scripts/report/report.sh" "$1"
	;;
compare) exec "$root/scripts/analysis/compare.sh" "$@" ;;
rerun-check) exec "$root/scripts/analysis/rerun-check.sh" "$@" ;;
publish) exec "$root/scripts/report/publish.sh" "$@" ;;
disasm) exec "$root/scripts/analysis/disasm.sh" "$@" ;;
explain) exec "$root/scripts/analysis/explain-delta.sh" "$@" ;;
test)
	"$root/tests/run-tests.sh" --check-args "$@"
	"$root/scripts/run/setup.sh"
	exec "$root/tests/run-tests.sh" "$@"
	;;
-h | --help | help | "") usage ;;
*)
	echo "error: unknown command '$cmd'" >&2
	usage
	;;
esac
