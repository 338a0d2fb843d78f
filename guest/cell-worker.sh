#!/bin/bash
# cell-worker.sh: runs on a worker host, from a bundle that lib/remote.sh
# unpacked into the worker's own $LAB_CACHE/bundles/BUNDLE_ID/ (this file,
# qemu-identity.sh, the coordinator's identity, images under img/, and one
# plan per cell under plans/: guest/boot.sh --plan's NUL-separated
# "timeout --signal=KILL T qemu-system-x86_64 ARGS", bundle paths as
# @BUNDLE@ and the output dir as @OUT@).
#   cell-worker.sh has            exit 0 if this bundle is complete here
#   cell-worker.sh run CELL_ID    run CELL_ID's boot; its outputs (console.log,
#                                 results.txt, qemu.log, worker.info) as a tar
#                                 on stdout
# Exit 0 when QEMU ran to its end or its deadline (what the guest did is the
# coordinator's to judge, guest/boot.sh --ran), 3 when this host's QEMU
# identity differs from the coordinator's (one line on stderr naming the host
# and the difference; the cell runs elsewhere), 1 for any other host trouble.
# Writes only under $LAB_CACHE (work/BUNDLE_ID/CELL_ID, removed when sent).
set -euo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
cache=${LAB_CACHE:-$HOME/.cache/uring-audit-lab}
me="$(id -un)@$(hostname)"
err() { echo "worker $me: $*" >&2; exit "${2:-1}"; }

case ${1:-} in
has) [[ -f $bundle/.complete ]]; exit ;;
run) (($# == 2)) || err "usage: cell-worker.sh run CELL_ID" ;;
*) err "usage: cell-worker.sh has | run CELL_ID" ;;
esac
cell=$2
[[ $cell =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || err "bad cell id '$cell'"
[[ -f $bundle/.complete && -f $bundle/plans/$cell ]] || err "bundle $(basename "$bundle") has no plan for $cell"

# this host's identity, worked out once per bundle and QEMU binary (path,
# size, mtime; under a lock: cells of one bundle start together), then
# compared with the coordinator's
q=$(command -v qemu-system-x86_64) || err "qemu-system-x86_64 not found in PATH"
here=$bundle/identity.here.$(stat -L -c '%n %s %Y' "$q" | sha256sum | cut -c1-16)
exec 8>>"$bundle/.identity.lock"
flock 8
[[ -f $here ]] || { "$bundle/qemu-identity.sh" >"$here.tmp" && mv "$here.tmp" "$here"; }
flock -u 8
diff=$(awk -F= '
	NR == FNR { k = $1; sub(/^[^=]*=/, ""); want[k] = $0; next }
	{ k = $1; sub(/^[^=]*=/, ""); here[k] = $0 }
	END { for (k in want) if (here[k] != want[k]) d = d (d ? "; " : "") k " \047" here[k] "\047 (coordinator \047" want[k] "\047)"; printf "%s", d }' \
	"$bundle/identity" "$here")
[[ -z $diff ]] || err "refused: QEMU identity differs: $diff" 3

out=$cache/work/$(basename "$bundle")/$cell
rm -rf "$out"
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
argv=()
while IFS= read -r -d '' a; do
	a=${a//@BUNDLE@/$bundle}
	argv+=("${a//@OUT@/$out}")
done <"$bundle/plans/$cell"
[[ ${#argv[@]} -gt 4 && ${argv[0]} == timeout && ${argv[1]} == --signal=KILL && ${argv[2]} =~ ^[0-9]+$ && ${argv[3]} == qemu-system-x86_64 ]] ||
	err "plan $cell is not 'timeout --signal=KILL T qemu-system-x86_64 ...'"
start=$(date +%s.%N)
rc=0
# QEMU in a session of its own, so nothing it leaves outlives the cell
setsid "${argv[@]}" >"$out/qemu.log" 2>&1 </dev/null || rc=$?
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
printf 'host=%s\nqemu_rc=%s\nwall_secs=%s\n' "$me" "$rc" "$wall" >"$out/worker.info"
# 124/137: the deadline (a hung guest is a result); other non-zero: QEMU
# itself failed here (host trouble), so the cell is retried elsewhere
if ((rc != 0 && rc != 124 && rc != 137)); then
	err "QEMU exited $rc: $(tail -c 300 "$out/qemu.log" | tr '\n' ' ')"
fi
touch "$out/console.log" "$out/results.txt"
tar -C "$out" -cf - console.log results.txt qemu.log worker.info
