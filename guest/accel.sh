#!/bin/bash
# accel.sh auto|kvm|tcg|tcg-wall: print the accelerator to use; kvm is checked
# the way auto probes it and refused (exit 2, one line) where KVM cannot run
# the guest. tcg-wall (TCG without icount, lib/common.sh) runs anywhere TCG
# does: it is taken as it is, never picked by auto.
# auto takes tcg without /dev/kvm or without vmx/svm in the CPU flags; else it
# probes KVM by booting the upstream lab kernel to init under -enable-kvm
# with a deadline: a kernel that cannot reach init in that time (the PVM
# /dev/kvm on our machines emulates every instruction) means TCG. The verdict
# is cached per host kernel, QEMU and CPU flags, so the probe runs once.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

want=${1:-auto}
check_accel "$want" auto
case $want in
tcg | tcg-wall) echo "$want"; exit 0 ;;
esac

# no_kvm WHY: auto takes tcg; an explicit kvm is refused up front, in one
# line, instead of failing every cell with the cause buried in raw/qemu.log
no_kvm() {
	if [[ $want == kvm ]]; then
		die_usage "--accel kvm: KVM cannot run the lab's guests on this machine ($1); use --accel tcg (or auto, which picks tcg here)"
	fi
	log "accel: $1: tcg"
	echo tcg
	exit 0
}

[[ -w /dev/kvm ]] || no_kvm "/dev/kvm not usable"
# KVM proper needs VMX or SVM on the host CPU; a /dev/kvm without either is
# a paravirtual one (PVM) that runs a stock kernel too slowly to measure
grep -qm1 -wE 'vmx|svm' /proc/cpuinfo || no_kvm "/dev/kvm present but the CPU has no vmx/svm flag (paravirtual KVM)"
key=$( { uname -r; qemu-system-x86_64 --version | head -1; grep -m1 -o -wE 'vmx|svm|hypervisor' /proc/cpuinfo | sort -u; } | sha256sum | cut -c1-16)
cache=$LAB_CACHE/accel-probe.$key
if [[ ! -f $cache ]]; then
	deadline=${LAB_KVM_PROBE_SECS:-30}
	log "accel: probing KVM (upstream kernel must reach init within ${deadline}s)"
	"$LAB_ROOT/kernel/build.sh" upstream >&2
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	if "$LAB_ROOT/guest/boot.sh" --accel kvm --mode probe --timeout "$deadline" --out "$dir" upstream off >&2 &&
		grep -q '^@@LAB boot' "$dir/results.txt"; then
		verdict=kvm
	else
		# keep the first QEMU error line (e.g. "failed to set MSR 0x10a") as the reason
		why=$(grep -m1 -i 'error\|failed' "$dir/qemu.log" 2>/dev/null | tr -d '\r' | cut -c1-160 || true)
		verdict="tcg ${why:-the upstream kernel did not reach init within ${deadline}s under KVM}"
	fi
	echo "$verdict" >"$cache"
	log "accel: KVM probe -> ${verdict%% *} (cached in $cache)"
fi
verdict=$(cat "$cache")
[[ ${verdict%% *} == kvm ]] || no_kvm "probe: ${verdict#tcg}"
echo kvm
