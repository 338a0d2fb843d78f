#!/bin/bash
# peer-compare.sh REF_RESULTS VARIANT RESULTS: the peer suite's differential
# (issue 25). Each test's result in VARIANT's peer boot (RESULTS, the guest's
# peer-test lines, peer/peer-suite.sh) against the same test on its base's
# reference (REF_RESULTS). A result that differs from the reference's must be
# named in the variant's README by a line
#   peer-expect: TEST RESULT[|RESULT...]   (why: the cause, and what measured it)
# whose result set holds it; a test with such a line must give one of its
# results (a difference that no longer happens is a stale line, and fails).
# Prints one line per test, in the reference's order:
#   peer name=TEST ref=R got=G want=W ok=0|1 by=same|readme
# then 'peer-bad line=N ...' for a malformed or unknown peer-expect line.
# Exit 0 when every line is ok=1 and no peer-bad line was printed, else 1.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
(($# == 3)) || die_usage "usage: peer-compare.sh REF_RESULTS VARIANT RESULTS"
ref=$1 v=$2 res=$3
check_variant "$v"
[[ -f $ref ]] || die "peer-compare: no reference results $ref"
[[ -f $res ]] || die "peer-compare: no results $res"
readme=$(variants_dir)/$v/README
[[ -f $readme ]] || readme=/dev/null
# peer-test lines: NAME RESULT
results() { tr -d '\r' <"$1" | sed -n 's/^peer-test name=\([^ ]*\) result=\([^ ]*\).*/\1 \2/p'; }
awk -v v="$v" '
FILENAME == ARGV[1] { if (!($1 in ref)) { order[++n] = $1; ref[$1] = $2 }; next }
FILENAME == ARGV[2] { if (!($1 in got)) got[$1] = $2; next }
{
	sub(/\r$/, "")
	if ($0 !~ /^peer-expect:/) next
	line = $0
	sub(/^peer-expect:[[:space:]]*/, "", line)
	split(line, f, /[[:space:]]+/)
	why = line
	sub(/^[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]*/, "", why)
	if (f[1] == "" || f[2] !~ /^(pass|fail|skip|timeout|hang|missing)(\|(pass|fail|skip|timeout|hang|missing))*$/ || why !~ /[a-z]/) {
		printf "peer-bad line=%d variant=%s malformed (want: peer-expect: TEST RESULT[|RESULT] (why)): %s\n", FNR, v, $0
		bad = 1
		next
	}
	if (f[1] in want) {
		printf "peer-bad line=%d variant=%s a second peer-expect for %s\n", FNR, v, f[1]
		bad = 1
		next
	}
	want[f[1]] = f[2]
	wline[f[1]] = FNR
}
END {
	for (i = 1; i <= n; i++) {
		t = order[i]
		g = (t in got) ? got[t] : "missing"
		if (t in want) { w = want[t]; by = "readme" } else { w = ref[t]; by = "same" }
		ok = ("|" w "|") ~ ("\\|" g "\\|")
		if (!ok) bad = 1
		printf "peer name=%s ref=%s got=%s want=%s ok=%d by=%s\n", t, ref[t], g, w, ok, by
	}
	for (t in want) {
		found = 0
		for (i = 1; i <= n; i++) if (order[i] == t) found = 1
		if (!found) {
			printf "peer-bad line=%d variant=%s peer-expect names %s, which the reference did not run\n", wline[t], v, t
			bad = 1
		}
	}
	exit bad
}' <(results "$ref") <(results "$res") "$readme"
