# Base trees in awk (issue 23), prepended to the programs of the scripts that
# read summaries. load_catalog(s) reads lib/catalog.sh catalog_rows ("VARIANT
# BASE DESIGN ROLE REFERENCE SEED-CONTROL;...") into CB[v] (base tree), CD[v]
# (design), CR[v] (role) and, per base tree b, BL[b] (its baseline), AA[b]
# (the baseline's seed control), CG[b] (codegen control), CF[b] (config
# floor), REF[b] (reference: the tree's audit code as is). A Δ only ever
# pairs a variant with the baseline of its own base tree.
function load_catalog(s,   n, a, i, r, sc) {
	n = split(s, a, ";")
	for (i = 1; i <= n; i++) {
		if (split(a[i], r, " ") < 6) continue
		CB[r[1]] = r[2]; CD[r[1]] = r[3]; CR[r[1]] = r[4]
		if (r[4] == "baseline" && !(r[2] in BL)) { BL[r[2]] = r[1]; sc[r[2]] = r[6] }
		if (r[4] == "codegen-control" && !(r[2] in CG)) CG[r[2]] = r[1]
		if (r[4] == "config-floor" && !(r[2] in CF)) CF[r[2]] = r[1]
		if (r[5] == "yes" && !(r[2] in REF)) REF[r[2]] = r[1]
	}
	for (i in sc) if (sc[i] != "-") AA[i] = sc[i]
}
# vbase(v, col): the base tree of a row of variant v: its base column col if
# the file has one, else the catalog's, else the default base (defbase)
function vbase(v, col) { return col != "" ? col : (v in CB) ? CB[v] : defbase }
# is_control(v): v is a baseline's seed control or a codegen control
function is_control(v) { return CR[v] == "seed-control" || CR[v] == "codegen-control" }
# vless(a, b): base tree a is older than b (6.1 before 6.12)
function vless(a, b,   x, y) {
	split(a, x, "."); split(b, y, ".")
	return x[1] + 0 < y[1] + 0 || (x[1] + 0 == y[1] + 0 && x[2] + 0 < y[2] + 0)
}
