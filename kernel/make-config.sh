#!/bin/bash
# make-config.sh TREE CFGDIR FRAGMENT...: CFGDIR/.config = tinyconfig for
# x86_64 + the fragments (merge_config.sh, later fragments win), completed by
# olddefconfig, then verified by check-config.sh. Logs to CFGDIR/config.log.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

(($# >= 3)) || die_usage "usage: make-config.sh TREE CFGDIR FRAGMENT..."
tree=$1 cfgdir=$2
shift 2
for f in "$@"; do [[ -f $f ]] || die "config fragment $f: no such file"; done
mkdir -p "$cfgdir"
logf=$cfgdir/config.log
mk() { make -C "$tree" O="$cfgdir" ARCH=x86_64 "$@" >>"$logf" 2>&1; }
: >"$logf"
mk tinyconfig || { tail -20 "$logf" >&2; die "make tinyconfig failed (log $logf)"; }
(cd "$cfgdir" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$cfgdir" "$cfgdir/.config" "$@") >>"$logf" 2>&1 ||
	die "merge_config.sh failed (log $logf)"
mk olddefconfig || die "make olddefconfig failed (log $logf)"
"$LAB_ROOT/kernel/check-config.sh" "$cfgdir/.config" "$@"
