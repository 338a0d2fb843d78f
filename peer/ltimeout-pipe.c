// SPDX-License-Identifier: GPL-2.0
/*
 * ltimeout-pipe: the smallest reproducer of liburing's skip-cqe.t hang
 * (issue 25). A READ of a pipe that holds only a zero-length buffer, linked
 * to a LINK_TIMEOUT, never completes.
 *
 * How (6.1): a write(2) that faults (a NULL buffer) leaves a zero-length
 * buffer in the pipe (pipe_write() inserts the slot before copying), so
 * pipe_poll() says EPOLLIN while nothing can be read. 6.1's pipes have no
 * FMODE_NOWAIT, so io_read() returns -EAGAIN without calling pipe_read();
 * io_arm_poll_handler() finds the pipe ready (IO_APOLL_READY) and requeues
 * the request by task_work, up to APOLL_MAX_RETRY (128) times, before it
 * goes to io-wq, where a blocking pipe_read() drops the empty buffer and
 * sleeps. If the linked timeout fires inside that retry loop, its cancel
 * (io_try_cancel(): io-wq, poll hash, timeouts) finds the request in none of
 * them (it sits in the task_work list): the timeout completes with -ENOENT,
 * the link is already cut, and the read then sleeps in io-wq forever.
 * Anything that makes the 128 rounds longer than the time to the timer's
 * tick (an audit record per round, the function tracer) widens the window;
 * with 1 ns timeouts the window is the loop itself, no audit needed.
 *
 * usage: ltimeout-pipe [-z] [-a] [-n NS] [-i ITERS] [-w SECS] [-s FIRST]
 *   -z  leave a zero-length buffer in the pipe before each READ (the trigger)
 *   -a  IOSQE_ASYNC on the READ (straight to io-wq: the control that holds)
 *   -n  link timeout in ns (default 1000000, skip-cqe.t's 1 ms)
 *   -i  iterations (default 1), each on a fresh pipe and ring
 *   -w  seconds to wait for both CQEs before calling it a hang (default 3)
 *   -s  number the iterations from FIRST (default 0): the spin below
 * Before iteration i it spins (i * 1237 us) mod 10 ms: the linked timeout
 * fires on a timer tick (no high-resolution timers in the lab kernel), and
 * a loop that waits for its CQEs would otherwise start every iteration
 * just after a tick, at the same phase; spread, the phases cover any HZ
 * from 100 up.
 * Prints one summary line (res 1: that CQE never came; the results are the
 * first hung iteration's, else the last iteration's):
 *   ltimeout-pipe zero=Z async=A ns=N iters=I done=D hangs=H
 *       first_hang=K read_res=R tout_res=T
 * Exit: 0 no hang, 3 a hang, 1 error, 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>
#include <liburing.h>

static int one(int zero, int async, long ns, int wait_s, int *read_res, int *tout_res)
{
	struct __kernel_timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };
	struct __kernel_timespec wts = { .tv_sec = wait_s, .tv_nsec = 0 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char buf[1];
	int fds[2], got = 0, ret, hang = 0;

	*read_res = *tout_res = 1;
	if (pipe(fds)) {
		perror("pipe");
		return -1;
	}
	/*
	 * the faulting write (skip-cqe.t's prep_exec_fail_req() does it as an
	 * IORING_OP_WRITE, the same pipe_write()): -EFAULT, and a zero-length
	 * buffer stays behind; syscall(2), as glibc's write() forbids NULL
	 */
	if (zero && syscall(SYS_write, fds[1], NULL, 100) != -1) {
		fprintf(stderr, "write(NULL) did not fail\n");
		return -1;
	}
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return -1;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fds[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_IO_LINK | (async ? IOSQE_ASYNC : 0);
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->user_data = 1;
	ret = io_uring_submit(&ring);
	if (ret != 2) {
		fprintf(stderr, "io_uring_submit: %d\n", ret);
		return -1;
	}
	while (got < 2) {
		ret = io_uring_wait_cqe_timeout(&ring, &cqe, &wts);
		if (ret == -ETIME) {
			hang = 1;
			break;
		}
		if (ret) {
			fprintf(stderr, "io_uring_wait_cqe_timeout: %s\n", strerror(-ret));
			return -1;
		}
		if (cqe->user_data == 0)
			*read_res = cqe->res;
		else
			*tout_res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		got++;
	}
	/* a hung READ is cancelled by the ring's teardown (io-wq signal) */
	io_uring_queue_exit(&ring);
	close(fds[0]);
	close(fds[1]);
	return hang;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* busy-wait NS nanoseconds (a sleep would end on a tick: the phase we spread) */
static void spin(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

int main(int argc, char **argv)
{
	int opt, zero = 0, async = 0, iters = 1, wait_s = 3, i, done = 0, hangs = 0;
	int first = -1, rr = 1, tr = 1, r, t, ret, from = 0;
	long ns = 1000000;
	char *end;

	while ((opt = getopt(argc, argv, "zan:i:w:s:")) != -1) {
		switch (opt) {
		case 'z':
			zero = 1;
			break;
		case 'a':
			async = 1;
			break;
		case 'n':
		case 'i':
		case 'w':
		case 's':
			errno = 0;
			{
				long v = strtol(optarg, &end, 10);

				if (errno || *end || v < 1 || v > 1000000000L) {
					fprintf(stderr, "ltimeout-pipe: -%c wants 1..1000000000, got '%s'\n",
						opt, optarg);
					return 2;
				}
				if (opt == 'n')
					ns = v;
				else if (opt == 'i')
					iters = (int)v;
				else if (opt == 's')
					from = (int)v;
				else
					wait_s = (int)v;
			}
			break;
		default:
			fprintf(stderr, "usage: ltimeout-pipe [-z] [-a] [-n NS] [-i ITERS] [-w SECS] [-s FIRST]\n");
			return 2;
		}
	}
	for (i = 0; i < iters; i++) {
		spin(((long long)(from + i) * 1237000LL) % 10000000LL);
		ret = one(zero, async, ns, wait_s, &r, &t);
		if (ret < 0)
			return 1;
		done++;
		if (first < 0) {
			rr = r;
			tr = t;
		}
		if (ret) {
			hangs++;
			if (first < 0)
				first = i;
		}
	}
	printf("ltimeout-pipe zero=%d async=%d ns=%ld iters=%d done=%d hangs=%d first_hang=%d read_res=%d tout_res=%d\n",
	       zero, async, ns, iters, done, hangs, first, rr, tr);
	return hangs ? 3 : 0;
}
