# profile-share.gp: share of io_issue_sqe time spent in the audit hooks per
# variant, clustered by audit state, for one workload, from the guest's ftrace
# function profiler: sum over __audit_uring_entry, __audit_uring_exit,
# audit_reset_context and audit_filter_* of avg_ns * hits, divided by
# io_issue_sqe's total_ns, pooled over reps; error bars = range over the profiled
# reps (the title says how many; one rep has no range).
# Input (data): cluster,state,variant,share_pct,rep_min_pct,rep_max_pct,reps,hook_ns,io_issue_sqe_ns
# Variables: data, variants, workload, accel; term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data") || !exists("variants") || !exists("workload")) {
	print "profile-share.gp: set data, variants and workload with -e; see scripts/plots.sh"
	exit status 2
}
nv = words(variants)
# the bars are the range over the reps that were profiled: say how many
stats data using 'reps' nooutput
prof_reps = int(STATS_max)
prof_label = prof_reps < 2 ? sprintf('%d profiled rep: no range', prof_reps) : sprintf('range over %d profiled reps', prof_reps)
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set yrange [0:*]
set xlabel 'audit state'
set ylabel sprintf('audit hooks, %% of io_issue_sqe time (ftrace profile, %s)', accel)
set title sprintf("%s: share of io_issue_sqe time in the audit hooks — %s\nbars: %s", workload, accel, prof_label)
x(i) = strcol('variant') eq word(variants, i) ? bar_x(column('cluster'), i - 1, nv) : NaN
plot for [i=1:nv] data using (x(i)):'share_pct':(bar_w(nv) * 0.9) with boxes \
		lc rgb vcolor(word(variants, i)) title word(variants, i), \
	for [i=1:nv] data using (x(i)):'rep_min_pct':(0):(column('rep_max_pct') - column('rep_min_pct')) \
		with vectors arrowstyle ci_style notitle, \
	data using 'cluster':(NaN):xtic(strcol('state')) notitle
