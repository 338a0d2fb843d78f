#!/bin/bash
# explain-delta.sh VARIANT [--function F] [--workload W] [--state S] [--base B]
# Explain a per-op delta instruction by instruction: one attribution boot of
# the baseline (catalog role=baseline) of VARIANT's base tree and one of
# VARIANT (tcg, nokaslr, seed 1, W default
# bench-nop, S default idle) with the lab-attrib plugin counting F (default
# io_issue_sqe) per instruction offset. Prints, for each kernel, F's
# disassembly with executions per op beside every executed instruction, then
# a diff of the two executed paths (instruction text, offsets dropped, with
# executions per op), and the sum: Δ F = Σ over the diff, checked against the
# plugin's per-symbol count. Needs TCG (the plugin). Output is also kept in
# $LAB_CACHE/explain/VARIANT.S.W.F.txt.
# --base B (a base tree, 6.1 or 6.12): VARIANT names a design; its port on B
# (lib/catalog.sh port_on) is explained against B's baseline. A Δ is never
# taken across base trees.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

usage="usage: run.sh explain VARIANT [--function F] [--workload W] [--state S] [--base B]"
v="" fn=io_issue_sqe wl=bench-nop st=idle tree=""
while (($#)); do
	case $1 in
	--function | --workload | --state | --base)
		if (($# < 2)) || [[ -z $2 ]]; then die_usage "explain: $1 needs a value; $usage"; fi
		case $1 in
		--function) fn=$2 ;;
		--workload) wl=$2 ;;
		--state) st=$2 ;;
		--base) tree=$2 ;;
		esac
		shift 2
		;;
	-h | --help) die_usage "$usage" ;;
	-*) die_usage "explain: unknown option '$1'; $usage" ;;
	*)
		[[ -z $v ]] || die_usage "explain: one variant only, got '$v' and '$1'; $usage"
		v=$1
		shift
		;;
	esac
done
[[ -n $v ]] || die_usage "$usage"
check_variant "$v"
# the base tree: --base B (VARIANT's design ported to B), else VARIANT's own
if [[ -n $tree ]]; then
	check_name base "$tree"
	check_bases "$tree"
	p=$(port_on "$tree" "$v")
	[[ -n $p ]] || die_usage "explain: $v has no port on base $tree (no variant with design=$(variant_design "$v") and '# base: $tree' in kernel/variants/)"
	v=$p
else
	tree=$(variant_base "$v")
fi
base=$(catalog_one_on "$tree" baseline)
[[ -n $base ]] || die_usage "explain: base $tree has no baseline (role=baseline in a meta on it)"
[[ $v != "$base" ]] || die_usage "explain: $v is the baseline of $tree; give a variant to compare with it"
check_name state "$st"
check_name workload "$wl"
[[ -f $LAB_ROOT/workloads/states/$st.state ]] || die_usage "explain: no state '$st' (./run.sh list)"
[[ -f $LAB_ROOT/workloads/$wl.bench ]] || die_usage "explain: '$wl' is not a uring-bench workload (workloads/*.bench): only they open the plugin's window"
[[ $fn =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || die_usage "explain: '$fn' is not a function name (letters, digits, _ and . only)"

plugin=$(host_tool tools "$LAB_CACHE/tools" lab-attrib.so)
work=$LAB_CACHE/explain/$v.$st.$wl.$fn
rm -rf "$work"
mkdir -p "$work"

n=0
for k in "$base" "$v"; do
	n=$((n + 1))
	log "[$n/2] explain: build and attribution boot of $k / $st / $wl (counting $fn per instruction)"
	"$LAB_ROOT/kernel/build.sh" "$k" 2>"$work/build-$k.log" || die "explain: build of $k failed (see $work/build-$k.log)"
	map=$(build_of "$k")/System.map
	o=$work/$k
	mkdir -p "$o"
	if ! grep -qE " [tTwW] $fn\$" "$map"; then
		# a function the variant adds (e.g. __audit_uring_entry against
		# nohooks): the base executes none of it, the whole body is the Δ
		[[ $k == "$base" ]] || die "explain: $k has no text symbol $fn (inlined? try ./run.sh disasm $k $fn)"
		log "    explain: $base has no $fn: counted as 0 instructions per op"
		: >"$o/annotated"
		echo "0.00 (no such symbol)" >"$o/sym_per_op"
		echo 0.00 >"$o/sum"
		echo 0 >"$o/ops"
		continue
	fi
	"$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads "$wl" \
		--plugin "file=$plugin,map=$map,out=$o/attrib.out,insns=$fn" \
		--out "$o" "$k" "$st" 2>"$o/boot.stderr" || die "explain: attribution boot of $k failed (logs in $o)"
	ops=$(window_ops "$o/results.txt" "$wl")
	[[ -n $ops && $ops -gt 0 ]] || die "explain: $k: no uring-bench ops count in $o/results.txt"
	echo "$ops" >"$o/ops"
	function_body "$(build_of "$k")/vmlinux" "$fn" >"$o/body"
	[[ -s $o/body ]] || die "explain: no function $fn in $(build_of "$k")/vmlinux"
	annotate_listing "$o/attrib.out" 0 "$ops" "$o/body" "$o/sum" >"$o/annotated" ||
		die "explain: $k: the plugin counted offsets that are not instruction starts (listing and map disagree)"
	# the plugin's own per-symbol figure for F, to check the annotation's sum
	awk -v fn="$fn" -v ops="$ops" '$1 == "sym" && $2 == "n=0" && $3 == "name=" fn { split($4, a, "="); x = a[2] / ops }
		END { printf "%.2f", x }' \
		"$o/attrib.out" >"$o/sym_per_op"
done

# exact sum of a kernel's per-op executions of F (from the unrounded counts)
sum_of() { cat "$work/$1/sum"; }
out=$work/explain.txt
{
	echo "# explain variant=$v base=$base tree=$tree function=$fn workload=$wl state=$st accel=tcg seed=1 (nokaslr attribution boots)"
	for k in "$base" "$v"; do
		echo "## $k: $fn, executions per op beside each instruction ($(cat "$work/$k/ops") ops in the window)"
		cat "$work/$k/annotated"
		echo "# $k: $fn executes $(sum_of "$k") instructions per op (plugin per-symbol count: $(cat "$work/$k/sym_per_op"))"
	done
	echo "## executed path, $base -> $v (instruction xexecutions/op; - only in $base, + only in $v)"
	path_diff "$work/$base/annotated" "$work/$v/annotated"
	echo "# Δ $fn = $(awk -v a="$(sum_of "$v")" -v b="$(sum_of "$base")" 'BEGIN { printf "%+.2f", a - b }') instructions/op ($v $(sum_of "$v") - $base $(sum_of "$base"))"
} >"$out"
cat "$out"
log "explain: kept in $out"
