# shellcheck shell=bash
# function_body VMLINUX FUNCTION: objdump -d of FUNCTION, one instruction a
# line: "+0xOFF  mnemonic operands", branch targets inside the function as
# <FUNCTION+0xOFF>, other addresses by symbol. Sourced by scripts/disasm.sh
# and scripts/explain-delta.sh (one owner of the listing format).
function_body() {
	local vmlinux=$1 fn=$2
	objdump -d --no-show-raw-insn --disassemble="$fn" "$vmlinux" |
		awk -v fn="$fn" '
			function hex(h,   i, n) { h = substr(h, length(h) - 7); n = 0; for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return n }
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
