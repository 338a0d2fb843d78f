#!/bin/bash
# extract-source.sh: unpack the Debian linux-source-6.1 tarball once into the cache.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

[[ -f $LAB_SRC_TARBALL ]] || die "$LAB_SRC_TARBALL missing; run './run.sh setup' (installs linux-source-6.1)"
stamp=$LAB_PRISTINE/.lab-extracted
id=$(stat -c '%s %Y' "$LAB_SRC_TARBALL")
if [[ -f $stamp && $(cat "$stamp") == "$id" ]]; then
	exit 0
fi
log "extracting $LAB_SRC_TARBALL into $LAB_CACHE/src (once, ~20 s)"
rm -rf "$LAB_PRISTINE" "$LAB_PRISTINE.tmp"
mkdir -p "$LAB_PRISTINE.tmp"
tar -C "$LAB_PRISTINE.tmp" --strip-components=1 -xf "$LAB_SRC_TARBALL"
# the pristine tree is read-only to us: variants work on hard-linked copies
echo "$id" >"$LAB_PRISTINE.tmp/.lab-extracted"
mv "$LAB_PRISTINE.tmp" "$LAB_PRISTINE"
