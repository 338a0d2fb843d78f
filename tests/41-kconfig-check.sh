#!/bin/bash
# The kconfig check: every requested option must survive olddefconfig.
# Unit cases on synthetic files, then a real merge in which a fragment turns
# off CONFIG_NET, so Kconfig silently drops audit and Smack: the check must
# stop and name them.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
mkdir -p "$LAB_CACHE/tmp"
tmp=$(mktemp -d "$LAB_CACHE/tmp/kconfig.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc=$LAB_ROOT/kernel/check-config.sh

printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=16\n' >"$tmp/frag"
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=16\n' >"$tmp/good"
check "check-config accepts a config with every requested option" "$cc" "$tmp/good" "$tmp/frag"
printf '# CONFIG_A is not set\nCONFIG_C=16\n' >"$tmp/noA"
if out=$("$cc" "$tmp/noA" "$tmp/frag" 2>&1); then not_ok "missing CONFIG_A is caught"; else
	check "missing CONFIG_A is caught and named" grep -q 'CONFIG_A=y requested but CONFIG_A is not set' <<<"$out"
fi
printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=16\n' >"$tmp/B"
if out=$("$cc" "$tmp/B" "$tmp/frag" 2>&1); then not_ok "CONFIG_B requested off but on is caught"; else
	check "CONFIG_B requested off but on is caught and named" grep -q 'CONFIG_B requested off' <<<"$out"
fi
printf 'CONFIG_A=y\nCONFIG_C=32\n' >"$tmp/C"
if out=$("$cc" "$tmp/C" "$tmp/frag" 2>&1); then not_ok "a wrong value is caught"; else
	check "a wrong value (CONFIG_C=32 for 16) is caught" grep -q 'CONFIG_C=16 requested but got CONFIG_C=32' <<<"$out"
fi
printf '# CONFIG_A is not set\n' >"$tmp/frag2"
check "a later fragment overrides an earlier one" "$cc" "$tmp/noA" "$tmp/frag" "$tmp/frag2"

if quick; then
	skip "real merge_config + olddefconfig drops audit without NET" "--quick"
	exit 0
fi
"$LAB_ROOT/kernel/extract-source.sh"
export LAB_TREES=$tmp/trees
"$LAB_ROOT/kernel/prepare-tree.sh" upstream >/dev/null 2>&1
printf '# CONFIG_NET is not set\n' >"$tmp/nonet.config"
if out=$("$LAB_ROOT/kernel/make-config.sh" "$LAB_TREES/upstream" "$LAB_TREES/upstream/lab-config" \
	"$LAB_ROOT/kernel/config/lab.config" "$tmp/nonet.config" 2>&1); then
	not_ok "make-config fails when CONFIG_NET=n drops audit"
else
	ok "make-config fails when CONFIG_NET=n drops audit"
	check "the failure names CONFIG_AUDIT" grep -q 'CONFIG_AUDIT=y requested but CONFIG_AUDIT is not set' <<<"$out"
	check "the failure names CONFIG_SECURITY_SMACK" grep -q 'CONFIG_SECURITY_SMACK=y requested but' <<<"$out"
fi
if out=$("$LAB_ROOT/kernel/make-config.sh" "$LAB_TREES/upstream" "$LAB_TREES/upstream/lab-config" \
	"$LAB_ROOT/kernel/config/lab.config" 2>&1); then
	ok "the lab fragment itself survives olddefconfig"
else
	printf '%s\n' "$out" | tail -5
	not_ok "the lab fragment itself survives olddefconfig"
fi
