#!/bin/bash
# build.sh [--debug] VARIANT: build the variant's bzImage in its own O= dir with ccache.
# --debug: the proof-only debug flavour (kernel/config/debug.config: lockdep,
# PROVE_RCU, DEBUG_ATOMIC_SLEEP) in $tree/lab-build-debug, never timed.
# Skips everything when series, patches, config fragments, source tarball and
# these scripts are unchanged (a stamp holds their hash). Prints progress.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"

flavor=""
[[ ${1:-} == --debug ]] && { flavor=-debug; shift; }
v=${1:-}
check_variant "$v"
(($# <= 1)) || die_usage "build: unexpected argument '$2' (usage: build.sh [--debug] VARIANT)"
[[ ${LAB_CHECK_ARGS:-0} == 1 ]] && exit 0
vdir=$(variants_dir)/$v
tree=$(tree_of "$v")
build=$(build_of "$v")$flavor
image=$build/arch/x86/boot/bzImage

# one build of a variant at a time (a second caller waits, then finds it done)
mkdir -p "$LAB_CACHE"
exec 8>"$LAB_CACHE/build-$v$flavor.lock"
flock 8

base=$(variant_base "$v")
tarball=$(base_tarball "$base")
fragments=("$LAB_ROOT/kernel/config/lab.config")
# options renamed or gone in a newer base: kernel/config/lab-BASE.config
[[ -f $LAB_ROOT/kernel/config/lab-$base.config ]] && fragments+=("$LAB_ROOT/kernel/config/lab-$base.config")
[[ -f $vdir/config ]] && fragments+=("$vdir/config")
[[ -n $flavor ]] && fragments+=("$LAB_ROOT/kernel/config/debug.config")

# hash of everything the image depends on
series_hash() {
	{
		stat -c '%s %Y' "$tarball"
		cat "$vdir/series"
		series_patches "$vdir/series" | while read -r p; do cat "$vdir/$p"; done
		cat "$LAB_ROOT/kernel/prepare-tree.sh"
	} | sha256sum | awk '{print $1}'
}
tree_id=$(series_hash)
build_id=$({ echo "$tree_id"; cat "${fragments[@]}" "$0" "$LAB_ROOT/kernel/make-config.sh" "$LAB_ROOT/kernel/check-config.sh"; } | sha256sum | awk '{print $1}')

# the image's sha256, recorded when it was built, is checked before it is
# trusted: a truncated or altered image in the cache is rebuilt
sha_file=$build/.lab-image-sha256
if [[ -f $image && -f $build/.lab-stamp && $(cat "$build/.lab-stamp") == "$build_id" ]]; then
	# (an image built before the lab recorded sha256s gets one now)
	[[ -f $sha_file ]] || sha256_of "$image" >"$sha_file"
	if [[ $(sha256_of "$image") == "$(cat "$sha_file")" ]]; then
		log "build $v: up to date ($image)"
		exit 0
	fi
	log "build $v: $image does not match the sha256 recorded when it was built (corrupt or altered cache); rebuilding it"
	rm -f "$image" "$build/.lab-stamp"
fi

start=$(now)
steps=4
progress 1 $steps "$start" "build $v: tree (series applied to linux-source-$base)"
if [[ ! -f $tree/.lab-tree-stamp || $(cat "$tree/.lab-tree-stamp") != "$tree_id" ]]; then
	"$LAB_ROOT/kernel/prepare-tree.sh" "$v"
	echo "$tree_id" >"$tree/.lab-tree-stamp"
fi

# Every build runs with its tree bind-mounted at one fixed path ($at), in a
# private mount namespace: objtool, which tools/ builds with absolute paths,
# is then the same command in every tree, so a variant's build dir can start
# as a copy of its base's reference build (the seed) and make recompiles only
# what its patches and config change (measured: 39-55 s a variant against
# ~3 min for a fresh dir of ~950 ccache hits, every image byte for byte the
# same: tests/data/timings/build-seeded.log). tests/43 checks seeded builds
# against the images committed runs recorded. The image does not depend on the
# path (tests/43 builds at two). Without mount namespaces (not root), or with
# LAB_BUILD_SEED=0, a build is cold at its tree's own path.
at=$LAB_TREES/.build-root
ns=0 seed="" seeded=0
if [[ ${LAB_BUILD_SEED:-1} == 1 ]] && mkdir -p "$at" &&
	unshare -m --propagation private mount --bind "$tree" "$at" 2>/dev/null; then
	ns=1
	seed=$(reference_on "$base")
	[[ $seed == "$v" ]] && seed=""
fi
# a build dir not built at $at (new, or from before) starts from the seed
if [[ -n $seed && $(cat "$build/.lab-at" 2>/dev/null) != "$at" ]]; then
	"$0" ${flavor:+--debug} "$seed" || die "build $v: its seed, the reference build $seed$flavor, failed"
	exec 9>"$LAB_CACHE/build-$seed$flavor.lock"
	flock -s 9
	rm -rf "$build.seed"
	cp -a "$(build_of "$seed")$flavor" "$build.seed"
	flock -u 9
	rm -f "$build.seed/.lab-stamp" "$build.seed/.lab-image-sha256" "$build.seed/lab-build-info" "$build.seed/arch/x86/boot/bzImage"
	rm -rf "$build"
	mv "$build.seed" "$build"
	# the files either series patches are newer than every copied object;
	# their hard links to the pristine tree are broken first (prepare-tree.sh)
	sort -u "$(tree_of "$seed")/.lab-patched-files" "$tree/.lab-patched-files" 2>/dev/null |
		while read -r f; do
			[[ -n $f && -f $tree/$f ]] || continue
			unlink_file "$tree/$f"
			touch "$tree/$f"
		done
	seeded=1
fi

progress 2 $steps "$start" "build $v: config (tinyconfig + ${fragments[*]##*/}, verified)"
cfgdir=$tree/lab-config$flavor
# The config is a function of the base tree, the fragments, the config
# scripts, the toolchain (Kconfig probes it) and the patched files that are
# not C (a Kconfig, a Makefile, a script): made once per such key and kept in
# $LAB_CACHE/configs (~18 s a variant saved), checked again on every use.
cfg_key=$({
	stat -c '%s %Y' "$tarball"
	cat "${fragments[@]}" "$LAB_ROOT/kernel/make-config.sh" "$LAB_ROOT/kernel/check-config.sh"
	gcc --version | head -1
	ld --version | head -1
	{ grep -v '\.[ch]$' "$tree/.lab-patched-files" 2>/dev/null || true; } | while read -r f; do
		[[ -n $f ]] || continue
		echo "$f"
		cat "$tree/$f" 2>/dev/null || true
	done
} | sha256sum | awk '{print $1}')
cfg_cached=$LAB_CACHE/configs/$cfg_key.config
if [[ -f $cfg_cached ]]; then
	mkdir -p "$cfgdir"
	cp "$cfg_cached" "$cfgdir/.config"
	"$LAB_ROOT/kernel/check-config.sh" "$cfgdir/.config" "${fragments[@]}"
else
	"$LAB_ROOT/kernel/make-config.sh" "$tree" "$cfgdir" "${fragments[@]}"
	mkdir -p "$LAB_CACHE/configs"
	cp "$cfgdir/.config" "$cfg_cached.$$" && mv "$cfg_cached.$$" "$cfg_cached"
fi
# install the config only if it changed, so an unchanged config rebuilds nothing
mkdir -p "$build"
if ! cmp -s "$cfgdir/.config" "$build/.config"; then
	cp "$cfgdir/.config" "$build/.config"
fi

from="ccache"
((seeded)) && from="ccache, from $seed$flavor's objects"
progress 3 $steps "$start" "build $v: make bzImage -j$LAB_JOBS ($from)"
export CCACHE_DIR=$LAB_CACHE/ccache CCACHE_BASEDIR=$LAB_CACHE CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
# reproducible: no date, user or host, and no build count (.version would
# give a second build in the same dir "#2" in its version string). The
# timestamp must be a date that date(1) parses: usr/gen_initramfs.sh stamps
# the built-in initramfs cpio with it, and with an unparseable one it uses the
# time of the build, which changes the image and its build-id note.
export KBUILD_BUILD_TIMESTAMP="1970-01-01 00:00:00 UTC" KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab KBUILD_BUILD_VERSION=1
mkdir -p "$CCACHE_DIR"
expected_file=$LAB_CACHE/expected-objects$flavor
# the lab config makes ~950 objects; the previous build's count is better
expected=$(cat "$expected_file" 2>/dev/null || echo 950)
# (a seeded build compiles what its patches touch: no ETA from a full count)
((seeded)) && expected=0
# kbuild regenerates the built-in initramfs only when its command line
# changes, not when KBUILD_BUILD_TIMESTAMP does: a cpio left by an older
# build would keep that build's mtimes (and so its build-id) in the image
rm -f "$build/usr/initramfs_data.cpio"
marker=$build/.lab-build-start
touch "$marker"
make_start=$(now)
# make runs in its own process group, stopped with everything it started
# when this script ends early (error, signal): no make outlives build.sh
set -m
# (and make gets SIGTERM if this script is SIGKILLed: GNU make passes it on to
# every job it runs, so no build outlives a killed build.sh or matrix)
rm -f "$build/.lab-at"
if ((ns)); then
	# shellcheck disable=SC2016 # expanded by the sh in the namespace
	mk=(unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec make "$@"' sh
		"$tree" "$at" -C "$at" O="$at/${build#"$tree"/}")
else
	mk=(make -C "$tree" O="$build")
fi
setpriv --pdeathsig TERM "${mk[@]}" ARCH=x86_64 CC="ccache gcc" -j"$LAB_JOBS" bzImage >"$build/build.log" 2>&1 &
make_pid=$!
set +m
stop_make() { kill -TERM -- "-$make_pid" 2>/dev/null || true; }
trap stop_make EXIT
trap 'stop_make; exit 130' INT
trap 'stop_make; exit 143' TERM
# objects written since the start; a progress meter never fails the build
# (kbuild removes temporaries while find walks the tree)
count_objs() { { find "$build" -name '*.o' -newer "$marker" 2>/dev/null || true; } | wc -l; }
# a progress line every 30 s: objects written since the start versus the last full build
while kill -0 "$make_pid" 2>/dev/null; do
	for _ in $(seq "${LAB_PROGRESS_SECS:-30}"); do
		kill -0 "$make_pid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$make_pid" 2>/dev/null || break
	done_objs=$(count_objs)
	el=$(($(now) - start))
	eta=""
	mk_el=$(($(now) - make_start))
	((done_objs > 0 && done_objs < expected)) && eta=", ETA $(fmt_secs $((mk_el * (expected - done_objs) / done_objs)))"
	of="/~$expected"
	((expected)) || of=""
	log "    build $v: $done_objs$of objects compiled (elapsed $(fmt_secs "$el")$eta)"
done
make_rc=0
wait "$make_pid" || make_rc=$?
trap - EXIT INT TERM
if ((make_rc)); then
	tail -30 "$build/build.log" >&2
	die "make bzImage failed for $v (full log $build/build.log)"
fi
[[ -f $image ]] || die "make succeeded but $image is missing"
objs=$(count_objs)
all_objs=$(find "$build" -name "*.o" | wc -l)
# the whole build dir's object count is the yardstick for the next ETA
((seeded)) || echo "$all_objs" >"$expected_file"
((ns)) && echo "$at" >"$build/.lab-at"
sha256_of "$image" >"$sha_file"
echo "$build_id" >"$build/.lab-stamp"
secs=$(($(now) - start))
printf 'variant=%s seconds=%d objects=%d sha256=%s\n' "$v" "$secs" "$objs" "$(sha256_of "$image")" >"$build/lab-build-info"
progress 4 $steps "$start" "build $v: done, $image ($(stat -c %s "$image") bytes, $objs objects in $(fmt_secs "$secs"))"
