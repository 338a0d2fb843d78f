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
