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
# one baseline and one reference per base (issue 23: a Δ or a proof pairs
# variants of one base only)
for b in $(known_bases); do
	bl=$(catalog_one_on "$b" baseline)
	check "catalog: base $b has one baseline (${bl:-none}), with a declared seed control ($(seed_control_of "$bl"))" \
		both test "$(variants_on "$b" baseline | wc -l)" = 1 -- test "$(variant_role "$(seed_control_of "$bl")")" = seed-control
	check "catalog: base $b has a reference (reference=yes: $(reference_on "$b"))" test -n "$(reference_on "$b")"
done
check "catalog: the default base's baseline is catalog_one baseline ($(catalog_one baseline))" \
	test "$(catalog_one baseline)" = "$(catalog_one_on "$LAB_DEFAULT_BASE" baseline)"
# a port names an existing design of another base
bad=""
for v in $(known_variants); do
	d=$(variant_design "$v")
	[[ $d == "$v" ]] && continue
	[[ -d $(variants_dir)/$d && $(variant_base "$d") != "$(variant_base "$v")" ]] || bad+=" $v(design=$d)"
done
check "catalog: every port's design= is a variant of another base (bad:${bad:- none})" test -z "$bad"
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
	"$LAB_ROOT/scripts/report/report-headline.sh" "$tmp/run" >"$tmp/headline.md" 2>"$tmp/headline.err" || true
	# (its first table's first base's six columns: the new design has only
	# upstream's rows of the default base, a run of several bases has more)
	up=$(grep -m1 '^| upstream |' "$tmp/headline.md" | cut -d'|' -f3-8)
	zz=$(grep -m1 '^| zz-throwaway |' "$tmp/headline.md" | cut -d'|' -f3-8)
	check "catalog: report-headline gives the new design its own row, equal to the cells it was given" \
		both test -n "$zz" -- test "$zz" = "$up"
else
	skip "catalog: the new design in the headline" "no published run in results/"
fi

# the Findings read the outcomes and the fix from the catalog: a throw-away
# design that BUG()s and one whose series fixes it show up, by their meta alone
mkdir "$LAB_VARIANTS/zz-bug" "$LAB_VARIANTS/zz-fix"
printf '# base: 6.1\n' >"$LAB_VARIANTS/zz-bug/series"
printf 'role=design\norder=98\nruntime-disable=bug\n' >"$LAB_VARIANTS/zz-bug/meta"
printf '# base: 6.1\n0001-zz.patch\n' >"$LAB_VARIANTS/zz-fix/series"
printf 'role=design\norder=97\nruntime-disable=survives\nfixes=runtime-disable\n' >"$LAB_VARIANTS/zz-fix/meta"
printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] zz: a throw-away fix\n\nFixes: 0123456789ab ("zz")\n' >"$LAB_VARIANTS/zz-fix/0001-zz.patch"
"$LAB_ROOT/scripts/report/report-findings.sh" >"$tmp/findings.md" 2>"$tmp/findings.err" || true
bq='`'
check "findings: a design whose meta says runtime-disable=bug is in the BUG list" \
	grep -q "^other): \\*\\*BUG\\*\\*: 6.1: .*${bq}zz-bug${bq}.* \\*\\*Survives\\*\\*" "$tmp/findings.md"
check "findings: a series whose meta says fixes=runtime-disable is named as the fix, with its subject" \
	grep -q "^- 6.1: variant ${bq}zz-fix${bq}, .*${bq}zz: a throw-away fix${bq} (Fixes: 0123456789ab)" "$tmp/findings.md"
check "findings: each base's reference has its recorded BUG line" \
	both grep -q "\`$(reference_on 6.1)\` on 6.1 (Linux [0-9.]*): \`kernel BUG at" "$tmp/findings.md" -- \
	grep -q "\`$(reference_on 6.12)\` on 6.12 (Linux [0-9.]*): \`kernel BUG at" "$tmp/findings.md"
