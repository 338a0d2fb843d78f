// SPDX-License-Identifier: GPL-2.0
/*
 * lab-attrib: a QEMU TCG plugin that attributes executed guest instructions
 * exactly to kernel symbols, inside measurement windows the guest opens and
 * closes.
 *
 *   qemu-system-x86_64 ... -plugin file=lab-attrib.so,map=System.map,out=F
 *
 * Counting: every translated instruction gets an inline counter (no helper
 * call, no effect on icount or guest time) on the symbol that contains it:
 * the System.map text symbol with the largest start <= pc, or "[user]" for
 * user-space pcs, or "[kernel-other]" for kernel pcs outside the map's text.
 * An instruction at a symbol's first byte also bumps that symbol's entry
 * count (calls, plus any jump to the entry). Every load/store bumps the
 * symbol's memory-access counter (inline per access). Counting per
 * instruction, not per block, keeps it exact when a block is left half way
 * (a fault in the middle of a TB).
 *
 * KASLR: attribution boots run with nokaslr (guest/boot.sh --plugin adds it),
 * so System.map's link addresses are the run-time addresses. That is simpler
 * and less fragile than reading the offset out of the guest, and it costs
 * nothing in exactness: the plugin counts instructions, which do not depend
 * on where the kernel sits. The timed matrix cells keep their -seed-driven
 * KASLR; attribution boots are separate boots.
 *
 * Window: uring-bench executes "nopl 0x4c414231(%rax)" just before its
 * timed loop and "nopl 0x4c414232(%rax)" just after it. The plugin spots
 * those bytes in user space at translation time and registers a callback on
 * each; the callback snapshots the (always running) counters, and the window
 * is the difference of the snapshots at close and open. To the guest each
 * marker is one ordinary NOP. Each closed window is written to out= at once:
 *   window n=N insns=I user=U kernel=K mem=M
 *   sym n=N name=SYM insns=I mem=M calls=C      (symbols with insns > 0)
 *   insn n=N sym=SYM off=0xO count=C            (with insns=SYM, per
 *                                                instruction executed)
 *
 * insns=SYM (up to MAX_WATCH times): also count every instruction of SYM
 * separately, by its offset from SYM's start, so that a delta in SYM can be
 * read instruction by instruction against its disassembly (the executed
 * path, not the static code). Offsets beyond MAX_WATCH_LEN are not watched.
 *
 * lines=1: also count every kernel text instruction by its address (a lazily
 * backed array over the text: only pages of code that runs are touched), and
 * write, per closed window, one line per 64-byte line of kernel text that ran:
 *   line n=N addr=0xA bytes=B max=M insns=I
 * B: bytes of the distinct instructions that ran (an instruction belongs to
 * the line it starts in), M: executions of the line's busiest instruction,
 * I: instructions executed in the line. The i-cache footprint of the window.
 *
 * sub=SYM: also count the kernel instructions (and memory accesses) executed
 * from SYM's entry to its return, callees included (the subtree under SYM):
 *   sub n=N name=SYM insns=I mem=M calls=C
 * Entry: SYM's first byte; return: a ret (c3, c2 iw, f3 c3) inside SYM or
 * SYM.cold. An interrupt taken inside the subtree counts with it. With
 * sub=io_submit_sqes an SQPOLL thread's submissions are counted without its
 * idle spin (the spin runs outside io_submit_sqes).
 *
 * Plugin API: written against QEMU's documented plugin API version 1
 * (QEMU 7.x); Debian ships no qemu-plugin.h, so the few types and functions
 * used are declared below. qemu_plugin_install() refuses to load on a QEMU
 * whose API range does not include version 1 exactly as current.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API, version 1 (include/qemu/qemu-plugin.h, v7.2) ---- */
#define QEMU_PLUGIN_EXPORT	__attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION	1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_mem_inline(struct qemu_plugin_insn *insn,
					  enum qemu_plugin_mem_rw rw,
					  enum qemu_plugin_op op, void *ptr,
					  uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv);

/* ---- the plugin ---- */
#define PROG			"lab-attrib"
#define DEF_OUT			"lab-attrib.out"
/* x86-64: kernel addresses have the top bit set */
#define KERNEL_START		0x8000000000000000ULL
/* nopl disp32(%rax): 0f 1f 80 <disp32>, displacements from uring-bench.c */
#define MARK_LEN		7
#define MARK_OPEN		0x4c414231U
#define MARK_CLOSE		0x4c414232U
#define MAX_SYMS		(1 << 20)
#define MAX_WATCH		4
#define MAX_WATCH_LEN		8192
#define LINE_SHIFT		6	/* 64-byte i-cache lines */

/* bucket 0: user space, 1: kernel pcs outside the map's text */
#define B_USER			0
#define B_KOTHER		1
#define B_FIRST_SYM		2

struct counts {
	uint64_t insns;
	uint64_t mem;
	uint64_t calls;
};

struct sym {
	uint64_t start;
	char *name;
};

/* a symbol counted per instruction (insns=SYM) */
struct watch {
	const char *name;
	size_t bucket;		/* 0 until the map has been read */
	uint64_t start, len;
	uint64_t *cnt, *base;	/* per byte offset */
};

/* lines=1: per-instruction counts over the kernel text, by address */
struct lines {
	bool on;
	uint64_t start, len;		/* the text: syms[0].start .. _etext */
	uint64_t *cnt;			/* per byte offset (calloc: lazily backed) */
	uint8_t *seen;			/* per byte offset: registered at translation */
	uint64_t *off, *base;		/* registered instruction offsets, snapshot */
	uint8_t *size;			/* their lengths */
	size_t n, cap;
};

/* sub=SYM: the kernel instructions from SYM's entry to its return */
struct sub {
	const char *name;
	uint64_t start, len, cold_start, cold_len;
	bool inside;
	uint64_t at_insns, at_mem;	/* kernel counters at entry */
	uint64_t insns, mem, calls;	/* accumulated inside the window */
};

static struct lines lines;
static struct sub sub;
static uint64_t kernel_insns, kernel_mem;	/* every kernel instruction */
static struct watch watches[MAX_WATCH];
static unsigned int nwatches;
static struct sym *syms;	/* sorted by start, bucket = B_FIRST_SYM + index */
static size_t nsyms;
static uint64_t text_end;	/* _etext */
static struct counts *cnt, *base;
static size_t nbuckets;
static FILE *out;
static unsigned int nwindows;
static bool window_open;

static void usage(void)
{
	fprintf(stderr,
"usage: -plugin file=" PROG ".so,map=SYSTEM_MAP[,out=FILE][,insns=SYM]...[,lines=1][,sub=SYM]\n"
"  map=PATH  the guest kernel's System.map (boot it with nokaslr)\n"
"  out=PATH  where closed windows go (default " DEF_OUT ")\n"
"  insns=SYM also count SYM per instruction offset (up to %d symbols,\n"
"            the first %d bytes of each)\n"
"  lines=1   also write the 64-byte lines of kernel text each window ran\n"
"  sub=SYM   also count the kernel instructions from SYM's entry to its return\n"
"Counts per kernel symbol between uring-bench's window markers\n"
"(nopl 0x%x(%%rax) opens, nopl 0x%x(%%rax) closes).\n",
		MAX_WATCH, MAX_WATCH_LEN, MARK_OPEN, MARK_CLOSE);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int load_map(const char *path)
{
	char line[512], name[400], type;
	unsigned long long addr;
	size_t cap = 0, i, n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, PROG ": fopen %s: %d (%s)\n", path, -errno,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			text_end = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nsyms == cap) {
			struct sym *s;

			cap = cap ? cap * 2 : 4096;
			if (cap > MAX_SYMS)
				goto err_many;
			s = realloc(syms, cap * sizeof(*s));
			if (!s)
				goto err_nomem;
			syms = s;
		}
		syms[nsyms].start = addr;
		syms[nsyms].name = strdup(name);
		if (!syms[nsyms].name)
			goto err_nomem;
		nsyms++;
	}
	fclose(f);
	if (!nsyms || !text_end) {
		fprintf(stderr, PROG ": %s: no text symbols or no _etext: not a System.map\n",
			path);
		return -1;
	}
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
	/* aliases at one address: keep the first name (sorted), drop the rest */
	for (i = 1, n = 1; i < nsyms; i++) {
		if (syms[i].start == syms[n - 1].start) {
			free(syms[i].name);
			continue;
		}
		syms[n++] = syms[i];
	}
	nsyms = n;
	return 0;
err_many:
	fprintf(stderr, PROG ": %s: more than %d symbols\n", path, MAX_SYMS);
	fclose(f);
	return -1;
err_nomem:
	fprintf(stderr, PROG ": realloc/strdup: %d (%s)\n", -ENOMEM,
		strerror(ENOMEM));
	fclose(f);
	return -1;
}

/* find each insns=SYM in the map: its bucket, start and length */
static int resolve_watches(void)
{
	unsigned int w;
	size_t i;

	for (w = 0; w < nwatches; w++) {
		struct watch *wt = &watches[w];

		for (i = 0; i < nsyms; i++)
			if (!strcmp(syms[i].name, wt->name))
				break;
		if (i == nsyms) {
			fprintf(stderr, PROG ": insns=%s: no such text symbol in the map\n",
				wt->name);
			return -1;
		}
		wt->bucket = B_FIRST_SYM + i;
		wt->start = syms[i].start;
		wt->len = (i + 1 < nsyms ? syms[i + 1].start : text_end) - wt->start;
		if (wt->len > MAX_WATCH_LEN)
			wt->len = MAX_WATCH_LEN;
		wt->cnt = calloc(wt->len, sizeof(*wt->cnt));
		wt->base = calloc(wt->len, sizeof(*wt->base));
		if (!wt->cnt || !wt->base) {
			fprintf(stderr, PROG ": calloc: %d (%s)\n", -ENOMEM,
				strerror(ENOMEM));
			return -1;
		}
	}
	return 0;
}

/* the start and length of text symbol NAME, 0 if the map has none */
static uint64_t sym_range(const char *name, uint64_t *len)
{
	size_t i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name)) {
			*len = (i + 1 < nsyms ? syms[i + 1].start : text_end) - syms[i].start;
			return syms[i].start;
		}
	*len = 0;
	return 0;
}

/* lines=1 and sub=SYM: the text range, SYM (and SYM.cold) in the map */
static int resolve_lines_sub(void)
{
	char cold[440];

	if (lines.on) {
		lines.start = syms[0].start;
		lines.len = text_end - lines.start;
		lines.cnt = calloc(lines.len, sizeof(*lines.cnt));
		lines.seen = calloc(lines.len, 1);
		if (!lines.cnt || !lines.seen) {
			fprintf(stderr, PROG ": calloc: %d (%s)\n", -ENOMEM,
				strerror(ENOMEM));
			return -1;
		}
	}
	if (sub.name) {
		sub.start = sym_range(sub.name, &sub.len);
		if (!sub.start) {
			fprintf(stderr, PROG ": sub=%s: no such text symbol in the map\n",
				sub.name);
			return -1;
		}
		snprintf(cold, sizeof(cold), "%s.cold", sub.name);
		sub.cold_start = sym_range(cold, &sub.cold_len);
	}
	return 0;
}

/* lines=1: register kernel text offset OFF (an instruction of SIZE bytes) */
static int lines_add(uint64_t off, size_t size)
{
	if (lines.seen[off])
		return 0;
	if (lines.n == lines.cap) {
		size_t cap = lines.cap ? lines.cap * 2 : 65536;
		uint64_t *o = realloc(lines.off, cap * sizeof(*o));
		uint64_t *b;
		uint8_t *z;

		if (!o)
			return -1;
		lines.off = o;
		b = realloc(lines.base, cap * sizeof(*b));
		if (!b)
			return -1;
		lines.base = b;
		z = realloc(lines.size, cap);
		if (!z)
			return -1;
		lines.size = z;
		lines.cap = cap;
	}
	lines.seen[off] = 1;
	lines.off[lines.n] = off;
	lines.base[lines.n] = 0;
	lines.size[lines.n] = size > 255 ? 255 : size;
	lines.n++;
	return 0;
}

static bool in_sub(uint64_t pc)
{
	return pc - sub.start < sub.len ||
	       (sub.cold_start && pc - sub.cold_start < sub.cold_len);
}

/* a near return: c3, c2 iw, or f3 c3 */
static bool is_ret(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);

	return (n == 1 && p[0] == 0xc3) || (n == 3 && p[0] == 0xc2) ||
	       (n == 2 && p[0] == 0xf3 && p[1] == 0xc3);
}

static void sub_enter(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	sub.inside = true;
	sub.at_insns = kernel_insns;
	sub.at_mem = kernel_mem;
}

static void sub_exit(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (!sub.inside)
		return;
	sub.inside = false;
	if (!window_open)
		return;
	sub.insns += kernel_insns - sub.at_insns;
	sub.mem += kernel_mem - sub.at_mem;
	sub.calls++;
}

/* bucket of pc; *entry set when pc is the symbol's first byte */
static size_t bucket_of(uint64_t pc, bool *entry)
{
	size_t lo = 0, hi = nsyms;

	*entry = false;
	if (pc < KERNEL_START)
		return B_USER;
	if (pc < syms[0].start || pc >= text_end)
		return B_KOTHER;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*entry = syms[lo].start == pc;
	return B_FIRST_SYM + lo;
}

static const char *bucket_name(size_t b)
{
	if (b == B_USER)
		return "[user]";
	if (b == B_KOTHER)
		return "[kernel-other]";
	return syms[b - B_FIRST_SYM].name;
}

static void mark_open(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	unsigned int w;
	size_t i;

	memcpy(base, cnt, nbuckets * sizeof(*cnt));
	for (w = 0; w < nwatches; w++)
		memcpy(watches[w].base, watches[w].cnt,
		       watches[w].len * sizeof(*watches[w].cnt));
	for (i = 0; i < lines.n; i++)
		lines.base[i] = lines.cnt[lines.off[i]];
	sub.insns = sub.mem = sub.calls = 0;
	window_open = true;
}

static int off_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* one "line" record per 64-byte line of kernel text that ran in window n */
static void write_lines(unsigned int n)
{
	uint64_t *ran, line = UINT64_MAX, bytes = 0, max = 0, insns = 0;
	size_t i, m = 0;

	/* (offset << 8 | size, count) pairs of the instructions that ran */
	ran = malloc(2 * (lines.n ? lines.n : 1) * sizeof(*ran));
	if (!ran) {
		fprintf(out, "error n=%u lines: malloc failed\n", n);
		return;
	}
	for (i = 0; i < lines.n; i++) {
		uint64_t c = lines.cnt[lines.off[i]] - lines.base[i];

		if (!c)
			continue;
		ran[2 * m] = lines.off[i] << 8 | lines.size[i];
		ran[2 * m + 1] = c;
		m++;
	}
	qsort(ran, m, 2 * sizeof(*ran), off_cmp);
	for (i = 0; i <= m; i++) {
		uint64_t l = i < m ? (lines.start + (ran[2 * i] >> 8)) >> LINE_SHIFT : UINT64_MAX;

		if (l != line && line != UINT64_MAX)
			fprintf(out, "line n=%u addr=0x%" PRIx64 " bytes=%" PRIu64
				" max=%" PRIu64 " insns=%" PRIu64 "\n", n,
				line << LINE_SHIFT, bytes, max, insns);
		if (i == m)
			break;
		if (l != line) {
			line = l;
			bytes = max = insns = 0;
		}
		bytes += ran[2 * i] & 0xff;
		insns += ran[2 * i + 1];
		if (ran[2 * i + 1] > max)
			max = ran[2 * i + 1];
	}
	free(ran);
}

static void mark_close(unsigned int vcpu, void *udata)
{
	uint64_t user, kernel = 0, mem = 0;
	unsigned int n = nwindows, w;
	size_t b;

	(void)vcpu;
	(void)udata;
	if (!window_open)
		return;
	window_open = false;
	nwindows++;
	user = cnt[B_USER].insns - base[B_USER].insns;
	for (b = 0; b < nbuckets; b++) {
		mem += cnt[b].mem - base[b].mem;
		if (b != B_USER)
			kernel += cnt[b].insns - base[b].insns;
	}
	fprintf(out, "window n=%u insns=%" PRIu64 " user=%" PRIu64
		" kernel=%" PRIu64 " mem=%" PRIu64 "\n",
		n, user + kernel, user, kernel, mem);
	for (b = 0; b < nbuckets; b++) {
		uint64_t i = cnt[b].insns - base[b].insns;

		if (!i)
			continue;
		fprintf(out, "sym n=%u name=%s insns=%" PRIu64 " mem=%" PRIu64
			" calls=%" PRIu64 "\n", n, bucket_name(b), i,
			cnt[b].mem - base[b].mem, cnt[b].calls - base[b].calls);
	}
	for (w = 0; w < nwatches; w++) {
		const struct watch *wt = &watches[w];

		for (b = 0; b < wt->len; b++)
			if (wt->cnt[b] != wt->base[b])
				fprintf(out, "insn n=%u sym=%s off=0x%zx count=%" PRIu64 "\n",
					n, wt->name, b, wt->cnt[b] - wt->base[b]);
	}
	if (lines.on)
		write_lines(n);
	if (sub.name)
		fprintf(out, "sub n=%u name=%s insns=%" PRIu64 " mem=%" PRIu64
			" calls=%" PRIu64 "\n", n, sub.name, sub.insns, sub.mem,
			sub.calls);
	fflush(out);
}

/* the marker bytes 0f 1f 80 <disp32 LE>, or 0 */
static uint32_t marker_of(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != MARK_LEN ||
	    p[0] != 0x0f || p[1] != 0x1f || p[2] != 0x80)
		return 0;
	disp = p[3] | p[4] << 8 | p[5] << 16 | (uint32_t)p[6] << 24;
	return disp == MARK_OPEN || disp == MARK_CLOSE ? disp : 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		bool entry;
		size_t b = bucket_of(pc, &entry);
		uint32_t mark;
		unsigned int w;

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &cnt[b].insns, 1);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
			QEMU_PLUGIN_INLINE_ADD_U64, &cnt[b].mem, 1);
		if (entry)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &cnt[b].calls, 1);
		for (w = 0; w < nwatches; w++)
			if (watches[w].bucket == b && pc - watches[w].start < watches[w].len)
				qemu_plugin_register_vcpu_insn_exec_inline(insn,
					QEMU_PLUGIN_INLINE_ADD_U64,
					&watches[w].cnt[pc - watches[w].start], 1);
		if (b != B_USER) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &kernel_insns, 1);
			qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
				QEMU_PLUGIN_INLINE_ADD_U64, &kernel_mem, 1);
			if (lines.on && pc - lines.start < lines.len) {
				if (lines_add(pc - lines.start, qemu_plugin_insn_size(insn))) {
					fprintf(stderr, PROG ": realloc: %d (%s)\n",
						-ENOMEM, strerror(ENOMEM));
					abort();
				}
				qemu_plugin_register_vcpu_insn_exec_inline(insn,
					QEMU_PLUGIN_INLINE_ADD_U64,
					&lines.cnt[pc - lines.start], 1);
			}
			if (sub.name && pc == sub.start)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, sub_enter,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
			else if (sub.name && in_sub(pc) && is_ret(insn))
				qemu_plugin_register_vcpu_insn_exec_cb(insn, sub_exit,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		mark = marker_of(insn);
		if (mark)
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
				mark == MARK_OPEN ? mark_open : mark_close,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fprintf(out, "end windows=%u open=%d\n", nwindows, window_open);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *outp = DEF_OUT;
	int i;

	if (info->version.min > QEMU_PLUGIN_VERSION ||
	    info->version.cur != QEMU_PLUGIN_VERSION) {
		fprintf(stderr, PROG ": written for QEMU plugin API version %d; this QEMU offers %d..%d: re-check the declarations in lab-attrib.c against its qemu-plugin.h\n",
			QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, PROG ": needs qemu-system-x86_64 (target %s, system %d)\n",
			info->target_name, info->system_emulation);
		return -1;
	}
	if (info->system.smp_vcpus != 1) {
		fprintf(stderr, PROG ": needs -smp 1 (inline counters are per machine), got %d\n",
			info->system.smp_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4)) {
			map = argv[i] + 4;
		} else if (!strncmp(argv[i], "out=", 4)) {
			outp = argv[i] + 4;
		} else if (!strncmp(argv[i], "insns=", 6) && argv[i][6]) {
			if (nwatches == MAX_WATCH) {
				fprintf(stderr, PROG ": more than %d insns= symbols\n", MAX_WATCH);
				return -1;
			}
			watches[nwatches++].name = argv[i] + 6;
		} else if (!strcmp(argv[i], "lines=1")) {
			lines.on = true;
		} else if (!strncmp(argv[i], "sub=", 4) && argv[i][4]) {
			sub.name = argv[i] + 4;
		} else {
			fprintf(stderr, PROG ": unknown argument '%s'\n", argv[i]);
			usage();
			return -1;
		}
	}
	if (!map) {
		fprintf(stderr, PROG ": map=SYSTEM_MAP is required\n");
		usage();
		return -1;
	}
	if (load_map(map) || resolve_watches() || resolve_lines_sub())
		return -1;
	nbuckets = B_FIRST_SYM + nsyms;
	cnt = calloc(nbuckets, sizeof(*cnt));
	base = calloc(nbuckets, sizeof(*base));
	if (!cnt || !base) {
		fprintf(stderr, PROG ": calloc: %d (%s)\n", -ENOMEM, strerror(ENOMEM));
		return -1;
	}
	out = fopen(outp, "w");
	if (!out) {
		fprintf(stderr, PROG ": fopen %s: %d (%s)\n", outp, -errno,
			strerror(errno));
		return -1;
	}
	fprintf(out, "plugin api=%d..%d symbols=%zu map=%s\n",
		info->version.min, info->version.cur, nsyms, map);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
