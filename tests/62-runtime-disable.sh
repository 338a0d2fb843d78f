#!/bin/bash
# The runtime-disable BUG (issue 12) as a proof phase: boots every variant of
# the catalog with a runtime-disable= expectation, on every base, with
# guest/scripts/disable-bug.sh (an io_uring rule on all opcodes, auditctl -e 0,
# 100 OPENAT/CLOSE through io-wq, first as an unprivileged user, then as root).
# Expected, per variant (also in each variant README):
#   upstream, upstream-6-12, rfc: kernel BUG at kernel/auditsc.c in audit_log_exit()
#     from __audit_uring_exit() in an io-wq worker: the expected finding
#     (panic_on_oops ends the boot at once), already in the first phase, run
#     as uid 1000: any local user sets it off once root has loaded the rule
#     and disabled audit (seen on upstream 6.1.192, tcg-icount).
#   every other variant: survives both phases (2x100 ops each, clean console).
# Fails when a variant expected to survive crashes, or upstream survives.
# Then the BUG's exact extent (issue 25), on each base's reference (upstream,
# upstream-6-12) and the fix's port on that base (upstream-fix, upstream-fix-6-12):
#   disable-bug-opmask (guest/scripts/disable-bug-opmask.sh): the rule names
#     OPENAT alone. The skipped entry never sets ctx->uring_op, so the exit
#     filters a stale op 0 (NOP), which this rule does not match: both
#     survive io-wq (uid 1000 and root) and inline OPENAT/CLOSE.
#   disable-bug-inline (guest/scripts/disable-bug-inline.sh): rule on all
#     ops, OPENAT/CLOSE issued inline (no IOSQE_ASYNC) by a task forked after
#     'auditctl -e 0': a reference (runtime-disable=bug) BUG()s in the
#     submitting task itself (Comm: uring-bench, not iou-wrk); the fix survives.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "runtime-disable phase in the guest (builds and boots every variant)" "--quick"
	exit 0
fi
N=100
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accel=$("$LAB_ROOT/guest/accel.sh" auto)

# rfc (the RFC as posted) has the same exit path: its __audit_uring_exit() tests
# neither audit_enabled nor the context type, so it hits the same BUG (seen
# on 6.1.192: audit_log_exit+0xd3f from __audit_uring_exit+0x11c in iou-wrk)
# (each variant's expectation is runtime-disable= in its catalog entry,
# kernel/variants/*/meta: bug or survives; variants without one are not booted)
expect_bug() { [[ $(variant_meta "$1" runtime-disable) == bug ]]; }
variants=$(for v in $(variants_with baseline codegen-control config-floor design proof-only); do
	[[ -z $(variant_meta "$v" runtime-disable) ]] || echo "$v"
done)
# LAB_DISABLE_BUG_VARIANTS=a,b: only these (to rerun one by hand)
[[ -n ${LAB_DISABLE_BUG_VARIANTS:-} ]] && variants=${LAB_DISABLE_BUG_VARIANTS//,/ }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }

n=0 total=$(wc -w <<<"$variants") start=$(now)
for v in $variants; do
	n=$((n + 1))
	progress "$n" "$total" "$start" "runtime-disable: $v" 2>&1 | sed 's/^/# /'
	out=$tmp/$v
	state=idle
	has_audit "$v" || state=off
	# a BUG panics the guest at once (panic_on_oops); a hang hits this limit
	"$LAB_ROOT/guest/boot.sh" --accel "$accel" --script disable-bug --timeout 300 --out "$out" "$v" "$state" >"$tmp/$v.log" 2>&1 || true
	status=$(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null || true)
	res=$(tr -d '\r' <"$out/results.txt" 2>/dev/null || true)
	con=$(tr -d '\r' <"$out/console.log" 2>/dev/null || true)
	if [[ -z $status ]]; then
		tail -5 "$tmp/$v.log"
		not_ok "$v: the variant built and booted"
		continue
	fi
	if expect_bug "$v"; then
		if grep -q 'kernel BUG at kernel/auditsc.c' <<<"$con"; then
			ok "$v: expected finding reproduced: $(grep -m1 -o 'kernel BUG at [^ ]*' <<<"$con") ($status)"
			sed -n '/kernel BUG at/,/end trace/p' <<<"$con" >"$tmp/$v.bug"
			check "$v: the BUG is in audit_log_exit() from __audit_uring_exit() in an io-wq worker" \
				both grep -q 'RIP: 0010:audit_log_exit' "$tmp/$v.bug" -- grep -qE 'Comm: iou-wrk-' "$tmp/$v.bug"
			check "$v: caught by the kernel-trouble scan (status $status, not timeout)" test "$status" = panic -o "$status" = kernel-warning
			last=$(grep '^disable-bug begin phase=' <<<"$res" | tail -1)
			if grep -q '^disable-bug user uid=1000' <<<"$res"; then
				check "$v: an unprivileged user (uid 1000) sets it off (crashed in phase $(field phase "$last"))" test "$(field phase "$last")" = user
			else
				skip "$v: the unprivileged phase" "no uid 1000 shell in the initramfs ($(grep -m1 '^disable-bug user uid=' <<<"$res"))"
			fi
			head -25 "$tmp/$v.bug" | sed 's/^/    /'
		else
			grep '^disable-bug' <<<"$res" | sed 's/^/    /'
			not_ok "$v: expected the runtime-disable BUG (kernel BUG at kernel/auditsc.c), got status $status without it"
		fi
		continue
	fi
	if [[ $status != ok ]]; then
		kernel_trouble "$out/console.log" | head -5 | sed 's/^/    /' || true
		not_ok "$v: survives the runtime-disable script (status $status, logs kept in $out)"
		trap - EXIT
		continue
	fi
	if has_audit "$v"; then
		line=$(grep '^disable-bug audit=' <<<"$res" || true)
		check "$v: rule loaded and audit disabled at runtime (enabled=0)" \
			test "$(field audit "$line") $(field enabled "$line")" = "present 0"
	fi
	for ph in user root; do
		line=$(grep "^disable-bug phase=$ph " <<<"$res" || true)
		if [[ $ph == user ]] && ! grep -q '^disable-bug user uid=1000' <<<"$res"; then
			skip "$v: the unprivileged phase" "no uid 1000 shell in the initramfs ($(grep -m1 '^disable-bug user uid=' <<<"$res"))"
			continue
		fi
		check "$v: survives, phase $ph: bench_rc=0 ops=$((2 * N)) (seen rc=$(field bench_rc "$line") ops=$(field ops "$line"))" \
			test "$(field bench_rc "$line") $(field ops "$line")" = "0 $((2 * N))"
	done
done

# issue 25: the BUG narrower (an op mask without op 0) and broader (inline),
# on the variants selected above whose meta says bug-extent=yes (on each
# base its reference, the tree's code as is, and the fix)
scoped=$(for v in $variants; do
	if [[ $(variant_meta "$v" bug-extent) == yes ]]; then echo "$v"; fi
done)
for script in disable-bug-opmask disable-bug-inline; do
	for v in $scoped; do
		out=$tmp/$script-$v
		"$LAB_ROOT/guest/boot.sh" --accel "$accel" --script "$script" --timeout 300 --out "$out" "$v" idle >"$out.log" 2>&1 || true
		status=$(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null || true)
		res=$(tr -d '\r' <"$out/results.txt" 2>/dev/null || true)
		con=$(tr -d '\r' <"$out/console.log" 2>/dev/null || true)
		if [[ -z $status ]]; then
			tail -5 "$out.log" | sed 's/^/    /'
			not_ok "$script/$v: the variant built and booted"
			continue
		fi
		line=$(grep '^disable-bug audit=' <<<"$res" || true)
		check "$script/$v: rule ($(sed -n 's/^disable-bug rule=\([^ ]*\).*/\1/p' <<<"$res")) loaded, audit disabled at runtime (enabled=0)" \
			test "$(field audit "$line") $(field enabled "$line")" = "present 0"
		if [[ $script == disable-bug-inline ]] && expect_bug "$v"; then
			last=$(grep '^disable-bug begin phase=' <<<"$res" | tail -1)
			sed -n '/kernel BUG at/,/end trace/p' <<<"$con" >"$out.bug"
			if [[ -s $out.bug ]]; then
				ok "$script/$v: expected finding reproduced: $(grep -m1 -o 'kernel BUG at [^ ]*' "$out.bug") ($status)"
				check "$script/$v: in audit_log_exit() in the submitting task (Comm: uring-bench, not an io-wq worker), phase $(field phase "$last")" \
					both grep -q 'RIP: 0010:audit_log_exit' "$out.bug" -- both grep -q 'Comm: uring-bench' "$out.bug" -- test "$(field phase "$last")" = inline
				head -25 "$out.bug" | sed 's/^/    /'
			else
				grep '^disable-bug' <<<"$res" | sed 's/^/    /'
				not_ok "$script/$v: expected the BUG from an inline op of a task forked after -e 0, got status $status without it"
			fi
			continue
		fi
		if [[ $status != ok ]]; then
			kernel_trouble "$out/console.log" | head -8 | sed 's/^/    /' || true
			not_ok "$script/$v: survives (status $status)"
			continue
		fi
		for ph in $(sed -n 's/^disable-bug rule=[^ ]* phases=\([^ ]*\).*/\1/p' <<<"$res" | tr ',' ' '); do
			line=$(grep "^disable-bug phase=$ph " <<<"$res" || true)
			check "$script/$v: survives, phase $ph: bench_rc=0 ops=$((2 * N)) (seen rc=$(field bench_rc "$line") ops=$(field ops "$line"))" \
				test "$(field bench_rc "$line") $(field ops "$line")" = "0 $((2 * N))"
		done
	done
done
