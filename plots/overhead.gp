# overhead.gp: overhead % of cost per op versus the nohooks kernel in the same
# state and workload, per variant, clustered by audit state, error bars = the
# overhead's interval (dlabel: 'range over 3x3 seed pairs' under tcg-icount);
# the grey band is +-aa_floor_pct, the seed floor (nohooks measured again with
# other layout seeds), the hatched band +-codegen_floor_pct, the codegen floor
# (nohooks rebuilt with a neutral change that moves code).
# Input (data): cluster,state,variant,overhead_pct,ci_lo,ci_hi,aa_floor_pct,codegen_floor_pct
#   NaN = no interval / no floor for that state.
# Variables: data, variants, workload, accel, unit, has_floor and has_cg (0 or 1),
# opslabel, nslabel, dlabel: what the figure and its interval are (from
# summary.csv's estimator/interval/delta_interval columns, set by plots.sh);
# devtime=1: the workload's per-op count includes device time.
# term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "overhead.gp: set data, variants and workload with -e; see scripts/plots.sh"
	exit status 2
}
if (!exists("has_floor")) has_floor = 1
if (!exists("has_cg")) has_cg = 0
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set xzeroaxis lt 1 lc rgb '#303030' lw 1
set xlabel 'audit state'
set ylabel sprintf('overhead vs nohooks (%% of %s, %s)', per_op, accel)
set title sprintf("%s: audit overhead per op vs nohooks — %s\nfigure: %s; bars: %s", workload, accel, nslabel, dlabel)
if (!has_floor) {
	set label 1 'no seed A/A control (nohooks-aa) in this run: no seed floor drawn' \
		at graph 0.02, graph 0.95 tc rgb '#b00000' front
}
if (!has_cg) {
	set label 3 'no codegen A/A control (nohooks-codegen): no codegen floor drawn' \
		at graph 0.02, graph 0.90 tc rgb '#b00000' front
}
if (devtime) {
	set label 2 'not a hook-cost measure (per-op count includes device-time spin)' \
		at graph 0.02, graph 0.85 tc rgb '#b00000' front
}
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
# the bands first, so bars and error bars sit on top of them
plot data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):\
		(-column('codegen_floor_pct')):'codegen_floor_pct' with boxxyerror \
		fs pattern 4 noborder lc rgb '#a0a0a0' title (has_cg ? 'codegen floor, nohooks-codegen (±)' : ''), \
	data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):\
		(-column('aa_floor_pct')):'aa_floor_pct' with boxxyerror \
		fs solid 1.0 noborder lc rgb floor_color title (has_floor ? 'seed floor, nohooks-aa (±)' : ''), \
	for [i=1:nv] data using (x(i)):'overhead_pct':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
		with vectors arrowstyle ci_style notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
