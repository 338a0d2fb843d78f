#!/bin/bash
# Adaptive seeds (scripts/run/adaptive-seeds.sh, the rule in lib/common.sh
# LAB_ADAPT_*) with fake kernels and a fake QEMU (tests/fake-lab.sh
# FAKE_QEMU_NOISE): one matrix of a baseline, its A/A control and three
# designs at 3 reps. An exact design gets no seed; a design noisy at every
# seed gets seeds up to the cap (9) and no more; a design with one outlying
# seed gets seeds until its interval closes (7); the baseline and the A/A
# control follow the most-seeded design; extra reps continue the seed
# sequence and are in the manifest; progress says n/N with an ETA; --resume
# of the finished run boots nothing again; --plan tells round 1's cost.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/fake-lab.sh
. "$(dirname "$0")/fake-lab.sh"
if quick; then
	skip "adaptive seeds with fake kernels (prepares kernel trees)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
fake_lab "$tmp" adbase adexact adnoisy adoutlier
printf 'role=baseline\nseed-control=adbase-aa\norder=1\n' >"$LAB_VARIANTS/adbase/meta"
for v in adexact adnoisy adoutlier; do echo "role=design" >"$LAB_VARIANTS/$v/meta"; done
export LAB_ATTRIB_WORKLOADS=none
export FAKE_QEMU_NOISE="adnoisy:bench-read:5 adoutlier:bench-read:3@3"
# the rule's numbers as lib/common.sh states them (not the caller's)
unset LAB_ADAPT_BATCH LAB_ADAPT_CAP LAB_ADAPT_WIDTH LAB_ADAPT_MOVE
m=$LAB_ROOT/scripts/run/matrix.sh
rc=0
$m --variants adbase,adbase-aa,adexact,adnoisy,adoutlier --states idle --workloads bench-nop,bench-read \
	--reps 3 --runtime 1 --profile none --accel tcg --jobs 1 --run-id ad >"$tmp/ad.log" 2>&1 || rc=$?
d=$LAB_RESULTS/ad
check "matrix with adaptive seeds exits 0 (rc $rc)" test "$rc" = 0
((rc == 0)) || tail -20 "$tmp/ad.log" || true
jqe() { jq -e "$@" >/dev/null; }
report_lists_extra() {
	grep -qF '37 boots planned (22 of them extra seeds for noisy cells): 37 ok, 0 failed, 0 n/a, 0 not run.' "$d/report.md" &&
		grep -qF -- '- adnoisy / idle: rep 1 ok, rep 2 ok, rep 3 ok, rep 4 (extra seed) ok,' "$d/report.md" &&
		grep -qxF -- '- adexact / idle: rep 1 ok, rep 2 ok, rep 3 ok' "$d/report.md"
}
# reps VARIANT: the distinct reps of VARIANT's ok bench-read rows
reps_of() { awk -F, -v v="$1" '$1 == v && $3 == "bench-read" && $7 == "ok" { print $4 }' "$d/cells.csv" | sort -n | paste -sd,; }
seeds_of() { awk -F, -v v="$1" '$1 == v && $3 == "bench-read" && $7 == "ok" { print $5 }' "$d/cells.csv" | sort -n | paste -sd,; }
check "an exact design gets no extra seed (reps $(reps_of adexact))" test "$(reps_of adexact)" = 1,2,3
check "a design noisy at every seed gets seeds up to the cap and no more (reps $(reps_of adnoisy))" test "$(reps_of adnoisy)" = 1,2,3,4,5,6,7,8,9
check "a design with one outlying seed stops when its interval closes (reps $(reps_of adoutlier))" test "$(reps_of adoutlier)" = 1,2,3,4,5,6,7
check "the baseline follows the most-seeded design (reps $(reps_of adbase))" test "$(reps_of adbase)" = 1,2,3,4,5,6,7,8,9
check "the A/A control too (reps $(reps_of adbase-aa))" test "$(reps_of adbase-aa)" = 1,2,3,4,5,6,7,8,9
check "extra reps continue the seed sequence (design $(seeds_of adnoisy); A/A $(seeds_of adbase-aa))" \
	both test "$(seeds_of adnoisy)" = 1,2,3,4,5,6,7,8,9 -- test "$(seeds_of adbase-aa)" = 1001,1002,1003,1004,1005,1006,1007,1008,1009
check "no cell beyond the cap (largest rep $(awk -F, 'NR > 1 && $4 > x { x = $4 } END { print x }' "$d/cells.csv"))" \
	test "$(awk -F, 'NR > 1 && $4 > x { x = $4 } END { print x }' "$d/cells.csv")" = 9
n_summary=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "adnoisy" && $3 == "bench-read" { print $c["n"] }' "$d/summary.csv")
check "summary.csv is computed over the extra seeds (adnoisy bench-read n = $n_summary)" test "$n_summary" = 9
extra=$(jq '.matrix.adaptive.extra_boots | length' "$d/manifest.json" 2>/dev/null || echo none)
check "manifest.json records the $extra extra boots (6 + 4 + 6 + 6), with seeds, and the rule" \
	both test "$extra" = 22 -- jqe '.matrix.adaptive.cap == 9 and .matrix.adaptive.batch == 2 and (.matrix.adaptive.rule | test("cap 9"))
		and ([.matrix.adaptive.extra_boots[] | select(.variant == "adbase-aa" and .rep == 9)][0].seed == 1009)' "$d/manifest.json"
check "manifest.json records each round's open rows" jqe '.matrix.adaptive.rounds[0].open | map(select(test("^adnoisy idle bench-read"))) | length == 1' "$d/manifest.json"
check "report.md's per-boot list names the extra boots" report_lists_extra
check "progress shows n/N with an ETA" grep -qE '^\[[0-9]+/[0-9]+\] adaptive boot adnoisy / idle / rep [0-9] \(seed [0-9]+; elapsed [0-9]+s, ETA [0-9]+' "$tmp/ad.log"
grep -E '^adaptive seeds: (round|done)' "$tmp/ad.log" | sed 's/^/# /'
touch "$tmp/mark"
sleep 1
plan=$("$LAB_ROOT/scripts/run/adaptive-seeds.sh" --plan "$d" 2>&1 | grep '^adaptive seeds --plan' || true)
check "--plan states round 1's cost and changes nothing ($plan)" \
	both grep -q 'round 1 would add 8 boot(s) over 4 variant x state pair(s); at most 16 more could follow' <<<"$plan" -- \
	test "$(find "$d" -newer "$tmp/mark" | wc -l)" = 0
# the rounds kept in .adaptive-state: a call that takes them from there, one
# whose state no longer matches the cells (replays), one with a planted line
# (replays) and one without the file all decide the same
next_says() { "$LAB_ROOT/scripts/run/adaptive-seeds.sh" --next "$d" 2>&1 >/dev/null | grep -E '^adaptive seeds: (done|round [0-9]+: [0-9]+ more)'; }
state_ok() {
	local a b c e
	grep -q '^key [0-9a-f]\{64\}$' "$d/.adaptive-state" || return 1
	a=$(next_says)
	sed -i 's/^cells .*/cells '"$(printf '0%.0s' {1..64})"'/' "$d/.adaptive-state"
	b=$(next_says)
	echo 'rm -rf /' >>"$d/.adaptive-state"
	c=$(next_says)
	rm -f "$d/.adaptive-state"
	e=$(next_says)
	[[ -n $a && $a == "$b" && $a == "$c" && $a == "$e" ]]
}
check "the rounds kept in .adaptive-state decide as a replay does (stale or planted state: replayed)" state_ok
# a boot of the kept round gone (or failed on the host's side): the call asks
# for it again, as a replay does, not past it
last=$d/cells/adnoisy.idle.$(find "$d/cells" -name 'adnoisy.idle.*.csv' -printf '%f\n' | cut -d. -f3 | sort -n | tail -1).csv
mv "$last" "$tmp/last.csv"
ask1=$("$LAB_ROOT/scripts/run/adaptive-seeds.sh" --next "$d" 2>/dev/null)
ask2=$("$LAB_ROOT/scripts/run/adaptive-seeds.sh" --next "$d" 2>/dev/null)
mv "$tmp/last.csv" "$last"
check "a boot of the kept round missing: asked for again with the state kept too ($ask2)" \
	both test -f "$d/.adaptive-state" -a -n "$ask1" -- test "$ask1" = "$ask2" -a "$ask1" = "adnoisy idle $(basename "$last" .csv | cut -d. -f3)"
cp "$d/cells.csv" "$tmp/cells.before"
rc=0
$m --resume ad >"$tmp/resume.log" 2>&1 || rc=$?
resumed_nothing() {
	test "$rc" = 0 && grep -q '0 guest boots to run' "$tmp/resume.log" && ! grep -q 'adaptive boot' "$tmp/resume.log" &&
		cmp -s "$tmp/cells.before" "$d/cells.csv"
}
check "--resume of the finished run exits 0 and boots nothing, adaptive seeds included (rc $rc)" resumed_nothing
# a run of exact cells only: not one extra boot
rc=0
FAKE_QEMU_NOISE="adexact:bench-nop:0" $m --variants adbase,adbase-aa,adexact --states idle --workloads bench-nop \
	--reps 3 --runtime 1 --profile none --accel tcg --jobs 1 --run-id exact >"$tmp/exact.log" 2>&1 || rc=$?
all_exact() {
	test "$rc" = 0 && grep -q '^adaptive seeds: round 0: no open row' "$tmp/exact.log" &&
		test "$(jq '.matrix.adaptive.extra_boots | length' "$LAB_RESULTS/exact/manifest.json")" = 0
}
check "a run whose cells are all exact gets no extra boot (rc $rc)" all_exact
# the A/A gate's seeds: a noisy baseline kernel (so its A/A row is tested) at
# 2 reps and cap 3; Holm over that one tested A/A row fires only when the
# exact rank-sum p can reach 0.05, at 4 seeds a side (2/70; at 3, 2/20): the
# baseline and the A/A control get 4, past the cap; the design stops at 3
rc=0
LAB_ADAPT_CAP=3 FAKE_QEMU_NOISE="adbase:bench-read:5" $m --variants adbase,adbase-aa,adexact --states idle \
	--workloads bench-nop,bench-read --reps 2 --runtime 1 --profile none --accel tcg --jobs 1 --run-id gate >"$tmp/gate.log" 2>&1 || rc=$?
d=$LAB_RESULTS/gate
gate_seeded() {
	test "$rc" = 0 && test "$(reps_of adbase),$(reps_of adbase-aa),$(reps_of adexact)" = 1,2,3,4,1,2,3,4,1,2,3 &&
		test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "adbase-aa" && $3 == "bench-read" { print $c["error_control"], $c["n"] }' "$d/summary.csv")" = "fwer-holm 4" &&
		jqe '.matrix.adaptive.rule | test("past the cap")' "$d/manifest.json"
}
check "the A/A gate gets its seeds past the cap: baseline $(reps_of adbase), A/A $(reps_of adbase-aa), design $(reps_of adexact) (rc $rc)" gate_seeded
