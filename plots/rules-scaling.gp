# rules-scaling.gp: cost per op versus the number of audit syscall rules loaded
# (idle = 0 rules, syscall-N = N rules), one line per variant, for the one
# workload the driver picked; x is the rule count on a linear axis (0 = idle),
# one marker and dash per variant so overlapping lines stay apart.
# Input (data): variant,rules,state,ns_per_op,ci_lo,ci_hi (rows sorted by
#   variant, then rules; ns_per_op is in the run's unit; NaN = no interval).
# Variables: data, variants, workload, accel, unit,
# opslabel, nslabel, dlabel: what the figure and its interval are (from
# summary.csv's estimator/interval/delta_interval columns, set by plots.sh);
# devtime=1: the workload's per-op count includes device time.
# term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "rules-scaling.gp: set data, variants and workload with -e; see scripts/report/plots.sh"
	exit status 2
}
nv = words(variants)
xpos(n) = n
stats data using 'rules' nooutput
set xrange [-0.03 * STATS_max:STATS_max * 1.03]
set yrange [0:*]
set xlabel 'audit syscall rules loaded (0 = idle: audit on, no rules)'
set ylabel sprintf('cost per op (%s, %s)', per_op, accel)
set title sprintf("%s: cost per op versus audit rules — %s\nfigure and bars: %s", workload, accel, nslabel)
set grid xtics
is(i) = strcol('variant') eq word(variants, i)
plot for [i=1:nv] data using (is(i) ? xpos(column('rules')) : NaN):'ns_per_op':'ci_lo':'ci_hi' \
		with yerrorlines lc rgb vcolor(word(variants, i)) dt vdash(word(variants, i)) \
		lw 2 pt vpoint(word(variants, i)) ps 1.3 title word(variants, i)
