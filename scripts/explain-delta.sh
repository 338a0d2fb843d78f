#!/bin/bash
# explain-delta.sh VARIANT [--function F] [--workload W] [--state S] [--base B]
# Explain a per-op delta instruction by instruction: one attribution boot of
# B (default nohooks) and one of VARIANT (tcg, nokaslr, seed 1, W default
# bench-nop, S default idle) with the lab-attrib plugin counting F (default
# io_issue_sqe) per instruction offset. Prints, for each kernel, F's
# disassembly with executions per op beside every executed instruction, then
# a diff of the two executed paths (instruction text, offsets dropped, with
# executions per op), and the sum: Δ F = Σ over the diff, checked against the
# plugin's per-symbol count. Needs TCG (the plugin). Output is also kept in
# $LAB_CACHE/explain/VARIANT.S.W.F.txt.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"

usage="usage: run.sh explain VARIANT [--function F] [--workload W] [--state S] [--base B]"
v="" fn=io_issue_sqe wl=bench-nop st=idle base=nohooks
while (($#)); do
	case $1 in
	--function | --workload | --state | --base)
		if (($# < 2)) || [[ -z $2 ]]; then die_usage "explain: $1 needs a value; $usage"; fi
		case $1 in
		--function) fn=$2 ;;
		--workload) wl=$2 ;;
		--state) st=$2 ;;
		--base) base=$2 ;;
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
check_variant "$base"
check_name state "$st"
check_name workload "$wl"
[[ -f $LAB_ROOT/workloads/states/$st.state ]] || die_usage "explain: no state '$st' (./run.sh list)"
[[ -f $LAB_ROOT/workloads/$wl.bench ]] || die_usage "explain: '$wl' is not a uring-bench workload (workloads/*.bench): only they open the plugin's window"
[[ $fn =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || die_usage "explain: '$fn' is not a function name (letters, digits, _ and . only)"

plugin_dir=$LAB_CACHE/tools
mkdir -p "$plugin_dir"
make -s -C "$LAB_ROOT/tools" O="$plugin_dir" "$plugin_dir/lab-attrib.so" >&2
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
		--plugin "file=$plugin_dir/lab-attrib.so,map=$map,out=$o/attrib.out,insns=$fn" \
		--out "$o" "$k" "$st" 2>"$o/boot.stderr" || die "explain: attribution boot of $k failed (logs in $o)"
	ops=$(sed -n 's/^result .*\bops=\([0-9]*\).*/\1/p' "$o/results.txt" | head -1)
	[[ -n $ops && $ops -gt 0 ]] || die "explain: $k: no uring-bench ops count in $o/results.txt"
	echo "$ops" >"$o/ops"
	function_body "$(build_of "$k")/vmlinux" "$fn" >"$o/body"
	[[ -s $o/body ]] || die "explain: no function $fn in $(build_of "$k")/vmlinux"
	# body annotated with executions per op: "+0xOFF  per-op  insn"
	awk -v ops="$ops" -v sumfile="$o/sum" '
		function hex(h,   i, n) { sub(/^0x/, "", h); n = 0; for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return n }
		FNR == 1 { f++ }
		f == 1 && /^insn n=0 / { split($4, a, "="); off = hex(a[2]); split($5, b, "="); c[off] = b[2]; next }
		f == 1 { next }
		f == 2 { off = hex(substr($1, 2)); x = (off in c) ? c[off] / ops : 0; tot += x; seen[off] = 1
			printf "%s  %9.4f  %s\n", $1, x, substr($0, index($0, "  ") + 2) }
		END {
			printf "%.2f", tot > sumfile
			for (o in c) if (!(o in seen)) { printf "explain: count at offset 0x%x, which is no instruction of the listing\n", o > "/dev/stderr"; bad = 1 }
			exit bad }' "$o/attrib.out" "$o/body" >"$o/annotated" ||
		die "explain: $k: the plugin counted offsets that are not instruction starts (listing and map disagree)"
	# the plugin's own per-symbol figure for F, to check the annotation's sum
	awk -v fn="$fn" -v ops="$ops" '$1 == "sym" && $2 == "n=0" && $3 == "name=" fn { split($4, a, "="); x = a[2] / ops }
		END { printf "%.2f", x }' \
		"$o/attrib.out" >"$o/sym_per_op"
done

# exact sum of a kernel's per-op executions of F (from the unrounded counts)
sum_of() { cat "$work/$1/sum"; }
# the executed path: executed instructions in address order, offsets dropped,
# branch targets inside F as +X, executions per op appended
path_of() { awk '$2 + 0 > 0 { ins = substr($0, index($0, $2) + length($2) + 2); gsub(/\+0x[0-9a-f]+>/, "+X>", ins); printf "%-48s x%.4f\n", ins, $2 }' "$1"; }
out=$work/explain.txt
{
	echo "# explain variant=$v base=$base function=$fn workload=$wl state=$st accel=tcg seed=1 (nokaslr attribution boots)"
	for k in "$base" "$v"; do
		echo "## $k: $fn, executions per op beside each instruction ($(cat "$work/$k/ops") ops in the window)"
		cat "$work/$k/annotated"
		echo "# $k: $fn executes $(sum_of "$k") instructions per op (plugin per-symbol count: $(cat "$work/$k/sym_per_op"))"
	done
	echo "## executed path, $base -> $v (instruction xexecutions/op; - only in $base, + only in $v)"
	path_of "$work/$base/annotated" >"$work/path.$base"
	path_of "$work/$v/annotated" >"$work/path.$v"
	# diff exits 1 when the paths differ: that is the expected case
	diff -u "$work/path.$base" "$work/path.$v" >"$work/path.diff" || true
	tail -n +3 "$work/path.diff"
	# the diff's sum is the delta: + lines add, - lines subtract
	tail -n +3 "$work/path.diff" | awk '
		/^[-+]/ && !/^@@/ { x = $NF; sub(/^x/, "", x); if (substr($0, 1, 1) == "+") { add += x; na++ } else { del += x; nd++ } }
		END { printf "# diff: %d executed instructions only in the variant (+%.2f/op), %d only in the base (-%.2f/op): net %+.2f/op\n", na, add, nd, del, add - del }'
	echo "# Δ $fn = $(awk -v a="$(sum_of "$v")" -v b="$(sum_of "$base")" 'BEGIN { printf "%+.2f", a - b }') instructions/op ($v $(sum_of "$v") - $base $(sum_of "$base"))"
} >"$out"
cat "$out"
log "explain: kept in $out"
