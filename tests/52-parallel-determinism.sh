#!/bin/bash
# Under tcg-icount the matrix runs guests side by side and beside kernel
# builds, on the claim that a busy host moves no figure. Check the claim: a
# boot of upstream/idle (seed 1: bench-nop and fio randread-qd128) alone,
# then two of the same boot at once next to a CPU hog, must print the very
# same results, digit for digit.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "figures do not depend on host load (boots guests)" "--quick"
	exit 0
fi
accel=$("$LAB_ROOT/guest/accel.sh" auto)
if [[ $accel != tcg ]]; then
	skip "figures do not depend on host load" "accel is $accel: only tcg-icount counts instructions; the matrix runs one KVM guest at a time"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [[ -z ${hog:-} ]] || kill "$hog" 2>/dev/null || true' EXIT
boot() {
	"$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime 1 --workloads bench-nop,randread-qd128 \
		--out "$tmp/$1" upstream idle 2>"$tmp/$1.err" &&
		"$LAB_ROOT/scripts/analysis/parse-results.sh" "$tmp/$1/results.txt" >"$tmp/$1.txt"
}
if boot alone; then ok "upstream/idle alone: $(paste -sd' ' "$tmp/alone.txt" | cut -c1-150)"; else tail -3 "$tmp/alone.err"; not_ok "upstream/idle alone boots"; fi
bash -c 'while :; do :; done' &
hog=$!
rc=0
boot side1 & p1=$!
boot side2 || rc=$?
wait "$p1" || rc=$?
kill "$hog"
hog=""
check "two boots at once next to a CPU hog both finish ok" test "$rc" = 0
for b in side1 side2; do
	if [[ -s $tmp/alone.txt ]] && cmp -s "$tmp/alone.txt" "$tmp/$b.txt"; then
		ok "$b: the same figures as alone ($(sed -n 's/.*wall_secs=//p' "$tmp/$b/boot.info")s wall vs $(sed -n 's/.*wall_secs=//p' "$tmp/alone/boot.info")s)"
	else
		diff "$tmp/alone.txt" "$tmp/$b.txt" || true
		not_ok "$b: the same figures as alone"
	fi
done
