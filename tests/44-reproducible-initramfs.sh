#!/bin/bash
# Reproducible initramfs (issue 19): a cell's key holds the initramfs sha256,
# so two builds of one commit must give the same bytes. Build it twice, from
# two checkouts at different paths into two empty cache dirs (each builds its
# own bench/ tools), and compare. guest/build-initramfs.sh normalises modes,
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
[[ -x $LAB_AUDITCTL ]] || "$LAB_ROOT/scripts/setup.sh" --guest-debs >/dev/null
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
