// SPDX-License-Identifier: GPL-2.0
/*
 * labstat: statistics over the lab's cells.csv (one row per measured rep).
 *
 *   labstat summary  [-B base] [-a aa] [-R n] [-s seed] [-c conf] CELLS.csv
 *   labstat compare  [-R n] [-s seed] [-c conf] CELLS_A.csv CELLS_B.csv
 *   labstat describe CELLS.csv
 *
 * The estimator follows the noise of the accelerator a group ran on:
 *  - accel "tcg" (tcg-icount): guest time counts instructions and a seed's
 *    boot repeats bit for bit; interference (a background event landing in
 *    the window) only ever adds instructions, so the noise is discrete and
 *    one-sided. The figure is the minimum over seeds (the maximum for ops/s),
 *    with the range [min, max], labelled "range over N seeds".
 *  - any other accel (kvm, tcg-wall): real-time noise. The figure is the
 *    median, with a percentile-bootstrap CI only when every group involved
 *    has n >= 10 (MIN_BOOT_N), otherwise the range, and the label says which.
 * Overhead of each variant against the base variant of the same state and
 * workload; two floors from controls: the seed floor from an A/A variant (the
 * base kernel measured again with other seeds) and the codegen floor from a
 * codegen A/A variant (the base kernel plus a neutral patch that moves code).
 * An overhead is significant only when it clears both. CSV on stdout,
 * diagnostics on stderr.
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

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define DEF_RESAMPLES	10000
#define DEF_SEED	20211
#define DEF_BASE	"nohooks"
#define DEF_AA		"nohooks-aa"
#define DEF_CODEGEN	"nohooks-codegen"
#define MIN_BOOT_N	10	/* bootstrap CIs only from this many reps up */
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
"usage: %s summary  [-B base] [-a aa] [-g codegen] [-D workloads] [-R resamples]\n"
"                       [-s seed] [-c conf] CELLS.csv\n"
"       %s compare  [-R resamples] [-s seed] [-c conf] CELLS_A.csv CELLS_B.csv\n"
"       %s describe CELLS.csv\n"
"\n"
"CELLS.csv needs a header naming at least the columns\n"
"  variant,state,workload,rep,accel,status,ops_per_sec,ns_per_op\n"
"in any order (other columns are ignored). Only status 'ok' rows are used;\n"
"'n/a' (or 'na') rows are counted in na, any other status in failed.\n"
"\n"
"Estimator, by the group's accel (column estimator; interval says what the\n"
"interval is, on every row):\n"
"  tcg (tcg-icount, deterministic): the minimum over seeds (maximum ops/s),\n"
"    interval [min, max] = 'range over N seeds'. Interference only adds\n"
"    instructions, so the minimum is the natural figure once enough seeds\n"
"    reach the low mode.\n"
"  any other accel (kvm, tcg-wall: real-time noise): the median, with a\n"
"    percentile-bootstrap CI only when n >= %d on every side, otherwise the\n"
"    range. (At n <= 5 the bootstrap CI of a median is exactly [min, max]\n"
"    anyway, and covers the true median only 75%% of the time at n=3.)\n"
"  Changes: figure(variant) - figure(base); interval a bootstrap CI as\n"
"  above, else the range over all seed pairs [min(y)-max(x), max(y)-min(x)].\n"
"\n"
"summary: one row per (variant,state,workload), first-appearance order:\n"
"  ops/s and ns/op figures with their intervals (the columns keep the names\n"
"  median_* and *_ci_*; estimator and interval say what they hold); delta\n"
"  ns/op and overhead %% = 100*(f(ns)/f(ns of base) - 1) versus the base\n"
"  variant in the same state and workload (positive = slower).\n"
"  aa_floor_pct: the seed floor, from the A/A variant (base kernel, other\n"
"  seeds); codegen_floor_pct: the codegen floor, from the codegen A/A\n"
"  variant (base kernel plus a neutral patch that moves code). Under tcg a\n"
"  floor is |overhead of the control|; otherwise the larger |bound| of the\n"
"  control's overhead interval. Empty without the control.\n"
"  significant: tcg: yes if |overhead| is beyond both floors ('-' with no\n"
"  floor at all), its range over seed pairs excludes 0, and |delta| >=\n"
"  %g instructions/op (the resolution);\n"
"  otherwise yes if the overhead interval excludes 0 and its\n"
"  bound nearest 0 is beyond both floors; 'n/a' for -D workloads (never\n"
"  starred); '-' for the base itself, no base, or no interval.\n"
"  measure: device-time for -D workloads, else hook-cost.\n"
"compare: per (variant,state,workload) in both files, change %% of the\n"
"  figure from A to B, 100*(f_b/f_a - 1), with its interval (labelled);\n"
"  significant = yes if the interval excludes 0.\n"
"describe: a human-readable table of n, counts, median and range.\n"
"\n"
"  -B base       base variant (default %s)\n"
"  -a aa         seed A/A variant: base kernel, other seeds (default %s)\n"
"  -g codegen    codegen A/A variant (default %s)\n"
"  -D w1,w2      workloads whose per-op count depends on device time\n"
"                (polled spin, SQPOLL): not hook-cost measures (default none)\n"
"  -R resamples  bootstrap resamples, %d..%d (default %d)\n"
"  -s seed       bootstrap seed, output is byte-reproducible (default %d)\n"
"  -c conf       confidence level, 0 < conf < 1 (default %.2f)\n"
"  -h            this help\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 bad usage or bad input.\n",
		prog, prog, prog, MIN_BOOT_N, ICOUNT_RESOLUTION, DEF_BASE, DEF_AA, DEF_CODEGEN,
		MIN_RESAMPLES, MAX_RESAMPLES, DEF_RESAMPLES, DEF_SEED, DEF_CONF);
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
			       const char *state, const char *workload)
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
	if (!g->variant || !g->state || !g->workload) {
		free(g->variant);
		free(g->state);
		free(g->workload);
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
static int load_cells(struct table *t)
{
	struct fields f = { 0 };
	size_t lineno = 0, ncols, i, j, len = 0;
	int col[NR_COLS], ret = EXIT_INPUT, err;
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

	for (;;) {
		const char *v, *st, *wl, *rep, *accel, *status;
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

		g = find_group(t, v, st, wl);
		if (!g) {
			g = add_group(t, v, st, wl);
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

/* percentile interval from the replicates in r[0..resamples) */
static void percentile_ci(const struct boot *b, double *r, struct est *e)
{
	double a = (1 - b->conf) / 2;

	gsl_sort(r, 1, b->resamples);
	e->lo = gsl_stats_quantile_from_sorted_data(r, 1, b->resamples, a);
	e->hi = gsl_stats_quantile_from_sorted_data(r, 1, b->resamples, 1 - a);
	e->have_ci = true;
}

/*
 * The figure of the (sorted) x and its interval. icount: the minimum (the
 * maximum when larger is better, as for ops/s) with the range; otherwise the
 * median, with a bootstrap CI when n >= MIN_BOOT_N, else the range. No
 * interval at n < 2.
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
	if (icount)
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
	if (icount) {
		mx = x->v[0];
		my = y->v[0];
	} else {
		mx = gsl_stats_median_from_sorted_data(x->v, 1, x->n);
		my = gsl_stats_median_from_sorted_data(y->v, 1, y->n);
	}
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
			 double conf)
{
	if (!e->have)
		snprintf(buf, len, "none (no ok rep)");
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
 * The floor a control c gives for a state/workload: under icount the
 * magnitude of its change versus the base (the minimum is exact, the floor is
 * how far two sets of seeds or two codegens disagree); otherwise the larger
 * magnitude of its interval's bounds.
 */
static int control_floor(struct boot *b, const struct group *bg,
			 const struct group *c, bool *have, double *floor)
{
	struct est d, p;
	bool icount = bg->icount && c->icount;
	int ret;

	*have = false;
	if (!c || c == bg)
		return 0;
	/* same seed tag as the control row's own overhead: same interval */
	ret = change_ci(b, "overhead", c, &bg->ns, &c->ns, icount, &d, &p);
	if (ret)
		return ret;
	if (icount && p.have) {
		*have = true;
		*floor = fabs(p.m);
	} else if (!icount && p.have_ci) {
		*have = true;
		*floor = fmax(fabs(p.lo), fabs(p.hi));
	}
	return 0;
}

static int do_summary(struct boot *b, const char *path, const char *base,
		      const char *aa, const char *codegen,
		      const char *device_time)
{
	struct table t = { .path = path };
	size_t i, j, pairs = 0, no_aa = 0, no_cg = 0;
	int ret;

	ret = load_cells(&t);
	if (ret)
		return ret;
	ret = boot_init(b);
	if (ret)
		goto err;
	for (i = 0; i < t.n; i++)
		t.g[i].device_time = in_list(device_time, t.g[i].workload);

	/* how many state/workload pairs lack control data: one note, not many */
	for (i = 0; i < t.n; i++) {
		const struct group *g = &t.g[i], *a;

		for (j = 0; j < i; j++)
			if (!strcmp(t.g[j].state, g->state) &&
			    !strcmp(t.g[j].workload, g->workload))
				break;
		if (j < i)
			continue;
		pairs++;
		a = find_group(&t, aa, g->state, g->workload);
		if (!a || a->ns.n < 2)
			no_aa++;
		a = find_group(&t, codegen, g->state, g->workload);
		if (!a || !a->ns.n)
			no_cg++;
	}
	if (no_aa)
		fprintf(stderr, "%s: note: no seed A/A data ('%s' with n >= 2) for %zu of %zu state/workload pairs; significant there ignores the seed floor\n",
			prog, aa, no_aa, pairs);
	if (no_cg)
		fprintf(stderr, "%s: note: no codegen A/A data ('%s') for %zu of %zu state/workload pairs; significant there ignores the codegen floor\n",
			prog, codegen, no_cg, pairs);

	printf("variant,state,workload,accel,n,failed,na,"
	       "median_ops_per_sec,ops_ci_lo,ops_ci_hi,"
	       "median_ns_per_op,ns_ci_lo,ns_ci_hi,"
	       "delta_ns_per_op,delta_ci_lo,delta_ci_hi,"
	       "overhead_pct,overhead_ci_lo,overhead_ci_hi,"
	       "aa_floor_pct,codegen_floor_pct,significant,"
	       "estimator,interval,delta_interval,measure\n");
	for (i = 0; i < t.n; i++) {
		struct group *g = &t.g[i], *bg, *ag, *cg;
		struct est ops, ns, delta = { 0 }, ovh = { 0 };
		bool have_aa = false, have_cg = false, icount = g->icount;
		const char *sig = "-";
		double aafl = 0, cgfl = 0, near = 0;
		char iv[96], div[96] = "none";

		bg = find_group(&t, base, g->state, g->workload);
		ag = find_group(&t, aa, g->state, g->workload);
		cg = find_group(&t, codegen, g->state, g->workload);

		ret = figure(b, "ops", g, &g->ops, icount, true, &ops);
		if (!ret)
			ret = figure(b, "ns", g, &g->ns, icount, false, &ns);
		if (!ret && bg && bg != g)
			ret = change_ci(b, "overhead", g, &bg->ns, &g->ns,
					icount && bg->icount, &delta, &ovh);
		if (!ret && bg && ag)
			ret = control_floor(b, bg, ag, &have_aa, &aafl);
		if (!ret && bg && cg)
			ret = control_floor(b, bg, cg, &have_cg, &cgfl);
		if (ret)
			goto err;
		if (bg && bg != g && g->accel && bg->accel &&
		    strcmp(g->accel, bg->accel))
			fprintf(stderr, "%s: warning: %s/%s/%s ran with accel '%s', its base with '%s'; the overhead compares different setups\n",
				prog, g->variant, g->state, g->workload,
				g->accel, bg->accel);

		if (g->device_time && ovh.have) {
			/* per-op counts spin iterations: device time, not hooks */
			sig = "n/a";
		} else if (icount && bg && bg->icount && ovh.have &&
			   (have_aa || have_cg)) {
			/*
			 * the minimum must clear both floors, and the range
			 * over seed pairs must exclude 0: a floor is one
			 * sample of the noise (|A/A| of one control), so a
			 * delta just past it whose seed pairs straddle 0
			 * (seen: static-key/idle/bench-openclose +0.26,
			 * range [-0.21, 0.34], floor 0.012%) would flip on
			 * a rerun
			 */
			double m = fabs(ovh.m);
			bool excl = !ovh.have_ci || excludes_zero(&ovh, &near);

			sig = m > 0 && excl && (!have_aa || m > aafl) &&
			      (!have_cg || m > cgfl) &&
			      fabs(delta.m) >= ICOUNT_RESOLUTION ? "yes" : "no";
		} else if (!(icount && bg && bg->icount) && ovh.have_ci) {
			bool excl = excludes_zero(&ovh, &near);

			sig = excl && (!have_aa || near > aafl) &&
			      (!have_cg || near > cgfl) ? "yes" : "no";
		}

		label_figure(iv, sizeof(iv), &ns, g->ns.n, b->conf);
		if (bg && bg != g)
			label_change(div, sizeof(div), &ovh, bg->ns.n,
				     g->ns.n, b->conf);

		put_str(g->variant, true);
		put_str(g->state, false);
		put_str(g->workload, false);
		put_str(g->accel_mixed ? "mixed" : g->accel ? g->accel : "",
			false);
		printf(",%zu,%zu,%zu", g->ns.n, g->failed, g->na);
		put_est(&ops, 1);
		put_est(&ns, 3);
		put_est(&delta, 3);
		put_est(&ovh, 3);
		put_num(have_aa, aafl, 3);
		put_num(have_cg, cgfl, 3);
		printf(",%s", sig);
		put_str(icount ? "min" : "median", false);
		put_str(iv, false);
		put_str(div, false);
		put_str(g->device_time ? "device-time" : "hook-cost", false);
		putchar('\n');
	}
	ret = finish_stdout();
err:
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

int main(int argc, char **argv)
{
	struct boot b = {
		.resamples = DEF_RESAMPLES,
		.seed = DEF_SEED,
		.conf = DEF_CONF,
	};
	const char *cmd, *base = DEF_BASE, *aa = DEF_AA, *codegen = DEF_CODEGEN;
	const char *device_time = "";
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
	    strcmp(cmd, "describe"))
		return bad_usage("unknown subcommand '%s' (summary, compare or describe)",
				 cmd);

	argc--;
	argv++;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt(argc, argv, ":B:a:g:D:R:s:c:h")) != -1) {
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
	if (strcmp(cmd, "summary") && (strcmp(base, DEF_BASE) ||
				       strcmp(aa, DEF_AA) ||
				       strcmp(codegen, DEF_CODEGEN) ||
				       *device_time))
		return bad_usage("-B, -a, -g and -D are for summary only, not %s",
				 cmd);
	if (!strcmp(cmd, "describe") &&
	    (b.resamples != DEF_RESAMPLES || b.seed != DEF_SEED ||
	     b.conf != DEF_CONF))
		return bad_usage("%s takes no bootstrap options", cmd);
	if (!strcmp(base, aa))
		return bad_usage("the base and the A/A variant are both '%s'; the A/A variant must be a separate set of reps",
				 base);
	if (!strcmp(base, codegen))
		return bad_usage("the base and the codegen A/A variant are both '%s'; the codegen control must be a separately built kernel",
				 base);

	nfiles = !strcmp(cmd, "compare") ? 2 : 1;
	if (argc - optind != nfiles) {
		fprintf(stderr, "%s: %s takes %d CSV file%s, got %d; see '%s -h'\n",
			prog, cmd, nfiles, nfiles > 1 ? "s" : "", argc - optind,
			prog);
		return EXIT_INPUT;
	}

	if (!strcmp(cmd, "summary"))
		ret = do_summary(&b, argv[optind], base, aa, codegen,
				 device_time);
	else if (!strcmp(cmd, "compare"))
		ret = do_compare(&b, argv[optind], argv[optind + 1]);
	else
		ret = do_describe(argv[optind]);
	boot_free(&b);
	return ret;
}
