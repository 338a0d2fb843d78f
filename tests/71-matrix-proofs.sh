#!/bin/bash
# The record-stream proof as boots of the matrix's plan (issue 19):
# a run with the smack state boots each design and baseline, and its base's
# reference even when the run does not time it, with the stream-proof script
# (scripts/proof/stream-proofs.sh), on the matrix's progress line; the run's
# streams.txt holds each variant's verdicts against the reference, and the
# report reads them from there. A run without smack has no proof boot, and a
# --resume of the finished run boots nothing. Proof boots are cells of the
# store: the same boots of tests/61 make them hits.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "proof boots in the matrix's plan (builds and boots)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp
# the baseline and a design that claims every stream of its reference
design=$(variants_on "$LAB_DEFAULT_BASE" design | while read -r v; do
	[[ $(variant_meta "$v" reference) != yes ]] && has_audit "$v" && echo "$v"
done | awk "NR == 1")
bl=$(catalog_one_on "$LAB_DEFAULT_BASE" baseline)
ref=$(reference_on "$LAB_DEFAULT_BASE")
start=$(now)
if "$LAB_ROOT/run.sh" matrix --variants "$bl,$design" --states smack --workloads bench-nop --reps 1 --profile none \
	--run-id proofs >"$tmp/matrix.log" 2>&1; then
	ok "matrix --variants $bl,$design --states smack completes ($(fmt_secs $(($(now) - start))))"
else
	tail -20 "$tmp/matrix.log"
	not_ok "matrix --variants $bl,$design --states smack completes"
fi
d=$tmp/proofs
grep -E '^\[[0-9]+/[0-9]+\] (proof )?boot' "$tmp/matrix.log" | sed 's/^/# /'
for v in "$ref" "$bl" "$design"; do
	check "$v: a proof boot on the matrix's progress line, finished (boot.info status=ok)" \
		both grep -qE "^\[[0-9]+/7\] proof boot $v / smack" "$tmp/matrix.log" -- grep -qx 'status=ok' "$d/proof/$v/boot.info"
done
check "the reference $ref, not timed, was built for its proof boot and has no cell" \
	both test -s "$d/proof/$ref/results.txt" -- test "$(grep -c "^$ref," "$d/cells.csv")" = 0
check "streams.txt: $design's verdicts against $ref, every one as its README expects" \
	both test "$(grep -c "^stream variant=$design .* ok=1" "$d/streams.txt")" -gt 8 -- test "$(grep -c "^stream variant=$design .* ok=0" "$d/streams.txt")" = 0
check "streams.txt: the baseline $bl's verdicts, among them streams that differ from the reference" \
	grep -q "^stream variant=$bl .* got=[A-Z].* ok=1" "$d/streams.txt"
check "report.md: the headline reads the run's streams.txt ($design identical to $ref in N of N scenarios)" \
	both grep -qE "\*\*$design\*\*:.*record stream: identical to $ref in [0-9]+ of [0-9]+ scenarios" "$d/report.md" -- \
	grep -q "this run's proof boots" "$d/report.md"
if out=$("$LAB_ROOT/run.sh" matrix --resume proofs 2>&1); then
	check "--resume of the finished run boots nothing (proof boots included)" grep -q '7 of 7 boots already done, 0 to run' <<<"$out"
else
	printf '%s\n' "$out" | tail -5
	not_ok "--resume of the finished run boots nothing (proof boots included)"
fi
# the verdicts' memo (a scratch store): a second --assemble reads it and
# writes the same streams.txt; a tampered memo is computed afresh
cp "$d/streams.txt" "$tmp/streams.ref"
assemble() { LAB_NO_CELL_STORE=0 LAB_CELLS=$tmp/cells "$LAB_ROOT/scripts/proof/stream-proofs.sh" --assemble "$d" 2>/dev/null; }
assemble
nmemo=$(find "$tmp/cells/.memo/streams" -type f ! -name '*.sum' 2>/dev/null | wc -l)
assemble
same1=$(cmp -s "$d/streams.txt" "$tmp/streams.ref" && echo yes)
for f in "$tmp/cells/.memo/streams"/*; do [[ $f == *.sum ]] || sed -i 's/ ok=1/ ok=0/' "$f"; done
assemble
check "stream-proofs: the verdicts are memoised ($nmemo memos), reread identical, and a tampered memo is not trusted" \
	both test "$nmemo" -gt 1 -a "$same1" = yes -- cmp -s "$d/streams.txt" "$tmp/streams.ref"
# without smack: no proof boot in the plan
mkdir -p "$tmp/nosmack"
printf 'variants=%s\nstates=idle,off\nworkloads=\nreps=1\nruntime=1\naccel=tcg\nprofile=none\nseed_base=0\nbases=\n' "$bl,$design" >"$tmp/nosmack/matrix.conf"
check "a run without the smack state plans no proof boot" test -z "$("$LAB_ROOT/scripts/proof/stream-proofs.sh" --plan "$tmp/nosmack")"
