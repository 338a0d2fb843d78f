# audit-share.gp: per variant and audit state, the share of the op's executed
# instructions that are in functions named *audit* (the QEMU plugin's exact
# per-symbol counts in attribution.csv, one attribution boot, seed 1): where
# the per-op cost goes, without ftrace's own per-call overhead.
# Input (data): cluster,state,variant,share_pct,audit_instructions_per_op,total_instructions_per_op
# Variables: data, variants, workload, accel; term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "audit-share.gp: set data, variants and workload with -e; see scripts/report/plots.sh"
	exit status 2
}
nv = words(variants)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set yrange [0:*]
set xlabel 'audit state'
set ylabel sprintf('instructions in *audit* functions, %% of the op (%s)', accel)
set title sprintf("%s: share of each op's instructions in audit functions — %s\nexact counts from the plugin attribution (one boot, seed 1): no interval", workload, accel)
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
plot for [i=1:nv] data using (x(i)):'share_pct':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
