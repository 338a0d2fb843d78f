# skipped-audited.gp: per design, the Δ instructions per op versus nohooks of a
# skipped op (IORING_OP_NOP, bench-nop: upstream and static-key skip it through
# audit_skip) beside that of an audited op (OPENAT/CLOSE, bench-openclose:
# every design audits it), audit enabled without rules (state idle). Log y, so
# +0.0 and +80 are both readable: a value below 0.1 is drawn at 0.1, and every
# bar carries its value. Error bars: the delta's interval (dlabel).
# Input (data): cluster,variant,skipped,skipped_lo,skipped_hi,audited,audited_lo,audited_hi
# Variables: data, accel, unit, nslabel, dlabel; term and out as in style.gp.
if (!exists("style_loaded")) load 'style.gp'
if (!exists("data")) {
	print "skipped-audited.gp: set data with -e; see scripts/report/plots.sh"
	exit status 2
}
stats data using 'cluster' nooutput
set xrange [-0.5:STATS_max + 0.5]
set logscale y
set yrange [0.1:*]
clip(v) = v < 0.1 ? 0.1 : v
set xlabel 'design (audit enabled, no rules)'
set ylabel sprintf('Δ %s vs nohooks (log scale; < 0.1 drawn at 0.1)', per_op)
set title sprintf("skipped op (NOP) against audited op (OPENAT/CLOSE), audit idle — %s\nfigure: %s; no error bars (Δ intervals, %s, in summary.csv)", accel, nslabel, dlabel)
w = 0.35
plot data using ($1 - w / 2):(clip(column('skipped'))):(w * 0.95) with boxes lc rgb '#9ecae1' title 'skipped op (NOP)', \
	data using ($1 + w / 2):(clip(column('audited'))):(w * 0.95) with boxes lc rgb '#de2d26' title 'audited op (OPENAT/CLOSE)', \
	data using ($1 - w / 2):(clip(column('skipped'))):(sprintf('%+.1f', column('skipped'))) with labels offset 0,0.8 font ',10' notitle, \
	data using ($1 + w / 2):(clip(column('audited'))):(sprintf('%+.1f', column('audited'))) with labels offset 0,0.8 font ',10' notitle, \
	data using 'cluster':(NaN):xtic(strcol('variant')) notitle
