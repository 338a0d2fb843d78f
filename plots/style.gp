# style.gp: the look shared by every figure in plots/. scripts/report/plots.sh runs
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

# one colour (and point type) per variant, the same in every figure, from
# the variant catalog (scripts/report/plots.sh passes vnames, vroles, vks): the
# baseline, its A/A control and the controls in greys and purple, dashed;
# each design a hue and a point type of its own, by its place among the
# designs (its ports on other base trees share them). A variant the catalog
# lacks is drawn as a design keyed by the length of its name.
if (!exists("vnames")) vnames = ''; vroles = ''; vks = ''
vidx(v, i) = i > words(vnames) ? 0 : word(vnames, i) eq v ? i : vidx(v, i + 1)
vrole(v) = vidx(v, 1) > 0 ? word(vroles, vidx(v, 1)) : 'design'
vkey(v) = vidx(v, 1) > 0 ? word(vks, vidx(v, 1)) + 0 : strlen(v)
design_colors = '0xd62728 0x2ca02c 0x1f77b4 0xff7f0e 0x9467bd 0x17becf 0xbcbd22 0x8c564b 0xe377c2'
design_points = '5 9 7 13 15 11 12 14 10'
vcolor(v) = vrole(v) eq 'baseline' ? 0x404040 : \
	vrole(v) eq 'seed-control' ? 0xa0a0a0 : \
	vrole(v) eq 'config-floor' ? 0x6f5499 : \
	vrole(v) ne 'design' ? 0x7f7f7f : \
	word(design_colors, 1 + (vkey(v) + 8) % 9) + 0
vpoint(v) = vrole(v) eq 'baseline' ? 4 : vrole(v) eq 'seed-control' ? 6 : \
	vrole(v) eq 'config-floor' ? 8 : vrole(v) ne 'design' ? 3 : \
	word(design_points, 1 + (vkey(v) + 8) % 9) + 0
# the baseline and the controls dashed in line plots
vdash(v) = vrole(v) eq 'design' ? 1 : 2

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
