#!/bin/bash
# The peer suite as an oracle (issue 25): liburing 2.3's own test/ programs
# (the subset in peer/liburing.tests, built statically from Debian's source
# package by peer/build.sh) run in the guest, in one boot per variant, with
# audit on, audit-sink draining and an io_uring rule on every op (state
# uring-hit; off for a variant without audit), by peer/peer-suite.sh, which
# also runs ltimeout-pipe (the skip-cqe hang's reproducer, 40 tries) as one
# more test. Booted: every design and the baseline of each base that has a
# reference (lib/catalog.sh: variants_on BASE design baseline, reference_on
# BASE). Each test's result (pass, fail, skip, timeout; hang for
# ltimeout-pipe) on each variant is compared with the reference's by
# scripts/proof/peer-compare.sh: a difference fails unless the variant's README
# names it (peer-expect: TEST RESULT (why)), and a named difference that does
# not happen fails too. The reference's own failures are printed, not judged
# (they are the oracle). Prints the differential, test x variant.
# LAB_PEER_VARIANTS=a,b: only these besides the reference (to rerun by hand).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "peer suite (liburing's tests) in the guest (builds and boots every design)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
accel=$("$LAB_ROOT/guest/accel.sh" auto)
# the limit of one boot: every test's own limit, plus boot and the reproducer
limit=$(awk '!/^[[:space:]]*(#|$)/ { s += $2 } END { print s + 300 }' "$LAB_ROOT/peer/liburing.tests")

# peer_boot VARIANT: boot it with the peer suite into $tmp/VARIANT; 0 when
# the boot ended cleanly and the suite finished
peer_boot() {
	local v=$1 state=uring-hit out=$tmp/$1
	has_audit "$v" || state=off
	"$LAB_ROOT/guest/boot.sh" --peer --accel "$accel" --script peer-suite --timeout "$limit" --out "$out" "$v" "$state" >"$tmp/$v.log" 2>&1 || true
	local status
	status=$(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null || true)
	if [[ $status == ok ]] && grep -q '^peer-done ' "$out/results.txt"; then
		ok "$v: peer suite ran in state $state ($(grep -c '^peer-test ' "$out/results.txt") tests, $(sed -n 's/^wall_secs=//p' "$out/boot.info") s wall)"
		return 0
	fi
	tail -5 "$tmp/$v.log" | sed 's/^/    /'
	kernel_trouble "$out/console.log" 2>/dev/null | head -5 | sed 's/^/    /' || true
	not_ok "$v: peer suite boot finished cleanly (status ${status:-none})"
	return 1
}

start=$(now)
for base in $(known_bases); do
	ref=$(reference_on "$base")
	[[ -n $ref ]] || continue
	others=$(variants_on "$base" design baseline | grep -vx "$ref" || true)
	[[ -n ${LAB_PEER_VARIANTS:-} ]] && others=$(tr ',' '\n' <<<"$LAB_PEER_VARIANTS" | grep -vx "$ref" || true)
	[[ -n $others ]] || continue
	echo "# base $base: reference $ref; compared: $(echo "$others" | paste -sd' ')"
	n=0 total=$(($(wc -w <<<"$others") + 1))
	n=$((n + 1))
	progress "$n" "$total" "$start" "peer suite: $ref" 2>&1 | sed 's/^/# /'
	if ! peer_boot "$ref"; then
		not_ok "base $base: no reference results, nothing compared"
		continue
	fi
	refres=$tmp/$ref/results.txt
	check "$ref: sink drained every record (sink_rc=0)" grep -q '^peer-done .* sink_rc=0 ' "$refres"
	grep '^peer-test ' "$refres" | grep -v ' result=pass ' | sed 's/^/    reference: /' || true
	cols=("$ref")
	for v in $others; do
		n=$((n + 1))
		progress "$n" "$total" "$start" "peer suite: $v" 2>&1 | sed 's/^/# /'
		peer_boot "$v" || continue
		cols+=("$v")
		"$LAB_ROOT/scripts/proof/peer-compare.sh" "$refres" "$v" "$tmp/$v/results.txt" >"$tmp/$v.cmp" || true
		bad=$(grep -c ' ok=0 \|^peer-bad ' "$tmp/$v.cmp" || true)
		declared=$(grep -c ' by=readme$' "$tmp/$v.cmp" || true)
		check "$v: every test's result as on $ref, or as its README's peer-expect lines say ($declared declared, $bad wrong)" test "$bad" = 0
		grep ' ok=0 \|^peer-bad \| by=readme$' "$tmp/$v.cmp" | sed 's/^/    /' || true
	done
	# the differential table: test x variant (a result that differs from
	# the reference's is upper case)
	echo "    peer differential, base $base (results; differences from $ref in capitals):"
	{
		printf 'test'
		printf ' %s' "${cols[@]}"
		echo
		sed -n 's/^peer-test name=\([^ ]*\) .*/\1/p' "$refres" | while read -r t; do
			r=$(sed -n "s/^peer-test name=$t result=\([^ ]*\).*/\1/p" "$refres" | head -1)
			printf '%s' "$t"
			for v in "${cols[@]}"; do
				g=$(sed -n "s/^peer-test name=$t result=\([^ ]*\).*/\1/p" "$tmp/$v/results.txt" | head -1)
				g=${g:-missing}
				[[ $g == "$r" ]] || g=${g^^}
				printf ' %s' "$g"
			done
			echo
		done
	} | column -t | sed 's/^/    /'
	sed -n 's/^peer-test name=ltimeout-pipe .* hangs=\([^ ]*\).*/\1/p' "$refres" | sed "s/^/    ltimeout-pipe hangs: $ref /"
	for v in "${cols[@]:1}"; do
		sed -n 's/^peer-test name=ltimeout-pipe .* hangs=\([^ ]*\).*/\1/p' "$tmp/$v/results.txt" | sed "s/^/    ltimeout-pipe hangs: $v /"
	done
done
