#!/bin/bash
# unit-peer.sh: the peer suite's differential (scripts/proof/peer-compare.sh,
# issue 25) on made-up results in a scratch variants dir: a difference from
# the reference fails unless the design's README names it in a peer-expect
# line; a named difference that does not happen (stale), a malformed line
# and a line for a test the reference did not run fail too; alternatives
# (pass|timeout) hold either result.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_VARIANTS=$tmp/variants
mkdir -p "$LAB_VARIANTS/zz-ref" "$LAB_VARIANTS/zz-d"
printf '# base: 6.1\n' | tee "$LAB_VARIANTS/zz-ref/series" >"$LAB_VARIANTS/zz-d/series"
cmp() { "$LAB_ROOT/scripts/proof/peer-compare.sh" "$tmp/ref.txt" zz-d "$tmp/d.txt" >"$tmp/out" 2>&1; }
# fails [PATTERN]: the comparison fails (and its output has PATTERN)
fails() {
	if cmp; then return 1; fi
	[[ -z ${1:-} ]] || grep -q -- "$1" "$tmp/out"
}
printf 'peer-test name=a result=pass rc=0 cs=1\r\npeer-test name=b result=pass rc=0 cs=1\npeer-test name=c result=fail rc=1 cs=0\n' >"$tmp/ref.txt"

printf 'peer-test name=a result=pass rc=0 cs=2\npeer-test name=b result=pass rc=0 cs=1\npeer-test name=c result=fail rc=1 cs=0\n' >"$tmp/d.txt"
: >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: same verdicts, no README line: ok (CRLF results read)" cmp
check "peer-compare: one line per reference test, in its order" test "$(cut -d' ' -f2 "$tmp/out" | paste -sd,)" = "name=a,name=b,name=c"

sed -i 's/name=b result=pass rc=0/name=b result=timeout rc=137/' "$tmp/d.txt"
check "peer-compare: an undeclared difference fails" fails
check "peer-compare: the difference is named: $(grep name=b "$tmp/out")" grep -q '^peer name=b ref=pass got=timeout want=pass ok=0 by=same$' "$tmp/out"

echo 'peer-expect: b timeout   (the cause; measured by tests/70)' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: a declared difference holds" cmp
echo 'peer-expect: b pass|timeout   (a race: either)' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: alternatives hold either result (timeout)" cmp
sed -i 's/name=b result=timeout rc=137/name=b result=pass rc=0/' "$tmp/d.txt"
check "peer-compare: alternatives hold either result (pass)" cmp
echo 'peer-expect: b timeout   (no longer happens)' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: a stale peer-expect line (the difference is gone) fails" fails
echo 'peer-expect: b timeout' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: a peer-expect line without its why fails" fails '^peer-bad .*malformed'
echo 'peer-expect: b sometimes   (bad result)' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: an unknown result word fails" fails '^peer-bad .*malformed'
printf 'peer-expect: zz timeout   (a test the reference never ran)\n' >"$LAB_VARIANTS/zz-d/README"
check "peer-compare: a peer-expect line for a test the reference did not run fails" fails '^peer-bad .*did not run'
: >"$LAB_VARIANTS/zz-d/README"
grep -v 'name=c' "$tmp/d.txt" >"$tmp/d2" && mv "$tmp/d2" "$tmp/d.txt"
check "peer-compare: a test missing from the design's boot fails" fails 'name=c ref=fail got=missing'
