# overhead.gp: overhead % of cost per op versus the nohooks kernel in the same
# state and workload, per variant, clustered by audit state, error bars = the
# overhead's interval (dlabel: 'range over 3x3 seed pairs' under tcg-icount);
# the grey band is +-aa_floor_pct, the seed floor (nohooks measured again with
# other layout seeds), the hatched band +-codegen_floor_pct, the codegen floor
# (nohooks rebuilt with a neutral change that moves code).
# Input (data): cluster,state,variant,overhead_pct,ci_lo,ci_hi,aa_floor_pct,codegen_floor_pct
#   NaN = no interval / no floor for that state.
# One panel per audit state, each with its own y axis, so a +1.7% next to a
# +4,000% stays visible (a linear common axis hid them), and a key panel.
# Variables: data, variants, states (cluster order), workload, accel, unit, has_floor and has_cg (0 or 1),
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
if (!exists("states")) states = ''
nst = words(states)
if (nst == 0) {
	print "overhead.gp: set states (the clusters' state names, in order) with -e; see scripts/plots.sh"
	exit status 2
}
cols = nst + 1 <= 4 ? nst + 1 : 4
rows = int((nst + 1 + cols - 1) / cols)
set multiplot layout rows, cols title sprintf("%s: audit overhead per op vs nohooks, %% of %s — %s\nfigure: %s; bars: %s; one y axis per state%s", workload, per_op, accel, nslabel, dlabel, \
	devtime ? "\nnot a hook-cost measure (per-op count includes device-time spin)" : "") font ',12'
unset key
set xzeroaxis lt 1 lc rgb '#303030' lw 1
set xtics scale 0 format ''
set ylabel ''
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
do for [s = 0:nst - 1] {
	set xrange [s - 0.5:s + 0.5]
	# 0 always inside the axis: bars grow from it
	set yrange [*<0:0<*]
	set xlabel word(states, s + 1) font ',11'
	plot data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):\
			(-column('codegen_floor_pct')):'codegen_floor_pct' with boxxyerror \
			fs pattern 4 noborder lc rgb '#a0a0a0' notitle, \
		data using 'cluster':(0):(column('cluster') - 0.45):(column('cluster') + 0.45):\
			(-column('aa_floor_pct')):'aa_floor_pct' with boxxyerror \
			fs solid 1.0 noborder lc rgb floor_color notitle, \
		for [i=1:nv] data using (x(i)):'overhead_pct':(bar_w(nv) * 0.9) with boxes \
			lc rgb vcolor(word(variants, i)) notitle, \
		for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
			with vectors arrowstyle ci_style notitle
}
# the key panel: what the colours and bands are, and the labels of the run
unset border
unset tics
unset xlabel
unset xzeroaxis
set xrange [0:1]
set yrange [0:1]
set key inside center center vertical Left reverse noopaque samplen 2 spacing 1.1 font ',10'
if (!has_floor) {
	set label 1 'no seed A/A control (nohooks-aa) in this run: no seed floor drawn' at graph 0.0, graph 0.02 tc rgb '#b00000' font ',9'
}
if (!has_cg) {
	set label 3 'no codegen A/A control (nohooks-codegen): no codegen floor drawn' at graph 0.0, graph 0.08 tc rgb '#b00000' font ',9'
}
plot NaN with boxxyerror fs pattern 4 noborder lc rgb '#a0a0a0' title (has_cg ? 'codegen floor, nohooks-codegen (±)' : 'no codegen floor'), \
	NaN with boxes fs solid 1.0 noborder lc rgb floor_color title (has_floor ? 'seed floor, nohooks-aa (±)' : 'no seed floor'), \
	for [i=1:nv] NaN with boxes lc rgb vcolor(word(variants, i)) title word(variants, i)
unset multiplot
