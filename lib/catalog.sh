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

# Bases (issue 23). A variant's base is the '# base:' line of its series
# (variant_base in lib/common.sh). A design ported to another base is its own
# folder, <design>-<base with . as ->, e.g. static-key-6-12, whose meta says
# design=<design>; a variant without design= is its own design. Each base has
# its own baseline (role=baseline) and its own reference (reference=yes: the
# base tree's own audit code, as is, that the proofs compare every other
# variant of that base with). A Δ or a proof only ever pairs variants of one
# base.

# variant_design VARIANT: the design VARIANT is a port of (its own name if none)
variant_design() {
	local v=$1
	[[ $v == *-aa ]] && v=${v%-aa}
	variant_meta "$v" design "$v"
}

# variants_on BASE ROLE...: variants_with ROLE..., only those on BASE
variants_on() {
	local b=$1 v
	shift
	for v in $(variants_with "$@"); do
		[[ $(variant_base "${v%-aa}") == "$b" ]] && echo "$v"
	done
	return 0
}

# catalog_one_on BASE ROLE: the one variant with ROLE on BASE (empty if none)
catalog_one_on() { variants_on "$1" "$2" | awk 'NR == 1'; }

# reference_on BASE: the variant that is BASE's audit code as is (reference=yes)
reference_on() {
	local v
	for v in $(known_variants); do
		# (an if, not '&&': a false test ending the loop would fail the
		# pipeline under pipefail, and with it every caller under set -e)
		if [[ $(variant_meta "$v" reference) == yes && $(variant_base "$v") == "$1" ]]; then echo "$v"; fi
	done | awk 'NR == 1'
}

# known_bases: the bases of the known variants, oldest first
known_bases() {
	local v
	for v in $(known_variants); do variant_base "$v"; done | sort -u -V
}
