#!/bin/bash
# prepare-tree.sh VARIANT: make $LAB_CACHE/trees/VARIANT, the Debian tree of the
# variant's base (its series' '# base:' line, default 6.1) with the
# variant's series applied. The tree is a hard-linked copy of the pristine tree;
# every file a patch touches is un-linked first, so the pristine tree is never
# modified. Patches go into a fresh copy: a patch that fails leaves no tree behind.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

v=${1:-}
check_variant "$v"
base=$(variant_base "$v")
"$LAB_ROOT/kernel/extract-source.sh" "$base"
pristine=$(base_pristine "$base")

vdir=$(variants_dir)/$v
tree=$(tree_of "$v")
new=$tree.new.$$
trap 'rm -rf "$new"' EXIT

# patches named in series, in order; '#' comments and blank lines ignored
mapfile -t patches < <(series_patches "$vdir/series")
for p in "${patches[@]}"; do
	[[ -f $vdir/$p ]] || die "variant $v: series names $p but kernel/variants/$v/$p does not exist"
done

mkdir -p "$LAB_TREES"
rm -rf "$new"
cp -al "$pristine" "$new"

touched=()
for p in "${patches[@]}"; do
	while read -r f; do
		touched+=("$f")
		if [[ -f $new/$f ]]; then
			# break the hard link so patch cannot write through to the pristine tree
			unlink_file "$new/$f"
		fi
	done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$vdir/$p")
	if ! out=$(patch -d "$new" -p1 --forward --batch --no-backup-if-mismatch <"$vdir/$p" 2>&1); then
		printf '%s\n' "$out" >&2
		die "variant $v: patch $p does not apply to $(basename "$pristine"); no tree written"
	fi
done

# Files patched by the previous series must be rebuilt even if the new series
# leaves them pristine (their mtime would otherwise predate the objects).
old_list=$tree/.lab-patched-files
if [[ -f $old_list ]]; then
	while read -r f; do
		[[ -f $new/$f ]] || continue
		unlink_file "$new/$f"
		touch "$new/$f"
	done <"$old_list"
fi
for f in "${touched[@]}"; do [[ -f $new/$f ]] && touch "$new/$f"; done
printf '%s\n' "${touched[@]}" >"$new/.lab-patched-files"

# keep the variant's build dir (a subdirectory of the tree, see build.sh)
if [[ -d $tree/$LAB_BUILD_SUBDIR ]]; then
	mv "$tree/$LAB_BUILD_SUBDIR" "$new/$LAB_BUILD_SUBDIR"
fi
rm -rf "$tree"
mv "$new" "$tree"
trap - EXIT
log "tree $v: ${#patches[@]} patch(es) applied at $tree"
