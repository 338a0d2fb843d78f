#!/bin/bash
# peer/build.sh: the peer suite's initramfs (issue 25): the lab's own image
# (guest/build-initramfs.sh) with a second cpio archive appended (the kernel
# unpacks concatenated archives in order) that adds
#   /lab/peer/NAME.t          liburing 2.3's test/ programs listed in
#                             peer/liburing.tests, linked statically, stripped
#   /lab/peer/tests.list      that list (NAME TIMEOUT lines)
#   /lab/peer/ltimeout-pipe   the skip-cqe hang's reproducer (peer/ltimeout-pipe.c)
#   /lab/scripts/peer-suite.sh  the guest runner (peer/peer-suite.sh)
#   /lab/scripts/ltimeout-repro.sh  the reproducer's phases (peer/ltimeout-repro.sh)
# The lab's own image is unchanged (its id and every cell key stay as they
# are); only boots with guest/boot.sh --peer use this one. Prints the image.
# Source: Debian's liburing source package, fetched and checked by
# scripts/run/setup.sh --peer-src; built in the cache, never in the repo, in a
# dir named by the content of everything it depends on.
# Reproducible as the lab's image is (tests/44 builds it twice): fixed umask,
# modes, mtimes, owners and order, stripped binaries without a build id (it
# hashed the debug info, which names the build dir: the one difference
# between two caches' builds before), no build path inside.
set -euo pipefail
umask 022
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

base=$("$LAB_ROOT/guest/build-initramfs.sh")
src=$("$LAB_ROOT/scripts/run/setup.sh" --peer-src)
[[ -f $src/test/skip-cqe.c ]] || die "peer: $src is not liburing's source tree"
list=$LAB_ROOT/peer/liburing.tests
mapfile -t tests < <(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$list")
((${#tests[@]})) || die "peer: $list names no test"
for t in "${tests[@]}"; do
	[[ $t =~ ^[a-z0-9][a-z0-9_-]*$ ]] || die "peer: bad test name '$t' in $list"
	[[ -f $src/test/$t.c ]] || die "peer: $list names $t, which liburing $LAB_PEER_VERSION has no test/$t.c for"
done
awk '!/^[[:space:]]*(#|$)/ && !($2 ~ /^[1-9][0-9]*$/ && $2 <= 3600) { bad = 1; print "peer: bad timeout on line " NR ": " $0 > "/dev/stderr" } END { exit bad }' "$list" ||
	die "peer: every line of $list is NAME TIMEOUT (1-3600 guest seconds)"

inputs=("$0" "$list" "$LAB_ROOT/peer/ltimeout-pipe.c")
cell_hash "${inputs[@]}"
bid=$({
	echo "$LAB_PEER_VERSION $LAB_PEER_DSC_SHA256"
	for f in "${inputs[@]}"; do echo "${CELL_SHA[$f]} ${f##*/}"; done
} | sha256sum | cut -c1-16)
bdir=$LAB_CACHE/peer/build-$bid
if [[ ! -f $bdir/.built ]]; then
	mkdir -p "$LAB_CACHE/peer"
	exec 9>"$bdir.lock"
	flock 9
	if [[ ! -f $bdir/.built ]]; then
		log "peer: building liburing $LAB_PEER_VERSION and ${#tests[@]} of its tests statically in $bdir"
		rm -rf "$bdir"
		mkdir -p "$bdir/out"
		cp -a "$src" "$bdir/liburing"
		cp "$LAB_ROOT/peer/ltimeout-pipe.c" "$bdir/"
		(
			cd "$bdir/liburing"
			./configure >"$bdir/configure.log" 2>&1 || die "peer: liburing's configure failed ($bdir/configure.log)"
			make -s -C src liburing.a >"$bdir/make.log" 2>&1 || die "peer: building liburing.a failed ($bdir/make.log)"
			# no build id: it hashes the debug info, which names this dir
			make -s -C test LDFLAGS="-static -Wl,--build-id=none" "${tests[@]/%/.t}" >>"$bdir/make.log" 2>&1 ||
				die "peer: building the tests failed ($bdir/make.log)"
			cd "$bdir"
			gcc -O2 -Wall -Wextra -Werror -std=gnu11 -static -Wl,--build-id=none -I liburing/src/include -o out/ltimeout-pipe \
				ltimeout-pipe.c -L liburing/src -luring >>"$bdir/make.log" 2>&1 ||
				die "peer: building ltimeout-pipe failed ($bdir/make.log)"
		)
		for t in "${tests[@]}"; do strip -o "$bdir/out/$t.t" "$bdir/liburing/test/$t.t"; done
		strip "$bdir/out/ltimeout-pipe"
		rm -rf "$bdir/liburing"
		touch "$bdir/.built"
	fi
	exec 9>&-
fi

# the overlay, then the combined image: named by both parts' content
ov_files=("$bdir/out/ltimeout-pipe" "$list" "$LAB_ROOT/peer/peer-suite.sh" "$LAB_ROOT/peer/ltimeout-repro.sh")
for t in "${tests[@]}"; do ov_files+=("$bdir/out/$t.t"); done
cell_hash "$base" "${ov_files[@]}"
id=$(for f in "$base" "${ov_files[@]}"; do echo "${CELL_SHA[$f]} ${f##*/}"; done | sha256sum | cut -c1-16)
img=$LAB_CACHE/initramfs/peer-$id.cpio
if [[ -f $img && -f $img.sha256 ]]; then
	cell_hash "$img"
	if [[ ${CELL_SHA[$img]} == "$(cat "$img.sha256")" ]]; then
		echo "$img"
		exit 0
	fi
	log "peer: $img does not match its recorded sha256; rebuilding it"
fi
exec 9>"$LAB_CACHE/initramfs/peer.lock"
flock 9
root=$(mktemp -d "$LAB_CACHE/initramfs/peer-root.XXXXXX")
tmpimg=$(mktemp "$LAB_CACHE/initramfs/peer-img.XXXXXX")
trap 'rm -rf "$root" "$tmpimg"' EXIT
mkdir -p "$root/lab/peer" "$root/lab/scripts"
for t in "${tests[@]}"; do cp "$bdir/out/$t.t" "$root/lab/peer/"; done
cp "$bdir/out/ltimeout-pipe" "$root/lab/peer/"
awk '!/^[[:space:]]*(#|$)/ { print $1, $2 }' "$list" >"$root/lab/peer/tests.list"
cp "$LAB_ROOT/peer/peer-suite.sh" "$LAB_ROOT/peer/ltimeout-repro.sh" "$root/lab/scripts/"
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -perm /111 -exec chmod 755 {} +
find "$root" -type f ! -perm /111 -exec chmod 644 {} +
find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
{
	cat "$base"
	# only the new entries ("." is the lab image's already)
	(cd "$root" && find lab | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible)
} >"$tmpimg"
chmod 644 "$tmpimg"
sha256_of "$tmpimg" >"$img.sha256"
mv "$tmpimg" "$img"
log "peer: $img ($(du -h "$img" | cut -f1))"
echo "$img"
