#!/bin/bash
# manifest.sh RUN_DIR ACCEL RUNTIME REPS VARIANTS STATES WORKLOADS JOBS: write
# RUN_DIR/manifest.json, everything needed to reproduce the run: host, accel,
# QEMU and package versions, lab commit, the base trees (matrix.bases, each
# tarball's hash), and per variant its base and the series, config and bzImage
# hashes.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"
# big_sha FILE: the sha256 of a large file (bzImage, initramfs, source
# tarball), memoised by path, size, inode and mtime (lib/cellstore.sh)
big_sha() { [[ -e $1 ]] || return 1; cell_hash "$1"; echo "${CELL_SHA[$1]}"; }

(($# == 9)) || die_usage "usage: manifest.sh RUN_DIR ACCEL RUNTIME REPS VARIANTS STATES WORKLOADS JOBS SEED_BASE"
dir=$1 accel=$2 runtime=$3 reps=$4 variants=$5 states=$6 workloads=$7 jobs=$8 seed_base=$9

pkgs=$(for p in linux-source-6.1 linux-source-6.12 qemu-system-x86 fio liburing-dev libaudit-dev auditd busybox-static gcc-12 ccache linux-perf gnuplot-nox libgsl-dev; do
	dpkg-query -W -f='${Package}\t${Version}\n' "$p" 2>/dev/null || printf '%s\tmissing\n' "$p"
done | jq -R 'split("\t") | {(.[0]): .[1]}' | jq -s add)

vjson=$(for v in ${variants//,/ }; do
	base=${v%-aa}
	vdir=$(variants_dir)/$base
	build=$(build_of "$base")
	jq -n --arg name "$v" --arg kernel "$base" --arg base "$(variant_base "$base")" \
		--arg series "$(sha256_of "$vdir/series")" \
		--argjson patches "$(series_patches "$vdir/series" | while read -r p; do
			jq -n --arg f "$p" --arg h "$(sha256_of "$vdir/$p")" '{file: $f, sha256: $h}'; done | jq -s .)" \
		--arg fragment "$(if [[ -f $vdir/config ]]; then sha256_of "$vdir/config"; fi)" \
		--arg dotconfig "$(sha256_of "$build/.config")" \
		--arg bzimage "$(big_sha "$build/arch/x86/boot/bzImage")" \
		--arg buildinfo "$(cat "$build/lab-build-info" 2>/dev/null || true)" \
		'{name: $name, kernel: $kernel, base: $base, series_sha256: $series, patches: $patches,
		  config_fragment_sha256: $fragment, dotconfig_sha256: $dotconfig,
		  bzimage_sha256: $bzimage, build: $buildinfo}'
done | jq -s .)

# which host ran each boot (matrix --hosts: remote/hosts.csv, "V.S.R,host");
# a boot not listed ran here
ran_on='{}'
if [[ -f $dir/remote/hosts.csv ]]; then
	ran_on=$(awk -F, '{ print $1 "\t" $2 }' "$dir/remote/hosts.csv" | jq -R 'split("\t") | {(.[0]): .[1]}' | jq -s 'add // {}')
fi

commit=$(git -C "$LAB_ROOT" rev-parse HEAD 2>/dev/null || echo none)
# the tree's own changes, not the runs it is writing (results/); a dirty tree
# leaves its diff in the run dir, and the run is marked not publishable
changed=$(git -C "$LAB_ROOT" status --porcelain --untracked-files=all 2>/dev/null | awk '{ print $NF }' | grep -v '^results/' || true)
dirty=$(grep -c . <<<"$changed" || true)
rm -f "$dir/uncommitted.diff"
if ((dirty)); then
	{
		git -C "$LAB_ROOT" diff HEAD -- . ':(exclude)results' 2>/dev/null || true
		# untracked files in full: git diff does not show them
		git -C "$LAB_ROOT" ls-files --others --exclude-standard -- . ':(exclude)results' 2>/dev/null |
			while read -r f; do git -C "$LAB_ROOT" diff --no-index /dev/null "$f" 2>/dev/null || true; done
	} >"$dir/uncommitted.diff"
	log "manifest: the lab tree has $dirty uncommitted file(s) ($(paste -sd' ' - <<<"$changed")): their diff is in $dir/uncommitted.diff; this run is not publishable (commit, then rerun)"
fi
jq -n --arg run "$(basename "$dir")" --arg created "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg accel "$accel" --arg accel_args "$("$LAB_ROOT/guest/boot.sh" --accel "$accel" --accel-args)" \
	--arg unit "$(accel_unit_meaning "$accel")" --arg order "$(boot_order "$accel")" \
	--arg host "$(hostname)" --arg kernel "$(uname -r)" \
	--arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
	--arg ncpu "$(nproc)" --arg mem "$(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)" \
	--arg qemu "$(qemu-system-x86_64 --version | head -1)" \
	--argjson packages "$pkgs" --argjson variants "$vjson" --argjson ran_on "$ran_on" \
	--arg commit "$commit" --arg dirty "$dirty" --arg changed "$changed" \
	--arg runtime "$runtime" --arg reps "$reps" --arg jobs "$jobs" --arg seed_base "$seed_base" \
	--arg states "$states" --arg workloads "$workloads" \
	--arg initramfs "$(big_sha "$("$LAB_ROOT/guest/build-initramfs.sh" 2>/dev/null)" 2>/dev/null || true)" \
	--arg tarball "$(big_sha "$LAB_SRC_TARBALL")" \
	--argjson bases "$(for b in $(for v in ${variants//,/ }; do variant_base "${v%-aa}"; done | sort -u -V); do
		jq -n --arg b "$b" --arg h "$(big_sha "$(base_tarball "$b")" 2>/dev/null || true)" '{base: $b, tarball_sha256: $h}'; done | jq -s .)" \
	'{run_id: $run, created: $created,
	  accel: $accel, accel_args: $accel_args, ns_per_op_unit: $unit,
	  boot_order: (if $order == "interleaved" then "interleaved: one guest at a time, the variant order rotated by one every rep" else "rep-major: every variant of rep r before rep r+1, guests_at_once at a time" end),
	  host: {name: $host, kernel: $kernel, cpu: $cpu, cpus: $ncpu, memory: $mem},
	  ran_on: $ran_on,
	  qemu: $qemu, packages: $packages,
	  lab: {commit: $commit, uncommitted_files: ($dirty | tonumber),
	       uncommitted: ($changed | split("\n") | map(select(. != ""))),
	       publishable: ($dirty == "0"),
	       uncommitted_diff: (if $dirty == "0" then null else "uncommitted.diff" end)},
	  linux_source_tarball_sha256: $tarball, initramfs_sha256: $initramfs,
	  matrix: {bases: $bases, variants: $variants, states: ($states | split(",")),
	           workloads: ($workloads | split(",")), reps: ($reps | tonumber),
	           runtime_guest_secs: ($runtime | tonumber), guests_at_once: ($jobs | tonumber),
	           seed_base: ($seed_base | tonumber),
	           seeds: [range(1; ($reps | tonumber) + 1) | . + ($seed_base | tonumber)],
	           aa_seeds: [range(1; ($reps | tonumber) + 1) | . + 1000 + ($seed_base | tonumber)],
	           layout: "rep r boots with QEMU -seed s (guest RNG, KASLR) and s%64 bytes of cmdline padding; s = seed_base + r, or seed_base + 1000 + r for an A/A (-aa) variant"}}' >"$dir/manifest.json.tmp"
mv "$dir/manifest.json.tmp" "$dir/manifest.json"
