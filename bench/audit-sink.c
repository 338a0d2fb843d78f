// SPDX-License-Identifier: GPL-2.0
/*
 * audit-sink: a minimal audit daemon for the lab guest.  It registers as
 * the audit daemon, receives records as fast as it can, counts them per
 * record type (optionally logging their text), and on SIGTERM/SIGINT
 * drains, reads the kernel's audit status, unregisters and prints:
 *
 *   sink type=1336 name=URINGOP count=N		one line per type seen
 *   sink status enabled=1 pid=123 failure=1 backlog_limit=65536 ...
 *   sink records=TOTAL lost=L backlog=B
 *
 * Kernel behaviour this relies on (Linux 6.1, kernel/audit.c):
 * - kauditd unicasts each record as one netlink message whose nlmsg_len
 *   is the payload length only (audit_log_end quirk), so the text length
 *   is taken from the received size, never from NLMSG_NEXT.
 * - kauditd's socket has sk_sndtimeo = HZ/10: when our receive buffer is
 *   full it waits 100 ms, then moves records to the retry queue (bounded
 *   by backlog_limit, overflow counts as lost); hence the big SO_RCVBUF.
 * - audit_log_start() sleeps up to backlog_wait_time (jiffies) when the
 *   queue is over backlog_limit, but only for GFP_KERNEL callers: the
 *   URINGOP record is allocated GFP_ATOMIC (audit_log_uring), so it is
 *   dropped and counted in "lost" at once, whatever the thread (inline
 *   submitter, io-wq worker or sqpoll thread).
 * - status replies come from a kthread after the netlink ACK, and records
 *   keep arriving meanwhile, so replies are picked out of the stream.
 *
 * Exit: 0 ok, 1 runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libaudit.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#define PROG			"audit-sink"
#define DEFAULT_BACKLOG		65536		/* audit_backlog_limit */
#define DEFAULT_WAIT_TIME	60000		/* backlog_wait_time, jiffies */
#define DEFAULT_ENABLED		1		/* audit_enabled to set */
#define DEFAULT_RCVBUF		(16 << 20)	/* bytes; the kernel doubles it */
#define DEFAULT_DRAIN_MS	200		/* quiet time that ends the drain */
#define DRAIN_MAX_MS		5000		/* drain at most this long */
#define STATUS_TIMEOUT_MS	3000		/* wait for an AUDIT_GET reply */
#define BATCH			32		/* messages per recvmmsg */
#define MSG_BUF			16384		/* bytes per message buffer */
#define LOG_BUF			(1 << 20)	/* stdio buffer for -l */
#define KEEP			UINT32_MAX	/* "-w keep" / "-e keep" */

#ifndef AUDIT_URINGOP
#define AUDIT_URINGOP		1336
#endif
#ifndef AUDIT_REPLACE
#define AUDIT_REPLACE		1329
#endif

struct sink {
	int fd;
	FILE *log;
	const char *log_path;
	uint64_t total;		/* records counted */
	uint64_t truncated;	/* records longer than MSG_BUF */
	uint64_t overruns;	/* ENOBUFS from the socket */
	/* AUDIT_GET reply bookkeeping */
	bool status_seen;
	int status_err;
	struct audit_status status;
};

static uint64_t counts[65536];		/* indexed by nlmsg_type (u16) */
static char bufs[BATCH][MSG_BUF] __attribute__((aligned(16)));
static struct sockaddr_nl addrs[BATCH];
static struct iovec iovs[BATCH];
static struct mmsghdr msgs[BATCH];
static volatile sig_atomic_t stop_signals;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-b BACKLOG] [-w WAIT] [-e ENABLED] [-s RCVBUF] [-d MS]\n"
		"                  [-r READYFILE] [-l LOGFILE]\n"
		"\n"
		"Registers as the audit daemon, counts audit records per type until\n"
		"SIGTERM/SIGINT, then prints 'sink type=N name=NAME count=C' lines and\n"
		"'sink records=TOTAL lost=L backlog=B' on stdout.\n"
		"\n"
		"  -b BACKLOG   kernel backlog limit, records; 0 = unlimited (default %d)\n"
		"  -w WAIT      backlog_wait_time in jiffies, or 'keep' (default %d)\n"
		"  -e ENABLED   set audit_enabled to 0 or 1, or 'keep' (default %d);\n"
		"               a locked kernel (enabled=2) is left alone\n"
		"  -s RCVBUF    socket receive buffer, bytes (default %d)\n"
		"  -d MS        on stop, drain until the socket is quiet for MS ms,\n"
		"               at most %d ms; a second signal ends it (default %d)\n"
		"  -r READYFILE write 'pid=N' here once registered (removed at exit)\n"
		"  -l LOGFILE   append every record as 'type=N msg=TEXT'\n"
		"  -h           this help\n"
		"exit: 0 ok, 1 runtime error, 2 bad usage\n",
		DEFAULT_BACKLOG, DEFAULT_WAIT_TIME, DEFAULT_ENABLED,
		DEFAULT_RCVBUF, DRAIN_MAX_MS, DEFAULT_DRAIN_MS);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* "audit-sink: CALL: RC (strerror)[: HINT]" for a call returning -errno */
static void call_err(const char *call, int rc, const char *hint)
{
	fprintf(stderr, PROG ": %s: %d (%s)%s%s\n", call, rc, strerror(-rc),
		hint ? ": " : "", hint ? hint : "");
}

static uint32_t parse_u32(char opt, const char *arg, bool keep_ok,
			  const char *example)
{
	unsigned long long v;
	char *end;

	if (keep_ok && !strcmp(arg, "keep"))
		return KEEP;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || v >= UINT32_MAX)
		bad_usage("-%c wants a number%s, got '%s'; e.g. -%c %s", opt,
			  keep_ok ? " or 'keep'" : "", arg, opt, example);
	return v;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_signals++;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* one received netlink message: a record, a status reply or an ACK */
static void handle_msg(struct sink *s, const char *buf, size_t n, bool trunc)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	const char *text;
	size_t len;

	if (n < NLMSG_HDRLEN)
		return;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
	case NLMSG_DONE:
	case AUDIT_REPLACE:	/* kernel pinging its daemon; auditd drops it */
		return;
	case NLMSG_ERROR: {
		const struct nlmsgerr *e = NLMSG_DATA(nlh);

		if (n < NLMSG_HDRLEN + sizeof(*e) || !e->error)
			return;		/* a plain ACK */
		if (e->msg.nlmsg_type == AUDIT_GET)
			s->status_err = e->error;
		else
			fprintf(stderr, PROG ": kernel: request type %u failed: %d (%s)\n",
				e->msg.nlmsg_type, e->error, strerror(-e->error));
		return;
	}
	case AUDIT_GET:
		memset(&s->status, 0, sizeof(s->status));
		len = n - NLMSG_HDRLEN;
		memcpy(&s->status, NLMSG_DATA(nlh),
		       len < sizeof(s->status) ? len : sizeof(s->status));
		s->status_seen = true;
		return;
	}

	counts[nlh->nlmsg_type]++;
	s->total++;
	if (trunc)
		s->truncated++;
	if (!s->log)
		return;
	/* records: nlmsg_len == payload length; replies: header included */
	text = buf + NLMSG_HDRLEN;
	len = n - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < len)
		len = nlh->nlmsg_len;
	while (len && (text[len - 1] == '\0' || text[len - 1] == '\n'))
		len--;
	fprintf(s->log, "type=%u msg=%.*s\n", nlh->nlmsg_type, (int)len, text);
}

/*
 * Receive everything queued on the socket without blocking.  Returns the
 * number of messages handled, or -errno on a receive error.
 */
static int drain(struct sink *s)
{
	int handled = 0, n, i;

	for (;;) {
		for (i = 0; i < BATCH; i++) {
			msgs[i].msg_hdr.msg_name = &addrs[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(addrs[i]);
			msgs[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(s->fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return handled;
			if (errno == ENOBUFS) {
				s->overruns++;
				continue;
			}
			return -errno;
		}
		for (i = 0; i < n; i++) {
			/* only the kernel (portid 0) speaks to a daemon */
			if (msgs[i].msg_hdr.msg_namelen != sizeof(addrs[i]) ||
			    addrs[i].nl_pid != 0)
				continue;
			handle_msg(s, bufs[i], msgs[i].msg_len,
				   msgs[i].msg_hdr.msg_flags & MSG_TRUNC);
		}
		handled += n;
		if (n < BATCH)
			return handled;
	}
}

/*
 * Wait up to timeout_ms for input (-1: forever), with SIGINT/SIGTERM
 * unblocked only while waiting.  Returns >0 readable, 0 timeout or signal,
 * -errno on error.
 */
static int wait_input(int fd, int timeout_ms, const sigset_t *waitmask)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	int rc;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
		tsp = &ts;
	}
	rc = ppoll(&pfd, 1, tsp, waitmask);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc;
}

/*
 * audit_request_status() and pick the AUDIT_GET reply out of the stream,
 * counting any records that arrive first.
 */
static int query_status(struct sink *s, const sigset_t *waitmask)
{
	int64_t deadline;
	int rc;

	s->status_seen = false;
	s->status_err = 0;
	rc = audit_request_status(s->fd);
	if (rc < 0) {
		call_err("audit_request_status", rc, NULL);
		return rc;
	}
	deadline = now_ms() + STATUS_TIMEOUT_MS;
	for (;;) {
		rc = drain(s);
		if (rc < 0) {
			call_err("recvmmsg", rc, NULL);
			return rc;
		}
		if (s->status_seen)
			return 0;
		if (s->status_err) {
			call_err("audit_request_status", s->status_err,
				 "kernel refused AUDIT_GET");
			return s->status_err;
		}
		if (now_ms() >= deadline) {
			call_err("audit_request_status", -ETIMEDOUT,
				 "no AUDIT_GET reply");
			return -ETIMEDOUT;
		}
		rc = wait_input(s->fd, deadline - now_ms(), waitmask);
		if (rc < 0) {
			call_err("ppoll", rc, NULL);
			return rc;
		}
	}
}

static void set_rcvbuf(int fd, int bytes)
{
	socklen_t len = sizeof(int);
	int got = 0;

	/* SO_RCVBUFFORCE ignores rmem_max but needs CAP_NET_ADMIN */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)))
		call_err("setsockopt(SO_RCVBUF)", -errno,
			 "keeping the default receive buffer");
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) && got < bytes)
		fprintf(stderr, PROG ": note: receive buffer is %d bytes, asked for %d\n",
			got, bytes);
}

static int write_readyfile(const char *path)
{
	char tmp[4096], line[64];
	int fd, len, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		call_err("snprintf(READYFILE)", -ENAMETOOLONG, path);
		return -ENAMETOOLONG;
	}
	len = snprintf(line, sizeof(line), "pid=%d\n", (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		call_err("open(READYFILE)", rc, tmp);
		return rc;
	}
	if (write(fd, line, len) != len) {
		rc = -errno ? -errno : -EIO;
		call_err("write(READYFILE)", rc, tmp);
	}
	if (close(fd) && !rc) {
		rc = -errno;
		call_err("close(READYFILE)", rc, tmp);
	}
	if (!rc && rename(tmp, path)) {
		rc = -errno;
		call_err("rename(READYFILE)", rc, path);
	}
	if (rc)
		unlink(tmp);
	return rc;
}

static void print_counts(void)
{
	const char *name;
	unsigned int t;

	for (t = 0; t < 65536; t++) {
		if (!counts[t])
			continue;
		name = audit_msg_type_to_name(t);
		printf("sink type=%u name=%s count=%" PRIu64 "\n", t,
		       name ? name : "unknown", counts[t]);
	}
}

int main(int argc, char **argv)
{
	uint32_t backlog = DEFAULT_BACKLOG, wait_time = DEFAULT_WAIT_TIME;
	uint32_t enabled = DEFAULT_ENABLED, rcvbuf = DEFAULT_RCVBUF;
	uint32_t drain_ms = DEFAULT_DRAIN_MS;
	const char *readyfile = NULL;
	struct audit_status start = { 0 };
	struct sink s = { .fd = -1 };
	bool registered = false, have_status = false;
	sigset_t block, waitmask;
	struct sigaction sa;
	int64_t t0, quiet_since;
	int c, rc, ret = 1, i;

	opterr = 0;
	while ((c = getopt(argc, argv, "b:w:e:s:d:r:l:h")) != -1) {
		switch (c) {
		case 'b':
			backlog = parse_u32('b', optarg, false, "65536");
			break;
		case 'w':
			wait_time = parse_u32('w', optarg, true, "60000");
			break;
		case 'e':
			enabled = parse_u32('e', optarg, true, "1");
			if (enabled != KEEP && enabled > 1)
				bad_usage("-e wants 0, 1 or 'keep', got '%s'; lock (2) with auditctl -e 2 if you must",
					  optarg);
			break;
		case 's':
			rcvbuf = parse_u32('s', optarg, false, "16777216");
			if (rcvbuf > INT32_MAX / 2)
				bad_usage("-s %s is too large; give at most %d bytes",
					  optarg, INT32_MAX / 2);
			break;
		case 'd':
			drain_ms = parse_u32('d', optarg, false, "200");
			if (drain_ms > DRAIN_MAX_MS)
				bad_usage("-d %s is over the %d ms drain limit; give a smaller -d",
					  optarg, DRAIN_MAX_MS);
			break;
		case 'r':
			readyfile = optarg;
			break;
		case 'l':
			s.log_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("bwesdrl", optopt))
				bad_usage("-%c needs a value; see " PROG " -h",
					  optopt);
			bad_usage("unknown option -%c; see " PROG " -h", optopt);
		}
	}
	if (optind != argc)
		bad_usage("unexpected argument '%s'; " PROG " takes options only (see -h)",
			  argv[optind]);

	set_aumessage_mode(MSG_QUIET, DBG_NO);

	for (i = 0; i < BATCH; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = MSG_BUF;
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	/*
	 * SIGINT/SIGTERM stay blocked except inside ppoll(), so a signal can
	 * never slip in between the stop check and the wait.  No SA_RESTART.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &waitmask)) {
		call_err("sigprocmask", -errno, NULL);
		return 1;
	}
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
		call_err("sigaction", -errno, NULL);
		return 1;
	}

	if (readyfile && unlink(readyfile) && errno != ENOENT) {
		call_err("unlink(READYFILE)", -errno, readyfile);
		return 1;
	}
	if (s.log_path) {
		s.log = fopen(s.log_path, "ae");
		if (!s.log) {
			call_err("fopen(LOGFILE)", -errno, s.log_path);
			return 1;
		}
		setvbuf(s.log, NULL, _IOFBF, LOG_BUF);
	}

	s.fd = audit_open();
	if (s.fd < 0) {
		rc = errno ? -errno : -EPROTONOSUPPORT;
		call_err("audit_open", rc,
			 rc == -EPROTONOSUPPORT || rc == -EINVAL ||
			 rc == -EAFNOSUPPORT ?
			 "kernel has no audit support (CONFIG_AUDIT)" : NULL);
		goto err;
	}
	set_rcvbuf(s.fd, rcvbuf);

	/* before registering only replies arrive: the starting state */
	if (query_status(&s, &waitmask))
		goto err;
	start = s.status;

	rc = audit_set_backlog_limit(s.fd, backlog);
	if (rc < 0) {
		call_err("audit_set_backlog_limit", rc,
			 rc == -EPERM ? "needs root (CAP_AUDIT_CONTROL); audit may be locked" :
			 NULL);
		goto err;
	}
	if (wait_time != KEEP) {
		rc = audit_set_backlog_wait_time(s.fd, wait_time);
		if (rc < 0)
			call_err("audit_set_backlog_wait_time", rc,
				 rc == -EINVAL ? "over 10*60*HZ jiffies? keeping the kernel's value" :
				 "keeping the kernel's value");
	}
	/* enable before registering, so our requests see clean ACKs */
	if (enabled != KEEP && start.enabled == 2)
		fprintf(stderr, PROG ": note: audit is locked (enabled=2); not changing it\n");
	if (enabled != KEEP && start.enabled != 2 && start.enabled != enabled) {
		rc = audit_set_enabled(s.fd, enabled);
		if (rc < 0) {
			call_err("audit_set_enabled", rc, NULL);
			goto err;
		}
	}

	/*
	 * WAIT_NO: the error (e.g. -EEXIST) comes back through audit_send's
	 * ACK check either way; WAIT_YES would only add a 100 ms poll that
	 * swallows one message, i.e. a record.  A stale registration (daemon
	 * killed) is not an error: the kernel probes it and replaces it.
	 */
	rc = audit_set_pid(s.fd, getpid(), WAIT_NO);
	if (rc < 0) {
		char hint[128];

		if (rc == -EEXIST)
			snprintf(hint, sizeof(hint),
				 "audit daemon pid %u is registered and alive; stop it first",
				 start.pid);
		else if (rc == -EPERM)
			snprintf(hint, sizeof(hint),
				 "needs root (CAP_AUDIT_CONTROL) in the initial pid namespace");
		else
			hint[0] = '\0';
		call_err("audit_set_pid", rc, hint[0] ? hint : NULL);
		goto err;
	}
	registered = true;
	if (readyfile && write_readyfile(readyfile))
		goto err;

	/* receive until signalled */
	while (!stop_signals) {
		rc = drain(&s);
		if (rc < 0) {
			call_err("recvmmsg", rc, NULL);
			goto err;
		}
		rc = wait_input(s.fd, -1, &waitmask);
		if (rc < 0) {
			call_err("ppoll", rc, NULL);
			goto err;
		}
	}

	/* drain what kauditd still has, until quiet (or a second signal) */
	t0 = quiet_since = now_ms();
	while (stop_signals < 2) {
		int64_t now;

		rc = drain(&s);
		if (rc < 0) {
			call_err("recvmmsg", rc, NULL);
			goto err;
		}
		now = now_ms();
		if (rc > 0)
			quiet_since = now;
		if (now - quiet_since >= drain_ms || now - t0 >= DRAIN_MAX_MS)
			break;
		rc = wait_input(s.fd, drain_ms - (now - quiet_since), &waitmask);
		if (rc < 0) {
			call_err("ppoll", rc, NULL);
			goto err;
		}
	}

	if (!query_status(&s, &waitmask))
		have_status = true;
	ret = have_status ? 0 : 1;
err:
	if (registered) {
		rc = audit_set_pid(s.fd, 0, WAIT_NO);
		if (rc < 0) {
			call_err("audit_set_pid(0)", rc, NULL);
			ret = 1;
		}
		/* count what was already delivered to us */
		rc = drain(&s);
		if (rc < 0)
			call_err("recvmmsg", rc, NULL);
		if (readyfile)
			unlink(readyfile);
	}
	if (s.fd >= 0)
		audit_close(s.fd);
	if (s.log && fclose(s.log)) {
		call_err("fclose(LOGFILE)", -errno, s.log_path);
		ret = 1;
	}
	if (!registered)
		return ret;

	if (s.truncated)
		fprintf(stderr, PROG ": note: %" PRIu64 " records longer than %d bytes were truncated in the log\n",
			s.truncated, MSG_BUF);
	if (s.overruns)
		fprintf(stderr, PROG ": note: %" PRIu64 " socket overruns (ENOBUFS)\n",
			s.overruns);
	print_counts();
	if (have_status) {
		printf("sink status enabled=%u pid=%u failure=%u backlog_limit=%u backlog_wait_time=%u backlog_wait_time_actual=%u lost_start=%u overruns=%" PRIu64 "\n",
		       s.status.enabled, s.status.pid, s.status.failure,
		       s.status.backlog_limit, s.status.backlog_wait_time,
		       s.status.backlog_wait_time_actual, start.lost,
		       s.overruns);
		printf("sink records=%" PRIu64 " lost=%u backlog=%u\n", s.total,
		       s.status.lost, s.status.backlog);
	} else {
		printf("sink records=%" PRIu64 " lost=-1 backlog=-1\n", s.total);
	}
	if (fflush(stdout)) {
		call_err("fflush(stdout)", -errno, NULL);
		ret = 1;
	}
	return ret;
}
