#!/bin/bash
# Reproducible kernels (issue 14): the nohooks kernel built in the lab's cache
# and built again from scratch in a second cache dir (its own source tree,
# build dir and empty ccache, at another absolute path) must give a
# byte-identical bzImage. kernel/build.sh pins KBUILD_BUILD_TIMESTAMP (a date,
# so the built-in initramfs cpio gets fixed mtimes), _USER, _HOST and
# _VERSION, regenerates that cpio on every build, and builds with O= inside
# the tree (relative paths). The first build may be an older, cached one:
# that is the case the cpio regeneration is for. In the lab's cache nohooks
# is a seeded build (kernel/build.sh: a copy of its reference upstream's
# build dir, recompiled where its patch touches, at the fixed mount path);
# the second is cold (LAB_BUILD_SEED=0: no seed, at the tree's own path), so
# the test also proves that a seeded build is the cold build, byte for byte.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "reproducible build (a second cold build of nohooks)" "--quick"
	exit 0
fi
v=nohooks
second=$LAB_CACHE/repro-check
rm -rf "$second"
trap 'rm -rf "$second"' EXIT
if ! "$LAB_ROOT/kernel/build.sh" "$v" >/dev/null 2>"$LAB_CACHE/repro-first.log"; then
	tail -5 "$LAB_CACHE/repro-first.log" | sed 's/^/    /'
	not_ok "reproducible build: $v builds in the lab cache"
	exit 0
fi
a=$(sha256sum "$(build_of "$v")/arch/x86/boot/bzImage" | awk '{print $1}')
mkdir -p "$second"
if [[ -f $(build_of "$v")/.lab-at ]]; then
	ok "reproducible build: the first $v build is seeded (from its reference's objects, at $(cat "$(build_of "$v")/.lab-at"))"
else
	skip "reproducible build: the first $v build is seeded" "no mount namespace here (kernel/build.sh builds cold)"
fi
if ! LAB_CACHE=$second LAB_TREES=$second/trees LAB_BUILD_SEED=0 "$LAB_ROOT/kernel/build.sh" "$v" >/dev/null 2>"$second/build.err"; then
	tail -5 "$second/build.err" | sed 's/^/    /'
	not_ok "reproducible build: $v builds in a second, empty cache ($second)"
	exit 0
fi
b=$(sha256sum "$second/trees/$v/$LAB_BUILD_SUBDIR/arch/x86/boot/bzImage" | awk '{print $1}')
if [[ $a != "$b" ]]; then
	# say where they differ: the first differing bytes of the uncompressed
	# kernels and the printable strings around them
	ka=$(build_of "$v")/arch/x86/boot/compressed/vmlinux.bin
	kb=$second/trees/$v/$LAB_BUILD_SUBDIR/arch/x86/boot/compressed/vmlinux.bin
	echo "first differing bytes of vmlinux.bin: $(cmp -l "$ka" "$kb" 2>&1 | head -3 | awk '{printf "%s ", $1}')"
	diff <(strings -n 8 "$ka") <(strings -n 8 "$kb") | head -6 || true
fi
check "reproducible build: $v bzImage from two cache dirs is byte-identical (${a:0:12} vs ${b:0:12})" test "$a" = "$b"
