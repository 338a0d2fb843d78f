#!/bin/bash
# unit-labstat.sh: build tools/labstat into a temp dir and check it on the small
# known data files in tests/data/labstat/. Prints one unnumbered TAP line per
# check ("ok - ..." / "not ok - ..."); exits 1 if any check failed.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/tests/data/labstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { printf 'ok - %s\n' "$1"; }
fail() {
	printf 'not ok - %s\n' "$1"
	shift
	local line
	for line in "$@"; do printf '# %s\n' "$line"; done
	failures=$((failures + 1))
}
# check DESC CMD...: ok if CMD succeeds
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc" "failed: $*"; fi
}

# labstat names no variant: summary takes the baseline and the controls from
# its caller (scripts/analysis/summary.sh reads the catalog); these synthetic data use
# these names, and a later -B, -a or -g on a line overrides them
ctl=(-B nohooks -a nohooks-aa -g nohooks-codegen)
# lab OUT ARGS...: run labstat ARGS with stdout in OUT, stderr in OUT.err and the
# exit status in OUT.rc (summary gets ctl first); never aborts the script, so
# later checks still run
lab() {
	local out=$1 rc=0
	shift
	[[ $1 != summary ]] || set -- summary "${ctl[@]}" "${@:2}"
	"$ls" "$@" >"$out" 2>"$out.err" || rc=$?
	echo "$rc" >"$out.rc"
}
# ran_ok OUT: that run exited 0 and wrote nothing to stderr but notes
ran_ok() { [[ $(cat "$1.rc") == 0 ]] && ! grep -qv '^labstat: note: ' "$1.err"; }

# get CSV VARIANT STATE WORKLOAD COLUMN: one field, columns found by header
# name; prints nothing if the row or the column is not there
get() {
	awk -F, -v v="$2" -v s="$3" -v w="$4" -v c="$5" '
		NR == 1 {
			for (i = 1; i <= NF; i++) col[$i] = i
			if (!(c in col)) exit
			next
		}
		$col["variant"] == v && $col["state"] == s && $col["workload"] == w {
			print $col[c]
			exit
		}' "$1"
}
is_num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
# between X LO HI: X is a number and LO <= X <= HI
between() { is_num "$1" && awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
# ci_contains LO HI X: LO and HI are numbers and LO <= X <= HI
ci_contains() { is_num "$1" && is_num "$2" && between "$3" "$1" "$2"; }
# above0_contains LO HI X: the CI [LO, HI] contains X and excludes 0 from above
above0_contains() { ci_contains "$1" "$2" "$3" && between "$1" 0.001 1000; }
eq() { [[ $1 == "$2" ]]; }
differ() { ! cmp -s "$1" "$2"; }
# same_rows A B: the same data rows, in any order
same_rows() { diff <(tail -n +2 "$1" | sort) <(tail -n +2 "$2" | sort) >/dev/null; }

# --- build ---------------------------------------------------------------------
if make -s -C "$root/tools" O="$tmp" "$tmp/labstat" >"$tmp/build.log" 2>&1 && [[ ! -s $tmp/build.log ]]; then
	pass "labstat builds with -Wall -Wextra -Werror, no output"
else
	fail "labstat builds with -Wall -Wextra -Werror, no output" "$(cat "$tmp/build.log")"
	exit 1
fi
ls=$tmp/labstat

# --- summary: overhead, significance -------------------------------------------
ovh=$tmp/ovh.csv
lab "$ovh" summary "$data/overhead.csv"
check "summary of overhead.csv exits 0, no warnings" ran_ok "$ovh"
check "summary header is the documented column list" \
	eq "$(head -1 "$ovh")" "variant,state,workload,accel,n,failed,na,median_ops_per_sec,ops_ci_lo,ops_ci_hi,median_ns_per_op,ns_ci_lo,ns_ci_hi,delta_ns_per_op,delta_ci_lo,delta_ci_hi,overhead_pct,overhead_ci_lo,overhead_ci_hi,aa_floor_pct,codegen_floor_pct,significant,estimator,interval,delta_interval,measure,method,p_value,q_value,fdr,delta_coverage,codegen_floor,beyond_codegen,base,rerun_lo,rerun_hi,rerun_coverage,error_control"
check "summary rows in first-appearance order, columns found by header name" \
	eq "$(tail -n +2 "$ovh" | cut -d, -f1-5 | tr '\n' ' ')" \
	"nohooks,warm,randread,kvm,5 nohooks-aa,warm,randread,kvm,5 hooked,warm,randread,kvm,5 nohooks,cold,randread,kvm,5 hooked,cold,randread,kvm,5 "

o=$(get "$ovh" hooked warm randread overhead_pct)
lo=$(get "$ovh" hooked warm randread overhead_ci_lo)
hi=$(get "$ovh" hooked warm randread overhead_ci_hi)
check "+10% overhead: overhead_pct is about +10 (got $o)" between "$o" 9.5 10.5
check "+10% overhead: CI [$lo, $hi] contains 10 and lies above 0" \
	above0_contains "$lo" "$hi" 10
check "+10% overhead: significant" \
	eq "$(get "$ovh" hooked warm randread significant)" yes
check "+10% overhead: delta = Hodges-Lehmann shift against the pooled base (nohooks + nohooks-aa) = +100.000" \
	eq "$(get "$ovh" hooked warm randread delta_ns_per_op)" 100.000
check "+10% overhead: rank-sum 5 vs 10, every hooked seed above every base seed: p = 2/C(15,5) = 0.0007" \
	eq "$(get "$ovh" hooked warm randread method),$(get "$ovh" hooked warm randread p_value),$(get "$ovh" hooked warm randread fdr)" "rank-sum,0.0007,0.05"

lo=$(get "$ovh" hooked cold randread overhead_ci_lo)
hi=$(get "$ovh" hooked cold randread overhead_ci_hi)
check "+0.05% in 0.3% noise: CI [$lo, $hi] contains 0" ci_contains "$lo" "$hi" 0
check "+0.05% in 0.3% noise: not significant" \
	eq "$(get "$ovh" hooked cold randread significant)" no
check "base variant row: no overhead, significant '-'" \
	eq "$(get "$ovh" nohooks warm randread overhead_pct)/$(get "$ovh" nohooks warm randread significant)" "/-"
check "aa_floor_pct empty where there is no A/A variant" \
	eq "$(get "$ovh" hooked cold randread aa_floor_pct)" ""

fl=$tmp/floor.csv
lab "$fl" summary "$data/floor.csv"
check "A/A gate: the A/A control 1.5% off its base (5 vs 5 seeds, p = 2/252 = 0.0079) is significant" \
	eq "$(get "$fl" nohooks-aa withaa randread p_value),$(get "$fl" nohooks-aa withaa randread significant)" "0.0079,yes"
check "A/A gate: +1% where the A/A control is significant is not significant" \
	eq "$(get "$fl" hooked withaa randread significant)" no
check "A/A gate: the same +1% data without A/A data is significant" \
	eq "$(get "$fl" hooked noaa randread significant)" yes
check "aa_floor_pct is |overhead| of the A/A row (1.500), for the record" \
	eq "$(get "$fl" hooked withaa randread aa_floor_pct)" 1.500
check "A/A gate: the A/A row is its own family (error_control fwer-holm), the design rows Benjamini-Hochberg's (fdr-bh)" \
	eq "$(get "$fl" nohooks-aa withaa randread error_control),$(get "$fl" hooked noaa randread error_control)" "fwer-holm,fdr-bh"
# the same A/A data in 7 states: Holm over 7 tested A/A rows needs p <= 0.05/7
# at the first step, and 2/252 = 0.0079 is not (q = 7 x 0.0079 = 0.0556):
# not one fires, where each alone would; the design rows' BH family is unchanged
awk -F, 'NR == 1 { print; next } $2 == "noaa" { print } $2 == "withaa" { for (i = 1; i <= 7; i++) { $2 = "aa" i; print } }' OFS=, \
	"$data/floor.csv" >"$tmp/floor7.in"
lab "$tmp/floor7.csv" summary "$tmp/floor7.in"
check "A/A gate: 7 tested A/A rows at p 0.0079 each: Holm q 0.0556, none significant; the design rows' BH family leaves them out (q 8 x 0.0079, not 15 x)" \
	eq "$(get "$tmp/floor7.csv" nohooks-aa aa3 randread q_value),$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "nohooks-aa" && $c["significant"] == "yes"' "$tmp/floor7.csv" | wc -l),$(get "$tmp/floor7.csv" hooked noaa randread q_value)" "0.0556,0,0.0635"

# --- reproducibility -------------------------------------------------------------
lab "$tmp/ovh2.csv" summary "$data/overhead.csv"
check "summary output byte-identical across two runs" cmp -s "$ovh" "$tmp/ovh2.csv"
# Bootstrap CIs exist only from n >= 10 (boot12.csv: 12 kvm reps a group).
# At 100 resamples the quantiles move with the seed, so these show that runs
# agree because of the seed, and that the seed is per group.
lab "$tmp/r100a.csv" summary -R 100 "$data/boot12.csv"
lab "$tmp/r100b.csv" summary -R 100 "$data/boot12.csv"
lab "$tmp/r100s1.csv" summary -R 100 -s 1 "$data/boot12.csv"
check "-R 100: byte-identical across two runs" cmp -s "$tmp/r100a.csv" "$tmp/r100b.csv"
check "-R 100: a different seed (-s 1) changes the CIs" \
	differ "$tmp/r100a.csv" "$tmp/r100s1.csv"
{
	head -1 "$data/boot12.csv"
	tail -n +2 "$data/boot12.csv" | tac
} >"$tmp/reversed.csv"
lab "$tmp/rev.csv" summary -R 100 "$tmp/reversed.csv"
check "-R 100: reversing the row order changes no group's numbers" \
	same_rows "$tmp/r100a.csv" "$tmp/rev.csv"

# --- medians, counts -------------------------------------------------------------
md=$tmp/med.csv
lab "$md" summary "$data/medians.csv"
check "summary of medians.csv exits 0" eq "$(cat "$md.rc")" 0
check "median exact for odd n=5 (11..15 -> 13.000)" \
	eq "$(get "$md" nohooks warm odd median_ns_per_op)" 13.000
check "median exact for even n=4 (10,20,30,40 -> 25.000; ops -> 275.0)" \
	eq "$(get "$md" nohooks warm even median_ns_per_op),$(get "$md" nohooks warm even median_ops_per_sec)" 25.000,275.0
check "n=3 median CI is [min, max] = [7.000, 9.000] (coarse, as documented)" \
	eq "$(get "$md" nohooks warm three ns_ci_lo),$(get "$md" nohooks warm three ns_ci_hi)" 7.000,9.000
check "n < 10 under kvm: no bootstrap, the interval is the range, labelled so (n=2 {10,20}: [10.000, 20.000])" \
	eq "$(get "$md" nohooks warm two ns_ci_lo),$(get "$md" nohooks warm two ns_ci_hi),$(get "$md" nohooks warm two interval)" "10.000,20.000,range over 2 seeds"
check "failed and timeout rows counted in failed (3), n/a in na (1), n excludes them (5)" \
	eq "$(get "$md" nohooks warm odd n),$(get "$md" nohooks warm odd failed),$(get "$md" nohooks warm odd na)" 5,3,1
check "failed rows' values (900, 950) excluded from the median and CI" \
	eq "$(get "$md" nohooks warm odd median_ns_per_op),$(get "$md" nohooks warm odd ns_ci_hi)" 13.000,15.000
check "all-failed group still gets a row: n=0, empty numbers, significant '-'" \
	eq "$(grep '^nohooks,warm,allfail,' "$md")" "nohooks,warm,allfail,kvm,0,2,1,,,,,,,,,,,,,,,-,median,none (no ok rep),none,hook-cost,,,,,,,,,,,,"

# --- estimator matched to the noise ----------------------------------------------
# labels: "95% CI" only where it is one (n >= 10 on every side)
check "kvm n=5: interval 'range over 5 seeds', delta 'Hodges-Lehmann 96.0% CI (n=5 vs 10)', estimator median" \
	eq "$(get "$ovh" hooked warm randread estimator),$(get "$ovh" hooked warm randread interval),$(get "$ovh" hooked warm randread delta_interval),$(get "$ovh" hooked warm randread delta_coverage)" \
	"median,range over 5 seeds,Hodges-Lehmann 96.0% CI (n=5 vs 10),0.960"
# a figure's interval (column 24) is a CI only from n >= 10
no_small_ci() { ! awk -F, 'NR > 1 && $5 < 10 && $24 ~ /CI/' "$ovh" "$md" "$tmp/ic.csv" | grep -q .; }
b12=$tmp/b12.csv
lab "$b12" summary "$data/boot12.csv"
check "kvm n=12: '95% bootstrap CI over 12 seeds', delta 'Hodges-Lehmann 95.1% CI (n=12 vs 24)'" \
	eq "$(get "$b12" hooked warm randread interval),$(get "$b12" hooked warm randread delta_interval)" \
	"95% bootstrap CI over 12 seeds,Hodges-Lehmann 95.1% CI (n=12 vs 24)"
lo=$(get "$b12" hooked warm randread overhead_ci_lo)
hi=$(get "$b12" hooked warm randread overhead_ci_hi)
check "kvm n=12: +2% overhead, bootstrap CI [$lo, $hi] contains 2, significant" \
	both above0_contains "$lo" "$hi" 2 -- eq "$(get "$b12" hooked warm randread significant)" yes

# recorded tcg-icount rows (results/20261203-083012-tcg, state off): two
# modes 3.87 instructions/op apart on bench-read
ic=$tmp/ic.csv
lab "$ic" summary -D randread-polled,randread-sqpoll "$data/icount-recorded.csv"
check "icount: summary of recorded cells exits 0" eq "$(cat "$ic.rc")" 0
check "icount, noisy (two modes 3.87 apart): the figure is the median (rfc/off/bench-read 3217.824), not a minimum that may not repeat" \
	eq "$(get "$ic" rfc off bench-read median_ns_per_op),$(get "$ic" rfc off bench-read estimator)" "3217.824,median"
check "icount, every seed within 0.01: estimator exact, the minimum (nohooks/off/randread-polled 14327.617)" \
	eq "$(get "$ic" nohooks off randread-polled median_ns_per_op),$(get "$ic" nohooks off randread-polled estimator)" "14327.617,exact"
check "icount: interval is [min, max] labelled 'range over 3 seeds', never a CI" \
	eq "$(get "$ic" rfc off bench-read ns_ci_lo),$(get "$ic" rfc off bench-read ns_ci_hi),$(get "$ic" rfc off bench-read interval)" \
	"3213.953,3217.836,range over 3 seeds"
check "icount, noisy base: Hodges-Lehmann deltas upstream +8.010, static-key +3.062, rfc +10.010" \
	eq "$(get "$ic" upstream off bench-read delta_ns_per_op),$(get "$ic" static-key off bench-read delta_ns_per_op),$(get "$ic" rfc off bench-read delta_ns_per_op)" \
	"8.010,3.062,10.010"
check "icount: upstream +8 on bench-read: 3 seeds above all 6 pooled base seeds, p = 2/84 = 0.0238, significant" \
	eq "$(get "$ic" upstream off bench-read p_value),$(get "$ic" upstream off bench-read significant)" "0.0238,yes"
check "icount: A/A row against the base alone (3 vs 3): its interval covers 90.0%, labelled so" \
	eq "$(get "$ic" nohooks-aa off bench-read delta_interval),$(get "$ic" nohooks-aa off bench-read significant)" "Hodges-Lehmann 90.0% CI (n=3 vs 3),no"
check "device-time workload (randread-polled): measure device-time, never starred (n/a)" \
	eq "$(get "$ic" rfc off randread-polled measure),$(get "$ic" rfc off randread-polled significant)" "device-time,n/a"
lab "$tmp/ic-nod.csv" summary "$data/icount-recorded.csv"
check "without -D the same randread-polled row is judged (measure hook-cost)" \
	eq "$(get "$tmp/ic-nod.csv" rfc off randread-polled measure)" hook-cost
check "no 'CI' label on any row with n < 10" no_small_ci

# the icount resolution: -0.001 instructions/op beyond an A/A of exactly 0 is
# not significant (static-key/off/bench-nop in a published run); +0.02 is
res=$tmp/res-cells.csv
{
	echo "variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit"
	for r in 1 2 3; do
		echo "nohooks,off,bench-nop,$r,tcg,ok,3502823.0,285.484,instructions"
		echo "nohooks-aa,off,bench-nop,$r,tcg,ok,3502823.0,285.484,instructions"
		echo "tiny,off,bench-nop,$r,tcg,ok,3502835.3,285.483,instructions"
		echo "small,off,bench-nop,$r,tcg,ok,3502577.8,285.504,instructions"
	done
} >"$res"
lab "$tmp/res.csv" summary "$res"
check "exact cells: a -0.001 instructions/op delta is not significant, a +0.020 one is, method exact, no p-value" \
	eq "$(get "$tmp/res.csv" tiny off bench-nop significant),$(get "$tmp/res.csv" small off bench-nop significant),$(get "$tmp/res.csv" small off bench-nop method),$(get "$tmp/res.csv" small off bench-nop p_value)" "no,yes,exact,"

# codegen control: its delta is the codegen floor (beyond_codegen), never part
# of significant; BH over the 5 rows of codegen.csv
cgf=$tmp/cg.csv
lab "$cgf" summary "$data/codegen.csv"
check "codegen: summary exits 0" eq "$(cat "$cgf.rc")" 0
check "codegen_floor_pct = |overhead of nohooks-codegen| (0.190%), aa_floor_pct |overhead of nohooks-aa| (0.200%)" \
	eq "$(get "$cgf" small idle bench codegen_floor_pct),$(get "$cgf" small idle bench aa_floor_pct)" "0.190,0.200"
check "codegen: +1% at 3 seeds against 6: p = 2/84 = 0.0238, but BH over the 4 variant rows (the A/A row is the gate's) gives q = 0.0952: not significant" \
	eq "$(get "$cgf" big idle bench p_value),$(get "$cgf" big idle bench q_value),$(get "$cgf" big idle bench significant)" "0.0238,0.0952,no"
check "codegen_floor = |HL delta of nohooks-codegen| (1.900); beyond_codegen: +9.9 [7.0, 12.9] yes, +1.0 [-1.5, 2.4] no; none on the control or the base" \
	eq "$(get "$cgf" big idle bench codegen_floor),$(get "$cgf" big idle bench beyond_codegen),$(get "$cgf" small idle bench beyond_codegen),$(get "$cgf" nohooks-codegen idle bench codegen_floor)$(get "$cgf" nohooks idle bench codegen_floor)" "1.900,yes,no,"
# exact cells: the floor is the codegen control's exact delta (+1.000); a
# +0.500 design is significant (|delta| >= 0.01) but within the floor
cgx=$tmp/cgx.csv
{
	echo "variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op"
	for r in 1 2 3; do
		for vn in nohooks:300.000 nohooks-aa:300.000 nohooks-codegen:301.000 eight:308.000 half:300.500; do
			echo "${vn%%:*},idle,bench-nop,$r,tcg,ok,$(awk -v n="${vn#*:}" 'BEGIN { printf "%.1f", 1e9 / n }'),${vn#*:}"
		done
	done
} >"$cgx"
lab "$tmp/cgx-out.csv" summary "$cgx"
check "exact cells: codegen_floor 1.000; +8.000 beyond it, +0.500 significant but not beyond it (the floor never changes significant)" \
	eq "$(get "$tmp/cgx-out.csv" eight idle bench-nop codegen_floor),$(get "$tmp/cgx-out.csv" eight idle bench-nop beyond_codegen),$(get "$tmp/cgx-out.csv" half idle bench-nop significant),$(get "$tmp/cgx-out.csv" half idle bench-nop beyond_codegen)" "1.000,yes,yes,no"
lab "$tmp/cg-q.csv" summary -q 0.2 "$data/codegen.csv"
check "codegen: the same +1% at -q 0.2 is significant, the +0.075% straddling 0 is not" \
	eq "$(get "$tmp/cg-q.csv" big idle bench significant),$(get "$tmp/cg-q.csv" straddle idle bench significant),$(get "$tmp/cg-q.csv" big idle bench fdr)" "yes,no,0.20"

# --- the rank-sum test, Hodges-Lehmann and BH against hand-computed cases ----------
rs() { "$ls" ranksum "$@" | tail -n +2 | cut -d, -f1-5; }
check "ranksum 1,2,3 vs 4,5,6: p = 2/20, HL = median of 9 differences = 3, interval = range [1, 5] covering 1 - 2/20" \
	eq "$(rs 1,2,3 4,5,6)" "0.100000,3.000000,1.000000,5.000000,0.900000"
check "ranksum 1..4 vs 5..8: p = 2/70, HL = 4, [1, 7] covers 1 - 2/70 = 0.971429" \
	eq "$(rs 1,2,3,4 5,6,7,8)" "0.028571,4.000000,1.000000,7.000000,0.971429"
check "ranksum with ties 1,1,2 vs 2,3,3: mid-ranks, 4 of 20 splits as extreme: p = 0.2, HL = 1" \
	eq "$(rs 1,1,2 2,3,3)" "0.200000,1.000000,0.000000,2.000000,0.900000"
check "ranksum 1,2,3 vs 4..9: p = 2/84, HL = 4.5, second-smallest to second-largest difference [2, 7], 1 - 4/84" \
	eq "$(rs 1,2,3 4,5,6,7,8,9)" "0.023810,4.500000,2.000000,7.000000,0.952381"
check "ranksum is antisymmetric: 4,5,6 vs 1,2,3 gives HL -3 in [-5, -1], same p" \
	eq "$(rs 4,5,6 1,2,3)" "0.100000,-3.000000,-5.000000,-1.000000,0.900000"
check "ranksum of identical samples: p = 1" eq "$(rs 7,7,7 7,7,7 | cut -d, -f1-2)" "1.000000,0.000000"
big=$(seq -s, 1 60) big2=$(seq -s, 31 90)
check "ranksum above 100 values uses the normal approximation, labelled" \
	eq "$("$ls" ranksum "$big" "$big2" | tail -1 | cut -d, -f6)" normal-approx
bh_out() { "$ls" bh "$@" | tail -n +2 | tr '\n' ' '; }
check "bh 0.01 0.04 0.03 0.2: q = 0.04, 0.0533, 0.0533, 0.2; only the first at 0.05" \
	eq "$(bh_out 0.01 0.04 0.03 0.2)" "0.01,0.040000,yes 0.04,0.053333,no 0.03,0.053333,no 0.2,0.200000,no "
check "bh -q 0.06: all but 0.2 significant" \
	eq "$("$ls" bh -q 0.06 0.01 0.04 0.03 0.2 | cut -d, -f3 | tr '\n' ' ')" "significant yes yes yes no "

# --- rerun intervals: where a rerun's Δ falls, at the stated rate --------------------
# two "runs" of 150 noisy tcg cells (3 seeds a side and 3 A/A, normal noise of
# sd 0.3 around a +5 shift; awk's srand 1 and 2 are the disjoint seeds) and
# one exact cell: each run's rerun interval must hold the other's Δ at about
# its stated 95% (300 chances: 90-99.5% is within 4 standard errors), while
# the interval for the shift holds it less often (it is not for a rerun).
# 150 more cells (h1..h150) where only the design is noisy (sd 0.6 against a
# baseline of sd 0.02, as a design that emits records against nohooks): a
# rerun interval that pooled both sides' noise covered 77% there
simrun() {
	awk -v seed="$1" 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
	BEGIN {
		srand(seed)
		print "variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op"
		for (w = 1; w <= 150; w++)
			for (r = 1; r <= 3; r++) {
				printf "nohooks,s,w%d,%d,tcg,ok,1000,%.4f\n", w, r, 100 + 0.3 * g()
				printf "nohooks-aa,s,w%d,%d,tcg,ok,1000,%.4f\n", w, r, 100 + 0.3 * g()
				printf "hooked,s,w%d,%d,tcg,ok,1000,%.4f\n", w, r, 105 + 0.3 * g()
				printf "nohooks,s,h%d,%d,tcg,ok,1000,%.4f\n", w, r, 100 + 0.02 * g()
				printf "nohooks-aa,s,h%d,%d,tcg,ok,1000,%.4f\n", w, r, 100 + 0.02 * g()
				printf "hooked,s,h%d,%d,tcg,ok,1000,%.4f\n", w, r, 105 + 0.6 * g()
			}
		for (r = 1; r <= 3; r++) {
			printf "nohooks,s,exact,%d,tcg,ok,1000,100.000\nnohooks-aa,s,exact,%d,tcg,ok,1000,100.001\n", r, r
			printf "hooked,s,exact,%d,tcg,ok,1000,108.000\n", r
		}
	}' >"$tmp/sim$1.csv"
	lab "$tmp/sim$1.out" summary "$tmp/sim$1.csv"
}
simrun 1
simrun 2
cover() { # COLUMN-PREFIX WORKLOAD-PREFIX: % of the two runs' intervals holding the other run's Δ
	awk -F, -v lo="$1_lo" -v hi="$1_hi" -v w="^$2[0-9]" 'FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
		$c["variant"] == "hooked" && $c["method"] == "rank-sum" && $c["workload"] ~ w { k = $c["workload"]; D[f, k] = $c["delta_ns_per_op"]; L[f, k] = $c[lo]; H[f, k] = $c[hi]; K[k] = 1 }
		END { for (k in K) for (a = 1; a <= 2; a++) { b = 3 - a; n++; h += D[b, k] >= L[a, k] && D[b, k] <= H[a, k] }; printf "%.1f", 100 * h / n }' "$tmp/sim1.out" "$tmp/sim2.out"
}
rc_=$(cover rerun w) sc_=$(cover delta_ci w) rh_=$(cover rerun h)
check "rerun intervals hold the other run's Δ at about the stated 95% ($rc_% of 300; shift intervals $sc_%)" \
	bash -c "$(declare -f between is_num); between '$rc_' 90 99.5 && between '$sc_' 0 '$rc_'"
check "so do they where only the design's side is noisy ($rh_% of 300)" \
	bash -c "$(declare -f between is_num); between '$rh_' 90 99.5"
check "rerun_coverage states 0.950 on a tested row, 1.000 on an exact one" \
	eq "$(get "$tmp/sim1.out" hooked s w1 rerun_coverage),$(get "$tmp/sim1.out" hooked s exact rerun_coverage)" "0.950,1.000"
check "an exact row's rerun interval is its range over seed pairs (+7.999 .. +8.000)" \
	eq "$(get "$tmp/sim1.out" hooked s exact rerun_lo),$(get "$tmp/sim1.out" hooked s exact rerun_hi)" "7.999,8.000"
check "the rerun interval is the same from a second summary (seeded resampling)" \
	bash -c "'$ls' summary ${ctl[*]} '$tmp/sim1.csv' 2>/dev/null | cmp -s - '$tmp/sim1.out'"

# --- bad input and usage -----------------------------------------------------------
# exits_2_saying MSG ARGS...: labstat ARGS exits 2, writes nothing on stdout
# and one line on stderr, containing MSG
exits_2_saying() {
	local msg=$1
	shift
	lab "$tmp/bad" "$@"
	[[ $(cat "$tmp/bad.rc") == 2 && ! -s $tmp/bad && $(wc -l <"$tmp/bad.err") == 1 ]] &&
		grep -qF -- "$msg" "$tmp/bad.err"
}
check "missing column header: exit 2 naming the column ns_per_op" \
	exits_2_saying "missing-column.csv:1: no 'ns_per_op' column" summary "$data/missing-column.csv"
check "malformed number: exit 2 naming file and line (bad-number.csv:4)" \
	exits_2_saying "bad-number.csv:4: ns_per_op '999.0x'" summary "$data/bad-number.csv"
check "duplicate ok rep: exit 2 naming both lines" \
	exits_2_saying "duplicate-rep.csv:4: rep '1' of nohooks/warm/randread is already ok on line 2" \
	summary "$data/duplicate-rep.csv"
check "summary without a baseline: figures, no Δ, exit 0 (labstat names no variant; the catalog's comes with -B)" \
	bash -c "'$ls' summary '$data/overhead.csv' >'$tmp/nob' 2>'$tmp/nob.err' && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next } \$c[\"median_ns_per_op\"] == \"\" || \$c[\"delta_ns_per_op\"] != \"\" { bad = 1 } END { exit bad || NR < 2 }' '$tmp/nob'"
check "unknown subcommand: exit 2" exits_2_saying "unknown subcommand 'sumary'" sumary "$data/overhead.csv"
check "-R below the minimum: exit 2" exits_2_saying "-R '5'" summary -R 5 "$data/overhead.csv"
check "missing input file: exit 2 naming it" \
	exits_2_saying "fopen $tmp/nonexistent.csv" summary "$tmp/nonexistent.csv"
usage_documented() {
	"$ls" -h >"$tmp/usage"
	grep -q "default 10000" "$tmp/usage" && grep -q "default 20211" "$tmp/usage" &&
		grep -q "base variant: the catalog's baseline (default none" "$tmp/usage" && ! grep -q "nohooks" "$tmp/usage" &&
		grep -q "default 0.95" "$tmp/usage" &&
		grep -q "n >= 10" "$tmp/usage" && grep -q "Benjamini-Hochberg" "$tmp/usage" &&
		grep -q "default 0.05" "$tmp/usage" && grep -q "Hodges-Lehmann" "$tmp/usage"
}
check "usage documents the defaults (naming no variant), the methods and the small-n caveat" usage_documented
check "-q outside (0, 1): exit 2" exits_2_saying "-q '1.5'" summary -q 1.5 "$data/overhead.csv"
check "ranksum with a non-number: exit 2 naming it" exits_2_saying "'x' in '1,x'" ranksum 1,x 3,4
check "ranksum with one value a side: exit 2" exits_2_saying "at least 2 values a side" ranksum 1 3,4
check "bh with a p-value above 1: exit 2" exits_2_saying "'1.5' is not a p-value" bh 0.1 1.5

# --- base trees (issue 23): a Δ only against the baseline of the same base ---------
# bases.csv: exact tcg cells; nohooks 100 and hooked 110 on 6.1, nohooks-6-12
# 200 (a baseline that differs) and hooked-6-12 205 on 6.12, orphan on 6.99
# (no baseline there); each baseline with its own A/A control
bs=$tmp/bases.csv
per_base=(-B "6.1=nohooks,6.12=nohooks-6-12" -a "6.1=nohooks-aa,6.12=nohooks-6-12-aa")
lab "$bs" summary "${per_base[@]}" "$data/bases.csv"
check "bases: summary with per-base controls exits 0" ran_ok "$bs"
check "bases: every row carries its base (6.1 6.1 6.1 6.12 6.12 6.12 6.99)" \
	eq "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s ", $c["base"] }' "$bs")" "6.1 6.1 6.1 6.12 6.12 6.12 6.99 "
check "bases: 6.1's Δ against nohooks (+10.000), 6.12's against nohooks-6-12 (+5.000, not the cross-base +105)" \
	eq "$(get "$bs" hooked idle bench-nop delta_ns_per_op),$(get "$bs" hooked-6-12 idle bench-nop delta_ns_per_op)" 10.000,5.000
check "bases: each A/A control against its own base (0.000 and 0.000), both baselines with no Δ" \
	eq "$(get "$bs" nohooks-aa idle bench-nop delta_ns_per_op),$(get "$bs" nohooks-6-12-aa idle bench-nop delta_ns_per_op),$(get "$bs" nohooks idle bench-nop delta_ns_per_op),$(get "$bs" nohooks-6-12 idle bench-nop delta_ns_per_op)" 0.000,0.000,,
check "bases: a base with no baseline gets no Δ, never another base's (orphan on 6.99)" \
	eq "$(get "$bs" orphan idle bench-nop delta_ns_per_op),$(get "$bs" orphan idle bench-nop significant)" ,-
lab "$tmp/bases-one.csv" summary -B nohooks -a nohooks-aa "$data/bases.csv"
check "bases: one -B name for every base still takes no Δ across bases (hooked-6-12 has none against nohooks)" \
	eq "$(get "$tmp/bases-one.csv" hooked-6-12 idle bench-nop delta_ns_per_op),$(get "$tmp/bases-one.csv" hooked idle bench-nop delta_ns_per_op)" ,10.000
# the A/A gate is per base: a 6.12 A/A that differs from its base voids 6.12's verdicts only
sed 's/^\(nohooks-6-12-aa,.*\),200\.000,6\.12$/\1,201.000,6.12/' "$data/bases.csv" >"$tmp/bases-aa.in"
lab "$tmp/bases-aa.csv" summary "${per_base[@]}" "$tmp/bases-aa.in"
check "bases: a significant 6.12 A/A sets 6.12's verdicts to no and leaves 6.1's (yes/no)" \
	eq "$(get "$tmp/bases-aa.csv" nohooks-6-12-aa idle bench-nop significant),$(get "$tmp/bases-aa.csv" hooked idle bench-nop significant),$(get "$tmp/bases-aa.csv" hooked-6-12 idle bench-nop significant)" yes,yes,no
# no base column: -b names the base of every row (a run from before issue 23)
cut -d, -f1-9 "$data/bases.csv" | grep -v '^[a-z-]*6-12\|^orphan' >"$tmp/nobase.in"
lab "$tmp/nobase.csv" summary "${per_base[@]}" -b 6.1 "$tmp/nobase.in"
check "bases: a file without a base column is on -b's base (6.1): Δ +10.000 against nohooks, base column 6.1" \
	eq "$(get "$tmp/nobase.csv" hooked idle bench-nop delta_ns_per_op),$(get "$tmp/nobase.csv" hooked idle bench-nop base)" 10.000,6.1
sed '$s/,6\.99$/,6.1/' "$data/bases.csv" >"$tmp/twobase.in"
check "bases: one variant on two bases: exit 2 naming it" exits_2_saying "orphan is on base '6.1' here and on '6.99' before" summary "$tmp/twobase.in"
check "bases: a -B list with an empty variant: exit 2" exits_2_saying "BASE=VARIANT" summary -B 6.1=nohooks,6.12= "$data/bases.csv"

# --- compare -------------------------------------------------------------------------
cm=$tmp/cmp.csv
lab "$cm" compare "$data/compare-a.csv" "$data/compare-b.csv"
c=$(get "$cm" hooked warm randread change_pct)
lo=$(get "$cm" hooked warm randread change_ci_lo)
hi=$(get "$cm" hooked warm randread change_ci_hi)
check "compare: B = A * 1.05 gives change_pct +5.000 (got $c)" eq "$c" 5.000
check "compare: its CI [$lo, $hi] contains 5 and it is significant" \
	both above0_contains "$lo" "$hi" 5 -- eq "$(get "$cm" hooked warm randread significant)" yes
check "compare: identical groups give 0.000, not significant" \
	eq "$(get "$cm" hooked warm seqwrite change_pct),$(get "$cm" hooked warm seqwrite significant)" 0.000,no
check "compare: only groups present in both files, header as documented" \
	eq "$(cut -d, -f1-5 "$cm" | tr '\n' ' ')" \
	"variant,state,workload,n_a,n_b hooked,warm,randread,5,5 hooked,warm,seqwrite,5,5 "

# --- describe --------------------------------------------------------------------------
described() {
	"$ls" describe "$data/medians.csv" >"$tmp/describe"
	[[ $(wc -l <"$tmp/describe") -eq 6 ]] &&
		grep -Eq '^nohooks +warm +allfail +kvm +0 +2 +1 +-' "$tmp/describe" &&
		grep -Eq '^nohooks +warm +even +kvm +4 +0 +0 +25\.000 +10\.000 +40\.000 ' "$tmp/describe"
}
check "describe: one line per group with n, counts, median, min, max" described

((failures == 0))
