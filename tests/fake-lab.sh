# shellcheck shell=bash
# Fake kernels and a fake QEMU for tests of the lab's own scripts (matrix,
# boot.sh, build.sh), where the behaviour under test is the script's, not the
# guest's. Sourced by tests/3x-5x files after tests/lib.sh; not a test itself.
#   fake_lab DIR VARIANT...  variants (no patches; a name ending in -na gets
#       CONFIG_AUDIT off) in DIR/variants, a real tree and config for each in
#       $LAB_CACHE/test-fake-trees (cached), a `make` whose bzImage target
#       writes a stub image, a `qemu-system-x86_64` that writes each workload's
#       result lines, and LAB_RESULTS=DIR/results; PATH has both first.
# Knobs (environment): FAKE_MAKE_SECS (bzImage takes that long),
# FAKE_MAKE_RM_MARKER=1 (delete build.sh's marker file, so a find -newer
# fails), FAKE_MAKE_FAIL=VARIANT (that variant's bzImage fails),
# FAKE_QEMU_COST="VARIANT=N ..." (that kernel's guest does N ops/s fewer),
# FAKE_QEMU_SEEDLESS=1 (ops/s do not depend on the seed: exact cells),
# FAKE_QEMU_NOISE="VARIANT:WORKLOAD:AMP[@SEED] ..." (exact cells, but noise
# in the listed ones; see the fake QEMU below),
# FAKE_QEMU_MODE=ok|hang|late|hang-attrib|fail (late: sleep FAKE_QEMU_SECS,
# then write "@@LAB done late"; hang-attrib: only attribution boots, those
# with nokaslr, hang; fail: exit 1 at once, a qemu-error), FAKE_PIDS=FILE (each fake make/qemu appends "name pid").

fake_lab() {
	local d=$1 v
	shift
	# (LAB_BUILD_SEED=0: the fake make builds at the tree's own path, kernel/build.sh)
	export LAB_VARIANTS=$d/variants LAB_TREES=$LAB_CACHE/test-fake-trees LAB_RESULTS=$d/results LAB_BUILD_SEED=0
	export PATH=$d/fakebin:$PATH FAKE_CONFIG_CACHE=$LAB_CACHE/test-fake-trees/config-cache
	mkdir -p "$d/fakebin" "$LAB_VARIANTS"
	for v in "$@"; do
		mkdir -p "$LAB_VARIANTS/$v"
		echo "# $v: a fake kernel for the tests (no patches)" >"$LAB_VARIANTS/$v/series"
		echo "$v: fake kernel (tests/fake-lab.sh)" >"$LAB_VARIANTS/$v/README"
		[[ $v == *-na ]] && cp "$LAB_ROOT/kernel/variants/noaudit/config" "$LAB_VARIANTS/$v/config"
	done
	cat >"$d/fakebin/make" <<'MAKE'
#!/bin/bash
# fake make: the bzImage target is faked; the config targets run for real
# once and are then replayed from a cache keyed by target and input .config
o=""
for a; do case $a in O=*) o=${a#O=} ;; esac; done
for t in tinyconfig olddefconfig; do
	[[ " $* " == *" $t "* ]] || continue
	cache=${FAKE_CONFIG_CACHE:?}
	key=$t
	[[ $t == olddefconfig ]] && key=$t-$(sha256sum <"$o/.config" | cut -c1-16)
	if [[ -f $cache/$key ]]; then cp "$cache/$key" "$o/.config"; exit 0; fi
	/usr/bin/make "$@" || exit
	mkdir -p "$cache"
	cp "$o/.config" "$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key"
	exit 0
done
case " $* " in *" bzImage "*) ;; *) exec /usr/bin/make "$@" ;; esac
[[ -n ${FAKE_PIDS:-} ]] && echo "make $$" >>"$FAKE_PIDS"
if [[ -n ${FAKE_MAKE_FAIL:-} && $o == */"$FAKE_MAKE_FAIL"/* ]]; then echo "fake make: failing as asked" >&2; exit 2; fi
mkdir -p "$o/arch/x86/boot" "$o/fake"
for i in 1 2 3; do echo "$i" >"$o/fake/o$i.o"; done
[[ ${FAKE_MAKE_RM_MARKER:-0} == 1 ]] && rm -f "$o/.lab-build-start"
secs=${FAKE_MAKE_SECS:-0}
while ((secs-- > 0)); do sleep 1; done
echo "fake bzImage for $o" >"$o/arch/x86/boot/bzImage"
MAKE
	cat >"$d/fakebin/qemu-system-x86_64" <<'QEMU'
#!/bin/bash
# fake QEMU: writes a guest's result stream for the workloads on -append
[[ ${1:-} == --version ]] && { echo "QEMU emulator version 0.0 (fake, tests/fake-lab.sh)"; exit 0; }
serials=() append="" seed=1 plugin="" kernel=""
while (($#)); do
	case $1 in
	-kernel) kernel=$2; shift 2 ;;
	-serial) serials+=("${2#file:}"); shift 2 ;;
	-plugin) plugin=$2; shift 2 ;;
	-append) append=$2; shift 2 ;;
	-seed) seed=$2; shift 2 ;;
	*) shift ;;
	esac
done
[[ -n ${FAKE_PIDS:-} ]] && echo "qemu $$" >>"$FAKE_PIDS"
param() { tr ' ' '\n' <<<"$append" | sed -n "s/^lab\.$1=//p"; }
wl=$(param workloads)
# the kernel's variant: its tree is .../VARIANT/lab-build/arch/x86/boot/bzImage
kv=${kernel%/lab-build*/arch/x86/boot/bzImage}
kv=${kv##*/} cost=0
[[ ${FAKE_QEMU_SEEDLESS:-0} == 1 ]] && seed=1
for c in ${FAKE_QEMU_COST:-}; do [[ ${c%%=*} == "$kv" ]] && cost=${c#*=}; done
echo "fake kernel: $append" >"${serials[0]}"
late=""
case ${FAKE_QEMU_MODE:-ok} in
hang) while :; do sleep 1; done ;;
hang-attrib) [[ " $append " == *" nokaslr "* ]] && while :; do sleep 1; done ;;
fail) echo "fake qemu: failing as asked" >&2; exit 1 ;;
late) for ((i = 0; i < ${FAKE_QEMU_SECS:-5}; i++)); do sleep 1; done; late=" late" ;;
esac
{
	echo "@@LAB boot kernel=fake mode=run state=$(param state)"
	for w in ${wl//,/ }; do
		echo "@@LAB begin workload=$w"
		echo "result workload=$w ops_per_sec=$((1000 + seed * 7 + ${#w} - cost)) ops=1000"
		echo "@@LAB end workload=$w rc=0"
	done
	echo "@@LAB dmesg problems=0"
	echo "@@LAB done$late"
} >>"${serials[1]}"
# FAKE_QEMU_NOISE="VARIANT:WORKLOAD:AMP[@SEED] ...": every result line becomes
# 300 + length(workload) instructions/op whatever the seed (an exact cell);
# a listed kernel and workload adds AMP x ((5 seed) mod 9) / 8 (noisy at
# every seed), or with @SEED adds AMP at that seed alone (one outlier). The
# kernel's variant is $kv (from -kernel, above).
if [[ -n ${FAKE_QEMU_NOISE:-} ]]; then
	awk -v kv="$kv" -v seed="$seed" -v spec="$FAKE_QEMU_NOISE" '
		!/^result workload=/ { print; next }
		{
			w = $2; sub(/^workload=/, "", w); ns = 300 + length(w)
			n = split(spec, it, " ")
			for (i = 1; i <= n; i++) {
				split(it[i], f, ":")
				if (f[1] != kv || f[2] != w) continue
				if (split(f[3], a, "@") == 2) { if (seed == a[2]) ns += a[1] }
				else ns += f[3] * ((5 * seed) % 9) / 8
			}
			printf "result workload=%s ops_per_sec=%.1f ops=1000\n", w, 1e9 / ns
		}' "${serials[1]}" >"${serials[1]}.noise" && mv "${serials[1]}.noise" "${serials[1]}"
fi
# an attribution boot (-plugin ...,out=FILE): the plugin's output format
# (tools/lab-attrib.c), one window per workload with one symbol
pout=$(tr ',' '\n' <<<"$plugin" | sed -n 's/^out=//p')
if [[ -n $pout ]]; then
	n=0
	{
		for w in ${wl//,/ }; do
			echo "window n=$n insns=300000 user=0"
			echo "sym n=$n name=io_issue_sqe insns=100000 mem=20000 calls=1000"
			n=$((n + 1))
		done
		echo "end windows=$n open=0"
	} >"$pout"
fi
QEMU
	chmod +x "$d/fakebin/make" "$d/fakebin/qemu-system-x86_64"
}

# fake_variant NAME BASE [KEY=VALUE...]: one more fake variant (after
# fake_lab) on base tree BASE ('# base:' in its series), with a catalog meta
# of KEY=VALUE lines (role=, design=, seed-control=...; lib/catalog.sh)
fake_variant() {
	local v=$1 b=$2
	shift 2
	mkdir -p "$LAB_VARIANTS/$v"
	printf '# base: %s\n# %s: a fake kernel for the tests (no patches)\n' "$b" "$v" >"$LAB_VARIANTS/$v/series"
	echo "$v: fake kernel (tests/fake-lab.sh)" >"$LAB_VARIANTS/$v/README"
	printf '%s\n' "$@" >"$LAB_VARIANTS/$v/meta"
}

# fake_pid NAME: the last pid a fake make/qemu recorded in $FAKE_PIDS
fake_pid() { awk -v n="$1" '$1 == n { p = $2 } END { print p }' "$FAKE_PIDS" 2>/dev/null; }
have_pid() { [[ -n $(fake_pid "$1") ]]; }
