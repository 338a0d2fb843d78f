#!/bin/bash
# list.sh: every kernel variant with its base tree and the first line of its
# README, then the audit states and workloads the matrix knows.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
no_more_args list "$@"

echo "variants (name, base tree: matrix --bases):"
for v in $(known_variants); do
	printf '  %-17s %-5s %s\n' "$v" "$(variant_base "$v")" "$(head -1 "$(variants_dir)/$v/README" 2>/dev/null || echo '(no README)')"
done
echo "states:"
for s in $(known_states); do
	printf '  %-11s %s\n' "$s" "$(sed -n '1s/^# *[^:]*: *//p' "$LAB_ROOT/workloads/states/$s.state")"
done
echo "workloads:"
for w in $(known_workloads); do
	f=$(ls "$LAB_ROOT/workloads/$w".*)
	printf '  %-16s %s\n' "$w" "$(sed -n '1s/^[;#] *[^:]*: *//p' "$f")"
done
