#!/bin/bash
# unit-catalog.sh: the variant catalog (lib/catalog.sh, kernel/variants/*/meta).
# Every variant declares a known role; the roles the reports need exist once;
# and a throw-away design added in a scratch variants dir (its folder only:
# series, meta) shows up as a design and gets its own headline row from the
# reporting scripts, with no script or test edited.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad=""
for v in $(known_variants); do
	case $(variant_meta "$v" role) in
	baseline | codegen-control | config-floor | design | proof-only) ;;
	*) bad+=" $v" ;;
	esac
done
check "catalog: every variant's meta names a known role (bad:${bad:- none})" test -z "$bad"
# one baseline per base tree (issue 23), with a declared seed control; a base
# with a design on it has its baseline
bad=""
for b in $(known_bases); do
	n=$(variants_on "$b" baseline | wc -l)
	bl=$(catalog_one_on "$b" baseline)
	if ((n > 1)) || { [[ -n $(variants_on "$b" design) ]] && ((n == 0)); } ||
		{ ((n == 1)) && [[ $(variant_role "$(seed_control_of "$bl")") != seed-control ]]; }; then bad+=" $b"; fi
done
check "catalog: one baseline per base tree ($(roles_by_base baseline)), each with a declared seed control ($(roles_by_base seed-control)); bad:${bad:- none}" \
	both test -z "$bad" -- test -n "$(catalog_one_on "$LAB_DEFAULT_BASE" baseline)"
check "catalog: a pseudo-variant nobody declares is not a seed control" test "$(variant_role upstream-aa)" != seed-control

# a throw-away design: a folder in a scratch variants dir, nothing else
export LAB_VARIANTS=$tmp/variants
mkdir -p "$LAB_VARIANTS"
for d in "$LAB_ROOT"/kernel/variants/*/; do ln -s "${d%/}" "$LAB_VARIANTS/$(basename "$d")"; done
mkdir "$LAB_VARIANTS/zz-throwaway"
printf '# base: 6.1\n' >"$LAB_VARIANTS/zz-throwaway/series"
printf 'role=design\norder=99\naudits=skip-hot\nruntime-disable=survives\n' >"$LAB_VARIANTS/zz-throwaway/meta"
check "catalog: the new design is listed among the designs, in its order" \
	test "$(variants_with design | tail -1)" = zz-throwaway
# its cells in a run: upstream's rows under the new name
run=$(cat "$LAB_ROOT/results/PUBLISHED" 2>/dev/null || true)
if [[ -f $LAB_ROOT/results/$run/summary.csv ]]; then
	mkdir -p "$tmp/run"
	{ cat "$LAB_ROOT/results/$run/summary.csv"; grep '^upstream,' "$LAB_ROOT/results/$run/summary.csv" | sed 's/^upstream,/zz-throwaway,/'; } >"$tmp/run/summary.csv"
	"$LAB_ROOT/scripts/report-headline.sh" "$tmp/run" >"$tmp/headline.md" 2>"$tmp/headline.err" || true
	up=$(grep '^| upstream |' "$tmp/headline.md" | cut -d'|' -f3-)
	zz=$(grep '^| zz-throwaway |' "$tmp/headline.md" | cut -d'|' -f3-)
	check "catalog: report-headline gives the new design its own row, equal to the cells it was given" \
		both test -n "$zz" -- test "$zz" = "$up"
else
	skip "catalog: the new design in the headline" "no published run in results/"
fi

# --- base trees (issue 23): ports, the matrix's variants per base, roles per base ---
# two fake 6.12 folders beside the real ones (the real ports may not exist yet)
rm -f "$LAB_VARIANTS/nohooks-6-12" "$LAB_VARIANTS/static-key-6-12"
for m in "nohooks-6-12 role=baseline design=nohooks seed-control=nohooks-6-12-aa order=10" \
	"static-key-6-12 role=design design=static-key order=2"; do
	read -r v meta <<<"$m"
	mkdir "$LAB_VARIANTS/$v"
	printf '# base: 6.12\n' >"$LAB_VARIANTS/$v/series"
	tr ' ' '\n' <<<"$meta" >"$LAB_VARIANTS/$v/meta"
done
check "bases: known_bases lists 6.1 and 6.12, oldest first" test "$(known_bases | paste -sd' ')" = "6.1 6.12"
check "bases: port_on finds each design's port (static-key on 6.12, the A/A control's, none for rfc)" \
	test "$(port_on 6.12 static-key)/$(port_on 6.12 nohooks-aa)/$(port_on 6.12 rfc)/$(port_on 6.1 static-key-6-12)" = "static-key-6-12/nohooks-6-12-aa//static-key"
check "bases: variants_for_bases 6.1 of the default list is the list itself" \
	test "$(variants_for_bases 6.1 "$(cat "$LAB_ROOT/workloads/matrix.variants")" 2>/dev/null)" = "$(cat "$LAB_ROOT/workloads/matrix.variants")"
check "bases: variants_for_bases 6.1,6.12: each base's ports, its baseline and A/A control (rfc has no 6.12 port)" \
	test "$(variants_for_bases 6.1,6.12 static-key,rfc 2>/dev/null)" = "static-key,rfc,nohooks,nohooks-aa,static-key-6-12,nohooks-6-12,nohooks-6-12-aa"
check "bases: roles_by_base: a baseline and an A/A control per base, the codegen control only on 6.1" \
	test "$(roles_by_base baseline) $(roles_by_base seed-control) $(roles_by_base codegen-control)" = "6.1=nohooks,6.12=nohooks-6-12 6.1=nohooks-aa,6.12=nohooks-6-12-aa 6.1=nohooks-codegen"
refused() {
	local rc=0
	(check_bases "$1") >/dev/null 2>"$tmp/err" || rc=$?
	[[ $rc == 2 && $(wc -l <"$tmp/err") == 1 ]] && grep -qF -- "$2" "$tmp/err"
}
check "bases: check_bases refuses an unknown base in one line (exit 2)" refused 6.1,9.9 "error: unknown base '9.9'; known: 6.1 6.12"
check "bases: check_bases refuses a base name that is not a version in one line (exit 2)" refused 6.1,../x "bad base name '../x'"
