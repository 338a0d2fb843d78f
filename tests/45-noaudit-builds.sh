#!/bin/bash
# Every patched design must build with CONFIG_AUDIT=n (issue 25): a series
# that calls __audit_uring_entry()/__audit_uring_exit() (declared only under
# CONFIG_AUDITSYSCALL) breaks the kernel for everyone who turns audit off.
# Not a bzImage per variant: one scratch tree per base under
# $LAB_CACHE/noaudit-objs, configured once with the noaudit variant's
# fragments (lab.config + kernel/variants/noaudit/config), into which each
# variant's series is applied in turn (the files the previous series touched
# are restored from the pristine tree first); then make compiles io_uring/
# and every .c file the series touches that the CONFIG_AUDIT=n config builds.
# Every variant with at least one patch is found from its series (no names
# here); one compile error fails that variant.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "CONFIG_AUDIT=n compile of every patched series" "--quick"
	exit 0
fi
root=$LAB_CACHE/noaudit-objs
noaudit_cfg=$(variants_dir)/noaudit/config
if ! grep -qx '# CONFIG_AUDIT is not set' "$noaudit_cfg" 2>/dev/null; then
	not_ok "kernel/variants/noaudit/config turns CONFIG_AUDIT off (the fragment this test builds with)"
	exit 0
fi

# series_files V: the files V's series touches (+++ b/ lines), one a line
series_files() {
	local vdir p
	vdir=$(variants_dir)/$1
	series_patches "$vdir/series" | while read -r p; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$vdir/$p"
	done | sort -u
}
# in_config BUILD FILE.c: does the config build FILE.o? (its directory's
# Makefile lists it as obj-y or obj-$(CONFIG_X) with CONFIG_X=y)
in_config() {
	local build=$1 f=$2 dir obj sym
	dir=$(dirname "$f") obj=$(basename "$f" .c).o
	[[ -f $tree/$dir/Makefile ]] || return 1
	while read -r sym; do
		[[ $sym == y ]] && return 0
		grep -qx "$sym=y" "$build/.config" && return 0
	done < <(awk -v o="$obj" '
		{ line = line $0 }
		/\\$/ { sub(/\\$/, " ", line); next }
		{ n = split(line, w); line = "" }
		w[1] ~ /^obj-/ { for (i = 2; i <= n; i++) if (w[i] == o) { s = w[1]; sub(/^obj-/, "", s); sub(/[:+]?=$/, "", s); gsub(/[$()]/, "", s); print s } }
	' "$tree/$dir/Makefile")
	return 1
}

mkdir -p "$root"
exec 9>"$root/lock"
flock 9
n=0
for v in $(known_variants); do
	[[ -n $(series_patches "$(variants_dir)/$v/series") ]] || continue
	n=$((n + 1))
	base=$(variant_base "$v")
	"$LAB_ROOT/kernel/extract-source.sh" "$base" >/dev/null
	pristine=$(base_pristine "$base")
	tree=$root/$base
	build=$tree/$LAB_BUILD_SUBDIR
	if [[ ! -f $tree/.lab-noaudit-config ]]; then
		rm -rf "$tree"
		cp -al "$pristine" "$tree"
		fragments=("$LAB_ROOT/kernel/config/lab.config")
		[[ -f $LAB_ROOT/kernel/config/lab-$base.config ]] && fragments+=("$LAB_ROOT/kernel/config/lab-$base.config")
		fragments+=("$noaudit_cfg")
		if ! "$LAB_ROOT/kernel/make-config.sh" "$tree" "$tree/lab-config" "${fragments[@]}" >"$root/config-$base.log" 2>&1; then
			tail -5 "$root/config-$base.log" | sed 's/^/    /'
			not_ok "$v: CONFIG_AUDIT=n config for base $base"
			continue
		fi
		mkdir -p "$build"
		cp "$tree/lab-config/.config" "$build/.config"
		touch "$tree/.lab-noaudit-config"
	fi
	# undo the previous series: its files back to pristine (new files removed)
	if [[ -f $tree/.lab-patched ]]; then
		while read -r f; do
			rm -f "$tree/$f"
			[[ -f $pristine/$f ]] && cp -p "$pristine/$f" "$tree/$f" && touch "$tree/$f"
		done <"$tree/.lab-patched"
		rm -f "$tree/.lab-patched"
	fi
	mapfile -t files < <(series_files "$v")
	printf '%s\n' "${files[@]}" >"$tree/.lab-patched"
	for f in "${files[@]}"; do
		# break the hard link to the pristine tree before patch writes
		[[ -f $tree/$f ]] && cp -p "$tree/$f" "$tree/$f.unlink" && mv "$tree/$f.unlink" "$tree/$f"
	done
	applied=1
	while read -r p; do
		if ! out=$(patch -d "$tree" -p1 --forward --batch --no-backup-if-mismatch <"$(variants_dir)/$v/$p" 2>&1); then
			printf '%s\n' "$out" | tail -3 | sed 's/^/    /'
			applied=0
		fi
	done < <(series_patches "$(variants_dir)/$v/series")
	for f in "${files[@]}"; do [[ -f $tree/$f ]] && touch "$tree/$f"; done
	if ((applied == 0)); then
		not_ok "$v: series applies to the CONFIG_AUDIT=n scratch tree"
		continue
	fi
	targets=(io_uring/)
	skipped=()
	for f in "${files[@]}"; do
		[[ $f == *.c && $f != io_uring/* ]] || continue
		if in_config "$build" "$f"; then targets+=("${f%.c}.o"); else skipped+=("$f"); fi
	done
	t0=$(now)
	log=$root/make-$v.log
	if make -C "$tree" ARCH=x86_64 O="$build" CC="ccache gcc" -j"$LAB_JOBS" "${targets[@]}" >"$log" 2>&1; then
		ok "$v: compiles with CONFIG_AUDIT=n (${targets[*]}; $(fmt_secs $(($(now) - t0))))${skipped:+; not built with CONFIG_AUDIT=n: ${skipped[*]}}"
	else
		grep -m5 -E 'error:|Error [0-9]' "$log" | sed 's/^/    /'
		not_ok "$v: compiles with CONFIG_AUDIT=n (${targets[*]}; log $log)"
	fi
done
check "found patched variants to build ($n)" test "$n" -gt 0
