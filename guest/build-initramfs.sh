#!/bin/bash
# build-initramfs.sh: the guest's initramfs, made from the host's Debian
# packages (busybox-static, fio, auditctl from auditd's unpacked .deb) plus the lab's own tools
# in bench/, each with the shared libraries ldd names. Rebuilt only when an
# input changes; prints the image path on stdout.
# Reproducible: the same inputs give the same bytes from any checkout path and
# any $LAB_CACHE (tests/44): a fixed umask, every mode normalised, every mtime
# set to SOURCE_DATE_EPOCH (0), owner 0:0, entries in C-locale order, cpio
# --reproducible (no inode or device numbers); the tools in bench/ are built
# with -ffile-prefix-map (no checkout or cache path in their debug info).
set -euo pipefail
umask 022
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

# every boot asks for the image: the inputs' hashes are memoised (cell_hash,
# lib/cellstore.sh), so an unchanged image costs a stat of its inputs, and no
# lock is taken unless something is built
# shellcheck source=../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"
out=$LAB_CACHE/initramfs
# the guest tools' build dir is named by their sources' content: the cache is
# shared between checkouts, and make's mtime test alone would reuse a tool
# built from another checkout's source (or with other flags)
bench_src=("$LAB_ROOT/bench/Makefile" "$LAB_ROOT"/bench/*.c)
cell_hash "${bench_src[@]}"
bindir=$LAB_CACHE/bin/guest-$(for f in "${bench_src[@]}"; do echo "${CELL_SHA[$f]} ${f##*/}"; done | sha256sum | cut -c1-16)
mkdir -p "$out" "$bindir"
if ! make -s -q -C "$LAB_ROOT/bench" O="$bindir" >/dev/null 2>&1; then
	# one make per tools dir at a time: two would write the same binaries
	exec 9>"$bindir.lock"
	flock 9
	make -s -C "$LAB_ROOT/bench" O="$bindir" >&2 || die "building the lab tools in bench/ failed (make -C bench)"
	exec 9>&-
fi

# auditctl comes from auditd's .deb unpacked into the cache, never from an
# installed auditd (that would start a daemon on the host: scripts/run/setup.sh)
[[ -x $LAB_AUDITCTL ]] || "$LAB_ROOT/scripts/run/setup.sh" --guest-debs
# guest_workload_files: the workload and state definitions the guest reads.
# Host-side lists (workloads/matrix.variants) are not guest content: adding a
# variant to the default list must not change the image, nor any cell key.
guest_workload_files() {
	find "$LAB_ROOT/workloads" -type f \( -name '*.bench' -o -name '*.fio' -o -name '*.state' \) | LC_ALL=C sort
}
host_bins=(/bin/busybox /usr/bin/fio "$LAB_AUDITCTL")
for b in "${host_bins[@]}"; do
	[[ -x $b ]] || die "$b missing; run './run.sh setup'"
done
lab_bins=()
for t in uring-bench uring-rule audit-sink lab-time; do lab_bins+=("$bindir/$t"); done
# perf (linux-perf) for cpu-clock profiles: /usr/bin/perf, or perf_<version>
# where /usr/bin/perf is Debian's version-dispatching wrapper
perf_bin=$(find /usr/bin -maxdepth 1 -name 'perf_[0-9]*' | sort | tail -1)
if [[ -z $perf_bin && $(head -c4 /usr/bin/perf 2>/dev/null | tail -c3) == ELF ]]; then perf_bin=/usr/bin/perf; fi

mapfile -t input_files < <(printf '%s\n' "${host_bins[@]}" "${lab_bins[@]}" ${perf_bin:+"$perf_bin"} "$0" "$LAB_ROOT/guest/init" "$LAB_ROOT/lib/kernel-trouble.txt"
	guest_workload_files
	find "$LAB_ROOT/guest/scripts" -type f | LC_ALL=C sort)
cell_hash "${input_files[@]}"
# content hashes only: the same inputs give the same id from any working dir
id=$(for f in "${input_files[@]}"; do echo "${CELL_SHA[$f]}"; done | sha256sum | awk '{print $1}')
# one image per input id, never replaced in place: a boot of one checkout keeps
# the image it was given while another checkout (the cache is shared) builds
# its own. Uncompressed: unpacking ~110 MB of gzip costs ~2.3 s of TCG wall
# time per boot. Images of other ids built over a week ago are removed (an
# image is never touched after it is written: its mtime is part of the memo
# of its sha256 in lib/cellstore.sh). The sha256 recorded when the image was
# built (IMG.sha256) is checked before every use: a truncated or altered
# image is rebuilt, never booted.
img=$out/initramfs-${id:0:16}.cpio
# image_ok: the image exists and has the sha256 recorded at its build
image_ok() {
	[[ -f $img && -f $img.sha256 ]] || return 1
	cell_hash "$img"
	[[ ${CELL_SHA[$img]} == "$(cat "$img.sha256")" ]]
}
if image_ok; then
	echo "$img"
	exit 0
fi
# one builder at a time (the image appears whole, by rename, so the check
# above needs no lock); a second builder waits and then finds it
exec 9>"$out/build.lock"
flock 9
if image_ok; then
	echo "$img"
	exit 0
fi
if [[ -f $img ]]; then
	log "initramfs: $img does not match the sha256 recorded when it was built (corrupt or altered cache); rebuilding it"
	rm -f "$img" "$img.sha256"
fi
find "$out" -maxdepth 1 -name 'initramfs*.cpio*' -mtime +7 -delete

log "initramfs: building from host packages and bench/ tools"
root=$(mktemp -d "$out/root.XXXXXX")
tmpimg=$(mktemp "$out/initramfs.XXXXXX")
trap 'rm -rf "$root" "$tmpimg"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,lab/workloads,lab/states,etc}
cp /bin/busybox "$root/bin/busybox"
# /init is a #!/bin/sh script: the interpreter must exist before init runs
ln -s busybox "$root/bin/sh"
cp /usr/bin/fio "$root/usr/bin/fio"
cp "$LAB_AUDITCTL" "$root/sbin/auditctl"
cp "${lab_bins[@]}" "$root/usr/bin/"
[[ -n $perf_bin ]] && cp "$perf_bin" "$root/usr/bin/perf"
# shared libraries (and the loader) of every dynamic binary, at their host paths
for b in /usr/bin/fio "$LAB_AUDITCTL" "${lab_bins[@]}" ${perf_bin:+"$perf_bin"}; do
	ldd "$b" | awk '/=> \// {print $3} /^[[:space:]]*\/lib/ {print $1}'
done | sort -u | while read -r lib; do
	cp --parents -L "$lib" "$root/"
done
cp "$LAB_ROOT/guest/init" "$root/init"
cp "$LAB_ROOT/lib/kernel-trouble.txt" "$root/lab/kernel-trouble.txt"
guest_workload_files | grep -v '\.state$' | xargs cp -t "$root/lab/workloads/"
cp "$LAB_ROOT"/workloads/states/*.state "$root/lab/states/"
mkdir -p "$root/lab/scripts"
cp "$LAB_ROOT"/guest/scripts/*.sh "$root/lab/scripts/"
# mktemp made / mode 0700: then no unprivileged guest process could reach
# any path (the proofs' uid 1000 phases need /tmp and the tools)
chmod 755 "$root"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
# modes from the content's kind, not from the host files or the umask they
# were made under: executables 755, other files 644, directories 755
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -perm /111 -exec chmod 755 {} +
find "$root" -type f ! -perm /111 -exec chmod 644 {} +
epoch=${SOURCE_DATE_EPOCH:-0}
find "$root" -exec touch -h -d "@$epoch" {} +
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible) >"$tmpimg"
chmod 644 "$tmpimg"
sha256_of "$tmpimg" >"$img.sha256"
mv "$tmpimg" "$img"
log "initramfs: $img ($(du -h "$img" | cut -f1))"
echo "$img"
