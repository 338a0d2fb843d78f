#!/bin/bash
# Unit test of scripts/report/readme-figures.sh: README.md's figures block is what the
# published run's committed files give, and a figure changed on either side
# (the README's text, or the data) is caught.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rf=$LAB_ROOT/scripts/report/readme-figures.sh
run=$(<"$LAB_ROOT/results/PUBLISHED")

check "README.md's figures block matches results/$run (scripts/report/readme-figures.sh --check)" "$rf" --check

# a figure edited by hand in the README is caught
# (a run of several bases labels the row "upstream (6.1)")
sed 's/^| upstream \(([0-9.]*) \)\{0,1\}| +8\.0 \//| upstream \1| +8.1 \//' "$LAB_ROOT/README.md" >"$tmp/README.md"
edited() { ! cmp -s "$LAB_ROOT/README.md" "$tmp/README.md" && ! LAB_README=$tmp/README.md "$rf" --check 2>/dev/null; }
check "a hand-edited figure in the README (upstream +8.0 -> +8.1) fails the check" edited

# the data changed under the README is caught: upstream's idle NOP Δ moved by 1
mkdir -p "$tmp/results/$run"
cp "$LAB_ROOT/results/$run"/{manifest.json,cells.csv,summary.csv,attribution.csv} "$tmp/results/$run/"
cp "$LAB_ROOT/results/$run"/rerun-vs-*.txt "$tmp/results/$run/" 2>/dev/null || true
echo "$run" >"$tmp/results/PUBLISHED"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	$c["variant"] == "upstream" && $c["state"] == "idle" && $c["workload"] == "bench-nop" { $c["delta_ns_per_op"] += 1 }
	{ print }' "$LAB_ROOT/results/$run/summary.csv" >"$tmp/results/$run/summary.csv"
moved() { ! LAB_RESULTS=$tmp/results "$rf" --check 2>/dev/null; }
check "a figure moved in the data (upstream idle NOP Δ + 1) fails the check" moved

# the block's figures are the data's: upstream's idle NOP Δ as summary.csv has it
d=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["variant"] == "upstream" && $c["state"] == "idle" && $c["workload"] == "bench-nop" { printf "%+.1f", $c["delta_ns_per_op"] }' \
	"$LAB_ROOT/results/$run/summary.csv")
check "the block's upstream NOP Δ (audit idle) is summary.csv's ($d)" grep -qE "^\| upstream( \([0-9.]+\))? \| [^|]* / ${d//+/\\+} / " "$LAB_ROOT/README.md"
check "readme-figures: unknown option, exit 2" test "$("$rf" --frob 2>/dev/null; echo $?)" = 2
