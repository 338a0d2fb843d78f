#!/bin/bash
# 63-attribution.sh: the lab-attrib QEMU plugin (tools/lab-attrib.c) and
# scripts/run/attribute.sh on bench-nop, state idle: nohooks, upstream and rfc
# booted plain (seed 1, as the timed cells) and as attribution boots
# (nokaslr, plugin). Checks that the plugin leaves the guest's figure bit
# for bit unchanged, that its window total is the timed figure, that the
# per-symbol Δs vs nohooks add up to the timed Δ of the plain boots within
# 0.5 instruction/op, that upstream's Δ sits in io_issue_sqe, and that rfc
# (which audits NOP) enters __audit_uring_entry/exit once per op; then
# scripts/analysis/explain-delta.sh upstream: per-instruction counts, path diff, Δ.
# Builds and boots: skipped under LAB_TEST_QUICK=1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if quick; then
	skip "attribution: plugin sums and calls" "LAB_TEST_QUICK=1 (builds and boots)"
	exit 0
fi
if [[ $("$LAB_ROOT/guest/accel.sh" auto 2>/dev/null || echo none) != tcg ]]; then
	skip "attribution: plugin sums and calls" "accelerator is not tcg: the plugin needs TCG icount"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
W=bench-nop S=idle TOL=0.5
vs=(nohooks upstream rfc)

# the plugin refuses bad arguments with one clear line
make -s -C "$LAB_ROOT/tools" O="$tmp" "$tmp/lab-attrib.so"
rc=0
qemu-system-x86_64 -accel tcg -display none -nodefaults -plugin "file=$tmp/lab-attrib.so" \
	-kernel /dev/null >/dev/null 2>"$tmp/noarg.err" || rc=$?
check "plugin without map= fails naming the missing argument" \
	both test "$rc" -ne 0 -- grep -q 'lab-attrib: map=SYSTEM_MAP is required' "$tmp/noarg.err"

ns_of() { "$LAB_ROOT/scripts/analysis/parse-results.sh" "$1/results.txt" | sed -n "s/^workload=$W .*ns_per_op=\([0-9.]*\).*/\1/p"; }
declare -A timed=()
for v in "${vs[@]}"; do
	"$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads "$W" --out "$tmp/plain-$v" "$v" "$S" 2>"$tmp/plain-$v.err" || true
	timed[$v]=$(ns_of "$tmp/plain-$v")
done
check "plain boots give a bench-nop figure for ${vs[*]}" test -n "${timed[nohooks]}" -a -n "${timed[upstream]}" -a -n "${timed[rfc]}"

run=$tmp/run
mkdir -p "$run"
printf 'variants=%s\nstates=%s\nworkloads=%s\nreps=1\nruntime=1\naccel=tcg\nprofile=none\n' \
	"$(IFS=,; echo "${vs[*]}")" "$S" "$W" >"$run/matrix.conf"
rc=0
LAB_ATTRIB_WORKLOADS=$W "$LAB_ROOT/scripts/run/attribute.sh" "$run" 2>"$tmp/attribute.err" || rc=$?
A=$run/attribution.csv
# shellcheck disable=SC2016 # awk source
check "attribute.sh wrote attribution.csv with rows for ${vs[*]}" both test "$rc" -eq 0 -- \
	awk -F, '$7 == "[total]" { n++ } END { exit n != 3 }' "$A"

# the plugin does not perturb the guest: same figure as a plain nokaslr boot
"$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads "$W" --plugin none \
	--out "$tmp/control" nohooks "$S" 2>"$tmp/control.err" || true
with=$(ns_of "$run/raw/attrib/nohooks.$S") without=$(ns_of "$tmp/control")
check "plugin loaded: ns_per_op bit-identical to a plain nokaslr boot ($with vs $without)" \
	both test -n "$with" -- test "$with" == "$without"

# get V SYM COLUMN: a value of attribution.csv
get() { awk -F, -v v="$1" -v s="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == v && $7 == s { print $c[col] }' "$A"; }
total=$(get nohooks '[total]' instructions_per_op)
check "window total $total instructions/op = the attribution boot's own figure $with within $TOL" \
	awk -v a="$total" -v b="$with" -v t="$TOL" 'BEGIN { d = a - b; exit !(a > 0 && d < t && -d < t) }'

# sum over symbols of Δ vs nohooks against the timed Δ of the plain boots
sum_of() { awk -F, -v v="$1" '$1 == v && $7 != "[total]" { s += $8 } END { printf "%.3f", s }' "$A"; }
for v in upstream rfc; do
	sd=$(awk -v a="$(sum_of "$v")" -v b="$(sum_of nohooks)" 'BEGIN { printf "%.3f", a - b }')
	td=$(awk -v a="${timed[$v]:-0}" -v b="${timed[nohooks]:-0}" 'BEGIN { printf "%.3f", a - b }')
	check "$v: Σ per-symbol Δ $sd = timed Δ $td instructions/op within $TOL" \
		awk -v a="$sd" -v b="$td" -v t="$TOL" 'BEGIN { d = a - b; exit !(b != 0 && d < t && -d < t) }'
done

# footprint.csv (lines=1, sub=io_submit_sqes): upstream's whole NOP Δ is
# inside io_submit_sqes' subtree, and every variant's window ran some lines
F=$run/footprint.csv
fget() { awk -F, -v v="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == v { print $c[col] }' "$F"; }
sd=$(awk -v a="$(fget upstream sub_instructions_per_op)" -v b="$(fget nohooks sub_instructions_per_op)" 'BEGIN { printf "%.3f", a - b }')
td=$(awk -v a="${timed[upstream]:-0}" -v b="${timed[nohooks]:-0}" 'BEGIN { printf "%.3f", a - b }')
check "footprint: upstream's Δ in the io_submit_sqes subtree $sd = timed Δ $td within $TOL" \
	awk -v a="$sd" -v b="$td" -v t="$TOL" 'BEGIN { d = a - b; exit !(b != 0 && d < t && -d < t) }'
# shellcheck disable=SC2016 # awk source
check "footprint: kernel lines per op and hot text bytes for ${vs[*]}" \
	awk -F, 'NR > 1 && $8 + 0 > 1 && $10 + 0 > 0 { n++ } END { exit n != 3 }' "$F"

# upstream skips NOP's audit: its whole Δ is io_issue_sqe's own instructions
d_issue=$(awk -v a="$(get upstream io_issue_sqe instructions_per_op)" -v b="$(get nohooks io_issue_sqe instructions_per_op)" 'BEGIN { printf "%.3f", a - b }')
td=$(awk -v a="${timed[upstream]:-0}" -v b="${timed[nohooks]:-0}" 'BEGIN { printf "%.3f", a - b }')
check "upstream: Δ io_issue_sqe self-cost $d_issue = timed Δ $td within $TOL" \
	awk -v a="$d_issue" -v b="$td" -v t="$TOL" 'BEGIN { d = a - b; exit !(a > 1 && d < t && -d < t) }'
# rfc audits every opcode, NOP included: one entry and one exit per op
for fn in __audit_uring_entry __audit_uring_exit; do
	c=$(get rfc "$fn" calls_per_op)
	check "rfc: $fn calls_per_op ${c:-none} = 1.00" awk -v c="${c:-0}" 'BEGIN { exit !(c >= 0.995 && c < 1.005) }'
	c=$(get nohooks "$fn" calls_per_op)
	check "nohooks: $fn not called (${c:-no row})" test -z "$c"
done

# the instruction-level explanation (scripts/analysis/explain-delta.sh, plugin insns=):
# per-instruction counts add up to the plugin's per-symbol count in both
# kernels, the executed-path diff nets to the Δ, and that Δ is the
# attribution's Δ io_issue_sqe
rc=0
"$LAB_ROOT/scripts/analysis/explain-delta.sh" upstream --workload "$W" --state "$S" >"$tmp/explain.out" 2>"$tmp/explain.err" || rc=$?
sums_ok() {
	local k line
	for k in nohooks upstream; do
		line=$(grep "^# $k: io_issue_sqe executes " "$tmp/explain.out") || return 1
		[[ $line =~ executes\ ([0-9.]+)\ instructions\ per\ op\ \(plugin\ per-symbol\ count:\ ([0-9.]+)\) ]] || return 1
		[[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] || return 1
	done
}
check "explain: exit 0, per-instruction counts add up to the plugin's io_issue_sqe count in nohooks and upstream" \
	both test "$rc" -eq 0 -- sums_ok
net=$(sed -n 's/^# diff: .*: net \([-+0-9.]*\)\/op$/\1/p' "$tmp/explain.out")
dx=$(sed -n 's/^# Δ io_issue_sqe = \([-+0-9.]*\) instructions\/op.*/\1/p' "$tmp/explain.out")
check "explain: the executed-path diff nets to the Δ (${net:-none} = ${dx:-none}) and equals the attribution's Δ io_issue_sqe $d_issue within 0.01" \
	awk -v a="${net:-x}" -v b="${dx:-y}" -v c="$d_issue" 'BEGIN { exit !(a != "x" && a + 0 == b + 0 && a - c < 0.01 && c - a < 0.01) }'

# attribute.sh traced io_issue_sqe per instruction in the same boots: the
# report's path table nets to the attribution's Δ io_issue_sqe
P=$run/paths
check "attribute.sh wrote the executed path of io_issue_sqe for nohooks, upstream and rfc" \
	test -s "$P/nohooks.$S.$W.io_issue_sqe.txt" -a -s "$P/upstream.$S.$W.io_issue_sqe.txt" -a -s "$P/rfc.$S.$W.io_issue_sqe.txt"
"$LAB_ROOT/scripts/report/report-attribution.sh" "$run" >"$tmp/report-attr.md" 2>"$tmp/report-attr.err" || true
row=$(grep -E "^\| upstream \| $S \| $W \| " "$tmp/report-attr.md" || true)
check "report: upstream's io_issue_sqe path row nets to the attribution's Δ $d_issue (${row:-no row})" \
	awk -v r="$row" -v c="$d_issue" 'BEGIN { n = split(r, f, "|"); x = f[5] + 0; exit !(n > 5 && x - c < 0.01 && c - x < 0.01) }'
check "report: the upstream diff is shown, and names the audit_skip test (test \$0x2)" \
	grep -qE '^[+]test +[$]0x2,' "$tmp/report-attr.md"
