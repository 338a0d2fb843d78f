#!/bin/bash
# setup.sh [--check|--list|--guest-debs]: install the Debian packages the lab
# needs (idempotent). matrix and test call this first, so a fresh machine
# needs nothing by hand.
# The host is never reconfigured: no package installed here may start or
# enable a service (tests/31-names-and-host.sh checks every one). Guest-only
# binaries whose package ships a daemon (auditctl, in auditd) are never
# installed: the .deb is fetched with apt-get download and unpacked with
# dpkg-deb -x into $LAB_GUEST_DEBS, where guest/build-initramfs.sh takes them.
#   --list        print the host packages, one a line
#   --guest-debs  only fetch and unpack the guest-only packages
#   --host-debs GROUP  only fetch and unpack a scale-out group (parallel,
#                 sshd, slurm) into $LAB_HOST_DEBS/GROUP; prints its root
#   --peer-src    only fetch and unpack the peer suite's source (Debian's
#                 liburing source package, the version LAB_PEER_DSC pins)
#                 into $LAB_PEER_SRC; prints the unpacked tree
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

# what each package is for
packages=(
	linux-source-6.1 # the kernel tree every variant patches
	linux-source-6.12 # the 6.12 base tree (upstream-6-12: the runtime-disable BUG on 6.12)
	build-essential bc flex bison libelf-dev libssl-dev cpio ccache # kernel build
	qemu-system-x86  # boots every variant (KVM or TCG icount)
	busybox-static fio # guest userland: shell, fio (fio.service is installed disabled, never started)
	libauparse0 libcap-ng0 # shared libraries of the guest's auditctl
	liburing-dev libaudit-dev libgsl-dev # lab tools in bench/
	linux-perf       # cpu-clock profiles in the guest
	gnuplot-nox jq   # plots; fio JSON parsing
	shellcheck       # the test suite lints the scripts
)
# guest-only: unpacked into the cache, never installed (auditd's postinst
# enables and starts auditd.service, which loads the host's audit rules)
guest_debs=(auditd)
# Scale-out tools, unpacked the same way into $LAB_HOST_DEBS/GROUP (never
# installed: parallel depends on sysstat, whose package ships a service;
# openssh-server, slurmctld, slurmd and munge are daemons). Fetched on demand
# by --host-debs GROUP: parallel for ./run.sh matrix --hosts and hosts-check,
# sshd and slurm only for the tests that start them on loopback.
declare -A host_debs=(
	[parallel]="parallel"
	[sshd]="openssh-server libwrap0"
	[slurm]="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libhwloc15 libnuma1 liblz4-1"
)

case ${1:-} in
--list) printf '%s\n' "${packages[@]}"; exit 0 ;;
--host-debs | --peer-src) ;;
--check | --guest-debs | "") ;;
*) die_usage "setup: unknown option '$1' (use --check, --list or --guest-debs)" ;;
esac

sudo=()
((EUID == 0)) || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive

# fetch_debs [--check] DEST PKG...: the packages' .debs fetched with apt-get
# download and unpacked with dpkg-deb -x into DEST/root (never installed:
# nothing of theirs runs at install time, no service is enabled or started);
# DEST/.unpacked lists the .debs. The one download+unpack, for the guest's
# packages and for the scale-out tools below.
fetch_debs() {
	local check="" dest p d
	[[ $1 == --check ]] && { check=1; shift; }
	dest=$1
	shift
	[[ -f $dest/.unpacked ]] && return 0
	[[ -n $check ]] && die "setup: $* not unpacked in $dest"
	log "setup: fetching $* (apt-get download + dpkg-deb -x into $dest; not installed)"
	rm -rf "$dest" "$dest.new"
	mkdir -p "$dest.new"
	(cd "$dest.new" && apt-get download -q "$@" >&2) ||
		{ "${sudo[@]}" apt-get update -q >&2 && (cd "$dest.new" && apt-get download -q "$@" >&2); } ||
		die "setup: apt-get download $* failed"
	for p in "$@"; do
		d=$(compgen -G "$dest.new/${p}_*.deb" | head -1) || die "setup: apt-get download $p left no .deb"
		dpkg-deb -x "$d" "$dest.new/root" || die "setup: dpkg-deb -x of $p failed"
		basename "$d" >>"$dest.new/.unpacked"
	done
	mv "$dest.new" "$dest"
}

# fetch_guest_debs [--check]: every guest-only package unpacked in the cache
fetch_guest_debs() {
	local p
	local check=()
	[[ ${1:-} == --check ]] && check=(--check)
	for p in "${guest_debs[@]}"; do fetch_debs "${check[@]}" "$LAB_GUEST_DEBS/$p" "$p"; done
}

# fetch_peer_src: Debian's liburing source package (the peer suite's test/
# programs, peer/build.sh), fetched with apt-get source through a deb-src list
# and lists dir of the lab's own in the cache (the host's sources.list and
# apt lists are never touched), checked against the .dsc sha256 pinned in
# lib/common.sh, unpacked with dpkg-source -x (which checks the .dsc's
# tarball checksums) into $LAB_PEER_SRC/tree. Prints the tree.
fetch_peer_src() {
	local d=$LAB_PEER_SRC apt_o
	if [[ -f $d/.unpacked ]]; then
		echo "$d/tree"
		return 0
	fi
	log "setup: fetching the peer suite's source, Debian's liburing ${LAB_PEER_VERSION} (apt-get source into $d)"
	rm -rf "$d.new"
	mkdir -p "$d.new/apt/lists/partial" "$d.new/dl"
	# the deb-src line names the archive the host's apt already uses for its
	# release (apt-get indextargets), bookworm main, signed by Debian's keyring
	local rel uri
	rel=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $rel ]] || die "setup: no VERSION_CODENAME in /etc/os-release"
	# shellcheck disable=SC2016 # apt-get expands $(...) in its --format
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(TARGET_OF)' 2>/dev/null |
		awk -v r="$rel" '$2 == r && $3 == "deb" { print $1; exit }')
	[[ -n $uri ]] || die "setup: apt has no '$rel' archive configured (apt-get indextargets); run apt-get update"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $rel main" >"$d.new/apt/sources.list"
	apt_o=(-q -o "Dir::Etc::sourcelist=$d.new/apt/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::lists=$d.new/apt/lists")
	apt-get "${apt_o[@]}" update >&2 || die "setup: apt-get update of the lab's own deb-src list failed"
	(cd "$d.new/dl" && apt-get "${apt_o[@]}" source --download-only "liburing=$LAB_PEER_VERSION" >&2) ||
		die "setup: apt-get source liburing=$LAB_PEER_VERSION failed"
	local dsc=$d.new/dl/liburing_$LAB_PEER_VERSION.dsc
	[[ $(sha256_of "$dsc") == "$LAB_PEER_DSC_SHA256" ]] ||
		die "setup: $dsc sha256 $(sha256_of "$dsc") is not the pinned $LAB_PEER_DSC_SHA256 (lib/common.sh)"
	dpkg-source -x "$dsc" "$d.new/tree" >&2 || die "setup: dpkg-source -x $dsc failed"
	rm -rf "$d.new/apt"
	echo "$LAB_PEER_VERSION $LAB_PEER_DSC_SHA256" >"$d.new/.unpacked"
	rm -rf "$d"
	mv "$d.new" "$d"
	echo "$d/tree"
}

if [[ ${1:-} == --peer-src ]]; then
	fetch_peer_src
	exit 0
fi
if [[ ${1:-} == --host-debs ]]; then
	g=${2:-}
	[[ -n $g && -n ${host_debs[$g]:-} ]] || die_usage "setup --host-debs: group must be one of: ${!host_debs[*]}"
	# shellcheck disable=SC2086 # a group is a word list
	fetch_debs "$LAB_HOST_DEBS/$g" ${host_debs[$g]}
	echo "$LAB_HOST_DEBS/$g/root"
	exit 0
fi

missing=()
if [[ ${1:-} != --guest-debs ]]; then
	# (one dpkg-query for all: a package it does not know is not printed)
	declare -A installed=()
	while read -r p st; do [[ $st != "install ok installed" ]] || installed[$p]=1; done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
	for p in "${packages[@]}"; do [[ -n ${installed[$p]:-} ]] || missing+=("$p"); done
fi
if ((${#missing[@]})); then
	[[ ${1:-} == --check ]] && die "setup: missing packages: ${missing[*]}"
	log "setup: installing ${missing[*]} (apt-get)"
	# an install stopped half-way (a timeout, Ctrl-C) leaves dpkg interrupted;
	# say how to recover rather than leave apt-get's error alone
	recover="if apt-get says dpkg was interrupted, run: ${sudo[*]:+${sudo[*]} }dpkg --configure -a, then ./run.sh setup again"
	"${sudo[@]}" apt-get update -q >&2 || die "setup: apt-get update failed; $recover"
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "setup: apt-get install failed; $recover"
	log "setup: installed ${#missing[@]} package(s)"
fi
fetch_guest_debs "${1:-}"
[[ ${1:-} == --guest-debs ]] || ((${#missing[@]})) || log "setup: all ${#packages[@]} packages present, guest packages unpacked"

# drift from the published run (results/PUBLISHED names it): the kernel
# source tarball and every package version its manifest records; a warning
# per difference, never an error (a rerun here may still differ from it)
published=$(cat "$LAB_ROOT/results/PUBLISHED" 2>/dev/null || true)
pm=$LAB_ROOT/results/$published/manifest.json
if [[ ${1:-} != --guest-debs && -n $published && -f $pm ]]; then
	drift=0
	want=$(jq -r '.linux_source_tarball_sha256 // empty' "$pm")
	if [[ -n $want && -f $LAB_SRC_TARBALL ]]; then
		have=$(sha256sum "$LAB_SRC_TARBALL" | awk '{print $1}')
		if [[ $have != "$want" ]]; then
			log "setup: warning: $LAB_SRC_TARBALL sha256 ${have:0:12}... differs from the published run $published (${want:0:12}...): kernels will not match its bzImages"
			drift=1
		fi
	fi
	while IFS=$'\t' read -r p v; do
		here=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo missing)
		if [[ $here != "$v" ]]; then
			log "setup: warning: $p is $here here, $v in the published run $published"
			drift=1
		fi
	done < <(jq -r '.packages // {} | to_entries[] | [.key, .value] | @tsv' "$pm")
	((drift)) || log "setup: tarball and package versions match the published run $published"
fi
