#!/bin/bash
# hosts-check.sh FILE: check every worker host of an sshlogin FILE (see
# lib/hosts.sh) before a run: ssh works with the user's keys, the tools a
# worker needs are there, its QEMU identity (guest/qemu-identity.sh) is this
# host's, and it has free disk. One line per host; exit 1 if any fails.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/hosts.sh
. "$LAB_ROOT/lib/hosts.sh"

(($# == 1)) || die_usage "usage: run.sh hosts-check FILE (GNU parallel sshlogin lines, e.g. 2/ssh -p 2222 lab@box1)"
hl=$(host_lines "$1") || exit
mapfile -t lines <<<"$hl"
((${#lines[@]})) || die_usage "hosts file '$1' lists no host"
mine=$("$LAB_ROOT/guest/qemu-identity.sh")
bad=0
for l in "${lines[@]}"; do host_verdict "$l" "$mine" || bad=1; done
exit "$bad"
