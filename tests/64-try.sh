#!/bin/bash
# 64-try.sh: ./run.sh try (scripts/run/try.sh). Bad input gets one line and exit 2
# before any build, with nothing left behind: a file that is not a patch, a
# missing file, a patch whose hunk fails (named), an unknown --on variant.
# Full run: a throw-away patch that changes only a comment in io_issue_sqe()
# builds as a temporary variant in the cache and gets a decision table whose
# idle bench-nop row equals upstream's (the same instructions; the bzImage
# itself differs: the comment moves __LINE__ in io_uring.c's WARN/BUG sites).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
try=$LAB_ROOT/scripts/run/try.sh
# one_line NAME WANT CMD...: CMD exits 2 with one stderr line containing WANT
one_line() {
	local rc=0 want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[[ $rc == 2 && $(wc -l <"$tmp/err") == 1 ]] && grep -qF -- "$want" "$tmp/err"
}
ntry() { { find "$LAB_CACHE/try/variants" -mindepth 1 -maxdepth 1 -name 'try-*' 2>/dev/null || true; } | wc -l; }
before=$(ntry)
echo 'just text' >"$tmp/notes.txt"
check "try: a file that is not a patch is named in one line" one_line "notes.txt is not a patch" "$try" "$tmp/notes.txt"
check "try: a missing file is named in one line" one_line "no such file" "$try" "$tmp/missing.patch"
check "try: an unknown --on variant is refused in one line" one_line "unknown variant 'no-such'" "$try" --on no-such "$LAB_ROOT/kernel/variants/nohooks/0001-io_uring-remove-the-audit-hooks-from-io_issue_sqe-ba.patch"
cat >"$tmp/stale.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Lab <lab@example.org>
Subject: [PATCH] io_uring: a hunk whose context is not in the tree

---
 io_uring/io_uring.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/io_uring/io_uring.c b/io_uring/io_uring.c
--- a/io_uring/io_uring.c
+++ b/io_uring/io_uring.c
@@ -1726,3 +1726,4 @@
 static int io_issue_sqe_not_here(struct io_kiocb *req)
 {
 	int ret;
+	ret = 0;
PATCH
stale=0
one_line "io_uring/io_uring.c: Hunk #1 FAILED" "$try" "$tmp/stale.patch" || stale=1
check "try: a patch that does not apply names the file and the failing hunk ($(cat "$tmp/err"))" test "$stale" = 0
after=$(ntry)
check "try: rejected input left no temporary variant behind ($before before, $after after)" test "$before" = "$after"

if quick; then
	skip "try: a throw-away patch end to end" "--quick"
	exit 0
fi
# a comment-only change inside io_issue_sqe() (tests/lib.sh)
patch=$(throwaway_patch "$tmp")
unset LAB_NO_CELL_STORE
export LAB_CELLS=$tmp/cells
start=$(now)
rc=0
LAB_TRY_STATES=off,idle LAB_TRY_WORKLOADS=bench-nop,bench-openclose "$try" --reps 1 "$patch" >"$tmp/try.out" 2>"$tmp/try.err" || rc=$?
secs=$(($(now) - start))
sed 's/^/    /' "$tmp/try.out"
grep -E '^try:|cell store' "$tmp/try.err" | sed 's/^/    /' || true
row() { awk -v s="$1" -v w="$2" -v c="$3" '$1 == s && $2 == w { print $c }' "$tmp/try.out"; }
check "try: exit 0 and a decision table in ${secs}s (rc $rc)" both test "$rc" = 0 -- grep -q '^idle  *bench-nop ' "$tmp/try.out"
check "try: a comment-only patch gives upstream's Δ (idle bench-nop: $(row idle bench-nop 3) vs $(row idle bench-nop 4))" \
	both test -n "$(row idle bench-nop 3)" -- test "$(row idle bench-nop 3)" = "$(row idle bench-nop 4)"
check "try: no kernel splat reported" grep -q '^# no kernel splat' "$tmp/try.out"
# the record-stream proof against upstream: a comment changes no record
check "try: the record-stream proof against upstream: every scenario as expected ($(grep '^# record stream' "$tmp/try.out" || echo none))" \
	grep -qE '^# record stream vs upstream: ([1-9][0-9]*) of \1 scenarios as expected$' "$tmp/try.out"
