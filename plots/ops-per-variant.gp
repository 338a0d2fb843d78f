# ops-per-variant.gp: median ops/s per variant, clustered by audit state, for
# one workload, with the 95% bootstrap CI as error bars.
# Input (data): cluster,state,variant,ops_per_sec,ci_lo,ci_hi
#   cluster = 0-based position of the state on the x axis; NaN = no CI.
# Variables: data, variants ('a b c', bar order), workload, accel, unit;
# term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "ops-per-variant.gp: set data, variants and workload with -e; see scripts/plots.sh"
	exit status 2
}
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set yrange [0:*]
set xlabel 'audit state'
set ylabel ops_label
set title sprintf('%s: throughput per kernel variant (median, 95%% CI) — %s', workload, accel)
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
plot for [i=1:nv] data using (x(i)):'ops_per_sec':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'ci_lo':(0):(column('ci_hi') - column('ci_lo')) \
		with vectors arrowstyle ci_style notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
