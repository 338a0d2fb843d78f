#!/bin/bash
# The audit proof: what each variant really audits. Boots every variant with
# guest/scripts/proof.sh, which runs exactly N ops of each kind under a uring
# rule matching all opcodes, after deleting it and after re-adding it, with
# a fresh audit-sink per phase, and checks the URINGOP counts exactly.
# A variant that got fast by silently not auditing fails here.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "audit proof in the guest (builds and boots every variant)" "--quick"
	exit 0
fi
N=1000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accel=$("$LAB_ROOT/guest/accel.sh" auto)

# expected URINGOP counts: phase:mode -> "nop read openat close". What a
# variant audits is audits= in its catalog meta: all-opcodes (NOP and READ
# too: the RFC's placement), skip-hot (upstream's: the opcodes without
# audit_skip, OPENAT and CLOSE here, under a rule, on io-wq and after the rule
# is re-added), none (a baseline), absent (no audit in the kernel).
expect() {
	local v=$1 pm=$2 a=$N
	# what the variant audits is its catalog entry's audits= (kernel/variants/*/meta)
	case $(variant_meta "$v" audits) in
	all-opcodes)
		case $pm in
		rule:nop | async:nop) echo "$a 0 0 0" ;; rule:read) echo "0 $a 0 0" ;;
		rule:openclose | async:openclose) echo "0 0 $a $a" ;;
		readd:nop) echo "$a 0 0 0" ;; readd:openclose) echo "0 0 $a $a" ;;
		*) echo "0 0 0 0" ;;
		esac
		;;
	skip-hot)
		case $pm in
		rule:openclose | async:openclose | readd:openclose) echo "0 0 $a $a" ;;
		*) echo "0 0 0 0" ;;
		esac
		;;
	none) echo "0 0 0 0" ;;
	*) echo "unknown audits='$(variant_meta "$v" audits)' in kernel/variants/$v/meta" ;;
	esac
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

variants=$(known_variants)
# LAB_PROOF_VARIANTS=a,b: only these (to rerun one by hand)
[[ -n ${LAB_PROOF_VARIANTS:-} ]] && variants=${LAB_PROOF_VARIANTS//,/ }
for v in $variants; do check_variant "$v"; done
for v in $variants; do
	out=$tmp/$v
	# audit states cannot be set up without audit: a kernel without it boots in off
	state=idle
	[[ -f $(variants_dir)/$v/config ]] && grep -q '^# CONFIG_AUDIT is not set' "$(variants_dir)/$v/config" && state=off
	if ! "$LAB_ROOT/guest/boot.sh" --accel "$accel" --script proof --out "$out" "$v" "$state" >"$tmp/$v.log" 2>&1; then
		tail -5 "$tmp/$v.log"
		not_ok "$v: proof boot finished cleanly ($(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null))"
		continue
	fi
	res=$(tr -d '\r' <"$out/results.txt")
	if [[ $(variant_meta "$v" audits) == absent ]]; then
		check "$v: the kernel has no audit (rule load refused)" grep -q '^proof audit=absent' <<<"$res"
		line=$(grep '^proof phase=noaudit' <<<"$res" || true)
		check "$v: io_uring still works ($N NOPs)" test "$(field ops "$line")" = "$N"
		continue
	fi
	if ! grep -q '^proof audit=present' <<<"$res"; then
		grep '^proof' <<<"$res" | head -3
		not_ok "$v: audit present and the uring rule loaded"
		continue
	fi
	for pm in rule:nop rule:read rule:openclose async:nop async:openclose norule:nop norule:read norule:openclose readd:nop readd:openclose; do
		phase=${pm%:*} mode=${pm#*:}
		line=$(grep "^proof phase=$phase mode=$mode " <<<"$res" || true)
		want=$(expect "$v" "$pm")
		seen="$(field op_nop "$line") $(field op_read "$line") $(field op_openat "$line") $(field op_close "$line")"
		ops=$(field ops "$line") lost=$(field lost "$line")
		want_ops=$N
		[[ $mode == openclose ]] && want_ops=$((2 * N))
		if [[ $seen == "$want" && $ops == "$want_ops" && $lost == 0 ]]; then
			ok "$v $phase $mode: URINGOP nop/read/openat/close = $seen, lost 0"
		else
			echo "line: $line"
			not_ok "$v $phase $mode: URINGOP nop/read/openat/close expected $want (ops $want_ops, lost 0), seen $seen (ops $ops, lost $lost)"
		fi
	done
	grep '^proof-record' <<<"$res" | sed 's/^/    /' || true # baselines have no records
done
