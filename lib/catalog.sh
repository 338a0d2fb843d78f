# shellcheck shell=bash
# The variant catalog (issue 19): each variant's role and expectations live in
# its own folder, kernel/variants/<name>/meta (key=value lines, '#' comments),
# and are read here and nowhere else. Roles: baseline (what every overhead is
# measured against), codegen-control (the baseline with code moved: the
# codegen floor), config-floor (another kernel configuration: a floor, not a
# baseline), design (a way of auditing io_uring), proof-only (booted by the
# proofs, not timed). A baseline's seed-control=NAME declares its A/A
# pseudo-variant (the same kernel measured with other seeds). Sourced after
# lib/common.sh, never run.

# variant_meta VARIANT KEY [DEFAULT]: KEY's value in VARIANT's meta (as data,
# never sourced); a seed-control pseudo-variant reads its kernel's meta
variant_meta() {
	local v=$1 f val
	[[ $v == *-aa ]] && v=${v%-aa}
	f=$(variants_dir)/$v/meta
	val=$(sed -n "s/^$2=//p" "$f" 2>/dev/null | tail -1)
	echo "${val:-${3:-}}"
}

# variant_role VARIANT: its role; a declared seed-control pseudo-variant is
# seed-control; a variant without a meta is a design
variant_role() {
	if [[ $1 == *-aa && $(variant_meta "${1%-aa}" seed-control) == "$1" ]]; then
		echo seed-control
	else
		variant_meta "$1" role design
	fi
}

# variants_with ROLE...: the known variants with one of these roles, in
# catalog order (order=, then name), one a line
variants_with() {
	local v r want=" $* "
	for v in $(known_variants); do
		r=$(variant_role "$v")
		if [[ $want == *" $r "* ]]; then echo "$(variant_meta "$v" order 50) $v"; fi
	done | sort -k1,1n -k2 | awk '{print $2}'
}

# catalog_one ROLE: the one variant with ROLE (baseline, codegen-control,
# config-floor); empty if there is none
catalog_one() { variants_with "$1" | awk 'NR == 1'; }

# seed_control_of VARIANT: the A/A pseudo-variant VARIANT declares, if any
seed_control_of() { variant_meta "$1" seed-control; }
