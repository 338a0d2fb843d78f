# ops-per-variant.gp: ops/s per variant, clustered by audit state, for one
# workload; the figure and the error bars are what summary.csv says they are
# (opslabel: 'maximum over 3 seeds [range]' under tcg-icount, the median with
# a bootstrap CI only at n >= 10 under a real-time accelerator).
# Input (data): cluster,state,variant,ops_per_sec,ci_lo,ci_hi
#   cluster = 0-based position of the state on the x axis; NaN = no interval.
# Variables: data, variants ('a b c', bar order), workload, accel, unit,
# opslabel, nslabel, dlabel: what the figure and its interval are (from
# summary.csv's estimator/interval/delta_interval columns, set by plots.sh);
# devtime=1: the workload's per-op count includes device time.
# term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "ops-per-variant.gp: set data, variants and workload with -e; see scripts/report/plots.sh"
	exit status 2
}
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
# the axis starts at 0: a cut axis magnifies a 0.1% difference into a gap;
# the Δ figure (overhead-W) is where differences are read
set yrange [0:*]
set xlabel 'audit state'
set ylabel ops_label
set title sprintf("%s: throughput per kernel variant — %s\nfigure and bars: %s", workload, accel, opslabel)
if (devtime) {
	set label 2 'not a hook-cost measure (per-op count includes device-time spin)' \
		at graph 0.02, graph 0.95 tc rgb '#b00000' front
}
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
plot for [i=1:nv] data using (x(i)):'ops_per_sec' with points pt 7 ps 1.4 \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
		with vectors arrowstyle ci_style notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
