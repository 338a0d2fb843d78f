# shellcheck shell=bash
# The variant catalog (issue 19): each variant's role and expectations live in
# its own folder, kernel/variants/<name>/meta (key=value lines, '#' comments),
# and are read here and nowhere else. Roles: baseline (what every overhead is
# measured against), codegen-control (the baseline with code moved: the
# codegen floor), config-floor (another kernel configuration: a floor, not a
# baseline), design (a way of auditing io_uring), proof-only (booted by the
# proofs, not timed). A baseline's seed-control=NAME declares its A/A
# pseudo-variant (the same kernel measured with other seeds). A design's
# proofs= lists the proofs recorded on its series (comma list): audit-n
# (compiles with CONFIG_AUDIT=n, tests/45), lockdep (tests/61's --debug boot
# ran clean), no-lock (its series adds no lock and flips no key, so tests/61
# has no lockdep boot to run); the decision table reads it. fixes=runtime-disable
# marks a series that fixes the runtime-disable BUG (the report's Findings). Sourced after
# lib/common.sh, never run.

# variant_meta VARIANT KEY [DEFAULT]: KEY's value in VARIANT's meta (as data,
# never sourced); a seed-control pseudo-variant reads its kernel's meta
variant_meta() {
	local v=${1%-aa} val
	variants_load
	val=${_VAR_META[$v|$2]-}
	echo "${val:-${3:-}}"
}

# The _cat_* helpers set REPLY from the loaded catalog (variants_load) in the
# caller's shell: a lookup in a $(...) costs a fork, and the report's catalog
# loops made thousands of them (report-decision.sh ~10 s on a 16-variant run).
# _cat_meta VARIANT KEY [DEFAULT]
_cat_meta() { REPLY=${_VAR_META[${1%-aa}|$2]-}; REPLY=${REPLY:-${3:-}}; }
# _cat_role VARIANT
_cat_role() {
	if [[ $1 == *-aa && ${_VAR_META[${1%-aa}|seed-control]-} == "$1" ]]; then REPLY=seed-control; else _cat_meta "$1" role design; fi
}
# _cat_base VARIANT (no check of the '# base:' line: variant_base does that)
_cat_base() { REPLY=${_VAR_BASE[$1]-}; REPLY=${REPLY:-$LAB_DEFAULT_BASE}; }
# _cat_design VARIANT
_cat_design() { _cat_meta "${1%-aa}" design "${1%-aa}"; }

# variant_role VARIANT: its role; a declared seed-control pseudo-variant is
# seed-control; a variant without a meta is a design
variant_role() {
	variants_load
	_cat_role "$1"
	echo "$REPLY"
}

# variants_with ROLE...: the known variants with one of these roles, in
# catalog order (order=, then name), one a line
variants_with() {
	local v want=" $* "
	variants_load
	for v in $_VAR_NAMES; do
		_cat_role "$v"
		[[ $want != *" $REPLY "* ]] || { _cat_meta "$v" order 50; echo "$REPLY $v"; }
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
	variants_load
	_cat_design "$1"
	echo "$REPLY"
}

# variants_on BASE ROLE...: variants_with ROLE..., only those on BASE
variants_on() {
	local b=$1 v
	shift
	variants_load
	for v in $(variants_with "$@"); do
		_cat_base "${v%-aa}"
		[[ $REPLY != "$b" ]] || echo "$v"
	done
}

# catalog_one_on BASE ROLE: the one variant with ROLE on BASE (empty if none)
catalog_one_on() { variants_on "$1" "$2" | awk 'NR == 1'; }

# reference_on BASE: the variant that is BASE's audit code as is (reference=yes)
reference_on() {
	local v
	variants_load
	for v in $_VAR_NAMES; do
		_cat_base "$v"
		if [[ ${_VAR_META[$v|reference]-} == yes && $REPLY == "$1" ]]; then echo "$v"; return 0; fi
	done
}

# known_bases: the bases of the known variants, oldest first
known_bases() {
	local v
	variants_load
	for v in $_VAR_NAMES; do _cat_base "$v"; echo "$REPLY"; done | sort -u -V
}

# port_on BASE DESIGN: the variant on BASE that is a port of DESIGN (empty if
# none); a seed-control pseudo-variant's port is the seed control of its
# kernel's port
port_on() {
	local b=$1 d=$2 v
	if [[ $d == *-aa && $(variant_role "$d") == seed-control ]]; then
		v=$(port_on "$b" "$(variant_design "${d%-aa}")")
		[[ -z $v ]] || seed_control_of "$v"
		return 0
	fi
	variants_load
	_cat_design "$d"
	d=$REPLY
	for v in $_VAR_NAMES; do
		_cat_base "$v"
		[[ $REPLY == "$b" ]] || continue
		_cat_design "$v"
		[[ $REPLY != "$d" ]] || { echo "$v"; return 0; }
	done
}

# bases_of VARIANTS: the bases of a comma list of variants (-aa pseudo-variants
# by their kernel), oldest first, as a comma list
bases_of() {
	local v
	for v in ${1//,/ }; do variant_base "${v%-aa}"; done | sort -u -V | paste -sd,
}

# check_bases LIST: LIST is a comma list of known bases each with a baseline
# (role=baseline on it); one line and exit 2 otherwise
check_bases() {
	local b known
	check_list base "$1"
	known=$(known_bases | paste -sd' ')
	for b in ${1//,/ }; do
		[[ " $known " == *" $b "* ]] || die_usage "unknown base '$b'; known: $known (the '# base:' lines of kernel/variants/*/series)"
		[[ -n $(catalog_one_on "$b" baseline) ]] ||
			die_usage "base $b has no baseline: no variant on it has role=baseline in its meta (a Δ there would have nothing to compare with)"
	done
}

# variants_for_bases BASES VARIANTS: the matrix's variants for a comma list of
# bases: on each base, the port of every variant in VARIANTS (by its design),
# then that base's baseline and its seed control if not there yet; a comma
# list, base after base. On the bases of VARIANTS alone this is VARIANTS
# with any missing baseline added.
variants_for_bases() {
	local b v p picked=() bl
	for b in ${1//,/ }; do
		for v in ${2//,/ }; do
			p=$(port_on "$b" "$v")
			[[ -n $p ]] || { log "matrix: $v has no port on base $b: not run there"; continue; }
			[[ " ${picked[*]} " == *" $p "* ]] || picked+=("$p")
		done
		bl=$(catalog_one_on "$b" baseline)
		for p in "$bl" "$(seed_control_of "$bl")"; do
			[[ -z $p || " ${picked[*]} " == *" $p "* ]] || picked+=("$p")
		done
	done
	(IFS=,; echo "${picked[*]}")
}

# roles_by_base ROLE: ROLE's variant on each known base, as BASE=VARIANT,...
# (ROLE baseline, codegen-control, config-floor or seed-control: the seed
# control of the base's baseline); bases without one are left out
roles_by_base() {
	local b v best bo want=$1 pairs=()
	[[ $want != seed-control ]] || want=baseline
	variants_load
	# (in this shell, no fork a lookup: summary.sh calls this three times a
	# summary, and adaptive seeds a summary a round; catalog order as
	# variants_with's: order=, then name)
	for b in $(known_bases); do
		best="" bo=0
		for v in $_VAR_NAMES; do
			_cat_base "$v"
			[[ $REPLY == "$b" ]] || continue
			_cat_role "$v"
			[[ $REPLY == "$want" ]] || continue
			_cat_meta "$v" order 50
			if [[ -z $best ]] || ((REPLY < bo)) || { ((REPLY == bo)) && [[ $v < $best ]]; }; then best=$v bo=$REPLY; fi
		done
		if [[ $1 == seed-control && -n $best ]]; then
			_cat_meta "$best" seed-control
			best=$REPLY
		fi
		[[ -z $best ]] || pairs+=("$b=$best")
	done
	(IFS=,; echo "${pairs[*]}")
}

# catalog_rows: the catalog for awk readers (lib/bases.awk load_catalog): one
# "VARIANT BASE DESIGN ROLE REFERENCE SEED-CONTROL" entry per variant in
# catalog order, then one per declared seed control, ';'-separated ('-' for
# an empty value)
catalog_rows() {
	local v sc b d r entries=()
	variants_load
	for v in $(variants_with baseline codegen-control config-floor design proof-only); do
		variant_base "$v" >/dev/null # (checks the '# base:' line)
		_cat_base "$v"; b=$REPLY
		_cat_design "$v"; d=$REPLY
		_cat_role "$v"; r=$REPLY
		_cat_meta "$v" seed-control; sc=$REPLY
		_cat_meta "$v" reference -
		entries+=("$v $b $d $r $REPLY ${sc:--}")
		[[ -z $sc ]] || entries+=("$sc $b $d seed-control - -")
	done
	(IFS=';'; echo "${entries[*]}")
}
