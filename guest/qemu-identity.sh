#!/bin/bash
# qemu-identity.sh: this host's QEMU identity as key=value lines. Under
# tcg-icount a cell is a pure function of its inputs only on hosts where
# these lines are equal: the version QEMU reports, the sha256 of the binary
# that PATH resolves (a wrapper is a different binary), and one sha256 over
# every firmware/option ROM under /usr/share/qemu and /usr/share/seabios
# (*.bin, *.rom, *.img; "sha256  name" lines, sorted by name). Runs on the
# coordinator and on every worker (guest/cell-worker.sh, scripts/run/hosts-check.sh);
# needs only bash and coreutils. LAB_QEMU names another binary.
set -euo pipefail
qemu=${LAB_QEMU:-qemu-system-x86_64}
bin=$(command -v "$qemu") || { echo "error: $qemu not found in PATH" >&2; exit 1; }
echo "qemu_version=$("$bin" --version 2>/dev/null | head -1)"
echo "qemu_sha256=$(sha256sum <"$(readlink -f "$bin")" | cut -d' ' -f1)"
fw=$(find /usr/share/qemu /usr/share/seabios \( -name '*.bin' -o -name '*.rom' -o -name '*.img' \) \
	\( -type f -o -type l \) 2>/dev/null | LC_ALL=C sort || true)
n=0 sums=""
if [[ -n $fw ]]; then
	n=$(grep -c . <<<"$fw")
	sums=$(while IFS= read -r f; do printf '%s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$f"; done <<<"$fw")
fi
echo "firmware_files=$n"
echo "firmware_sha256=$(printf '%s' "$sums" | sha256sum | cut -d' ' -f1)"
