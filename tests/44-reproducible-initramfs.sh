#!/bin/bash
# Reproducible initramfs (issue 19): a cell's key holds the initramfs sha256,
# so two builds of one commit must give the same bytes. Build it twice, from
# two checkouts at different paths into two empty cache dirs (each builds its
# own bench/ tools), and compare. The peer suite's image (peer/build.sh,
# issue 25: the same image with liburing's tests appended, each cache
# building them from the one unpacked source) likewise. guest/build-initramfs.sh normalises modes,
# mtimes, owners and order; bench/Makefile maps the checkout path out of the
# tools' debug info.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "reproducible initramfs (two builds from two checkouts and caches)" "--quick"
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/lab-initramfs.XXXXXX")
trap 'rm -rf "$t"' EXIT
# the guest-only .debs are inputs, not outputs: both builds share the lab's
[[ -x $LAB_AUDITCTL ]] || "$LAB_ROOT/scripts/run/setup.sh" --guest-debs >/dev/null
mkdir -p "$t/checkout" "$t/a" "$t/b"
tar -C "$LAB_ROOT" --exclude=./results --exclude=./.git -cf - . | tar -C "$t/checkout" -xf -
start=$(now)
ia=$(LAB_CACHE=$t/a LAB_GUEST_DEBS=$LAB_GUEST_DEBS "$LAB_ROOT/guest/build-initramfs.sh" 2>"$t/a.err") || { sed 's/^/    /' "$t/a.err"; }
ib=$(LAB_CACHE=$t/b LAB_GUEST_DEBS=$LAB_GUEST_DEBS "$t/checkout/guest/build-initramfs.sh" 2>"$t/b.err") || { sed 's/^/    /' "$t/b.err"; }
check "reproducible initramfs: both builds produce an image" test -s "$ia" -a -s "$ib"
a=$(sha256_of "$ia" 2>/dev/null || echo none-a)
b=$(sha256_of "$ib" 2>/dev/null || echo none-b)
if [[ $a != "$b" && -s $ia && -s $ib ]]; then
	# name the members that differ
	for x in a b; do
		mkdir "$t/x$x"
		(cd "$t/x$x" && cpio --quiet -id <"$(if [[ $x == a ]]; then echo "$ia"; else echo "$ib"; fi)" 2>/dev/null) || true
	done
	diff -rq "$t/xa" "$t/xb" | head -5 | sed 's/^/    /' || true
fi
echo "    two builds in $(($(now) - start))s"
check "reproducible initramfs: same sha256 from two checkouts and two caches (${a:0:12} vs ${b:0:12})" test "$a" = "$b"

# the peer image: both caches build liburing's tests from the same unpacked
# source package (an input, as the guest .debs are)
src=$("$LAB_ROOT/scripts/run/setup.sh" --peer-src 2>"$t/src.err") || sed 's/^/    /' "$t/src.err"
start=$(now)
pa=$(LAB_CACHE=$t/a LAB_GUEST_DEBS=$LAB_GUEST_DEBS LAB_PEER_SRC=${src%/tree} "$LAB_ROOT/peer/build.sh" 2>"$t/pa.err") || { sed 's/^/    /' "$t/pa.err"; }
pb=$(LAB_CACHE=$t/b LAB_GUEST_DEBS=$LAB_GUEST_DEBS LAB_PEER_SRC=${src%/tree} "$t/checkout/peer/build.sh" 2>"$t/pb.err") || { sed 's/^/    /' "$t/pb.err"; }
a=$(sha256_of "$pa" 2>/dev/null || echo none-a)
b=$(sha256_of "$pb" 2>/dev/null || echo none-b)
echo "    two peer builds in $(($(now) - start))s"
check "reproducible peer image: same sha256 from two checkouts and two caches (${a:0:12} vs ${b:0:12})" test "$a" = "$b" -a -s "$pa"
check "reproducible peer image: it starts with the lab's own image, byte for byte" cmp -s -n "$(stat -c %s "$ia" 2>/dev/null || echo 0)" "$ia" "$pa"
