// SPDX-License-Identifier: GPL-2.0
/*
 * labstat: statistics over the lab's cells.csv (one row per measured rep).
 *
 *   labstat summary  [-B base] [-a aa] [-b tree] [-R n] [-s seed] [-c conf] CELLS.csv
 *   labstat compare  [-R n] [-s seed] [-c conf] CELLS_A.csv CELLS_B.csv
 *   labstat describe CELLS.csv
 *   labstat ranksum  [-c conf] X1,X2,... Y1,Y2,...
 *   labstat bh       [-q fdr] P1 P2 ...
 *
 * Figures: exact (tcg-icount, every seed within the resolution: the
 * minimum) or the median (with the range, or a bootstrap CI at n >= 10
 * under a real-time accel). Changes against the base variant: exact when
 * both sides are exact, else the Hodges-Lehmann shift with its
 * distribution-free interval and the exact permutation p-value of the
 * rank-sum test; significance by Benjamini-Hochberg over all rows (-q).
 * The A/A variant is pooled into the base and gates its state/workload;
 * the controls' changes are printed, no longer floors. CSV on stdout,
 * diagnostics on stderr.
 *
 * Base trees: an optional base column names each row's kernel base tree
 * (6.1, 6.12; -b for rows without one). -B, -a and -g take one variant or
 * BASE=VARIANT,... (one per base). A change is only ever taken between groups
 * of one base: a row whose base has no base variant has no delta.
 *
 * Reproducibility: every interval is computed from a GSL mt19937 generator
 * reseeded, just before it is used, from the seed (-s) mixed with a hash of
 * the group's key (variant, state, workload) and of what is estimated. A
 * group's values are sorted before resampling. So an interval depends only on
 * the seed, the resample count and the multiset of values in the groups
 * involved: not on row order, not on which other groups are in the file, and
 * not on the machine (the hash is over bytes, mt19937 is portable).
 *
 * Small n: for n <= 5 the 95% percentile-bootstrap interval of a median is
 * exactly [min, max] of the sample (a resampled median equals the minimum
 * with probability 7/27 at n=3, above 2.5%), and [min, max] covers the true
 * median only with probability 1 - 2^(1-n): 75% at n=3. So below MIN_BOOT_N
 * reps no interval is called a CI: it is the range, and labelled so.
 *
 * Exit: 0 ok, 1 runtime error, 2 bad usage or bad input.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define DEF_RESAMPLES	10000
#define DEF_SEED	20211
#define MIN_BOOT_N	10	/* bootstrap CIs only from this many reps up */
/* resamples of a rerun interval (at most -R): two HL shifts each */
#define RERUN_RESAMPLES	2000
/*
 * Under icount a delta below this many instructions per op is never
 * significant, whatever the floors say: one timer interrupt more or less in
 * a window of ~10^6 ops moves a cell by ~0.001 (seen: static-key -0.001
 * instructions per NOP against an A/A of exactly 0.000).
 */
#define ICOUNT_RESOLUTION	0.01
#define DEF_CONF	0.95
#define MIN_RESAMPLES	100
#define MAX_RESAMPLES	10000000
#define DEF_FDR		0.05
/* exact permutation distributions up to this many values in a comparison */
#define MAX_EXACT_N	100

#define EXIT_RUNTIME	1
#define EXIT_INPUT	2

static const char *prog = "labstat";

/* columns every cells.csv must have, found by header name */
enum col {
	COL_VARIANT, COL_STATE, COL_WORKLOAD, COL_REP, COL_ACCEL,
	COL_STATUS, COL_OPS, COL_NS, NR_COLS
};

static const char *const col_name[NR_COLS] = {
	[COL_VARIANT]	= "variant",
	[COL_STATE]	= "state",
	[COL_WORKLOAD]	= "workload",
	[COL_REP]	= "rep",
	[COL_ACCEL]	= "accel",
	[COL_STATUS]	= "status",
	[COL_OPS]	= "ops_per_sec",
	[COL_NS]	= "ns_per_op",
};

struct vec {
	double *v;
	size_t n, cap;
};

struct okrow {
	char *rep;
	size_t line;
	double ns, ops;
};

/* one (variant, state, workload): its ok reps, and counts of the others */
struct group {
	char *variant, *state, *workload;
	char *base;		/* the base tree (base column, or -b) */
	char *accel;		/* NULL until a row is seen */
	bool accel_mixed;
	bool icount;		/* deterministic tcg-icount: minimum estimator */
	bool device_time;	/* workload's per-op count depends on device time */
	struct okrow *ok;	/* the ok rows, in file order */
	size_t nok, okcap;
	struct vec ns, ops;	/* their values, sorted, once loading is done */
	size_t failed, na;
};

struct table {
	const char *path;
	struct group *g;
	size_t n, cap;
};

struct fields {
	char **f;
	size_t n, cap;
};

/* bootstrap settings and scratch space */
struct boot {
	size_t resamples;
	unsigned long seed;
	double conf;
	gsl_rng *rng;
	double *rep1, *rep2;	/* one replicate statistic per resample */
	double *buf;		/* one resample */
	size_t bufcap;
};

/* what an interval is */
enum ivkind { IV_NONE, IV_RANGE, IV_BOOT };

/* a point estimate and its interval; either may be missing */
struct est {
	bool have;
	bool have_ci;
	enum ivkind kind;
	double m, lo, hi;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s summary  [-B base] [-a aa] [-g codegen] [-b tree] [-D workloads] [-q fdr]\n"
"                       [-R resamples] [-s seed] [-c conf] CELLS.csv\n"
"       %s compare  [-R resamples] [-s seed] [-c conf] CELLS_A.csv CELLS_B.csv\n"
"       %s describe CELLS.csv\n"
"       %s ranksum  [-c conf] X1,X2,... Y1,Y2,...\n"
"       %s bh       [-q fdr] P1 P2 ...\n"
"\n"
"CELLS.csv needs a header naming at least the columns\n"
"  variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op\n"
"in any order (other columns are ignored but an optional base, the row's\n"
"base tree). Only status 'ok' rows are used;\n"
"'n/a' (or 'na') rows are counted in na, any other status in failed.\n"
"\n"
"Figure of a group (estimator; interval says what the interval is):\n"
"  exact: accel tcg (tcg-icount) and every seed within %g instructions/op:\n"
"    the minimum (maximum ops/s), interval the range.\n"
"  median: otherwise. Under tcg with the range over seeds (a noisy icount\n"
"    cell's low mode does not repeat: its minimum is not a stable figure);\n"
"    under a real-time accel (kvm, tcg-wall) with a percentile-bootstrap\n"
"    CI only when n >= %d, else the range (at n <= 5 the bootstrap CI of a\n"
"    median is [min, max] anyway, and covers it only 75%% of the time at 3).\n"
"\n"
"Change of a variant against the base (same state and workload), column\n"
"method:\n"
"  exact: both sides exact (tcg): delta = difference of the exact values,\n"
"    interval the range over seed pairs; significant iff |delta| >= %g\n"
"    (the resolution). No test: there is no seed noise to test against.\n"
"  rank-sum: otherwise, n >= 2 on both sides: the two-sided Wilcoxon-Mann-\n"
"    Whitney rank-sum test on the per-seed values, its exact permutation\n"
"    p-value (mid-ranks for ties; normal approximation above %d values),\n"
"    the Hodges-Lehmann shift (median of all pairwise differences) and its\n"
"    distribution-free interval from the same null distribution, the\n"
"    narrowest with coverage >= conf; when none reaches conf (3 vs 3\n"
"    seeds: 90%%) the range over seed pairs,\n"
"    and delta_coverage says what it covers.\n"
"  The base sample pools the base variant with the A/A variant (the base\n"
"  kernel under other seeds) for every row but the A/A row itself: at 3\n"
"  seeds a side no rank test reaches p < 0.1, against 6 base seeds 0.024.\n"
"  significant: Benjamini-Hochberg over every hook-cost row with a method\n"
"  but the A/A rows (exact rows enter with p = 0 or 1), yes iff q_value <=\n"
"  fdr: the expected share of false discoveries among the yes rows is at\n"
"  most fdr (error_control fdr-bh). The A/A rows are a gate, not findings:\n"
"  an exact one is yes iff |delta| >= the resolution (error_control exact);\n"
"  the tested ones are one family under Holm's step-down rule, q_value its\n"
"  adjusted p, yes iff q_value <= fdr: under exchangeable seeds the chance\n"
"  that any A/A row of the run is yes is at most fdr (fwer-holm). A row\n"
"  whose A/A control is itself significant is no (the base does not repeat\n"
"  under other seeds). 'n/a' for -D workloads (never starred); '-' for the\n"
"  base itself, no base, or one seed on a side.\n"
"  aa_floor_pct, codegen_floor_pct: |overhead| of the A/A and codegen\n"
"  control rows, for the record; not part of the rule (one control\n"
"  difference is one sample of the noise).\n"
"  codegen_floor: |delta| of the codegen control (the base kernel with one\n"
"  neutral source change inside io_issue_sqe(): its codegen, not its\n"
"  semantics, differs) in the same state and workload, unit/op;\n"
"  beyond_codegen: yes when the change lies beyond +-codegen_floor (exact:\n"
"  |delta| - floor >= the resolution; tested: the whole interval), no when\n"
"  a neutral codegen change moved the cell as much: a significant delta\n"
"  there may be code generation rather than the design's work. Practical,\n"
"  not statistical: it never changes significant.\n"
"  measure: device-time for -D workloads, else hook-cost.\n"
"compare: per (variant,state,workload) in both files, change %% of the\n"
"  figure from A to B, 100*(f_b/f_a - 1), with its interval (labelled);\n"
"  significant = yes if the interval excludes 0.\n"
"describe: a human-readable table of n, counts, median and range.\n"
"ranksum: the rank-sum p-value, Hodges-Lehmann shift of Y against X, its\n"
"  interval and coverage, as summary computes them.\n"
"bh: Benjamini-Hochberg q-values of the p-values, in the order given.\n"
"\n"
"  -B base       base variant: the catalog's baseline (default none: no\n"
"                deltas, figures only)\n"
"  -a aa         A/A variant: base kernel, other seeds (default none)\n"
"  -g codegen    codegen control variant (default none)\n"
"                -B, -a, -g: one variant, or BASE=VARIANT,... one per base\n"
"                tree; a change is only taken within one base tree\n"
"  -b tree       the base tree of rows without a base column (default none)\n"
"  -D w1,w2      workloads whose per-op count depends on device time\n"
"                (polled spin, SQPOLL): not hook-cost measures (default none)\n"
"  -q fdr        false discovery rate, 0 < fdr < 1 (default %.2f)\n"
"  -R resamples  bootstrap resamples, %d..%d (default %d)\n"
"  -s seed       bootstrap seed, output is byte-reproducible (default %d)\n"
"  -c conf       confidence level, 0 < conf < 1 (default %.2f)\n"
"  -h            this help\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 bad usage or bad input.\n",
		prog, prog, prog, prog, prog, ICOUNT_RESOLUTION, MIN_BOOT_N,
		ICOUNT_RESOLUTION, MAX_EXACT_N, DEF_FDR, MIN_RESAMPLES, MAX_RESAMPLES, DEF_RESAMPLES, DEF_SEED,
		DEF_CONF);
}

static int nomem(const char *what)
{
	fprintf(stderr, "%s: out of memory (%s); free memory or split the input\n",
		prog, what);
	return EXIT_RUNTIME;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return p;
	ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	np = realloc(p, ncap * size);
	if (!np)
		return NULL;
	*cap = ncap;
	return np;
}

static int vec_push(struct vec *v, double x)
{
	double *np = grow(v->v, &v->cap, v->n + 1, sizeof(*v->v));

	if (!np)
		return -ENOMEM;
	v->v = np;
	v->v[v->n++] = x;
	return 0;
}

/*
 * Split one CSV line in place. Fields may be "quoted" ("" is a quote); blanks
 * around a field are dropped. Returns 0, -EINVAL for a malformed quote or
 * -ENOMEM.
 */
static int split_csv(char *s, struct fields *f)
{
	f->n = 0;
	for (;;) {
		char *start = s, *out = s, **nf;
		char c;

		nf = grow(f->f, &f->cap, f->n + 1, sizeof(*f->f));
		if (!nf)
			return -ENOMEM;
		f->f = nf;
		f->f[f->n++] = start;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '"') {
			s++;
			for (;;) {
				if (*s == '\0')
					return -EINVAL;
				if (*s == '"') {
					if (s[1] != '"')
						break;
					s++;
				}
				*out++ = *s++;
			}
			s++;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != ',' && *s != '\0')
				return -EINVAL;
		} else {
			while (*s != ',' && *s != '\0')
				*out++ = *s++;
			while (out > start && (out[-1] == ' ' || out[-1] == '\t'))
				out--;
		}
		c = *s;
		*out = '\0';
		if (c == '\0')
			return 0;
		s++;
	}
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static bool blank(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* a finite decimal number > 0, nothing else in the field */
static bool parse_pos(const char *s, double *out)
{
	char *end;
	double v;

	/* decimal only: strtod would also take hex (0x10), inf and nan */
	if (s[strspn(s, "0123456789.eE+-")])
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v) || v <= 0)
		return false;
	*out = v;
	return true;
}

static struct group *find_group(const struct table *t, const char *variant,
				const char *state, const char *workload)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct group *g = &t->g[i];

		if (!strcmp(g->variant, variant) && !strcmp(g->state, state) &&
		    !strcmp(g->workload, workload))
			return g;
	}
	return NULL;
}

static struct group *add_group(struct table *t, const char *variant,
			       const char *state, const char *workload,
			       const char *base)
{
	struct group *ng, *g;

	ng = grow(t->g, &t->cap, t->n + 1, sizeof(*t->g));
	if (!ng)
		return NULL;
	t->g = ng;
	g = &t->g[t->n];
	memset(g, 0, sizeof(*g));
	g->variant = strdup(variant);
	g->state = strdup(state);
	g->workload = strdup(workload);
	g->base = strdup(base);
	if (!g->variant || !g->state || !g->workload || !g->base) {
		free(g->variant);
		free(g->state);
		free(g->workload);
		free(g->base);
		return NULL;
	}
	t->n++;
	return g;
}

static void free_table(struct table *t)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		struct group *g = &t->g[i];

		free(g->variant);
		free(g->state);
		free(g->workload);
		free(g->base);
		free(g->accel);
		free(g->ns.v);
		free(g->ops.v);
		for (j = 0; j < g->nok; j++)
			free(g->ok[j].rep);
		free(g->ok);
	}
	free(t->g);
	t->g = NULL;
	t->n = t->cap = 0;
}

/* record one ok row; a second ok row for the same rep is bad input */
static int add_ok(struct table *t, struct group *g, const char *rep,
		  size_t line, double ns, double ops)
{
	struct okrow *nok;
	size_t i;

	for (i = 0; i < g->nok; i++) {
		if (strcmp(g->ok[i].rep, rep))
			continue;
		fprintf(stderr,
			"%s: %s:%zu: rep '%s' of %s/%s/%s is already ok on line %zu; remove the duplicate row (were two runs concatenated?)\n",
			prog, t->path, line, rep, g->variant, g->state,
			g->workload, g->ok[i].line);
		return EXIT_INPUT;
	}
	nok = grow(g->ok, &g->okcap, g->nok + 1, sizeof(*g->ok));
	if (!nok)
		return nomem("reading cells");
	g->ok = nok;
	nok = &g->ok[g->nok];
	nok->rep = strdup(rep);
	if (!nok->rep)
		return nomem("reading cells");
	nok->line = line;
	nok->ns = ns;
	nok->ops = ops;
	g->nok++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Read a cells.csv into t (t->path must be set). Returns 0, EXIT_INPUT after
 * a one-line message naming file, line and problem, or EXIT_RUNTIME.
 */
static const char *row_base_default = "";	/* -b */

static int load_cells(struct table *t)
{
	struct fields f = { 0 };
	size_t lineno = 0, ncols, i, j, len = 0;
	int col[NR_COLS], colbase = -1, ret = EXIT_INPUT, err;
	char *line = NULL, *hdr;
	FILE *fp;

	fp = fopen(t->path, "r");
	if (!fp) {
		fprintf(stderr, "%s: fopen %s: %s; check the path\n", prog,
			t->path, strerror(errno));
		return errno == ENOENT || errno == ENOTDIR ? EXIT_INPUT :
							     EXIT_RUNTIME;
	}

	errno = 0;
	if (getline(&line, &len, fp) < 0) {
		if (ferror(fp))
			goto err_read;
		fprintf(stderr, "%s: %s: empty file, expected a header line naming the columns\n",
			prog, t->path);
		goto err;
	}
	lineno = 1;
	chomp(line);
	hdr = line;
	if (!strncmp(hdr, "\xef\xbb\xbf", 3))	/* UTF-8 byte order mark */
		hdr += 3;
	err = split_csv(hdr, &f);
	if (err == -ENOMEM)
		goto err_nomem;
	if (err) {
		fprintf(stderr, "%s: %s:1: unterminated or misplaced quote in header\n",
			prog, t->path);
		goto err;
	}
	ncols = f.n;
	for (i = 0; i < NR_COLS; i++) {
		col[i] = -1;
		for (j = 0; j < ncols; j++) {
			if (strcmp(f.f[j], col_name[i]))
				continue;
			if (col[i] >= 0) {
				fprintf(stderr, "%s: %s:1: column '%s' appears twice in the header; keep one\n",
					prog, t->path, col_name[i]);
				goto err;
			}
			col[i] = (int)j;
		}
		if (col[i] < 0) {
			fprintf(stderr, "%s: %s:1: no '%s' column in the header; cells.csv needs variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op\n",
				prog, t->path, col_name[i]);
			goto err;
		}
	}
	/* optional: the base tree of the row's kernel */
	for (j = 0; j < ncols; j++) {
		if (strcmp(f.f[j], "base"))
			continue;
		if (colbase >= 0) {
			fprintf(stderr, "%s: %s:1: column 'base' appears twice in the header; keep one\n",
				prog, t->path);
			goto err;
		}
		colbase = (int)j;
	}

	for (;;) {
		const char *v, *st, *wl, *rep, *accel, *status, *base;
		struct group *g;
		double ns, ops;

		errno = 0;
		if (getline(&line, &len, fp) < 0) {
			if (ferror(fp))
				goto err_read;
			break;
		}
		lineno++;
		chomp(line);
		if (blank(line))
			continue;
		err = split_csv(line, &f);
		if (err == -ENOMEM)
			goto err_nomem;
		if (err) {
			fprintf(stderr, "%s: %s:%zu: unterminated or misplaced quote\n",
				prog, t->path, lineno);
			goto err;
		}
		if (f.n != ncols) {
			fprintf(stderr, "%s: %s:%zu: %zu fields, the header has %zu; fix the row\n",
				prog, t->path, lineno, f.n, ncols);
			goto err;
		}
		v = f.f[col[COL_VARIANT]];
		st = f.f[col[COL_STATE]];
		wl = f.f[col[COL_WORKLOAD]];
		rep = f.f[col[COL_REP]];
		accel = f.f[col[COL_ACCEL]];
		status = f.f[col[COL_STATUS]];
		for (i = 0; i < NR_COLS; i++) {
			if (i == COL_OPS || i == COL_NS || *f.f[col[i]])
				continue;
			fprintf(stderr, "%s: %s:%zu: empty %s; every row needs one\n",
				prog, t->path, lineno, col_name[i]);
			goto err;
		}

		base = colbase >= 0 && *f.f[colbase] ? f.f[colbase] :
						       row_base_default;
		/* a variant is one kernel: one base tree in every row */
		for (i = 0; i < t->n; i++)
			if (!strcmp(t->g[i].variant, v) &&
			    strcmp(t->g[i].base, base)) {
				fprintf(stderr, "%s: %s:%zu: %s is on base '%s' here and on '%s' before; a variant has one base tree, fix the base column\n",
					prog, t->path, lineno, v, base,
					t->g[i].base);
				goto err;
			}
		g = find_group(t, v, st, wl);
		if (!g) {
			g = add_group(t, v, st, wl, base);
			if (!g)
				goto err_nomem;
		}
		if (!g->accel) {
			g->accel = strdup(accel);
			if (!g->accel)
				goto err_nomem;
		} else if (strcmp(g->accel, accel)) {
			if (!g->accel_mixed)
				fprintf(stderr, "%s: warning: %s:%zu: %s/%s/%s has accel '%s' here and '%s' before; its statistics mix both\n",
					prog, t->path, lineno, v, st, wl,
					accel, g->accel);
			g->accel_mixed = true;
		}

		if (!strcmp(status, "n/a") || !strcmp(status, "na")) {
			g->na++;
			continue;
		}
		if (strcmp(status, "ok")) {
			g->failed++;
			continue;
		}
		if (!parse_pos(f.f[col[COL_NS]], &ns)) {
			fprintf(stderr, "%s: %s:%zu: ns_per_op '%s' is not a positive number; fix it or set the row's status to failed\n",
				prog, t->path, lineno, f.f[col[COL_NS]]);
			goto err;
		}
		if (!parse_pos(f.f[col[COL_OPS]], &ops)) {
			fprintf(stderr, "%s: %s:%zu: ops_per_sec '%s' is not a positive number; fix it or set the row's status to failed\n",
				prog, t->path, lineno, f.f[col[COL_OPS]]);
			goto err;
		}
		ret = add_ok(t, g, rep, lineno, ns, ops);
		if (ret)
			goto err;
		ret = EXIT_INPUT;
	}

	/* sorted values: intervals do not depend on the order of the rows */
	for (i = 0; i < t->n; i++) {
		struct group *g = &t->g[i];

		for (j = 0; j < g->nok; j++)
			if (vec_push(&g->ns, g->ok[j].ns) ||
			    vec_push(&g->ops, g->ok[j].ops))
				goto err_nomem;
		qsort(g->ns.v, g->ns.n, sizeof(double), cmp_double);
		qsort(g->ops.v, g->ops.n, sizeof(double), cmp_double);
		/* deterministic: only plain tcg (icount) rows, never mixed */
		g->icount = g->accel && !g->accel_mixed &&
			    !strcmp(g->accel, "tcg");
	}
	ret = 0;
	goto out;

err_read:
	if (errno == EISDIR) {
		fprintf(stderr, "%s: %s is a directory; give the cells.csv in it\n",
			prog, t->path);
		goto err;
	}
	fprintf(stderr, "%s: reading %s: %s; check the file and the disk\n",
		prog, t->path, strerror(errno ? errno : EIO));
	ret = EXIT_RUNTIME;
	goto err;
err_nomem:
	ret = nomem("reading cells");
err:
	free_table(t);
out:
	free(f.f);
	free(line);
	fclose(fp);
	return ret;
}

/* FNV-1a over a string and its terminating NUL */
static uint64_t fnv(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	} while (*s++);
	return h;
}

/*
 * The generator is reseeded for every interval, from the seed and what the
 * interval is of: a group's interval is the same whatever else is in the file.
 */
static void reseed(struct boot *b, const char *tag, const struct group *g)
{
	char s[32];
	uint64_t h = 14695981039346656037ULL;

	snprintf(s, sizeof(s), "%lu", b->seed);
	h = fnv(h, s);
	h = fnv(h, tag);
	h = fnv(h, g->variant);
	h = fnv(h, g->state);
	h = fnv(h, g->workload);
	/* mt19937 takes 32 bits of seed */
	gsl_rng_set(b->rng, (unsigned long)((h ^ (h >> 32)) & 0xffffffffUL));
}

static int boot_init(struct boot *b)
{
	b->rng = gsl_rng_alloc(gsl_rng_mt19937);
	b->rep1 = malloc(b->resamples * sizeof(double));
	b->rep2 = malloc(b->resamples * sizeof(double));
	if (!b->rng || !b->rep1 || !b->rep2)
		return nomem("bootstrap buffers");
	return 0;
}

static void boot_free(struct boot *b)
{
	if (b->rng)
		gsl_rng_free(b->rng);
	free(b->rep1);
	free(b->rep2);
	free(b->buf);
}

static int boot_reserve(struct boot *b, size_t n)
{
	double *nb = grow(b->buf, &b->bufcap, n, sizeof(double));

	if (!nb)
		return nomem("bootstrap buffers");
	b->buf = nb;
	return 0;
}

/* median of one resample (with replacement) of x[0..n) */
static double resample_median(struct boot *b, const struct vec *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		b->buf[i] = x->v[gsl_rng_uniform_int(b->rng, x->n)];
	gsl_sort(b->buf, 1, x->n);
	return gsl_stats_median_from_sorted_data(b->buf, 1, x->n);
}

/* percentile interval at conf from the replicates in r[0..n) */
static void percentile_of(double *r, size_t n, double conf, struct est *e)
{
	double a = (1 - conf) / 2;

	gsl_sort(r, 1, n);
	e->lo = gsl_stats_quantile_from_sorted_data(r, 1, n, a);
	e->hi = gsl_stats_quantile_from_sorted_data(r, 1, n, 1 - a);
	e->have_ci = true;
}

/* percentile interval from the replicates in r[0..resamples) */
static void percentile_ci(const struct boot *b, double *r, struct est *e)
{
	percentile_of(r, b->resamples, b->conf, e);
}

/*
 * The figure of the (sorted) x and its interval. icount with every seed
 * within the resolution (exact): the minimum (the maximum when larger is
 * better, as for ops/s) with the range. Otherwise the median: under icount
 * with the range (the low mode of a noisy cell does not repeat, so its
 * minimum is not a stable figure), else with a bootstrap CI when
 * n >= MIN_BOOT_N, else the range. No interval at n < 2.
 */
static int figure(struct boot *b, const char *tag, const struct group *g,
		  const struct vec *x, bool icount, bool larger_better,
		  struct est *e)
{
	size_t i;
	int ret;

	memset(e, 0, sizeof(*e));
	if (!x->n)
		return 0;
	e->have = true;
	if (icount && x->n >= 2 && x->v[x->n - 1] - x->v[0] < ICOUNT_RESOLUTION)
		e->m = larger_better ? x->v[x->n - 1] : x->v[0];
	else
		e->m = gsl_stats_median_from_sorted_data(x->v, 1, x->n);
	if (x->n < 2)
		return 0;
	if (icount || x->n < MIN_BOOT_N) {
		e->lo = x->v[0];
		e->hi = x->v[x->n - 1];
		e->have_ci = true;
		e->kind = IV_RANGE;
		return 0;
	}
	ret = boot_reserve(b, x->n);
	if (ret)
		return ret;
	reseed(b, tag, g);
	for (i = 0; i < b->resamples; i++)
		b->rep1[i] = resample_median(b, x);
	percentile_ci(b, b->rep1, e);
	e->kind = IV_BOOT;
	return 0;
}

/* the figure of a sorted sample: as figure() computes it for ns/op */
static double fig_of(const struct vec *x, bool icount)
{
	if (icount && x->n >= 2 && x->v[x->n - 1] - x->v[0] < ICOUNT_RESOLUTION)
		return x->v[0];
	return gsl_stats_median_from_sorted_data(x->v, 1, x->n);
}

/*
 * Difference f(y) - f(x) and change 100 * (f(y) / f(x) - 1) of the figures
 * f (minimum under icount, else median). Interval: a bootstrap CI from
 * resampling x and y independently when both have n >= MIN_BOOT_N and the
 * figure is the median; otherwise the range of the differences over all seed
 * pairs, [min(y) - max(x), max(y) - min(x)]. key names the interval (the
 * variant's group, for the seed).
 */
static int change_ci(struct boot *b, const char *tag, const struct group *key,
		     const struct vec *x, const struct vec *y, bool icount,
		     struct est *delta, struct est *pct)
{
	double mx, my;
	size_t i;
	int ret;

	memset(delta, 0, sizeof(*delta));
	memset(pct, 0, sizeof(*pct));
	if (!x->n || !y->n)
		return 0;
	mx = fig_of(x, icount);
	my = fig_of(y, icount);
	delta->have = pct->have = true;
	delta->m = my - mx;
	pct->m = 100 * (my / mx - 1);
	if (x->n < 2 || y->n < 2)
		return 0;
	if (icount || x->n < MIN_BOOT_N || y->n < MIN_BOOT_N) {
		double xlo = x->v[0], xhi = x->v[x->n - 1];
		double ylo = y->v[0], yhi = y->v[y->n - 1];

		delta->lo = ylo - xhi;
		delta->hi = yhi - xlo;
		pct->lo = 100 * (ylo / xhi - 1);
		pct->hi = 100 * (yhi / xlo - 1);
		delta->have_ci = pct->have_ci = true;
		delta->kind = pct->kind = IV_RANGE;
		return 0;
	}
	ret = boot_reserve(b, x->n > y->n ? x->n : y->n);
	if (ret)
		return ret;
	reseed(b, tag, key);
	for (i = 0; i < b->resamples; i++) {
		mx = resample_median(b, x);
		my = resample_median(b, y);
		b->rep1[i] = my - mx;
		b->rep2[i] = 100 * (my / mx - 1);
	}
	percentile_ci(b, b->rep1, delta);
	percentile_ci(b, b->rep2, pct);
	delta->kind = pct->kind = IV_BOOT;
	return 0;
}

/* what a figure's interval is, for the interval column */
static void label_figure(char *buf, size_t len, const struct est *e, size_t n,
			 double conf, bool exact)
{
	if (!e->have)
		snprintf(buf, len, "none (no ok rep)");
	else if (exact)
		snprintf(buf, len, "exact: %zu seeds within %g", n,
			 ICOUNT_RESOLUTION);
	else if (e->kind == IV_BOOT)
		snprintf(buf, len, "%g%% bootstrap CI over %zu seeds",
			 100 * conf, n);
	else if (e->kind == IV_RANGE)
		snprintf(buf, len, "range over %zu seeds", n);
	else
		snprintf(buf, len, "none (1 seed)");
}

/* what a change's interval is, for the delta_interval column */
static void label_change(char *buf, size_t len, const struct est *e,
			 size_t nx, size_t ny, double conf)
{
	if (!e->have)
		snprintf(buf, len, "none");
	else if (e->kind == IV_BOOT)
		snprintf(buf, len, "%g%% bootstrap CI (n=%zu vs %zu)",
			 100 * conf, ny, nx);
	else if (e->kind == IV_RANGE)
		snprintf(buf, len, "range over %zux%zu seed pairs", ny, nx);
	else
		snprintf(buf, len, "none (n < 2 on a side)");
}

/* CSV field: quoted only when it has to be */
static void put_str(const char *s, bool first)
{
	if (!first)
		putchar(',');
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* ",value" with prec decimals, or "," alone; never "-0.000" */
static void put_num(bool have, double v, int prec)
{
	char buf[64];

	putchar(',');
	if (!have)
		return;
	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		fputs(buf + 1, stdout);
	else
		fputs(buf, stdout);
}

static void put_est(const struct est *e, int prec)
{
	put_num(e->have, e->m, prec);
	put_num(e->have_ci, e->lo, prec);
	put_num(e->have_ci, e->hi, prec);
}

/* the interval excludes 0; *near is its bound nearest 0, as a magnitude */
static bool excludes_zero(const struct est *e, double *near)
{
	if (!e->have_ci)
		return false;
	if (e->lo > 0) {
		*near = e->lo;
		return true;
	}
	if (e->hi < 0) {
		*near = -e->hi;
		return true;
	}
	return false;
}

static int finish_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: writing stdout: %s; check the disk or pipe\n",
			prog, strerror(errno ? errno : EIO));
		return EXIT_RUNTIME;
	}
	return 0;
}

/* is w in the comma-separated list? */
static bool in_list(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, w, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/*
 * Two-sample rank statistics: the exact permutation distribution of the
 * Wilcoxon-Mann-Whitney rank sum, a Hodges-Lehmann shift with its
 * distribution-free interval, and Benjamini-Hochberg q-values.
 */

/*
 * counts[s] for s = 0..*smax: how many k-subsets of v[0..n) sum to s (a
 * subset-sum count in doubles: C(100, 50) ~ 1e29 fits). Row k of a
 * (k + 1) x (smax + 1) table; the caller frees the returned table, row k
 * starts at *row.
 */
static double *subset_sums(const long *v, size_t n, size_t k, long *smax,
			   double **row)
{
	size_t i, j, w;
	long s, top = 0;
	double *c;

	for (i = 0; i < n; i++)
		top += v[i];
	w = (size_t)top + 1;
	c = calloc((k + 1) * w, sizeof(*c));
	if (!c)
		return NULL;
	c[0] = 1;
	for (i = 0; i < n; i++) {
		for (j = i + 1 < k ? i + 1 : k; j >= 1; j--)
			for (s = top; s >= v[i]; s--)
				c[j * w + s] += c[(j - 1) * w + s - v[i]];
	}
	*smax = top;
	*row = c + k * w;
	return c;
}

struct tagged {
	double v;
	bool y;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v,
			  &((const struct tagged *)b)->v);
}

/*
 * Two-sided p-value of the rank-sum test of y against x: the share of all
 * C(nx + ny, ny) splits of the pooled values whose rank sum lies at least as
 * far from its mean as the observed one. Ties get mid-ranks (doubled, so
 * they are integers and the comparison is exact); the permutation
 * distribution is that of the tied ranks, so ties need no correction. Exact
 * up to MAX_EXACT_N values in all, a normal approximation with the tie
 * correction above (*approx set).
 */
static int ranksum_p(const struct vec *x, const struct vec *y, double *p,
		     bool *approx)
{
	size_t n = x->n + y->n, k = x->n < y->n ? x->n : y->n, i, j;
	bool small_y = y->n <= x->n;
	struct tagged *t;
	double *tab = NULL, *row, tot = 0, hit = 0, ties = 0;
	long *r, obs = 0, mean, dev, smax, s;
	int ret = 0;

	*p = 1;
	*approx = false;
	t = malloc(n * sizeof(*t));
	r = malloc(n * sizeof(*r));
	if (!t || !r) {
		ret = nomem("rank-sum test");
		goto out;
	}
	for (i = 0; i < x->n; i++)
		t[i] = (struct tagged){ x->v[i], false };
	for (i = 0; i < y->n; i++)
		t[x->n + i] = (struct tagged){ y->v[i], true };
	qsort(t, n, sizeof(*t), cmp_tagged);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		/* ranks i+1..j share the doubled mid-rank i + 1 + j */
		for (s = (long)i; s < (long)j; s++)
			r[s] = (long)(i + 1 + j);
		ties += (double)(j - i) * (j - i) * (j - i) - (double)(j - i);
	}
	for (i = 0; i < n; i++)
		if (t[i].y == small_y)
			obs += r[i];
	mean = (long)(k * (n + 1));
	dev = labs(obs - mean);
	if (!k)
		goto out;
	if (n > MAX_EXACT_N) {
		double nx = (double)x->n, ny = (double)y->n, var, z;

		/* variance of the (undoubled) rank sum, with ties */
		var = nx * ny / 12 * ((double)n + 1 - ties / ((double)n * (n - 1)));
		*approx = true;
		if (var <= 0)
			goto out;
		z = ((double)dev / 2) / sqrt(var);
		*p = erfc(z / M_SQRT2);
		goto out;
	}
	tab = subset_sums(r, n, k, &smax, &row);
	if (!tab) {
		ret = nomem("rank-sum test");
		goto out;
	}
	for (s = 0; s <= smax; s++) {
		tot += row[s];
		if (labs(s - mean) >= dev)
			hit += row[s];
	}
	*p = fmin(1, hit / tot);
out:
	free(tab);
	free(t);
	free(r);
	return ret;
}

/* Hodges-Lehmann shift of y[0..ny) against x[0..nx): the median of the
 * pairwise differences, in d (nx * ny slots) */
static double hl_of(const double *x, size_t nx, const double *y, size_t ny,
		    double *d)
{
	size_t i, j;

	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++)
			d[i * ny + j] = y[j] - x[i];
	gsl_sort(d, 1, nx * ny);
	return gsl_stats_median_from_sorted_data(d, 1, nx * ny);
}

/*
 * Hodges-Lehmann estimate of the shift of y against x: the median of the
 * nx * ny differences y[j] - x[i]. Its interval [D(c), D(nx*ny + 1 - c)] of
 * the sorted differences covers the true shift with probability
 * 1 - 2 P(U <= c - 1), U the Mann-Whitney statistic under no shift (exact
 * for continuous data): c is the largest with coverage >= conf. When even
 * c = 1 (the range over all seed pairs) falls short, as at 3 against 3
 * seeds (90%), the interval is that range and *cover says what it covers.
 */
static int hl_shift(const struct vec *x, const struct vec *y, double conf,
		    double *d, double *lo, double *hi, double *cover)
{
	size_t nm = x->n * y->n, n = x->n + y->n, k = y->n, i, c = 1;
	double *diff, *tab = NULL, *row, tot = 0, cum = 0;
	long *r = NULL, smax, u;
	int ret = 0;

	diff = malloc(nm * sizeof(*diff));
	if (!diff)
		return nomem("Hodges-Lehmann");
	*d = hl_of(x->v, x->n, y->v, y->n, diff);

	if (n > MAX_EXACT_N) {
		double z = gsl_cdf_ugaussian_Pinv(1 - (1 - conf) / 2);
		double cc = (double)nm / 2 -
			    z * sqrt((double)nm * ((double)n + 1) / 12);

		c = cc < 1 ? 1 : (size_t)cc;
		*cover = conf;
		goto done;
	}
	r = malloc(n * sizeof(*r));
	if (!r) {
		ret = nomem("Hodges-Lehmann");
		goto out;
	}
	for (i = 0; i < n; i++)
		r[i] = (long)i + 1;
	tab = subset_sums(r, n, k, &smax, &row);
	if (!tab) {
		ret = nomem("Hodges-Lehmann");
		goto out;
	}
	for (u = 0; u <= smax; u++)
		tot += row[u];
	/* U = W - k(k+1)/2; row is indexed by W */
	*cover = 1 - 2 * row[k * (k + 1) / 2] / tot;
	for (u = 0; 2 * (size_t)(u + 1) < nm + 1; u++) {
		cum += row[k * (k + 1) / 2 + u];
		if (1 - 2 * cum / tot < conf)
			break;
		c = (size_t)u + 1;
		*cover = 1 - 2 * cum / tot;
	}
done:
	*lo = diff[c - 1];
	*hi = diff[nm - c];
out:
	free(tab);
	free(r);
	free(diff);
	return ret;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;
	int c = cmp_double(&x->p, &y->p);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * sort_pvalues: the m p-values with their indices, ascending (ties by index),
 * into *out for the caller to free (NULL when m is 0); what names the caller
 * in an out-of-memory message
 */
static int sort_pvalues(const double *p, size_t m, const char *what,
			struct pidx **out)
{
	struct pidx *s;
	size_t i;

	*out = NULL;
	if (!m)
		return 0;
	s = malloc(m * sizeof(*s));
	if (!s)
		return nomem(what);
	for (i = 0; i < m; i++)
		s[i] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	*out = s;
	return 0;
}

/*
 * Benjamini-Hochberg q-values: q(i) = min over j >= i of m p(j) / j, p
 * sorted ascending. Rejecting every hypothesis with q <= level keeps the
 * expected share of false discoveries among them <= level (independent or
 * positively dependent tests).
 */
static int bh_qvalues(const double *p, size_t m, double *q)
{
	struct pidx *s;
	double run = 1;
	size_t i;
	int ret;

	ret = sort_pvalues(p, m, "Benjamini-Hochberg", &s);
	if (ret)
		return ret;
	for (i = m; i-- > 0;) {
		double v = s[i].p * (double)m / (double)(i + 1);

		if (v < run)
			run = v;
		q[s[i].i] = run;
	}
	free(s);
	return 0;
}

/*
 * Holm's step-down adjusted p-values (family-wise error): sorted ascending,
 * q_(i) = max over j <= i of min(1, (m - j + 1) p_(j)); q <= level rejects
 * with P(any false rejection) <= level.
 */
static int holm_qvalues(const double *p, size_t m, double *q)
{
	struct pidx *s;
	double run = 0;
	size_t i;
	int ret;

	ret = sort_pvalues(p, m, "Holm", &s);
	if (ret)
		return ret;
	for (i = 0; i < m; i++) {
		double v = s[i].p * (double)(m - i);

		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		q[s[i].i] = run;
	}
	free(s);
	return 0;
}

/* how a row's change against the base was estimated and tested */
enum method { M_NONE, M_EXACT, M_RANKSUM };

static const char *const method_name[] = {
	[M_NONE]	= "none",
	[M_EXACT]	= "exact",
	[M_RANKSUM]	= "rank-sum",
};

/* one summary row, computed before any is printed (BH needs them all) */
struct srow {
	struct group *g, *bg;
	struct est ops, ns, delta, ovh;
	enum method method;
	bool approx;		/* normal approximation (n > MAX_EXACT_N) */
	bool in_family;		/* one of the hypotheses BH controls */
	bool in_gate;		/* a tested A/A row: Holm's family */
	double p, q, cover;
	struct est rerun;	/* where a rerun's delta falls (rerun_interval) */
	size_t nbase;		/* seeds on the base side (pooled) */
	bool have_aa, have_cg;
	double aafl, cgfl;
	/* |delta| of the codegen control in this state/workload (unit/op) */
	bool have_cgd;
	double cgd;
	const char *beyond;	/* beyond_codegen: yes, no or "" */
	const char *sig;
};

/* all seeds within the icount resolution: the value is exact */
static bool exact_group(const struct group *g)
{
	return g->icount && g->ns.n >= 2 &&
	       g->ns.v[g->ns.n - 1] - g->ns.v[0] < ICOUNT_RESOLUTION;
}

/* x and y merged into out, sorted */
static int merge_vec(const struct vec *x, const struct vec *y, struct vec *out)
{
	size_t i;

	out->n = 0;
	for (i = 0; i < x->n; i++)
		if (vec_push(out, x->v[i]))
			return nomem("pooling the base");
	for (i = 0; i < y->n; i++)
		if (vec_push(out, y->v[i]))
			return nomem("pooling the base");
	qsort(out->v, out->n, sizeof(double), cmp_double);
	return 0;
}

/*
 * Where a rerun's delta falls: a rerun draws new seeds on both sides, so its
 * Hodges-Lehmann shift differs from this one by the noise of two estimates,
 * not of one, and the interval for the shift (which covers the true shift at
 * its rate) holds a rerun's estimate less often. This interval is for the
 * rerun. Each side keeps its own noise: a design that emits records adds
 * noise its baseline does not have, and a pool of both sides would give the
 * baseline's seeds the design's spread and halve the variance of a 3-seed
 * side (the misses of the first disjoint-seed validation, 92.5% for 95%).
 * Each side's residuals about its mean, scaled by sqrt(n / (n - 1)) so that
 * their variance is unbiased, are resampled on their own; each resample
 * draws two runs (x, y and x', y' with this run's seed counts), and the conf
 * quantiles of HL(x', y') - HL(x, y), added to this delta, make the interval
 * (widened for the few seeds, below); its stated coverage is conf. Outlying
 * seeds stay in their side's residuals, so a heavy tail widens it.
 */
static int rerun_interval(struct boot *b, const struct group *key,
			  const struct vec *x, const struct vec *y, double delta,
			  struct est *e)
{
	size_t nx = x->n, ny = y->n, n = nx + ny, i, k, nr;
	double mx = gsl_stats_mean(x->v, 1, nx), my = gsl_stats_mean(y->v, 1, ny);
	double sx = sqrt((double)nx / (double)(nx - 1));
	double sy = sqrt((double)ny / (double)(ny - 1));
	double vx = gsl_stats_variance(x->v, 1, nx) / (double)nx;
	double vy = gsl_stats_variance(y->v, 1, ny) / (double)ny;
	double *pool, *draw, *d, df, a, widen;

	memset(e, 0, sizeof(*e));
	pool = malloc((n + 2 * n + nx * ny) * sizeof(double));
	if (!pool)
		return nomem("rerun interval");
	draw = pool + n;
	d = draw + 2 * n;
	for (i = 0; i < nx; i++)
		pool[i] = sx * (x->v[i] - mx);
	for (i = 0; i < ny; i++)
		pool[nx + i] = sy * (y->v[i] - my);
	reseed(b, "rerun", key);
	nr = b->resamples < RERUN_RESAMPLES ? b->resamples : RERUN_RESAMPLES;
	for (k = 0; k < nr; k++) {
		double hl[2];
		int run;

		for (run = 0; run < 2; run++) {
			double *dx = draw + run * n, *dy = dx + nx;

			for (i = 0; i < nx; i++)
				dx[i] = pool[gsl_rng_uniform_int(b->rng, nx)];
			for (i = 0; i < ny; i++)
				dy[i] = pool[nx + gsl_rng_uniform_int(b->rng, ny)];
			hl[run] = hl_of(dx, nx, dy, ny, d);
		}
		b->rep1[k] = hl[1] - hl[0];
	}
	percentile_of(b->rep1, nr, b->conf, e);
	/*
	 * The resamples take each side's spread as known; with a few seeds it
	 * is itself an estimate, and the interval too short (simulated at 3
	 * and 5 seeds a side, normal noise: 92% for a stated 95%). The
	 * quantiles are widened as Student's t widens a normal interval for
	 * an estimated scale: by t(df) / z at conf, with Welch's df for two
	 * variances (nx + ny - 2 when they are equal, ny - 1 when only y's
	 * side is noisy).
	 */
	if (vx + vy > 0)
		df = (vx + vy) * (vx + vy) /
		     (vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1));
	else
		df = (double)(n - 2);
	a = 1 - (1 - b->conf) / 2;
	widen = gsl_cdf_tdist_Pinv(a, df) / gsl_cdf_ugaussian_Pinv(a);
	e->have = true;
	e->m = delta;
	e->lo = delta + widen * e->lo;
	e->hi = delta + widen * e->hi;
	e->kind = IV_BOOT;
	free(pool);
	return 0;
}

/*
 * The change of y against the base sample x (both sorted). Exact when every
 * seed of both is within the icount resolution: the difference of the
 * minima, its interval the range over seed pairs (at most 0.02 wide), and
 * p = 0 when |delta| >= the resolution, else 1 (no seed noise to test
 * against). Otherwise, with n >= 2 on both sides: the Hodges-Lehmann shift,
 * its distribution-free interval and the rank-sum p-value. The overhead is
 * the delta over the base's figure (exact value, or median).
 */
static int row_change(struct boot *b, struct srow *r, const struct vec *x,
		      const struct vec *y, bool icount, bool x_exact,
		      bool y_exact, double conf)
{
	double fx;
	int ret;

	r->method = M_NONE;
	r->nbase = x->n;
	memset(&r->delta, 0, sizeof(r->delta));
	memset(&r->ovh, 0, sizeof(r->ovh));
	memset(&r->rerun, 0, sizeof(r->rerun));
	if (!x->n || !y->n)
		return 0;
	if (icount && x_exact && y_exact) {
		fx = x->v[0];
		r->method = M_EXACT;
		r->delta.m = y->v[0] - x->v[0];
		r->delta.lo = y->v[0] - x->v[x->n - 1];
		r->delta.hi = y->v[y->n - 1] - x->v[0];
		r->p = fabs(r->delta.m) >= ICOUNT_RESOLUTION ? 0 : 1;
		r->cover = 1;
		/* a rerun gives the same value, within the resolution */
		r->rerun = r->delta;
		r->rerun.have = r->rerun.have_ci = true;
		r->rerun.kind = IV_RANGE;
	} else if (x->n >= 2 && y->n >= 2) {
		fx = gsl_stats_median_from_sorted_data(x->v, 1, x->n);
		r->method = M_RANKSUM;
		ret = ranksum_p(x, y, &r->p, &r->approx);
		if (!ret)
			ret = hl_shift(x, y, conf, &r->delta.m, &r->delta.lo,
				       &r->delta.hi, &r->cover);
		if (!ret)
			ret = rerun_interval(b, r->g, x, y, r->delta.m,
					     &r->rerun);
		if (ret)
			return ret;
	} else {
		/* one seed on a side: a difference, nothing to test */
		fx = gsl_stats_median_from_sorted_data(x->v, 1, x->n);
		r->delta.m = gsl_stats_median_from_sorted_data(y->v, 1, y->n) - fx;
		r->delta.have = r->ovh.have = true;
		r->ovh.m = 100 * r->delta.m / fx;
		return 0;
	}
	r->delta.have = r->delta.have_ci = true;
	r->delta.kind = IV_RANGE;
	r->ovh = r->delta;
	r->ovh.m = 100 * r->delta.m / fx;
	r->ovh.lo = 100 * r->delta.lo / fx;
	r->ovh.hi = 100 * r->delta.hi / fx;
	return 0;
}

/* what a change's interval is, for the delta_interval column */
static void label_row(char *buf, size_t len, const struct srow *r)
{
	size_t ny = r->g->ns.n;

	switch (r->method) {
	case M_EXACT:
		snprintf(buf, len, "exact: every seed within %g (range over %zux%zu seed pairs)",
			 ICOUNT_RESOLUTION, ny, r->nbase);
		break;
	case M_RANKSUM:
		snprintf(buf, len, "Hodges-Lehmann %.1f%% CI (n=%zu vs %zu%s)",
			 100 * r->cover, ny, r->nbase,
			 r->approx ? ", normal approx." : "");
		break;
	default:
		snprintf(buf, len, r->delta.have ? "none (n < 2 on a side)" : "none");
	}
}

/*
 * Does a row's change lie beyond the codegen floor, the |delta| a neutral
 * source change inside io_issue_sqe() (the codegen control) makes in the
 * same state and workload? Exact: |delta| - floor >= the resolution.
 * Tested: the whole interval beyond +-floor. "" without a tested or exact
 * change. Not a test: one control's delta is one sample of codegen effects.
 */
static const char *codegen_beyond(const struct srow *r, double floor)
{
	switch (r->method) {
	case M_EXACT:
		return fabs(r->delta.m) - floor >= ICOUNT_RESOLUTION ? "yes" : "no";
	case M_RANKSUM:
		return r->delta.lo > floor || r->delta.hi < -floor ? "yes" : "no";
	default:
		return "";
	}
}

/*
 * ctl_name(LIST, BASE): the variant LIST names for base tree BASE: LIST is one
 * variant (any base) or BASE=VARIANT,...; NULL when it names none for BASE.
 * The result is in a static buffer.
 */
static const char *ctl_name(const char *list, const char *base)
{
	static char buf[256];
	const char *p = list, *e, *eq;
	size_t n, bl = strlen(base);

	if (!strchr(list, '='))
		return list;
	while (*p) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		eq = memchr(p, '=', (size_t)(e - p));
		if (eq && (size_t)(eq - p) == bl && !strncmp(p, base, bl)) {
			n = (size_t)(e - eq - 1);
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
			memcpy(buf, eq + 1, n);
			buf[n] = 0;
			return buf;
		}
		p = *e ? e + 1 : e;
	}
	return NULL;
}

/* a -B/-a/-g value: one variant, or BASE=VARIANT entries, none empty */
static bool ctl_list_ok(const char *list)
{
	const char *p = list, *e, *eq;

	if (!*list)
		return false;
	if (!strchr(list, '='))
		return !strchr(list, ',');
	while (*p) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		eq = memchr(p, '=', (size_t)(e - p));
		if (!eq || eq == p || eq + 1 == e || (e - p) > 200)
			return false;
		if (!*e)
			break;
		p = e + 1;
		if (!*p)
			return false;
	}
	return true;
}

/*
 * find_ctl(t, LIST, g): the group of the control LIST names for g's base tree
 * in g's state and workload; never a group of another base tree
 */
static struct group *find_ctl(const struct table *t, const char *list,
			      const struct group *g)
{
	const char *name = ctl_name(list, g->base);
	struct group *c;

	if (!name)
		return NULL;
	c = find_group(t, name, g->state, g->workload);
	if (c && strcmp(c->base, g->base))
		return NULL;
	return c;
}

static int do_summary(struct boot *b, const char *path, const char *base,
		      const char *aa, const char *codegen,
		      const char *device_time, double qlevel)
{
	struct table t = { .path = path };
	struct srow *rows = NULL;
	struct vec pool = { 0 };
	double *fp = NULL, *fq = NULL, *gp = NULL, *gq = NULL;
	size_t i, j, k, m = 0, ng = 0, pairs = 0, no_aa = 0, noisy_short = 0, aa_gated = 0;
	int ret;

	ret = load_cells(&t);
	if (ret)
		return ret;
	ret = boot_init(b);
	if (ret)
		goto err;
	rows = calloc(t.n ? t.n : 1, sizeof(*rows));
	fp = calloc(t.n ? t.n : 1, sizeof(*fp));
	fq = calloc(t.n ? t.n : 1, sizeof(*fq));
	gp = calloc(t.n ? t.n : 1, sizeof(*gp));
	gq = calloc(t.n ? t.n : 1, sizeof(*gq));
	if (!rows || !fp || !fq || !gp || !gq) {
		ret = nomem("summary rows");
		goto err;
	}
	for (i = 0; i < t.n; i++)
		t.g[i].device_time = in_list(device_time, t.g[i].workload);

	/* how many state/workload pairs lack an A/A control: one note */
	for (i = 0; i < t.n; i++) {
		const struct group *g = &t.g[i], *a;

		for (j = 0; j < i; j++)
			if (!strcmp(t.g[j].state, g->state) &&
			    !strcmp(t.g[j].workload, g->workload) &&
			    !strcmp(t.g[j].base, g->base))
				break;
		if (j < i)
			continue;
		pairs++;
		a = find_ctl(&t, aa, g);
		if (!a || a->ns.n < 2)
			no_aa++;
	}
	if (no_aa && *aa)
		fprintf(stderr, "%s: note: no A/A data ('%s' with n >= 2) for %zu of %zu base/state/workload cells; the base is not pooled there and no A/A row checks the test\n",
			prog, aa, no_aa, pairs);

	for (i = 0; i < t.n; i++) {
		struct srow *r = &rows[i];
		struct group *g = &t.g[i], *bg, *ag;
		const struct vec *x;
		bool icount, xex;

		r->g = g;
		r->sig = "-";
		bg = find_ctl(&t, base, g);
		ag = find_ctl(&t, aa, g);
		r->bg = bg;
		ret = figure(b, "ops", g, &g->ops, g->icount, true, &r->ops);
		if (!ret)
			ret = figure(b, "ns", g, &g->ns, g->icount, false, &r->ns);
		if (ret)
			goto err;
		if (!bg || bg == g)
			continue;
		if (g->accel && bg->accel && strcmp(g->accel, bg->accel))
			fprintf(stderr, "%s: warning: %s/%s/%s ran with accel '%s', its base with '%s'; the overhead compares different setups\n",
				prog, g->variant, g->state, g->workload,
				g->accel, bg->accel);
		/*
		 * The A/A variant is the base kernel with other seeds: pooled
		 * into the base for every other row (more seeds, and the
		 * rank-sum test can reach p < 0.05 at 3 seeds a side only
		 * against 6). Its own row tests it against the base alone.
		 */
		x = &bg->ns;
		icount = g->icount && bg->icount;
		xex = exact_group(bg);
		if (ag && ag != g && ag != bg && ag->ns.n >= 2) {
			ret = merge_vec(&bg->ns, &ag->ns, &pool);
			if (ret)
				goto err;
			x = &pool;
			icount = icount && ag->icount;
			xex = xex && exact_group(ag) &&
			      pool.v[pool.n - 1] - pool.v[0] < ICOUNT_RESOLUTION;
		}
		ret = row_change(b, r, x, &g->ns, icount, xex, exact_group(g),
				 b->conf);
		if (ret)
			goto err;
		if (g->device_time) {
			/* per-op counts spin iterations: device time */
			r->sig = "n/a";
		} else if (r->method != M_NONE && ag == g) {
			/*
			 * The A/A row is a gate, not a finding: its exact
			 * form is judged as exact, its tested form in a
			 * family of its own, family-wise (Holm), so that
			 * under exchangeable seeds no A/A row of the run
			 * fires with probability >= 1 - fdr.
			 */
			if (r->method == M_EXACT) {
				r->sig = r->p <= qlevel ? "yes" : "no";
			} else {
				r->in_gate = true;
				gp[ng++] = r->p;
			}
		} else if (r->method != M_NONE) {
			r->in_family = true;
			fp[m++] = r->p;
			if (r->method == M_RANKSUM && r->cover < b->conf)
				noisy_short++;
		}
	}

	ret = bh_qvalues(fp, m, fq);
	if (!ret)
		ret = holm_qvalues(gp, ng, gq);
	if (ret)
		goto err;
	for (i = 0, j = 0, k = 0; i < t.n; i++) {
		struct srow *r = &rows[i];

		if (r->in_family)
			r->q = fq[j++];
		else if (r->in_gate)
			r->q = gq[k++];
		else
			continue;
		r->sig = r->q <= qlevel ? "yes" : "no";
	}
	/*
	 * The controls' own changes, for the record: no longer a floor
	 * (one A/A difference is one sample of the noise). The A/A row is a
	 * gate: when the base kernel differs significantly from itself under
	 * other seeds, no verdict of that state and workload stands.
	 */
	for (i = 0; i < t.n; i++) {
		struct srow *r = &rows[i], *c;
		struct group *ag, *cg;

		if (!r->bg)
			continue;
		ag = find_ctl(&t, aa, r->g);
		cg = find_ctl(&t, codegen, r->g);
		c = ag ? &rows[ag - t.g] : NULL;
		if (c && c->ovh.have) {
			r->have_aa = true;
			r->aafl = fabs(c->ovh.m);
		}
		if (c && c != r && !strcmp(c->sig, "yes") &&
		    (r->in_family || r->in_gate)) {
			if (!strcmp(r->sig, "yes"))
				aa_gated++;
			r->sig = "no";
		}
		c = cg ? &rows[cg - t.g] : NULL;
		if (c && c->ovh.have) {
			r->have_cg = true;
			r->cgfl = fabs(c->ovh.m);
		}
		r->beyond = "";
		if (c && c != r && c->delta.have && r->delta.have) {
			r->have_cgd = true;
			r->cgd = fabs(c->delta.m);
			r->beyond = codegen_beyond(r, r->cgd);
		}
	}
	if (aa_gated)
		fprintf(stderr, "%s: warning: the A/A control differs significantly from the base in some state/workload; %zu verdicts there set to no\n",
			prog, aa_gated);
	if (noisy_short)
		fprintf(stderr, "%s: note: %zu noisy rows have too few seeds for a %g%% interval (3 vs 3: 90%%; the smallest p then is 0.1); their delta_interval says what it covers\n",
			prog, noisy_short, 100 * b->conf);

	printf("variant,state,workload,accel,n,failed,na,"
	       "median_ops_per_sec,ops_ci_lo,ops_ci_hi,"
	       "median_ns_per_op,ns_ci_lo,ns_ci_hi,"
	       "delta_ns_per_op,delta_ci_lo,delta_ci_hi,"
	       "overhead_pct,overhead_ci_lo,overhead_ci_hi,"
	       "aa_floor_pct,codegen_floor_pct,significant,"
	       "estimator,interval,delta_interval,measure,"
	       "method,p_value,q_value,fdr,delta_coverage,"
	       "codegen_floor,beyond_codegen,base,"
	       "rerun_lo,rerun_hi,rerun_coverage,error_control\n");
	for (i = 0; i < t.n; i++) {
		struct srow *r = &rows[i];
		struct group *g = r->g;
		char iv[96], div[128] = "none";

		label_figure(iv, sizeof(iv), &r->ns, g->ns.n, b->conf,
			     exact_group(g));
		if (r->bg && r->bg != g)
			label_row(div, sizeof(div), r);

		put_str(g->variant, true);
		put_str(g->state, false);
		put_str(g->workload, false);
		put_str(g->accel_mixed ? "mixed" : g->accel ? g->accel : "",
			false);
		printf(",%zu,%zu,%zu", g->ns.n, g->failed, g->na);
		put_est(&r->ops, 1);
		put_est(&r->ns, 3);
		put_est(&r->delta, 3);
		put_est(&r->ovh, 3);
		put_num(r->have_aa, r->aafl, 3);
		put_num(r->have_cg, r->cgfl, 3);
		printf(",%s", r->sig);
		put_str(exact_group(g) ? "exact" : g->icount && g->ns.n < 2 ?
			"min" : "median", false);
		put_str(iv, false);
		put_str(div, false);
		put_str(g->device_time ? "device-time" : "hook-cost", false);
		put_str(r->bg && r->bg != g ? method_name[r->method] : "", false);
		put_num(r->method == M_RANKSUM, r->p, 4);
		put_num((r->in_family || r->in_gate) &&
			r->method == M_RANKSUM, r->q, 4);
		put_num(r->in_family || r->in_gate, qlevel, 2);
		put_num(r->method == M_RANKSUM, r->cover, 3);
		put_num(r->have_cgd, r->cgd, 3);
		put_str(r->beyond ? r->beyond : "", false);
		put_str(g->base, false);
		put_num(r->rerun.have_ci, r->rerun.lo, 3);
		put_num(r->rerun.have_ci, r->rerun.hi, 3);
		put_num(r->rerun.have_ci, r->method == M_EXACT ? 1 : b->conf, 3);
		put_str(r->in_family ? "fdr-bh" : r->in_gate ? "fwer-holm" :
			r->method == M_EXACT && strcmp(r->sig, "n/a") ?
			"exact" : "", false);
		putchar('\n');
	}
	ret = finish_stdout();
err:
	free(pool.v);
	free(rows);
	free(fp);
	free(fq);
	free(gp);
	free(gq);
	free_table(&t);
	return ret;
}

static int do_compare(struct boot *b, const char *path_a, const char *path_b)
{
	struct table ta = { .path = path_a }, tb = { .path = path_b };
	size_t i, only_a = 0, only_b = 0;
	int ret;

	ret = load_cells(&ta);
	if (ret)
		return ret;
	ret = load_cells(&tb);
	if (ret)
		goto err;
	ret = boot_init(b);
	if (ret)
		goto err;

	for (i = 0; i < tb.n; i++)
		if (!find_group(&ta, tb.g[i].variant, tb.g[i].state,
				tb.g[i].workload))
			only_b++;

	printf("variant,state,workload,n_a,n_b,median_ns_a,median_ns_b,"
	       "change_pct,change_ci_lo,change_ci_hi,significant,"
	       "estimator,interval\n");
	for (i = 0; i < ta.n; i++) {
		struct group *ga = &ta.g[i], *gb;
		struct est delta, pct, fa, fb;
		const char *sig = "-";
		double near = 0;
		bool icount;
		char iv[96];

		gb = find_group(&tb, ga->variant, ga->state, ga->workload);
		if (!gb) {
			only_a++;
			continue;
		}
		icount = ga->icount && gb->icount;
		ret = change_ci(b, "compare", ga, &ga->ns, &gb->ns, icount,
				&delta, &pct);
		if (!ret)
			ret = figure(b, "ns", ga, &ga->ns, icount, false, &fa);
		if (!ret)
			ret = figure(b, "ns", gb, &gb->ns, icount, false, &fb);
		if (ret)
			goto err;
		if (pct.have_ci)
			sig = excludes_zero(&pct, &near) ? "yes" : "no";
		label_change(iv, sizeof(iv), &pct, ga->ns.n, gb->ns.n,
			     b->conf);

		put_str(ga->variant, true);
		put_str(ga->state, false);
		put_str(ga->workload, false);
		printf(",%zu,%zu", ga->ns.n, gb->ns.n);
		put_num(fa.have, fa.m, 3);
		put_num(fb.have, fb.m, 3);
		put_est(&pct, 3);
		printf(",%s", sig);
		put_str(icount ? "min" : "median", false);
		put_str(iv, false);
		putchar('\n');
	}
	if (only_a || only_b)
		fprintf(stderr, "%s: note: %zu groups only in %s, %zu only in %s; not compared\n",
			prog, only_a, path_a, only_b, path_b);
	ret = finish_stdout();
err:
	free_table(&ta);
	free_table(&tb);
	return ret;
}

static int width(const char *s, int w)
{
	int n = (int)strlen(s);

	return n > w ? n : w;
}

static int do_describe(const char *path)
{
	struct table t = { .path = path };
	int wv = 7, ws = 5, ww = 8, wa = 5, ret;
	size_t i;

	ret = load_cells(&t);
	if (ret)
		return ret;
	for (i = 0; i < t.n; i++) {
		wv = width(t.g[i].variant, wv);
		ws = width(t.g[i].state, ws);
		ww = width(t.g[i].workload, ww);
		wa = width(t.g[i].accel ? t.g[i].accel : "", wa);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %3s %6s %3s %12s %12s %12s %7s %14s\n",
	       wv, "variant", ws, "state", ww, "workload", wa, "accel", "n",
	       "failed", "na", "median_ns", "min_ns", "max_ns", "range%",
	       "median_ops/s");
	for (i = 0; i < t.n; i++) {
		const struct group *g = &t.g[i];
		const char *accel = g->accel_mixed ? "mixed" : g->accel;

		printf("%-*s  %-*s  %-*s  %-*s  %3zu %6zu %3zu", wv, g->variant,
		       ws, g->state, ww, g->workload, wa, accel ? accel : "",
		       g->ns.n, g->failed, g->na);
		if (g->ns.n) {
			double m = gsl_stats_median_from_sorted_data(g->ns.v, 1,
								     g->ns.n);
			double lo = g->ns.v[0], hi = g->ns.v[g->ns.n - 1];

			printf(" %12.3f %12.3f %12.3f %7.2f %14.1f", m, lo, hi,
			       100 * (hi - lo) / m,
			       gsl_stats_median_from_sorted_data(g->ops.v, 1,
								 g->ops.n));
		} else {
			printf(" %12s %12s %12s %7s %14s", "-", "-", "-", "-",
			       "-");
		}
		putchar('\n');
	}
	ret = finish_stdout();
	free_table(&t);
	return ret;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "; see '%s -h'\n", prog);
	return EXIT_INPUT;
}

static bool parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !*end && errno != ERANGE;
}

/* a finite decimal number, nothing else in the field */
static bool parse_num(const char *s, double *out)
{
	char *end;

	if (!*s || s[strspn(s, "0123456789.eE+-")])
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return end != s && !*end && errno != ERANGE && isfinite(*out);
}

/* a comma-separated list of numbers into v (sorted); EXIT_INPUT on a bad one */
static int parse_list(const char *arg, struct vec *v)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	double x;
	int ret = 0;

	if (!copy)
		return nomem("parsing a list");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!parse_num(tok, &x)) {
			fprintf(stderr, "%s: '%s' in '%s' is not a number; give values as 1.5,2,3\n",
				prog, tok, arg);
			ret = EXIT_INPUT;
			goto out;
		}
		if (vec_push(v, x)) {
			ret = nomem("parsing a list");
			goto out;
		}
	}
	if (!v->n) {
		fprintf(stderr, "%s: '%s' holds no values; give values as 1.5,2,3\n",
			prog, arg);
		ret = EXIT_INPUT;
		goto out;
	}
	qsort(v->v, v->n, sizeof(double), cmp_double);
out:
	free(copy);
	return ret;
}

/* labstat ranksum X Y: the test and estimate summary uses on noisy rows */
static int do_ranksum(double conf, const char *xs, const char *ys)
{
	struct vec x = { 0 }, y = { 0 };
	double p, d, lo, hi, cover;
	bool approx;
	int ret;

	ret = parse_list(xs, &x);
	if (!ret)
		ret = parse_list(ys, &y);
	if (ret)
		goto out;
	if (x.n < 2 || y.n < 2) {
		fprintf(stderr, "%s: ranksum needs at least 2 values a side, got %zu and %zu\n",
			prog, x.n, y.n);
		ret = EXIT_INPUT;
		goto out;
	}
	ret = ranksum_p(&x, &y, &p, &approx);
	if (!ret)
		ret = hl_shift(&x, &y, conf, &d, &lo, &hi, &cover);
	if (ret)
		goto out;
	printf("p_value,hl_shift,ci_lo,ci_hi,coverage,method\n");
	printf("%.6f,%.6f,%.6f,%.6f,%.6f,%s\n", p, d, lo, hi, cover,
	       approx ? "normal-approx" : "exact-permutation");
	ret = finish_stdout();
out:
	free(x.v);
	free(y.v);
	return ret;
}

/* labstat bh P...: Benjamini-Hochberg q-values, in the order given */
static int do_bh(double qlevel, int n, char **ps)
{
	double *p = calloc((size_t)n, sizeof(*p)), *q = calloc((size_t)n, sizeof(*q));
	int i, ret = 0;

	if (!p || !q) {
		ret = nomem("bh");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!parse_num(ps[i], &p[i]) || p[i] < 0 || p[i] > 1) {
			fprintf(stderr, "%s: bh: '%s' is not a p-value in [0, 1]\n",
				prog, ps[i]);
			ret = EXIT_INPUT;
			goto out;
		}
	}
	ret = bh_qvalues(p, (size_t)n, q);
	if (ret)
		goto out;
	printf("p_value,q_value,significant\n");
	for (i = 0; i < n; i++)
		printf("%s,%.6f,%s\n", ps[i], q[i], q[i] <= qlevel ? "yes" : "no");
	ret = finish_stdout();
out:
	free(p);
	free(q);
	return ret;
}

/* summary's -B, -a and -g: each optional (none: no such rows), each a list */
static int check_controls(const char *base, const char *aa,
			  const char *codegen)
{
	if ((*base && !ctl_list_ok(base)) || (*aa && !ctl_list_ok(aa)) ||
	    (*codegen && !ctl_list_ok(codegen)))
		return bad_usage("-B, -a and -g take one variant or BASE=VARIANT,... (got '%s')",
				 (*base && !ctl_list_ok(base)) ? base :
				 (*aa && !ctl_list_ok(aa)) ? aa : codegen);
	if (*base && !strcmp(base, aa))
		return bad_usage("the base and the A/A variant are both '%s'; the A/A variant must be a separate set of reps",
				 base);
	if (*base && !strcmp(base, codegen))
		return bad_usage("the base and the codegen A/A variant are both '%s'; the codegen control must be a separately built kernel",
				 base);
	return 0;
}

int main(int argc, char **argv)
{
	struct boot b = {
		.resamples = DEF_RESAMPLES,
		.seed = DEF_SEED,
		.conf = DEF_CONF,
	};
	const char *cmd, *base = "", *aa = "", *codegen = "";
	const char *device_time = "";
	double qlevel = DEF_FDR;
	unsigned long ul;
	char *end;
	int opt, nfiles, ret;

	gsl_set_error_handler_off();	/* report errors ourselves */

	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "summary") && strcmp(cmd, "compare") &&
	    strcmp(cmd, "describe") && strcmp(cmd, "ranksum") &&
	    strcmp(cmd, "bh"))
		return bad_usage("unknown subcommand '%s' (summary, compare, describe, ranksum or bh)",
				 cmd);

	argc--;
	argv++;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt(argc, argv, ":B:a:g:b:D:R:s:c:q:h")) != -1) {
		switch (opt) {
		case 'B':
			base = optarg;
			break;
		case 'a':
			aa = optarg;
			break;
		case 'g':
			codegen = optarg;
			break;
		case 'b':
			row_base_default = optarg;
			break;
		case 'D':
			device_time = optarg;
			break;
		case 'R':
			if (!parse_ulong(optarg, &ul) || ul < MIN_RESAMPLES ||
			    ul > MAX_RESAMPLES) {
				fprintf(stderr, "%s: -R '%s': resamples must be an integer in %d..%d\n",
					prog, optarg, MIN_RESAMPLES,
					MAX_RESAMPLES);
				return EXIT_INPUT;
			}
			b.resamples = ul;
			break;
		case 's':
			if (!parse_ulong(optarg, &ul))
				return bad_usage("-s '%s': the seed must be a non-negative integer",
						 optarg);
			b.seed = ul;
			break;
		case 'c':
			errno = 0;
			b.conf = strtod(optarg, &end);
			if (end == optarg || *end || errno ||
			    !(b.conf > 0 && b.conf < 1))
				return bad_usage("-c '%s': the confidence level must be a number between 0 and 1, e.g. 0.95",
						 optarg);
			break;
		case 'q':
			errno = 0;
			qlevel = strtod(optarg, &end);
			if (end == optarg || *end || errno ||
			    !(qlevel > 0 && qlevel < 1))
				return bad_usage("-q '%s': the false discovery rate must be a number between 0 and 1, e.g. 0.05",
						 optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: option -%c needs an argument; see '%s -h'\n",
				prog, optopt, prog);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "%s: unknown option -%c for %s; see '%s -h'\n",
				prog, optopt, cmd, prog);
			return EXIT_INPUT;
		}
	}
	if (strcmp(cmd, "summary") && (*base || *aa || *codegen ||
				       *device_time || *row_base_default))
		return bad_usage("-B, -a, -g, -b and -D are for summary only, not %s",
				 cmd);
	if (strcmp(cmd, "summary") && strcmp(cmd, "bh") && qlevel != DEF_FDR)
		return bad_usage("-q is for summary and bh only, not %s", cmd);
	if (!strcmp(cmd, "ranksum")) {
		if (argc - optind != 2)
			return bad_usage("%s takes two lists of values, X and Y (e.g. 1,2,3 4,5,6)",
					 cmd);
		return do_ranksum(b.conf, argv[optind], argv[optind + 1]);
	}
	if (!strcmp(cmd, "bh")) {
		if (argc - optind < 1)
			return bad_usage("%s takes one or more p-values", cmd);
		return do_bh(qlevel, argc - optind, argv + optind);
	}
	if (!strcmp(cmd, "describe") &&
	    (b.resamples != DEF_RESAMPLES || b.seed != DEF_SEED ||
	     b.conf != DEF_CONF))
		return bad_usage("%s takes no bootstrap options", cmd);
	if (!strcmp(cmd, "summary")) {
		ret = check_controls(base, aa, codegen);
		if (ret)
			return ret;
	}

	nfiles = !strcmp(cmd, "compare") ? 2 : 1;
	if (argc - optind != nfiles) {
		fprintf(stderr, "%s: %s takes %d CSV file%s, got %d; see '%s -h'\n",
			prog, cmd, nfiles, nfiles > 1 ? "s" : "", argc - optind,
			prog);
		return EXIT_INPUT;
	}

	if (!strcmp(cmd, "summary"))
		ret = do_summary(&b, argv[optind], base, aa, codegen,
				 device_time, qlevel);
	else if (!strcmp(cmd, "compare"))
		ret = do_compare(&b, argv[optind], argv[optind + 1]);
	else
		ret = do_describe(argv[optind]);
	boot_free(&b);
	return ret;
}
