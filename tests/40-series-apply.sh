#!/bin/bash
# Every variant's series applies to the Debian tree; a patch that does not
# apply is named and leaves no tree behind; the pristine tree stays pristine.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
"$LAB_ROOT/kernel/extract-source.sh"
# scratch trees on the cache's filesystem (hard-linked copies need one fs)
mkdir -p "$LAB_CACHE/tmp"
tmp=$(mktemp -d "$LAB_CACHE/tmp/series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LAB_TREES=$tmp/trees
ref=$(sha256_of "$LAB_PRISTINE/io_uring/io_uring.c")

# sparse_apply V: apply V's series to a copy of only the files it touches
# (--quick: prepare-tree's hard-linked copy of the whole tree costs ~3 s a variant)
sparse_apply() {
	local v=$1 d=$tmp/sparse/$1 vdir base p f
	vdir=$(variants_dir)/$v
	base=$(base_pristine "$(variant_base "$v")")
	"$LAB_ROOT/kernel/extract-source.sh" "$(variant_base "$v")" >/dev/null
	mkdir -p "$d"
	while read -r p; do
		while read -r f; do
			[[ -f $base/$f && ! -f $d/$f ]] || continue
			mkdir -p "$d/$(dirname "$f")" && cp "$base/$f" "$d/$f"
		done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$vdir/$p")
		patch -d "$d" -p1 --forward --batch --no-backup-if-mismatch <"$vdir/$p" || return 1
	done < <(series_patches "$vdir/series")
}
for v in $(known_variants); do
	if quick; then
		out=$(sparse_apply "$v" 2>&1) && rc=0 || rc=$?
	else
		out=$("$LAB_ROOT/kernel/prepare-tree.sh" "$v" 2>&1) && rc=0 || rc=$?
	fi
	if ((rc == 0)); then
		ok "series of $v applies to linux-source-$(variant_base "$v")"
	else
		printf '%s\n' "$out" | tail -5
		not_ok "series of $v applies to linux-source-$(variant_base "$v")"
	fi
done
check "pristine io_uring.c untouched after applying every series" test "$(sha256_of "$LAB_PRISTINE/io_uring/io_uring.c")" = "$ref"
# every base's baseline (role=baseline, lib/catalog.sh) has no hooks left
for v in $(variants_with baseline); do
	for f in "$LAB_TREES/$v/io_uring/io_uring.c" "$tmp/sparse/$v/io_uring/io_uring.c"; do
		[[ -f $f ]] || continue
		check "$v (baseline, base $(variant_base "$v")) tree has no audit_uring_ calls in io_uring.c" bash -c "! grep -q audit_uring_ '$f'"
	done
done

# a broken series: a good patch then one whose context does not match
export LAB_VARIANTS=$tmp/variants
mkdir -p "$LAB_VARIANTS/broken"
# the patch that carries the context line (not find's first: its order is
# the directory's, and a copy without the line would fail for another reason)
good=$(grep -l '^ 	ret = def->issue(req, issue_flags);' "$LAB_ROOT"/kernel/variants/rfc/*.patch | head -1)
cp "$good" "$LAB_VARIANTS/broken/0001-good.patch"
sed 's/^ \tret = def->issue(req, issue_flags);/ \tret = no_such_context_line(req);/' "$good" >"$LAB_VARIANTS/broken/0002-bad.patch"
check "the test's broken patch differs from $(basename "$good")" bash -c "! cmp -s '$good' '$LAB_VARIANTS/broken/0002-bad.patch'"
printf '0001-good.patch\n0002-bad.patch\n' >"$LAB_VARIANTS/broken/series"
rc=0
out=$("$LAB_ROOT/kernel/prepare-tree.sh" broken 2>&1) || rc=$?
check "a patch that does not apply fails the tree step" test "$rc" -ne 0
if grep -q '0002-bad.patch does not apply' <<<"$out"; then ok "the failing patch is named"; else printf '%s\n' "$out" | tail -3; not_ok "the failing patch is named"; fi
check "no half-patched tree is left behind" bash -c "! ls -d '$LAB_TREES'/broken* 2>/dev/null | grep -q ."
check "pristine tree untouched by the failed apply" test "$(sha256_of "$LAB_PRISTINE/io_uring/io_uring.c")" = "$ref"
printf '0003-missing.patch\n' >"$LAB_VARIANTS/broken/series"
rc=0
out=$("$LAB_ROOT/kernel/prepare-tree.sh" broken 2>&1) || rc=$?
if ((rc != 0)) && grep -q '0003-missing.patch but' <<<"$out"; then ok "a series naming a missing patch is refused by name"; else not_ok "a series naming a missing patch is refused by name"; fi
