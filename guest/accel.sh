#!/bin/bash
# accel.sh auto|kvm|tcg: print the accelerator to use.
# auto takes tcg without /dev/kvm or without vmx/svm in the CPU flags; else it
# probes KVM by booting the upstream lab kernel to init under -enable-kvm
# with a deadline: a kernel that cannot reach init in that time (the PVM
# /dev/kvm on our machines emulates every instruction) means TCG. The verdict
# is cached per host kernel, QEMU and CPU flags, so the probe runs once.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

want=${1:-auto}
case $want in
kvm | tcg) echo "$want"; exit 0 ;;
auto) ;;
*) die_usage "unknown accelerator '$want'; use kvm, tcg or auto" ;;
esac

if [[ ! -w /dev/kvm ]]; then
	log "accel: /dev/kvm not usable: tcg"
	echo tcg
	exit 0
fi
# KVM proper needs VMX or SVM on the host CPU; a /dev/kvm without either is
# a paravirtual one (PVM) that runs a stock kernel too slowly to measure
if ! grep -qm1 -wE 'vmx|svm' /proc/cpuinfo; then
	log "accel: /dev/kvm present but the CPU has no vmx/svm flag (paravirtual KVM): tcg"
	echo tcg
	exit 0
fi
key=$( { uname -r; qemu-system-x86_64 --version | head -1; grep -m1 -o -wE 'vmx|svm|hypervisor' /proc/cpuinfo | sort -u; } | sha256sum | cut -c1-16)
cache=$LAB_CACHE/accel-probe.$key
if [[ -f $cache ]]; then
	cat "$cache"
	exit 0
fi
deadline=${LAB_KVM_PROBE_SECS:-30}
log "accel: probing KVM (upstream kernel must reach init within ${deadline}s)"
"$LAB_ROOT/kernel/build.sh" upstream >&2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if "$LAB_ROOT/guest/boot.sh" --accel kvm --mode probe --timeout "$deadline" --out "$dir" upstream off >&2 &&
	grep -q '^@@LAB boot' "$dir/results.txt"; then
	verdict=kvm
else
	verdict=tcg
fi
log "accel: KVM probe -> $verdict (cached in $cache)"
echo "$verdict" >"$cache"
echo "$verdict"
