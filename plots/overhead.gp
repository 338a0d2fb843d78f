# overhead.gp: overhead % of cost per op versus the nohooks kernel in the same
# state and workload, per variant, clustered by audit state, error bars = the
# overhead's 95% CI; the grey band is +-aa_floor_pct, the A/A control's
# overhead (nohooks measured again with other layout seeds): the noise floor.
# Input (data): cluster,state,variant,overhead_pct,ci_lo,ci_hi,aa_floor_pct
#   NaN = no CI / no A/A floor for that state.
# Variables: data, variants, workload, accel, unit, has_floor (0 or 1);
# term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "overhead.gp: set data, variants and workload with -e; see scripts/plots.sh"
	exit status 2
}
if (!exists("has_floor")) has_floor = 1
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set xzeroaxis lt 1 lc rgb '#303030' lw 1
set xlabel 'audit state'
set ylabel sprintf('overhead vs nohooks (%% of %s, %s)', per_op, accel)
set title sprintf('%s: audit overhead per op vs nohooks (median, 95%% CI) — %s', workload, accel)
if (!has_floor) {
	set label 1 'no A/A control (nohooks-aa) in this run: no noise floor drawn' \
		at graph 0.02, graph 0.95 tc rgb '#b00000'
}
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
# the band first, opaque, so bars and error bars sit on top of it
plot data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):\
		(-column('aa_floor_pct')):'aa_floor_pct' with boxxyerror \
		fs solid 1.0 noborder lc rgb floor_color title (has_floor ? 'A/A noise floor (±)' : ''), \
	for [i=1:nv] data using (x(i)):'overhead_pct':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
		with vectors arrowstyle ci_style notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
