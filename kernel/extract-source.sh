#!/bin/bash
# extract-source.sh [BASE]: unpack Debian's linux-source-BASE tarball (default
# base 6.1, see variant_base in lib/common.sh) once into $LAB_CACHE/src.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

base=${1:-$LAB_DEFAULT_BASE}
[[ $base =~ ^[0-9]+\.[0-9]+$ ]] || die_usage "extract-source.sh: bad base '$base' (use a version such as 6.1 or 6.12)"
tarball=$(base_tarball "$base")
pristine=$(base_pristine "$base")
[[ -f $tarball ]] || die "$tarball missing; run './run.sh setup' (installs linux-source-$base)"
mkdir -p "$LAB_CACHE/src"
# one extraction per base at a time (the src dir may be shared by several caches)
exec 7>"$LAB_CACHE/src/.extract-$base.lock"
flock 7
stamp=$pristine/.lab-extracted
id=$(stat -c '%s %Y' "$tarball")
if [[ -f $stamp && $(cat "$stamp") == "$id" ]]; then
	exit 0
fi
log "extracting $tarball into $LAB_CACHE/src (once, ~20-40 s)"
rm -rf "$pristine" "$pristine.tmp"
mkdir -p "$pristine.tmp"
tar -C "$pristine.tmp" --strip-components=1 -xf "$tarball"
# the pristine tree is read-only to us: variants work on hard-linked copies
echo "$id" >"$pristine.tmp/.lab-extracted"
mv "$pristine.tmp" "$pristine"
