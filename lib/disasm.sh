# shellcheck shell=bash
# function_body VMLINUX FUNCTION: objdump -d of FUNCTION, one instruction a
# line: "+0xOFF  mnemonic operands", branch targets inside the function as
# <FUNCTION+0xOFF>, other addresses by symbol. Sourced by scripts/analysis/disasm.sh
# and scripts/analysis/explain-delta.sh (one owner of the listing format).
# DISASM_HEX_AWK: the awk function hex(H), the value of a hexadecimal string
# with or without 0x; of a kernel address, its low 32 bits (awk numbers are
# doubles: offsets inside one function are differences of low halves). The
# one copy, for the awk programs here and attribute.sh's.
# shellcheck disable=SC2016 # awk source
DISASM_HEX_AWK='
function hex(h,   i, n) {
	sub(/^0x/, "", h)
	if (length(h) > 8) h = substr(h, length(h) - 7)
	n = 0
	for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return n
}
'
function_body() {
	local vmlinux=$1 fn=$2
	objdump -d --no-show-raw-insn --disassemble="$fn" "$vmlinux" |
		awk -v fn="$fn" "$DISASM_HEX_AWK"'
			$0 ~ "^[0-9a-f]+ <" fn ">:$" { start = hex($1); on = 1; next }
			on && /^$/ { on = 0 }
			on && /^ *[0-9a-f]+:\t/ {
				split($0, a, "\t"); addr = a[1]; sub(/:$/, "", addr); sub(/^ +/, "", addr)
				ins = a[2]; for (i = 3; i in a; i++) ins = ins " " a[i]
				# branch targets inside the function as offsets, the rest by symbol
				gsub(/[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f] </, "<", ins)
				printf "+0x%03x  %s\n", hex(addr) - start, ins
			}'
}

# window_ops RESULTS_TXT WORKLOAD: the ops count of WORKLOAD's uring-bench
# 'result ... ops=N' line in a guest's results stream (the plugin window's ops)
# (parse-results.sh's window_ops field: it is the one reader of the stream)
window_ops() {
	"$LAB_ROOT/scripts/analysis/parse-results.sh" "$1" 2>/dev/null | awk -v w="$2" '$1 == "workload=" w {
		for (i = 2; i <= NF; i++) if ($i ~ /^window_ops=[0-9]+$/) { sub(/window_ops=/, "", $i); print $i; exit } }'
}

# annotate_listing ATTRIB_OUT WINDOW OPS BODY SUMFILE: BODY (function_body's
# listing) with the plugin's per-instruction counts of window WINDOW (insn
# lines of lab-attrib's out file) divided by OPS: "+0xOFF  per-op  insn".
# Writes the exact per-op sum to SUMFILE. Fails when the plugin counted an
# offset that is no instruction start of the listing (map and vmlinux differ).
annotate_listing() {
	awk -v win="$2" -v ops="$3" -v sumfile="$5" "$DISASM_HEX_AWK"'
		FNR == 1 { f++ }
		f == 1 && $1 == "insn" && $2 == "n=" win { split($4, a, "="); off = hex(a[2]); split($5, b, "="); c[off] = b[2]; next }
		f == 1 { next }
		f == 2 { off = hex(substr($1, 2)); x = (off in c) ? c[off] / ops : 0; tot += x; seen[off] = 1
			printf "%s  %9.4f  %s\n", $1, x, substr($0, index($0, "  ") + 2) }
		END {
			printf "%.2f\n", tot > sumfile
			for (o in c) if (!(o in seen)) { printf "annotate: count at offset 0x%x, which is no instruction of the listing\n", o > "/dev/stderr"; bad = 1 }
			exit bad }' "$1" "$4"
}

# exec_path ANNOTATED: the executed path, in address order: "insn  xPER-OP",
# offsets dropped and branch targets inside the function as +X, so that two
# kernels' paths diff by instruction (the program writes to awk's variable out)
# shellcheck disable=SC2016 # (awk's $2, not the shell's)
_EXEC_PATH_AWK='$2 + 0 > 0 { ins = substr($0, index($0, $2) + length($2) + 2); gsub(/\+0x[0-9a-f]+>/, "+X>", ins); printf "%-48s x%.4f\n", ins, $2 > out }'
exec_path() { awk -v out=/dev/stdout "$_EXEC_PATH_AWK" "$1"; }

# path_diff BASE_ANNOTATED VARIANT_ANNOTATED: unified diff of the two executed
# paths (- only the base runs, + only the variant runs), then one line
# "# diff: N executed instructions only in the variant (+X/op), M only in the
# base (-Y/op): net +Z/op"; the net is the Δ of the function
path_diff() {
	local w rc=0
	w=$(mktemp -d)
	path_diffs "$w" "$1" "$2" one && cat "$w/one.diff" || rc=$?
	rm -rf "$w"
	return "$rc"
}

# path_diffs DIR BASE VARIANT NAME [BASE VARIANT NAME]...: path_diff of each
# pair into DIR/NAME.diff, with a fixed number of processes per pair (one
# diff) rather than per pair and path (a report diffs ~150 pairs)
path_diffs() {
	local dir=$1 f order=()
	local -A idx=()
	shift
	mkdir -p "$dir/p"
	# every path once, in one awk: DIR/p/N for the N-th distinct file
	for f in "$@"; do
		[[ -n ${idx[$f]+x} || ! -f $f ]] || { order+=("$f"); idx[$f]=${#order[@]}; : >"$dir/p/${#order[@]}"; }
	done
	((${#order[@]} == 0)) || awk -v dir="$dir/p" 'FNR == 1 { close(out); out = dir "/" ++n } '"$_EXEC_PATH_AWK" "${order[@]}" || return 1
	while (($# >= 3)); do
		# diff exits 1 when the paths differ: the expected case; #END ends the
		# pair's output, which is empty when the paths are the same
		{ diff -u "$dir/p/${idx[$1]}" "$dir/p/${idx[$2]}" || (($? == 1)) && echo '#END'; } >"$dir/$3.raw" || return 1
		shift 3
	done
	awk '
		FNR == 1 { out = FILENAME; sub(/\.raw$/, ".diff", out); na = nd = add = del = 0 }
		FNR <= 2 && /^(---|\+\+\+) / { next }
		$0 == "#END" {
			printf "# diff: %d executed instructions only in the variant (+%.2f/op), %d only in the base (-%.2f/op): net %+.2f/op\n", na, add, nd, del, add - del > out
			close(out); next }
		{ print > out }
		/^[-+]/ && !/^@@/ { x = $NF; sub(/^x/, "", x); if (substr($0, 1, 1) == "+") { add += x; na++ } else { del += x; nd++ } }
	' "$dir"/*.raw
}
