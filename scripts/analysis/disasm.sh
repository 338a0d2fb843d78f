#!/bin/bash
# disasm.sh VARIANT [FUNCTION]: objdump -d of FUNCTION (default io_issue_sqe)
# in the variant's vmlinux and in the baseline of its base tree (catalog
# role=baseline: nohooks on 6.1), with static instruction counts and
# a diff of the two with addresses normalised to function offsets. Also keeps
# the text as an artifact in the variant's build dir (disasm-FUNCTION.txt).
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

(($# == 1 || $# == 2)) || die_usage "usage: run.sh disasm VARIANT [FUNCTION] (default FUNCTION io_issue_sqe)"
v=$1 fn=${2:-io_issue_sqe}
check_variant "$v"
[[ $fn =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || die_usage "disasm: '$fn' is not a function name (letters, digits, _ and . only)"
base=$(catalog_one_on "$(variant_base "$v")" baseline)
[[ -n $base ]] || die_usage "disasm: base $(variant_base "$v") of $v has no baseline (role=baseline in a meta on it)"

out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT
for k in "$v" "$base"; do
	vm=$(build_of "$k")/vmlinux
	[[ -f $vm ]] || die "disasm: $vm is missing; build it first with ./run.sh build $k"
	function_body "$vm" "$fn" >"$out.$k"
	[[ -s $out.$k ]] || die "disasm: no function $fn in $vm (inlined, or not in this kernel: try nm $vm | grep $fn)"
done
{
	echo "# disasm variant=$v function=$fn base=$base"
	echo "# static instructions: $v=$(wc -l <"$out.$v") $base=$(wc -l <"$out.$base")"
	echo "## $v"
	cat "$out.$v"
	if [[ $v != "$base" ]]; then
		echo "## $base"
		cat "$out.$base"
		echo "## diff $base -> $v (mnemonics and operands, offsets dropped)"
		diff -u <(cut -c9- "$out.$base" | sed "s/+0x[0-9a-f]*>/+X>/") <(cut -c9- "$out.$v" | sed "s/+0x[0-9a-f]*>/+X>/") | tail -n +3 || true
	fi
} >"$out"
art=$(build_of "$v")/disasm-$fn.txt
cp "$out" "$art"
cat "$out"
log "disasm: kept in $art"
