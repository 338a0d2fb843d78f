#!/bin/bash
# The record-stream proof (issues 11, 12 and 23): on every base (known_bases,
# lib/catalog.sh), the base's reference (reference_on BASE: its tree's audit
# code as is) and every variant of that base whose role is design or baseline
# boot in state smack with guest/scripts/stream-proof.sh, which captures the
# full record stream (all types) per scenario: inline, iowq, sqpoll, midrun,
# syscall, disable, lsm, primed, exe, and issue 25's. scripts/proof/stream-compare.sh
# normalises each scenario and compares it with the reference of the
# variant's own base (never across bases: 6.12's records may differ from
# 6.1's); the verdict must be the variant README's stream-expect line for that
# scenario ('same' where there is none), the benches must pass and no record
# may be lost. The lsm scenario's denials (open -EACCES, SQPOLL and
# personality -EPERM) must fail with their errno on every variant. No variant
# is named here: codegen controls and config floors (role) are left out, and
# so is a variant without audit (CONFIG_AUDIT off in its config fragment).
# Then the --debug flavour (lockdep, kernel/config/debug.config) of every
# variant whose patches add a lock or switch a static key runs the same
# script: its exe scenario takes audit_del_rule() from fsnotify autoremove
# under i_rwsem into the design's update (static_branch_*() takes
# cpus_read_lock() and jump_label_mutex); any lockdep splat fails the boot
# (kernel-warning) and this test.
# Knobs (to rerun part by hand): LAB_STREAM_BASES=6.12 (only these bases),
# LAB_STREAM_VARIANTS=a,b (only these, each with its base's reference),
# LAB_STREAM_DEBUG=0 (skip the lockdep boots), LAB_STREAM_DEBUG_BASES=6.1,6.12
# (the bases whose lockdep boots run; default: the default base).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "record-stream proof in the guest (builds and boots every variant)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accel=$("$LAB_ROOT/guest/accel.sh" auto)
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }
bases=$(known_bases)
[[ -n ${LAB_STREAM_BASES:-} ]] && bases=${LAB_STREAM_BASES//,/ }
only=${LAB_STREAM_VARIANTS:-}
only=" ${only//,/ } "
for v in $only; do check_variant "$v"; done
# the variants, each base's reference first; ref_of[V] is V's reference
declare -A ref_of=()
variants=""
for b in $bases; do
	ref=$(reference_on "$b")
	if [[ -z $ref ]]; then
		not_ok "base $b has a reference variant (reference=yes in some meta)"
		continue
	fi
	sel=()
	for v in $(variants_on "$b" design baseline); do
		[[ $v == "$ref" ]] && continue
		[[ -z ${only// /} || $only == *" $v "* ]] && sel+=("$v")
	done
	# a base's reference boots when it is asked for or has variants to compare
	[[ ${#sel[@]} -gt 0 || -z ${only// /} || $only == *" $ref "* ]] || continue
	for v in "$ref" "${sel[@]}"; do
		ref_of[$v]=$ref
		variants+=" $v"
	done
done

n=0 total=$(wc -w <<<"$variants") start=$(now)
for v in $variants; do
	n=$((n + 1))
	has_audit "$v" || continue
	progress "$n" "$total" "$start" "record stream: $v" 2>&1 | sed 's/^/# /'
	out=$tmp/$v
	if ! "$LAB_ROOT/scripts/proof/stream-proofs.sh" --boot "$accel" "$out" "$v" >"$tmp/$v.log" 2>&1; then
		tail -5 "$tmp/$v.log" | sed 's/^/    /'
		kernel_trouble "$out/console.log" 2>/dev/null | head -5 | sed 's/^/    /' || true
		not_ok "$v: stream-proof boot finished cleanly ($(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null))"
		continue
	fi
	res=$out/results.txt
	check "$v: Smack active and audit present in the guest" \
		both grep -q '^stream audit=present' "$res" -- grep -q '^lsm-check ' "$res"
	ref=${ref_of[$v]}
	[[ $v == "$ref" ]] && continue
	if [[ ! -f $tmp/$ref/results.txt ]]; then
		not_ok "$v: no stream of its base's reference ($ref) to compare with"
		continue
	fi
	"$LAB_ROOT/scripts/proof/stream-compare.sh" "$tmp/$ref/results.txt" "$v" "$res" >"$tmp/$v.cmp" || true
	while read -r line; do
		case $line in
		stream*)
			check "$v: $(field scenario "$line") stream vs $ref: got $(field got "$line"), want $(field want "$line") (bench_rc $(field bench_rc "$line"), lost $(field lost "$line"))" \
				test "$(field ok "$line")" = 1
			;;
		lsm*)
			check "$v: Smack denial $(field name "$line") failed with its errno (rc $(field rc "$line"), ${line#* err=})" \
				test "$(field ok "$line")" = 1
			;;
		esac
	done <"$tmp/$v.cmp"
done
# each reference itself: its benches ran and its denials failed as the hooks say
for ref in $(printf '%s\n' "${ref_of[@]}" | sort -u); do
	[[ -f $tmp/$ref/results.txt ]] || continue
	"$LAB_ROOT/scripts/proof/stream-compare.sh" "$tmp/$ref/results.txt" "$ref" "$tmp/$ref/results.txt" >"$tmp/$ref.cmp" || true
	check "$ref (reference, base $(variant_base "$ref")): every scenario's benches passed, no record lost, every denial errno as expected" \
		test "$(grep -c ' ok=0' "$tmp/$ref.cmp")" = 0
	sed 's/^/    /' "$tmp/$ref.cmp"
done

# lockdep: the debug flavour of every variant above whose patches add a lock
# or switch a static key (a '+' line calling mutex_lock, spin_lock*,
# static_branch_enable/disable or static_key_enable/disable), through the same
# scenarios
adds_locking() {
	local p vdir
	vdir=$(variants_dir)/$1
	series_patches "$vdir/series" | while read -r p; do cat "$vdir/$p"; done |
		grep -E '^\+.*\b(mutex_lock|spin_lock[a-z_]*|static_branch_(enable|disable)|static_key_(enable|disable))\(' >/dev/null
}
[[ ${LAB_STREAM_DEBUG:-1} == 0 ]] && variants=""
# on the bases in LAB_STREAM_DEBUG_BASES (default: the default base). A
# debug flavour is a full kernel build per base and design; a port's
# locking is its design's (the same static_branch_*() and mutex calls), so
# the suite proves it once, where CI's 90 minutes allow; a port's own lockdep
# boot is LAB_STREAM_DEBUG_BASES=6.12 (kernel/variants/*-6-12/README: run by
# hand for static-key-6-12)
debug_bases=" ${LAB_STREAM_DEBUG_BASES:-$LAB_DEFAULT_BASE} "
debug_bases=${debug_bases//,/ }
for v in $variants; do
	[[ $debug_bases == *" $(variant_base "$v") "* ]] || continue
	adds_locking "$v" || continue
	out=$tmp/$v-debug
	if "$LAB_ROOT/guest/boot.sh" --debug --accel "$accel" --script stream-proof --timeout 1200 --out "$out" "$v" smack >"$tmp/$v-debug.log" 2>&1; then
		check "$v --debug (lockdep): every scenario ran, no lockdep report or warning (status $(sed -n 's/^status=//p' "$out/boot.info"))" \
			both grep -q '^stream-end scenario=exe ' "$out/results.txt" -- test "$(grep -c 'possible circular locking\|WARNING:' "$out/console.log")" = 0
	else
		tail -3 "$tmp/$v-debug.log" | sed 's/^/    /'
		kernel_trouble "$out/console.log" 2>/dev/null | head -8 | sed 's/^/    /' || true
		not_ok "$v --debug (lockdep): the stream-proof boot finished cleanly (status $(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null))"
	fi
done
