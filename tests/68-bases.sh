#!/bin/bash
# Base trees as a matrix axis (issue 23), with fake kernels and a fake QEMU
# (tests/fake-lab.sh): a design fdes and a baseline fnh (A/A fnh-aa) on 6.1,
# their ports fdes-6-12 and fnh-6-12 (A/A fnh-6-12-aa) on 6.12, where the
# baseline differs (50 ops/s fewer), and fonly on 6.1 alone. matrix --bases
# 6.1,6.12 runs each base's ports with its own baseline and A/A control,
# records the bases (matrix.conf, manifest, a base column in cells.csv and
# summary.csv), takes each Δ against its own base's baseline only, reports a
# block per base, and resumes a run whose cells.csv has the base column.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "two-base matrix with fake kernels (prepares a 6.1 and a 6.12 kernel tree)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
fake_lab "$tmp"
fake_variant fnh 6.1 role=baseline order=10 seed-control=fnh-aa
fake_variant fdes 6.1 role=design order=1
fake_variant fonly 6.1 role=design order=2
fake_variant fnh-6-12 6.12 role=baseline order=10 seed-control=fnh-6-12-aa design=fnh
fake_variant fdes-6-12 6.12 role=design order=1 design=fdes
export LAB_ATTRIB_WORKLOADS=none FAKE_QEMU_SEEDLESS=1 FAKE_QEMU_COST="fdes=10 fnh-6-12=50 fdes-6-12=55"
m=$LAB_ROOT/scripts/run/matrix.sh
rc=0
nice -n 10 "$m" --variants fnh,fnh-aa,fdes,fonly --bases 6.1,6.12 --states off --workloads bench-nop --reps 2 \
	--accel tcg --run-id two >"$tmp/two.log" 2>&1 || rc=$?
d=$LAB_RESULTS/two
check "matrix --bases 6.1,6.12 runs (rc $rc)" test "$rc" = 0
check "matrix.conf: each base's ports, baseline and A/A control; bases=6.1,6.12" \
	both grep -qx 'variants=fnh,fnh-aa,fdes,fonly,fnh-6-12,fnh-6-12-aa,fdes-6-12' "$d/matrix.conf" -- grep -qx 'bases=6.1,6.12' "$d/matrix.conf"
check "a design with no port on a base is said so, once" test "$(grep -c '^matrix: fonly has no port on base 6.12: not run there' "$tmp/two.log")" = 1
bases_ok() {
	head -1 "$d/cells.csv" | grep -q ',base$' &&
		awk -F, 'NR > 1 { want = $1 ~ /-6-12(-aa)?$/ ? "6.12" : "6.1"; if ($NF != want) bad = 1; n++ } END { exit bad || n != 14 }' "$d/cells.csv"
}
check "cells.csv: a base column, every row's the base of its variant (14 rows)" bases_ok
check "manifest: matrix.bases 6.1 and 6.12, and each variant's base" \
	test "$(jq -r '[.matrix.bases[].base] + [.matrix.variants[] | select(.name == "fdes-6-12") | .base] | join(" ")' "$d/manifest.json")" = "6.1 6.12 6.12"
get() { awk -F, -v v="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["variant"] == v { print $c[col]; exit }' "$d/summary.csv"; }
# the fake's ops/s: 1000 + 7 (seed 1) + 9 (bench-nop) - cost; ns/op = 1e9 / ops/s
# (cells.csv holds ns/op to 3 decimals; the Δ is of those)
dx() { awk -v a="$1" -v b="$2" 'BEGIN { x = sprintf("%.3f", 1e9 / (1016 - a)); y = sprintf("%.3f", 1e9 / (1016 - b)); printf "%.3f", x - y }'; }
check "summary: 6.1's Δ against fnh ($(dx 10 0)), 6.12's against fnh-6-12 ($(dx 55 50), not the cross-base $(dx 55 0))" \
	test "$(get fdes delta_ns_per_op)/$(get fdes-6-12 delta_ns_per_op)/$(get fdes-6-12 base)" = "$(dx 10 0)/$(dx 55 50)/6.12"
check "summary: each A/A control against its own base (0.000 both), the baselines without a Δ" \
	test "$(get fnh-aa delta_ns_per_op)/$(get fnh-6-12-aa delta_ns_per_op)/$(get fnh delta_ns_per_op)/$(get fnh-6-12 delta_ns_per_op)" = "0.000/0.000//"
# shellcheck disable=SC2016 # backquotes of markdown
check "report: a headline block per base" \
	both grep -qF 'On **linux-source-6.1** (versus `fnh`):' "$d/report.md" -- grep -qF 'On **linux-source-6.12** (versus `fnh-6-12`):' "$d/report.md"

# a run committed as cells.csv alone (no cells/): --resume rebuilds the boots'
# cells from the rows with a base column and runs nothing
cp "$d/cells.csv" "$tmp/cells.before"
rm -rf "$d/cells"
rc=0
"$m" --resume two >"$tmp/resume.log" 2>&1 || rc=$?
check "--resume of a run whose cells.csv has the base column: rebuilt, nothing rerun, cells.csv unchanged (rc $rc)" \
	both grep -q 'rebuilt 14 boots' "$tmp/resume.log" -- cmp -s "$tmp/cells.before" "$d/cells.csv"

# without --bases: the variants as given, the bases theirs
rc=0
"$m" --variants fdes-6-12 --states off --workloads bench-nop --reps 1 --accel tcg --run-id one --cells-only >"$tmp/one.log" 2>&1 || rc=$?
check "without --bases the variants run as given, bases= theirs (rc $rc)" \
	both grep -qx 'variants=fdes-6-12' "$LAB_RESULTS/one/matrix.conf" -- grep -qx 'bases=6.12' "$LAB_RESULTS/one/matrix.conf"
