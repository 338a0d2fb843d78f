#!/bin/bash
# setup.sh [--check]: install the Debian packages the lab needs (idempotent).
# matrix and test call this first, so a fresh machine needs nothing by hand.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

# what each package is for
packages=(
	linux-source-6.1 # the kernel tree every variant patches
	linux-source-6.12 # the 6.12 base tree (upstream-6.12: the runtime-disable BUG on 6.12)
	build-essential bc flex bison libelf-dev libssl-dev cpio ccache # kernel build
	qemu-system-x86  # boots every variant (KVM or TCG icount)
	busybox-static fio auditd # guest userland: shell, fio, auditctl
	liburing-dev libaudit-dev libgsl-dev # lab tools in bench/
	linux-perf       # cpu-clock profiles in the guest
	gnuplot-nox jq   # plots; fio JSON parsing
	shellcheck       # the test suite lints the scripts
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	log "setup: all ${#packages[@]} packages present"
	exit 0
fi
[[ ${1:-} == --check ]] && die "setup: missing packages: ${missing[*]}"
log "setup: installing ${missing[*]} (apt-get)"
sudo=()
((EUID == 0)) || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >&2
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
log "setup: installed ${#missing[@]} package(s)"
