# shellcheck shell=bash
# Helpers for test files: each prints 'ok - ...' / 'not ok - ...' lines (the
# runner numbers them) and exits 0; a crash is reported by the runner.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

# tests are independent of each other and of the cache's cell store
# (lib/cellstore.sh): every boot runs; the store's own tests unset this
export LAB_NO_CELL_STORE=${LAB_NO_CELL_STORE:-1}

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "ok - $1 # SKIP $2"; }
# check DESC CMD...: ok if CMD succeeds
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
quick() { [[ ${LAB_TEST_QUICK:-0} == 1 ]]; }
# both CMD1... -- CMD2...: both succeed
both() {
	local first=()
	while [[ $1 != -- ]]; do
		first+=("$1")
		shift
	done
	shift
	"${first[@]}" && "$@"
}

# wait_for SECS CMD...: poll CMD every 0.2 s, up to SECS
wait_for() {
	local n=$(($1 * 5))
	shift
	while ((n-- > 0)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# throwaway_patch DIR: a git format-patch file (printed: its path) with a
# comment-only change inside io_issue_sqe(), made against the default base's
# pristine tree: what tests/64 and 65 give ./run.sh try (one patch, so one
# cached build serves both)
throwaway_patch() {
	local d=$1 src
	"$LAB_ROOT/kernel/extract-source.sh" "$LAB_DEFAULT_BASE" >&2
	src=$(base_pristine "$LAB_DEFAULT_BASE")/io_uring/io_uring.c
	mkdir -p "$d/a/io_uring" "$d/b/io_uring"
	cp "$src" "$d/a/io_uring/io_uring.c"
	awk '{ print } /^static int io_issue_sqe\(struct io_kiocb \*req, unsigned int issue_flags\)$/ { f = 1 } f == 1 && /^\{$/ { print "\t/* lab: a throw-away comment (tests/64-try.sh) */"; f = 2 }' \
		"$src" >"$d/b/io_uring/io_uring.c"
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: Lab <lab@example.org>\n'
		printf 'Subject: [PATCH] io_uring: a comment in io_issue_sqe (throw-away)\n\n---\n'
		(cd "$d" && diff -u --label a/io_uring/io_uring.c --label b/io_uring/io_uring.c a/io_uring/io_uring.c b/io_uring/io_uring.c) || true
	} >"$d/comment.patch"
	echo "$d/comment.patch"
}
