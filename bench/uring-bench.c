// SPDX-License-Identifier: GPL-2.0
/*
 * uring-bench: a one-file liburing benchmark for the io_uring audit lab, in
 * the spirit of fio's t/io_uring.c.
 *
 * Modes:
 *   nop          batches of IORING_OP_NOP: the pure submission path.
 *   read         4 KiB random reads from -f, file registered (fixed file),
 *                buffers registered (READ_FIXED) unless -B 0.
 *   openclose    IORING_OP_OPENAT of -f, then IORING_OP_CLOSE of the fd;
 *                each OPENAT and each CLOSE counts as one op.
 *   personality  like read, but every sqe carries a registered personality
 *                (exercises security_uring_override_creds()).
 *   sendmsg      IORING_OP_SENDMSG of one byte to this process's own AF_UNIX
 *                datagram socket, with the destination address in msg_name
 *                (move_addr_to_kernel(): audit_sockaddr(), a SOCKADDR record).
 *
 * Stages (the record-stream proof, issue 25): -m takes a comma list of
 * nop/openclose/sendmsg, run one after the other on the same ring (the same
 * SQPOLL thread, the same io-wq), -n ops each; between two stages -G PATH
 * creates PATH.N (N = stages done) and waits until PATH.N.go exists, so a
 * script can change audit rules or state between them.
 *
 * Time based by default (-t); with -n it issues exactly that many ops (for
 * openclose: that many OPENATs plus as many CLOSEs, so 2*N ops) and checks
 * every completion, so it can drive an exact-count audit test.
 *
 * LSM denials (the audit record-stream proof): -u drops to an unprivileged
 * uid before the ring exists (Smack denies SQPOLL rings and cross-label
 * opens), -L relabels the task after a personality is registered (Smack
 * denies the personality's override_creds), and -e says which errno every
 * completion must carry.
 *
 * stdout carries only key=value lines:
 *   interval t=<s> ops=<n> ops_per_sec=<rate>
 *   result mode=<m> ops=<n> secs=<s> ops_per_sec=<rate> ns_per_op=<ns> ...
 * Errors go to stderr. Exit 0 ok, 1 runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <liburing.h>

#define PROG			"uring-bench"

#define DEF_MODE		"nop"
#define DEF_DEPTH		128
#define DEF_BATCH		32
#define DEF_SECS		5
#define DEF_INTERVAL		1
#define DEF_READ_FILE		"/dev/nullb0"
#define DEF_OPEN_FILE		"/tmp/uring-bench.file"
#define DEF_DIRECT		1
#define DEF_FIXED_BUF		1
#define DEF_SEED		1
#define DEF_UID			-1	/* -u: keep the caller's uid */
#define DEF_WANT_ERRNO		0	/* -e: every completion succeeds */

#define MAX_DEPTH		32768	/* IORING_MAX_ENTRIES */
#define SQ_THREAD_IDLE_MS	1000
/* read size and offset alignment */
#define BS			4096
#define OPEN_FILE_SIZE		4096

#define MAX_STAGES		8
#define GATE_POLL_US		10000

#define NSEC_PER_SEC		1000000000LL
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

enum mode {
	MODE_NOP,
	MODE_READ,
	MODE_OPENCLOSE,
	MODE_PERSONALITY,
	MODE_SENDMSG,
};

static const char * const mode_names[] = {
	[MODE_NOP]		= "nop",
	[MODE_READ]		= "read",
	[MODE_OPENCLOSE]	= "openclose",
	[MODE_PERSONALITY]	= "personality",
	[MODE_SENDMSG]		= "sendmsg",
};

/* user_data tags for openclose */
#define UD_OPEN			1
#define UD_CLOSE		2

struct bench;
typedef unsigned int (*prep_fn)(struct bench *b, unsigned int max);
typedef int (*reap_fn)(struct bench *b, unsigned int nr);

struct bench {
	struct io_uring ring;
	struct io_uring_cqe **cqes;
	prep_fn prep;
	reap_fn reap;

	unsigned int depth;
	unsigned int batch;
	unsigned int inflight;		/* prepped, not yet reaped */
	unsigned long long left;	/* ops (openclose: OPENATs) to issue */
	unsigned long long done;	/* completions reaped */
	__u8 sqe_flags;			/* FIXED_FILE, ASYNC */
	__u16 personality;
	int want_err;			/* -e: every cqe res must be -want_err */

	/* read, personality */
	char *buf;			/* depth * BS, BS aligned */
	unsigned long long nblocks;	/* file size / BS */
	unsigned long long *offs;	/* per slot, for error messages */
	unsigned int *free_slots;
	unsigned int nfree;
	uint64_t rng;
	int fixed_buf;

	/* openclose */
	const char *path;
	int *pending;			/* opened fds awaiting CLOSE */
	unsigned int npending;

	/* sendmsg: one datagram socket, sending to its own address */
	int sock;
	struct sockaddr_un addr;
	struct msghdr msg;
	struct iovec msg_iov;
	char byte;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [options]\n"
"One-file liburing benchmark; key=value results on stdout, errors on stderr.\n"
"\n"
"  -m MODE   nop | read | openclose | personality | sendmsg (default " DEF_MODE ")\n"
"              nop          IORING_OP_NOP batches (pure submission path)\n"
"              read         4 KiB random reads of -f, fixed file,\n"
"                           READ_FIXED unless -B 0\n"
"              openclose    OPENAT (O_RDONLY) of -f then CLOSE of the fd;\n"
"                           each OPENAT and each CLOSE is one op\n"
"              personality  like read, every sqe carries a registered\n"
"                           personality id\n"
"              sendmsg      SENDMSG of 1 byte to this process's own AF_UNIX\n"
"                           datagram socket, destination in msg_name\n"
"                           (abstract name " PROG ".audit-lab: one at a time)\n"
"            or a comma list of nop, openclose and sendmsg: stages run in\n"
"            turn on one ring, -n OPS each (needs -n and -G)\n"
"  -G PATH   between stages create PATH.N (N stages done), then wait\n"
"            until PATH.N.go exists (default none)\n"
"  -d DEPTH  queue depth, max ops in flight, 1..%d (default %d);\n"
"            ring entries = DEPTH rounded up to a power of 2\n"
"  -b BATCH  submit batch and complete batch, 1..DEPTH (default %d)\n"
"  -t SECS   run time in seconds, time based (default %d)\n"
"  -n OPS    run exactly OPS ops instead of time based and check every\n"
"            completion; openclose: OPS OPENATs + OPS CLOSEs = 2*OPS ops\n"
"            (default off: time based)\n"
"  -i SECS   seconds between interval lines, 0 = none (default %d)\n"
"  -S        IORING_SETUP_SQPOLL, sq_thread_idle %d ms (default off)\n"
"  -A        set IOSQE_ASYNC on every sqe, forces io-wq (default off)\n"
"  -f PATH   file or block device (default " DEF_READ_FILE " for\n"
"            read/personality, " DEF_OPEN_FILE " for openclose;\n"
"            openclose creates it, %d bytes, if missing)\n"
"  -D 0|1    read/personality: open with O_DIRECT (default %d)\n"
"  -B 0|1    read/personality: register buffers, IORING_OP_READ_FIXED;\n"
"            0 = IORING_OP_READ into posix_memalign'd buffers (default %d)\n"
"  -s SEED   seed of the offset PRNG (xorshift64*) (default %d)\n"
"  -u UID    after opening -f, before setting up the ring, drop to UID\n"
"            (setgroups, setresgid, setresuid: no capabilities left)\n"
"            (default %d: keep the caller's ids)\n"
"  -L LABEL  set this task's Smack label to LABEL, then drop\n"
"            CAP_MAC_OVERRIDE (CAP_MAC_ADMIN stays: SQPOLL rings are\n"
"            allowed); before the ring is set up, except in personality\n"
"            mode: after registering the personality, so each sqe's\n"
"            override_creds crosses labels (default off)\n"
"  -e ERRNO  every completion must fail with -ERRNO (an expected denial;\n"
"            openclose: no CLOSE follows, OPS ops in all); each counts as\n"
"            an op (default %d: every completion must succeed)\n"
"  -h        this help\n"
"\n"
"Output (stdout):\n"
"  interval t=SECS ops=N ops_per_sec=RATE\n"
"  result mode=M ops=N secs=S ops_per_sec=RATE ns_per_op=NS depth=D\n"
"         batch=B sqpoll=0|1 async=0|1 fixed_file=0|1 fixed_buf=0|1\n"
"Exit status: 0 ok, 1 runtime error, 2 bad usage.\n",
		MAX_DEPTH, DEF_DEPTH, DEF_BATCH, DEF_SECS, DEF_INTERVAL,
		SQ_THREAD_IDLE_MS, OPEN_FILE_SIZE, DEF_DIRECT, DEF_FIXED_BUF,
		DEF_SEED, DEF_UID, DEF_WANT_ERRNO);
}

/* Bad usage: one line naming the problem and the fix, exit 2. */
static void __attribute__((format(printf, 1, 2), noreturn))
usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* "uring-bench: <call>: <-errno> (<strerror>)" */
static void err_ret(const char *call, int ret)
{
	fprintf(stderr, PROG ": %s: %d (%s)\n", call, ret, strerror(-ret));
}

static unsigned long long parse_ull(int opt, const char *s,
				    unsigned long long min,
				    unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '-' || *s == '\0' || *end != '\0' || errno ||
	    v < min || v > max)
		usage_err("bad -%c '%s': use an integer in %llu..%llu",
			  opt, s, min, max);
	return v;
}

static double parse_secs(int opt, const char *s, double min, int min_ok)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	/* !(v <= 1e9) also rejects NaN */
	if (*s == '\0' || *end != '\0' || errno || !(v <= 1e9) ||
	    (min_ok ? v < min : v <= min))
		usage_err("bad -%c '%s': use a number of seconds %s %g",
			  opt, s, min_ok ? ">=" : ">", min);
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static unsigned int roundup_pow2(unsigned int v)
{
	unsigned int r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/*
 * Measurement window markers for the lab's QEMU plugin (tools/lab-attrib.c):
 * a NOP with a displacement nothing else uses. The plugin recognises the
 * bytes at translation time and counts only between OPEN and CLOSE; to the
 * guest each is one ordinary instruction, outside the ops it times.
 */
#define LAB_MARK_OPEN		0x4c414231	/* "1BAL" */
#define LAB_MARK_CLOSE		0x4c414232
#define lab_mark(disp) \
	asm volatile("nopl %c0(%%rax)" : : "i" (disp) : "memory")

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*: state must be non-zero */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ---- nop ---- */

static unsigned int prep_nop(struct bench *b, unsigned int max)
{
	unsigned int i, n = max < b->left ? max : (unsigned int)b->left;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);

		if (!sqe)
			break;
		io_uring_prep_nop(sqe);
		sqe->flags = b->sqe_flags;
		sqe->user_data = 0;
	}
	b->left -= i;
	return i;
}

static int reap_nop(struct bench *b, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (b->cqes[i]->res < 0) {
			err_ret("nop cqe res", b->cqes[i]->res);
			return -1;
		}
	}
	return 0;
}

/* ---- read, personality ---- */

static unsigned int prep_read(struct bench *b, unsigned int max)
{
	unsigned int i, n = max < b->left ? max : (unsigned int)b->left;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);
		unsigned long long off;
		unsigned int slot;
		char *buf;

		if (!sqe)
			break;
		slot = b->free_slots[--b->nfree];
		off = (rng_next(&b->rng) % b->nblocks) * BS;
		buf = b->buf + (size_t)slot * BS;
		if (b->fixed_buf)
			io_uring_prep_read_fixed(sqe, 0, buf, BS, off, 0);
		else
			io_uring_prep_read(sqe, 0, buf, BS, off);
		sqe->flags = b->sqe_flags;
		sqe->personality = b->personality;
		sqe->user_data = slot;
		b->offs[slot] = off;
	}
	b->left -= i;
	return i;
}

static void __attribute__((cold))
read_cqe_err(const struct bench *b, int res, unsigned int slot)
{
	if (res < 0)
		fprintf(stderr, PROG ": read cqe res: %d (%s), offset %llu\n",
			res, strerror(-res), b->offs[slot]);
	else
		fprintf(stderr, PROG ": read cqe res: %d, want %d (short read), offset %llu\n",
			res, BS, b->offs[slot]);
}

static int reap_read(struct bench *b, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct io_uring_cqe *cqe = b->cqes[i];
		unsigned int slot = (unsigned int)cqe->user_data;

		if (b->want_err) {
			if (cqe->res != -b->want_err) {
				fprintf(stderr, PROG ": read cqe res: %d, want %d (-e)\n",
					cqe->res, -b->want_err);
				return -1;
			}
		} else if (cqe->res != BS) {
			read_cqe_err(b, cqe->res, slot);
			return -1;
		}
		b->free_slots[b->nfree++] = slot;
	}
	return 0;
}

/* ---- openclose ---- */

/*
 * CLOSEs of already opened fds go first, then new OPENATs. An OPENAT
 * completion moves its slot from inflight to pending, so
 * inflight + npending <= depth always holds and all pending fds fit in
 * the room left when inflight drops.
 */
static unsigned int prep_openclose(struct bench *b, unsigned int max)
{
	struct io_uring_sqe *sqe;
	unsigned int n = 0;

	while (n < max && b->npending) {
		sqe = io_uring_get_sqe(&b->ring);
		if (!sqe)
			return n;
		io_uring_prep_close(sqe, b->pending[--b->npending]);
		sqe->flags = b->sqe_flags;
		sqe->user_data = UD_CLOSE;
		n++;
	}
	while (n < max && b->left) {
		sqe = io_uring_get_sqe(&b->ring);
		if (!sqe)
			return n;
		io_uring_prep_openat(sqe, AT_FDCWD, b->path, O_RDONLY, 0);
		sqe->flags = b->sqe_flags;
		sqe->user_data = UD_OPEN;
		b->left--;
		n++;
	}
	return n;
}

static int reap_openclose(struct bench *b, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct io_uring_cqe *cqe = b->cqes[i];

		if (b->want_err) {
			/* only OPENATs are issued: none succeeds, none is closed */
			if (cqe->res != -b->want_err) {
				fprintf(stderr, PROG ": openat cqe res: %d, want %d (-e)\n",
					cqe->res, -b->want_err);
				return -1;
			}
			continue;
		}
		if (cqe->res < 0) {
			err_ret(cqe->user_data == UD_OPEN ?
				"openat cqe res" : "close cqe res", cqe->res);
			return -1;
		}
		if (cqe->user_data == UD_OPEN)
			b->pending[b->npending++] = cqe->res;
	}
	return 0;
}

/* ---- sendmsg ---- */

static unsigned int prep_sendmsg(struct bench *b, unsigned int max)
{
	struct io_uring_sqe *sqe;
	unsigned int n = 0;

	while (n < max && b->left) {
		sqe = io_uring_get_sqe(&b->ring);
		if (!sqe)
			return n;
		io_uring_prep_sendmsg(sqe, b->sock, &b->msg, 0);
		sqe->flags = b->sqe_flags;
		b->left--;
		n++;
	}
	return n;
}

/* each sent byte is read back, so the socket's queue never fills */
static int reap_sendmsg(struct bench *b, unsigned int nr)
{
	unsigned int i;
	char c;

	for (i = 0; i < nr; i++) {
		if (b->cqes[i]->res != 1) {
			err_ret("sendmsg cqe res", b->cqes[i]->res < 0 ?
				b->cqes[i]->res : -EIO);
			return -1;
		}
		if (recv(b->sock, &c, 1, MSG_DONTWAIT) != 1) {
			err_ret("recv", -errno);
			return -1;
		}
	}
	return 0;
}

/*
 * A fixed abstract AF_UNIX address (no file; the same bytes in every run, so
 * SOCKADDR records compare across kernels): one sendmsg bench at a time.
 */
static int open_sendmsg_socket(struct bench *b)
{
	socklen_t len;
	int n;

	b->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (b->sock < 0) {
		err_ret("socket AF_UNIX SOCK_DGRAM", -errno);
		return -1;
	}
	b->addr.sun_family = AF_UNIX;
	n = snprintf(b->addr.sun_path + 1, sizeof(b->addr.sun_path) - 1,
		     "%s", PROG ".audit-lab");
	len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	if (bind(b->sock, (struct sockaddr *)&b->addr, len) < 0) {
		err_ret("bind", -errno);
		return -1;
	}
	b->byte = 'x';
	b->msg_iov.iov_base = &b->byte;
	b->msg_iov.iov_len = 1;
	b->msg.msg_name = &b->addr;
	b->msg.msg_namelen = len;
	b->msg.msg_iov = &b->msg_iov;
	b->msg.msg_iovlen = 1;
	return 0;
}

/* -G: announce stage @done finished, wait for the go-ahead */
static int gate(const char *path, unsigned int done)
{
	char name[PATH_MAX];
	int fd;

	snprintf(name, sizeof(name), "%s.%u", path, done);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		err_ret("open gate file", -errno);
		return -1;
	}
	close(fd);
	snprintf(name, sizeof(name), "%s.%u.go", path, done);
	while (access(name, F_OK) < 0) {
		if (errno != ENOENT) {
			err_ret("access gate go file", -errno);
			return -1;
		}
		usleep(GATE_POLL_US);
	}
	return 0;
}

/* ---- setup ---- */

static int create_open_file(const char *path)
{
	char buf[OPEN_FILE_SIZE];
	char what[64 + PATH_MAX];
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return 0;
		snprintf(what, sizeof(what), "open %s", path);
		err_ret(what, -errno);
		return -1;
	}
	memset(buf, 0, sizeof(buf));
	ret = write(fd, buf, sizeof(buf));
	if (ret != (ssize_t)sizeof(buf)) {
		snprintf(what, sizeof(what), "write %s", path);
		err_ret(what, ret < 0 ? -errno : -EIO);
		close(fd);
		return -1;
	}
	if (close(fd) < 0) {
		snprintf(what, sizeof(what), "close %s", path);
		err_ret(what, -errno);
		return -1;
	}
	return 0;
}

/* Open -f for read/personality and find its size in BS blocks. */
static int open_read_file(struct bench *b, int direct, int *fdp)
{
	char what[64 + PATH_MAX];
	unsigned long long size;
	struct stat st;
	int fd, ret;

	fd = open(b->path, O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		ret = -errno;
		snprintf(what, sizeof(what), "open %s%s", b->path,
			 direct ? " O_DIRECT" : "");
		err_ret(what, ret);
		if (ret == -ENOENT && !strcmp(b->path, DEF_READ_FILE))
			fprintf(stderr, PROG ": hint: load null_blk or pass -f PATH\n");
		else if (ret == -EINVAL && direct)
			fprintf(stderr, PROG ": hint: file system lacks O_DIRECT, pass -D 0\n");
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(what, sizeof(what), "fstat %s", b->path);
		err_ret(what, -errno);
		goto err;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
			snprintf(what, sizeof(what), "ioctl BLKGETSIZE64 %s",
				 b->path);
			err_ret(what, -errno);
			goto err;
		}
	} else if (S_ISREG(st.st_mode)) {
		size = st.st_size;
	} else {
		fprintf(stderr, PROG ": %s: not a regular file or block device\n",
			b->path);
		goto err;
	}
	b->nblocks = size / BS;
	if (!b->nblocks) {
		fprintf(stderr, PROG ": %s: size %llu is smaller than %d bytes\n",
			b->path, size, BS);
		goto err;
	}
	*fdp = fd;
	return 0;
err:
	close(fd);
	return -1;
}

/* ---- main loop ---- */

/*
 * run_ns 0 means not time based: issue b->left ops, then drain.
 *
 * Keep up to depth ops in flight. Each pass preps at most batch sqes and
 * makes one io_uring_submit()/io_uring_submit_and_wait() call; it waits for
 * min(batch, inflight) completions only once the queue is full or there is
 * nothing more to issue, then reaps everything ready in one go. The clock is
 * read once per pass.
 */
static int run(struct bench *b, long long run_ns, long long iv_ns,
	       long long *start, long long *end)
{
	long long t, deadline, next_iv, last_iv;
	unsigned long long last_done = 0;
	unsigned int room, want, n, got, wait_nr;
	int timed = run_ns > 0;
	int ret;

	lab_mark(LAB_MARK_OPEN);
	t = now_ns();
	*start = t;
	deadline = t + run_ns;
	last_iv = t;
	next_iv = t + iv_ns;

	for (;;) {
		room = b->depth - b->inflight;
		want = room < b->batch ? room : b->batch;
		n = want ? b->prep(b, want) : 0;
		b->inflight += n;
		if (!b->inflight)
			break;

		if (n == want && b->inflight < b->depth)
			wait_nr = 0;
		else
			wait_nr = b->inflight < b->batch ?
				  b->inflight : b->batch;

		if (wait_nr)
			ret = io_uring_submit_and_wait(&b->ring, wait_nr);
		else
			ret = io_uring_submit(&b->ring);
		if (ret < 0 && ret != -EINTR) {
			err_ret(wait_nr ? "io_uring_submit_and_wait" :
				"io_uring_submit", ret);
			return -1;
		}

		got = io_uring_peek_batch_cqe(&b->ring, b->cqes, b->depth);
		if (got) {
			if (b->reap(b, got))
				return -1;
			io_uring_cq_advance(&b->ring, got);
			b->inflight -= got;
			b->done += got;
		}

		t = now_ns();
		if (timed && t >= deadline) {
			/* stop issuing, drain what is in flight */
			b->left = 0;
			timed = 0;
		}
		if (iv_ns && t >= next_iv) {
			printf("interval t=%.3f ops=%llu ops_per_sec=%.3f\n",
			       (t - *start) / 1e9, b->done - last_done,
			       (b->done - last_done) * 1e9 / (t - last_iv));
			last_done = b->done;
			last_iv = t;
			next_iv += iv_ns;
			if (next_iv <= t)
				next_iv = t + iv_ns;
		}
	}
	*end = now_ns();
	lab_mark(LAB_MARK_CLOSE);
	return 0;
}

/* -u: no supplementary groups, then gid, then uid (and so no capabilities) */
static int drop_ids(uid_t uid)
{
	if (setgroups(0, NULL) < 0) {
		err_ret("setgroups", -errno);
		return -1;
	}
	if (setresgid(uid, uid, uid) < 0) {
		err_ret("setresgid", -errno);
		return -1;
	}
	if (setresuid(uid, uid, uid) < 0) {
		err_ret("setresuid", -errno);
		return -1;
	}
	return 0;
}

/* -L: a new Smack label for this task, then no MAC override */
static int relabel(const char *label)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	const unsigned int mac = 1U << (CAP_MAC_OVERRIDE - 32);
	ssize_t len = (ssize_t)strlen(label);
	int fd;

	fd = open("/proc/self/attr/current", O_WRONLY);
	if (fd < 0) {
		err_ret("open /proc/self/attr/current", -errno);
		return -1;
	}
	if (write(fd, label, len) != len) {
		err_ret("write /proc/self/attr/current", -errno);
		close(fd);
		return -1;
	}
	close(fd);
	if (syscall(SYS_capget, &hdr, data) < 0) {
		err_ret("capget", -errno);
		return -1;
	}
	data[1].effective &= ~mac;
	data[1].permitted &= ~mac;
	data[1].inheritable &= ~mac;
	if (syscall(SYS_capset, &hdr, data) < 0) {
		err_ret("capset", -errno);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	struct bench b;
	struct iovec iov;
	unsigned long long nops = 0, expect = 0;
	double secs = DEF_SECS, iv = DEF_INTERVAL, el;
	long long start = 0, end = 0;
	int mode = -1, direct = DEF_DIRECT, sqpoll = 0, async = 0;
	int fixed_file = 0, fixed_buf = 0, fd = -1, ring_ok = 0;
	uint64_t seed = DEF_SEED;
	const char *mode_str = DEF_MODE, *label = NULL, *gate_path = NULL;
	long long uid = DEF_UID;
	int stages[MAX_STAGES], nstages = 0, uses[ARRAY_SIZE(mode_names)];
	char modes_buf[256], *tok, *save;
	unsigned int i;
	int st;
	int opt, ret, status = 1;

	memset(&b, 0, sizeof(b));
	b.sock = -1;
	b.depth = DEF_DEPTH;
	b.batch = DEF_BATCH;
	b.fixed_buf = DEF_FIXED_BUF;

	opterr = 0;
	while ((opt = getopt(argc, argv, ":m:d:b:t:n:i:SAf:D:B:s:u:L:e:G:h")) != -1) {
		switch (opt) {
		case 'm':
			mode_str = optarg;
			break;
		case 'd':
			b.depth = parse_ull(opt, optarg, 1, MAX_DEPTH);
			break;
		case 'b':
			b.batch = parse_ull(opt, optarg, 1, MAX_DEPTH);
			break;
		case 't':
			secs = parse_secs(opt, optarg, 0, 0);
			break;
		case 'n':
			/* openclose counts 2*OPS: keep that from overflowing */
			nops = parse_ull(opt, optarg, 1, ULLONG_MAX / 2);
			break;
		case 'i':
			iv = parse_secs(opt, optarg, 0, 1);
			break;
		case 'S':
			sqpoll = 1;
			break;
		case 'A':
			async = 1;
			break;
		case 'f':
			b.path = optarg;
			break;
		case 'D':
			direct = parse_ull(opt, optarg, 0, 1);
			break;
		case 'B':
			b.fixed_buf = parse_ull(opt, optarg, 0, 1);
			break;
		case 's':
			seed = parse_ull(opt, optarg, 0, ULLONG_MAX);
			break;
		case 'u':
			uid = (long long)parse_ull(opt, optarg, 0, 65535);
			break;
		case 'L':
			label = optarg;
			break;
		case 'e':
			b.want_err = (int)parse_ull(opt, optarg, 1, 4095);
			break;
		case 'G':
			gate_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			usage_err("option -%c needs an argument; see -h",
				  optopt);
		default:
			usage_err("unknown option -%c; see -h for the option list",
				  optopt);
		}
	}
	if (optind < argc)
		usage_err("unexpected argument '%s'; options only, see -h",
			  argv[optind]);
	if (strlen(mode_str) >= sizeof(modes_buf))
		usage_err("-m '%s' is too long; use at most %d stages",
			  mode_str, MAX_STAGES);
	strcpy(modes_buf, mode_str);
	memset(uses, 0, sizeof(uses));
	for (tok = strtok_r(modes_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		mode = -1;
		for (i = 0; i < ARRAY_SIZE(mode_names); i++)
			if (!strcmp(tok, mode_names[i]))
				mode = i;
		if (mode < 0)
			usage_err("unknown mode -m '%s'; use nop, read, openclose, personality or sendmsg",
				  tok);
		if (nstages == MAX_STAGES)
			usage_err("-m '%s' has more than %d stages; use fewer",
				  mode_str, MAX_STAGES);
		stages[nstages++] = mode;
		uses[mode] = 1;
	}
	if (!nstages)
		usage_err("empty -m; use nop, read, openclose, personality or sendmsg");
	if (nstages > 1) {
		if (!nops || !gate_path)
			usage_err("-m '%s' has %d stages: they need -n OPS and -G PATH",
				  mode_str, nstages);
		if (uses[MODE_READ] || uses[MODE_PERSONALITY])
			usage_err("-m '%s': read and personality run only alone; stage nop, openclose and sendmsg",
				  mode_str);
		if (b.want_err)
			usage_err("-e and a staged -m exclude each other; use one");
	}
	mode = stages[0];
	if (label && uid >= 0)
		usage_err("-L and -u exclude each other (relabelling needs CAP_MAC_ADMIN); use one");
	if (b.batch > b.depth)
		usage_err("batch -b %u is larger than depth -d %u; use -b <= -d",
			  b.batch, b.depth);

	setvbuf(stdout, NULL, _IOLBF, 0);

	b.cqes = calloc(b.depth, sizeof(*b.cqes));
	if (!b.cqes) {
		err_ret("calloc", -ENOMEM);
		goto err;
	}

	if (uses[MODE_SENDMSG] && open_sendmsg_socket(&b))
		goto err;
	if (!uses[MODE_READ] && !uses[MODE_PERSONALITY])
		b.fixed_buf = 0;
	if (uses[MODE_OPENCLOSE]) {
		if (!b.path)
			b.path = DEF_OPEN_FILE;
		if (create_open_file(b.path))
			goto err;
		b.pending = calloc(b.depth, sizeof(*b.pending));
		if (!b.pending) {
			err_ret("calloc", -ENOMEM);
			goto err;
		}
	}
	switch (mode) {
	case MODE_NOP:
	case MODE_OPENCLOSE:
	case MODE_SENDMSG:
		break;
	case MODE_READ:
	case MODE_PERSONALITY:
		b.prep = prep_read;
		b.reap = reap_read;
		fixed_file = 1;
		if (!b.path)
			b.path = DEF_READ_FILE;
		if (open_read_file(&b, direct, &fd))
			goto err;
		ret = posix_memalign((void **)&b.buf, BS, (size_t)b.depth * BS);
		if (ret) {
			err_ret("posix_memalign", -ret);
			goto err;
		}
		memset(b.buf, 0, (size_t)b.depth * BS);
		b.offs = calloc(b.depth, sizeof(*b.offs));
		b.free_slots = calloc(b.depth, sizeof(*b.free_slots));
		if (!b.offs || !b.free_slots) {
			err_ret("calloc", -ENOMEM);
			goto err;
		}
		for (i = 0; i < b.depth; i++)
			b.free_slots[i] = i;
		b.nfree = b.depth;
		b.rng = splitmix64(seed);
		if (!b.rng)
			b.rng = 1;
		break;
	}

	if (uid >= 0 && drop_ids((uid_t)uid))
		goto err;
	if (label && mode != MODE_PERSONALITY && relabel(label))
		goto err;
	memset(&p, 0, sizeof(p));
	if (sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = SQ_THREAD_IDLE_MS;
	}
	ret = io_uring_queue_init_params(roundup_pow2(b.depth), &b.ring, &p);
	if (ret < 0) {
		err_ret("io_uring_queue_init_params", ret);
		goto err;
	}
	ring_ok = 1;

	if (fixed_file) {
		ret = io_uring_register_files(&b.ring, &fd, 1);
		if (ret < 0) {
			err_ret("io_uring_register_files", ret);
			goto err;
		}
		b.sqe_flags |= IOSQE_FIXED_FILE;
	}
	if (b.fixed_buf) {
		iov.iov_base = b.buf;
		iov.iov_len = (size_t)b.depth * BS;
		ret = io_uring_register_buffers(&b.ring, &iov, 1);
		if (ret < 0) {
			err_ret("io_uring_register_buffers", ret);
			if (ret == -ENOMEM)
				fprintf(stderr, PROG ": hint: raise ulimit -l or pass -B 0\n");
			goto err;
		}
		fixed_buf = 1;
	}
	if (mode == MODE_PERSONALITY) {
		ret = io_uring_register_personality(&b.ring);
		if (ret < 0) {
			err_ret("io_uring_register_personality", ret);
			goto err;
		}
		b.personality = ret;
		if (label && relabel(label))
			goto err;
	}
	if (async)
		b.sqe_flags |= IOSQE_ASYNC;

	for (st = 0; st < nstages; st++) {
		long long s0, e0;

		mode = stages[st];
		switch (mode) {
		case MODE_NOP:
			b.prep = prep_nop;
			b.reap = reap_nop;
			break;
		case MODE_OPENCLOSE:
			b.prep = prep_openclose;
			b.reap = reap_openclose;
			break;
		case MODE_SENDMSG:
			b.prep = prep_sendmsg;
			b.reap = reap_sendmsg;
			break;
		default:
			b.prep = prep_read;
			b.reap = reap_read;
			break;
		}
		if (st && gate(gate_path, st))
			goto err;
		if (nops) {
			b.left = nops;
			expect += mode == MODE_OPENCLOSE && !b.want_err ?
				  2 * nops : nops;
		} else {
			b.left = ULLONG_MAX;
		}
		if (run(&b, nops ? 0 : (long long)(secs * 1e9) + 1,
			(long long)(iv * 1e9), &s0, &e0))
			goto err;
		if (!st)
			start = s0;
		end = e0;
	}

	if (nops && b.done != expect) {
		fprintf(stderr, PROG ": completed %llu ops, expected exactly %llu\n",
			b.done, expect);
		goto err;
	}

	el = (end - start) / 1e9;
	printf("result mode=%s ops=%llu secs=%.6f ops_per_sec=%.3f ns_per_op=%.3f depth=%u batch=%u sqpoll=%d async=%d fixed_file=%d fixed_buf=%d\n",
	       mode_str, b.done, el,
	       el > 0 ? b.done / el : 0.0,
	       b.done ? el * 1e9 / b.done : 0.0,
	       b.depth, b.batch, sqpoll, async, fixed_file, fixed_buf);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		err_ret("write stdout", errno ? -errno : -EIO);
		goto err;
	}
	status = 0;
err:
	if (ring_ok)
		io_uring_queue_exit(&b.ring);
	if (fd >= 0)
		close(fd);
	if (b.sock >= 0)
		close(b.sock);
	free(b.free_slots);
	free(b.offs);
	free(b.buf);
	free(b.pending);
	free(b.cqes);
	return status;
}
