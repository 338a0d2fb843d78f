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
"usage: -plugin file=" PROG ".so,map=SYSTEM_MAP[,out=FILE][,insns=SYM]...\n"
"  map=PATH  the guest kernel's System.map (boot it with nokaslr)\n"
"  out=PATH  where closed windows go (default " DEF_OUT ")\n"
"  insns=SYM also count SYM per instruction offset (up to %d symbols,\n"
"            the first %d bytes of each)\n"
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

	memcpy(base, cnt, nbuckets * sizeof(*cnt));
	for (w = 0; w < nwatches; w++)
		memcpy(watches[w].base, watches[w].cnt,
		       watches[w].len * sizeof(*watches[w].cnt));
	window_open = true;
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
		if (b != B_USER)
			continue;
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
	if (load_map(map) || resolve_watches())
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
