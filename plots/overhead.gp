# overhead.gp: Δ cost per op versus the nohooks kernel in the same state and
# workload, per variant, clustered by audit state, on ONE shared y axis (the
# same scale for every state, so sizes compare); each bar carries its value,
# so a +8 beside a +14,000 is still read. Whiskers = the Δ's interval (dlabel:
# exact range, or the Hodges-Lehmann interval); the grey band in each state is
# the A/A control's interval (nohooks-aa: the same kernel, other seeds), i.e.
# what seed noise alone gives there.
# Input (data): cluster,state,variant,delta,ci_lo,ci_hi,aa_lo,aa_hi (NaN = none)
# Variables: data, variants, workload, accel, unit, has_aa (0 or 1), opslabel,
# nslabel, dlabel, dkind (short kinds of dlabel) (from summary.csv, set by plots.sh); term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "overhead.gp: set data, variants and workload with -e; see scripts/report/plots.sh"
	exit status 2
}
if (!exists("has_aa")) has_aa = 0
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set xzeroaxis lt 1 lc rgb '#303030' lw 1
set xlabel 'audit state'
set ylabel sprintf('Δ %s vs nohooks (one axis for all states)', per_op)
if (!exists("dkind")) dkind = dlabel
sv(v) = abs(v) < 0.05 ? '0.0' : sprintf('%+.1f', v)
set title sprintf("%s: Δ cost per op vs nohooks — %s\nwhiskers: %s%s", workload, accel, dkind, \
	has_aa ? "; grey band: A/A interval" : "; no A/A control: no noise band") font ',11'
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
plot data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):'aa_lo':'aa_hi' \
		with boxxyerror fs solid 1.0 noborder lc rgb floor_color notitle, \
	for [i=1:nv] data using (x(i)):'delta':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
		with vectors arrowstyle ci_style notitle, \
	for [i=1:nv] data using (x(i)):'delta':(sv(column('delta'))) \
		with labels rotate by 90 left offset 0,0.5 font ',8' notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
