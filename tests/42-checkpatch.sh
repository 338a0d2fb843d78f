#!/bin/bash
# scripts/checkpatch.pl --strict (from the variant's base's pristine Debian tree) on every patch
# of every variant: any ERROR, WARNING or CHECK fails that patch.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# each patch is checked with the checkpatch.pl of its variant's base tree
# (6.12's knows checks 6.1's does not); the default base's tree must exist
if [[ ! -f $LAB_PRISTINE/scripts/checkpatch.pl ]]; then
	skip "checkpatch --strict on every variant patch" "no pristine tree at $LAB_PRISTINE (run ./run.sh build nohooks once)"
	exit 0
fi
command -v perl >/dev/null || { not_ok "perl is installed (checkpatch needs it)"; exit 0; }
n=0
for p in "$(variants_dir)"/*/*.patch; do
	[[ -f $p ]] || continue
	n=$((n + 1))
	name=${p#"$(variants_dir)"/}
	base=$(variant_base "${name%%/*}")
	"$LAB_ROOT/kernel/extract-source.sh" "$base" >/dev/null
	cp=$(base_pristine "$base")/scripts/checkpatch.pl
	# the Debian tree is a tarball, not a git repo: checkpatch cannot look up
	# the Fixes: commit ids, so that one check is off (the ids are checked by hand)
	out=$(perl "$cp" --strict --no-tree --ignore UNKNOWN_COMMIT_ID --no-color --no-summary --terse "$p" 2>&1 || true)
	if grep -qE '(ERROR|WARNING|CHECK):' <<<"$out"; then
		grep -E '(ERROR|WARNING|CHECK):' <<<"$out" | head -5 | sed 's/^/    /'
		not_ok "checkpatch --strict ($base): $name"
	else
		ok "checkpatch --strict ($base): $name"
	fi
done
check "found variant patches to check ($n)" test "$n" -gt 0
