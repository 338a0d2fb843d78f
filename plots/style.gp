# style.gp: the look shared by every figure in plots/. scripts/plots.sh runs
#   gnuplot -e "term='pngcairo'; out='x.png'; data='x.csv'; accel='kvm'; ..." \
#       plots/style.gp plots/FIGURE.gp
# from the directory holding the CSV, so a figure script run by hand from
# plots/ loads this file itself (see the first line of each figure script).
# Variables the caller may set:
#   term    'pngcairo' (default) or 'svg'
#   out     output file name (default: stdout of the terminal)
#   width, height   canvas size in pixels (default 1000x560)
style_loaded = 1

if (!exists("term")) term = 'pngcairo'
if (!exists("width")) width = 1000
if (!exists("height")) height = 560
set encoding utf8
if (term eq 'svg') {
	set terminal svg size width,height dynamic noenhanced font 'DejaVu Sans,12' background rgb 'white'
} else {
	if (term eq 'pngcairo') {
		set terminal pngcairo size width,height noenhanced font 'DejaVu Sans,11' background rgb 'white'
	} else {
		print sprintf("style.gp: unknown term '%s'; use 'pngcairo' or 'svg'", term)
		exit status 2
	}
}
if (exists("out")) set output out

# every derived CSV has a header line; columns are used by name
set datafile separator comma
set datafile columnheaders

# one colour (and point type) per variant, the same in every figure: the
# baselines in greys, the audited kernels in distinct hues. A variant not
# listed here gets a colour picked by the length of its name, still stable.
vspare(k) = k == 0 ? 0xff7f0e : k == 1 ? 0x8c564b : k == 2 ? 0xe377c2 : \
	k == 3 ? 0x17becf : k == 4 ? 0xbcbd22 : 0x7f7f7f
vcolor(v) = v eq 'nohooks' ? 0x404040 : \
	v eq 'nohooks-aa' ? 0xa0a0a0 : \
	v eq 'noaudit' ? 0x6f5499 : \
	v eq 'upstream' ? 0xd62728 : \
	v eq 'rfc' ? 0x1f77b4 : \
	v eq 'static-key' ? 0x2ca02c : \
	v eq 'gate-flag' ? 0x17becf : \
	v eq 'key-calls' ? 0xbcbd22 : \
	vspare(strlen(v) % 6)
vpoint(v) = v eq 'nohooks' ? 4 : v eq 'nohooks-aa' ? 6 : v eq 'noaudit' ? 8 : \
	v eq 'upstream' ? 5 : v eq 'rfc' ? 7 : v eq 'static-key' ? 9 : \
	v eq 'gate-flag' ? 13 : v eq 'key-calls' ? 14 : 11 + strlen(v) % 4
# baselines dashed in line plots
vdash(v) = (v eq 'nohooks' || v eq 'nohooks-aa' || v eq 'noaudit') ? 2 : 1

# the floor bands; interval whiskers are vectors with flat caps (gnuplot's
# yerrorbars leave a gap around the point, which hides small intervals on bars):
#   using x:lo:(0):(hi - lo) with vectors arrowstyle ci_style
floor_color = 0xe8e8e8
err_color = 0x000000
ci_style = 8
set style arrow ci_style heads size screen 0.005,90 lc rgb err_color lw 1.2

# clustered bars: cluster c (0-based) holds n bars, slot s (0-based) of them
bar_w(n) = 0.8 / n
bar_x(c, s, n) = c - 0.4 + bar_w(n) * (s + 0.5)

# cost-per-op unit for axis labels: 'instructions' under TCG icount, 'ns' under KVM
if (!exists("unit")) unit = 'ns'
if (!exists("accel")) accel = 'unknown accel'
# what a figure and its interval are: plots.sh reads them from summary.csv
if (!exists("opslabel")) opslabel = 'estimator not given'
if (!exists("nslabel")) nslabel = 'estimator not given'
if (!exists("dlabel")) dlabel = 'interval not given'
if (!exists("devtime")) devtime = 0
per_op = unit . '/op'
# ops/s is per guest second; under icount a guest second is 10^9 instructions
ops_label = unit eq 'instructions' ? \
	sprintf('ops per guest second (%s: 1 guest ns = 1 instruction)', accel) : \
	sprintf('ops/s (%s)', accel)

set style fill solid 0.85 border lc rgb '#303030'
set grid ytics lc rgb '#d0d0d0' lw 1 lt 1
set grid noxtics
set border 3 lc rgb '#303030'
set tics nomirror out
set xtics scale 0
set key outside right top vertical Left reverse noopaque samplen 2 spacing 1.1
set title font ',13'
set bars small
