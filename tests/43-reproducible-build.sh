#!/bin/bash
# Reproducible kernels (issue 14): a kernel built here must be byte for byte
# the kernel a committed run was measured on. For each base, its reference
# (built cold) and its baseline (a seeded build: kernel/build.sh copies the
# reference's build dir and recompiles where the baseline's patch touches),
# when a committed run (results/*/manifest.json) has them with today's build
# inputs (the base tarball's sha256, the series and each patch, the compiler
# version): kernel/build.sh builds them here, and their bzImage and .config
# must have the sha256s that manifest recorded. Those were built on another
# machine, at another absolute path, from an empty cache, so this also
# proves a seeded build is the cold build. (Every other variant is built by
# the proof tests, which boot it; on 2 cores building all 14 here took
# longer than the 45 minutes a test file then had.) kernel/build.sh pins
# KBUILD_BUILD_TIMESTAMP (a date, so the built-in initramfs cpio gets fixed
# mtimes), _USER, _HOST and _VERSION, regenerates that cpio on every build,
# and builds with O= inside the tree (relative paths).
# When no committed variant's inputs match (a new toolchain, every series
# changed), nohooks is built a second time from scratch in a second cache
# dir (empty ccache, no seed, another path) and the two must be identical.
# These builds are the ones the proof tests boot; the locks in
# kernel/build.sh make every other file wait for them, not redo them.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "reproducible build (builds each base's reference and baseline)" "--quick"
	exit 0
fi
gcc_now=$(dpkg-query -W -f='${Version}' gcc-12 2>/dev/null || echo none)
declare -A tar_sha=()
tarball_sha() { [[ -n ${tar_sha[$1]:-} ]] || tar_sha[$1]=$(sha256_of "$(base_tarball "$1")"); echo "${tar_sha[$1]}"; }
# the inputs of variant V today, as manifest.sh records them: "series patch:sha..."
inputs_now() {
	local vdir p
	vdir=$(variants_dir)/$1
	echo "$(sha256_of "$vdir/series") $(series_patches "$vdir/series" | while read -r p; do printf '%s:%s ' "$p" "$(sha256_of "$vdir/$p")"; done)"
}
# every committed (variant, image, config) whose inputs are today's: "V IMAGE CONFIG RUN"
declare -A want=() want_cfg=() want_run=()
n_runs=0
for m in "$LAB_ROOT"/results/*/manifest.json; do
	run=$(basename "$(dirname "$m")")
	[[ $(jq -r '.packages["gcc-12"] // ""' "$m") == "$gcc_now" ]] || continue
	# (a run made from a tree with uncommitted files is no reference: no commit rebuilds it)
	[[ $(jq -r '.lab.uncommitted_files // 1' "$m") == 0 ]] || continue
	n_runs=$((n_runs + 1))
	while read -r v base tsha img cfg inputs; do
		[[ -f $(variants_dir)/$v/series ]] || continue
		[[ $(variant_base "$v") == "$base" && $tsha == "$(tarball_sha "$base")" ]] || continue
		[[ $v == "$(reference_on "$base")" || $v == "$(catalog_one_on "$base" baseline)" ]] || continue
		[[ $inputs == "$(inputs_now "$v" | sed 's/ *$//')" ]] || continue
		if [[ -n ${want[$v]:-} && ${want[$v]} != "$img" ]]; then
			not_ok "reproducible build: $v has one set of inputs but two images in committed runs (${want_run[$v]}: ${want[$v]:0:12}, $run: ${img:0:12})"
			continue
		fi
		want[$v]=$img want_cfg[$v]=$cfg want_run[$v]=$run
	# (a run from before bases were recorded has one tarball, the default base's)
	done < <(jq -r '(.matrix.bases // []) as $b | .linux_source_tarball_sha256 as $t |
		.matrix.variants[] | select(.name == .kernel) | .base as $vb |
		[.name, .base, ([$b[] | select(.base == $vb)] | .[0].tarball_sha256 // $t),
		 .bzimage_sha256, .dotconfig_sha256,
		 (.series_sha256 + " " + ([.patches[] | .file + ":" + .sha256] | join(" ")))] | join(" ")' "$m")
done

if ((${#want[@]})); then
	mapfile -t vs < <(printf '%s\n' "${!want[@]}" | sort)
	i=0
	for v in "${vs[@]}"; do
		i=$((i + 1))
		echo "# [$i/${#vs[@]}] build $v (to compare with ${want_run[$v]})"
		if ! "$LAB_ROOT/kernel/build.sh" "$v" >"$LAB_CACHE/repro-$v.log" 2>&1; then
			tail -5 "$LAB_CACHE/repro-$v.log" | sed 's/^/    /'
			not_ok "reproducible build: $v builds"
			continue
		fi
		b=$(build_of "$v")
		how=cold
		[[ -f $b/.lab-at && $(reference_on "$(variant_base "$v")") != "$v" ]] && how="seeded from $(reference_on "$(variant_base "$v")")"
		img=$(sha256_of "$b/arch/x86/boot/bzImage") cfg=$(sha256_of "$b/.config")
		check "reproducible build: $v's .config is ${want_run[$v]}'s (${cfg:0:12} vs ${want_cfg[$v]:0:12})" test "$cfg" = "${want_cfg[$v]}"
		check "reproducible build: $v's bzImage ($how) is byte-identical to ${want_run[$v]}'s (${img:0:12} vs ${want[$v]:0:12})" test "$img" = "${want[$v]}"
	done
	exit 0
fi

echo "# no committed variant has today's inputs ($n_runs committed run(s) with gcc-12 $gcc_now): nohooks twice"
v=nohooks
second=$LAB_CACHE/repro-check
rm -rf "$second"
trap 'rm -rf "$second"' EXIT
if ! "$LAB_ROOT/kernel/build.sh" "$v" >/dev/null 2>"$LAB_CACHE/repro-first.log"; then
	tail -5 "$LAB_CACHE/repro-first.log" | sed 's/^/    /'
	not_ok "reproducible build: $v builds in the lab cache"
	exit 0
fi
a=$(sha256_of "$(build_of "$v")/arch/x86/boot/bzImage")
mkdir -p "$second"
if ! LAB_CACHE=$second LAB_TREES=$second/trees LAB_BUILD_SEED=0 "$LAB_ROOT/kernel/build.sh" "$v" >/dev/null 2>"$second/build.err"; then
	tail -5 "$second/build.err" | sed 's/^/    /'
	not_ok "reproducible build: $v builds in a second, empty cache ($second)"
	exit 0
fi
b=$(sha256_of "$second/trees/$v/$LAB_BUILD_SUBDIR/arch/x86/boot/bzImage")
if [[ $a != "$b" ]]; then
	# say where they differ: the first differing bytes of the uncompressed
	# kernels and the printable strings around them
	ka=$(build_of "$v")/arch/x86/boot/compressed/vmlinux.bin
	kb=$second/trees/$v/$LAB_BUILD_SUBDIR/arch/x86/boot/compressed/vmlinux.bin
	echo "first differing bytes of vmlinux.bin: $(cmp -l "$ka" "$kb" 2>&1 | head -3 | awk '{printf "%s ", $1}')"
	diff <(strings -n 8 "$ka") <(strings -n 8 "$kb") | head -6 || true
fi
check "reproducible build: $v bzImage from two cache dirs is byte-identical (${a:0:12} vs ${b:0:12})" test "$a" = "$b"
