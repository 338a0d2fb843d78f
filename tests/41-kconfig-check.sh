#!/bin/bash
# The kconfig check: every requested option must survive olddefconfig.
# Unit cases on synthetic files, then, on every base (known_bases), a real
# merge in which a fragment turns off CONFIG_NET, so Kconfig silently drops
# audit and Smack: the check must stop and name them; and the base's own
# fragments (lab.config, kernel/config/lab-BASE.config) must survive.
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
export LAB_TREES=$tmp/trees
# on every base (issue 23), in the tree of the base's reference variant: the
# base's fragments are lab.config plus kernel/config/lab-BASE.config if any
# (kernel/build.sh's list)
for b in $(known_bases); do
	v=$(reference_on "$b")
	if [[ -z $v ]]; then
		not_ok "base $b has a reference variant to configure"
		continue
	fi
	"$LAB_ROOT/kernel/extract-source.sh" "$b"
	"$LAB_ROOT/kernel/prepare-tree.sh" "$v" >/dev/null 2>&1
	frags=("$LAB_ROOT/kernel/config/lab.config")
	[[ -f $LAB_ROOT/kernel/config/lab-$b.config ]] && frags+=("$LAB_ROOT/kernel/config/lab-$b.config")
	printf '# CONFIG_NET is not set\n' >"$tmp/nonet.config"
	if out=$("$LAB_ROOT/kernel/make-config.sh" "$LAB_TREES/$v" "$LAB_TREES/$v/lab-config" \
		"${frags[@]}" "$tmp/nonet.config" 2>&1); then
		not_ok "base $b: make-config fails when CONFIG_NET=n drops audit"
	else
		ok "base $b: make-config fails when CONFIG_NET=n drops audit"
		check "base $b: the failure names CONFIG_AUDIT" grep -q 'CONFIG_AUDIT=y requested but CONFIG_AUDIT is not set' <<<"$out"
		check "base $b: the failure names CONFIG_SECURITY_SMACK" grep -q 'CONFIG_SECURITY_SMACK=y requested but' <<<"$out"
	fi
	if out=$("$LAB_ROOT/kernel/make-config.sh" "$LAB_TREES/$v" "$LAB_TREES/$v/lab-config" "${frags[@]}" 2>&1); then
		ok "base $b: the lab fragments (${frags[*]##*/}) survive olddefconfig ($(grep -o 'all [0-9]* requested' <<<"$out"))"
	else
		printf '%s\n' "$out" | tail -5
		not_ok "base $b: the lab fragments (${frags[*]##*/}) survive olddefconfig"
	fi
	rm -rf "${LAB_TREES:?}/$v"
done
