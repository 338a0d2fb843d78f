// SPDX-License-Identifier: GPL-2.0
/*
 * lab-time: run a command and print how long it took in CLOCK_MONOTONIC
 * nanoseconds, for the guest's exact fio figure.
 *
 * fio reports IOPS as 1000 * total_ios / runtime_ms, a figure quantised to a
 * millisecond and to whole batches. The guest instead runs a fio job twice,
 * for N and for 2N I/Os, each under lab-time: the difference of the two
 * elapsed times over the difference of the two total_ios is the cost of one
 * I/O in steady state, with fio's start-up and exit cancelled. Under
 * tcg-icount (shift=0) a guest nanosecond is one instruction, so that is
 * instructions per I/O to well under 0.01.
 *
 * Output, on stderr or on -o FILE (the command's own stdout is untouched):
 *   elapsed ns=<nanoseconds> rc=<command exit status>
 * lab-time exits with the command's status (128 + signal if it was killed).
 *
 * -s FILE runs no command: it writes 'stamp ns=<CLOCK_MONOTONIC now>' to FILE.
 * The lab's fio jobs call it from exec_prerun and exec_postrun, which fio
 * runs after the job's setup (ring, files) and after its last I/O: the two
 * stamps bound the I/O loop, so fio's start-up and exit (~300M instructions
 * per pass, varying by ~0.2M with the layout seed) stay out of the window.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define PROG		"lab-time"
#define DEF_OUT		"stderr"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [-o FILE] COMMAND [ARG...]\n"
"       " PROG " -s FILE\n"
"  run COMMAND and print 'elapsed ns=N rc=R' (CLOCK_MONOTONIC)\n"
"  -o FILE   write that line to FILE (default " DEF_OUT ")\n"
"  -s FILE   no command: write 'stamp ns=NOW' (CLOCK_MONOTONIC) to FILE\n"
"  -h        this help\n");
}

static long long now_ns(void);

/* -s FILE: one timestamp, for fio's exec_prerun/exec_postrun */
static int stamp(const char *path)
{
	long long t = now_ns();
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, PROG ": fopen(%s) failed: %s\n", path, strerror(errno));
		return 2;
	}
	fprintf(f, "stamp ns=%lld\n", t);
	if (fclose(f)) {
		fprintf(stderr, PROG ": fclose(%s) failed: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	FILE *out = stderr;
	long long t0, t1;
	int opt, status, rc;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+o:s:h")) != -1) {
		switch (opt) {
		case 's':
			return stamp(optarg);
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": no command given\n");
		usage(stderr);
		return 2;
	}
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, PROG ": fopen(%s) failed: %s\n", out_path, strerror(errno));
			return 2;
		}
	}

	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork() failed: %s\n", strerror(errno));
		goto err;
	}
	if (pid == 0) {
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, PROG ": execvp(%s) failed: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, PROG ": waitpid(%d) failed: %s\n", (int)pid, strerror(errno));
		goto err;
	}
	t1 = now_ns();
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(out, "elapsed ns=%lld rc=%d\n", t1 - t0, rc);
	if (out != stderr && fclose(out)) {
		fprintf(stderr, PROG ": fclose(%s) failed: %s\n", out_path, strerror(errno));
		return 2;
	}
	return rc;
err:
	if (out != stderr)
		fclose(out);
	return 2;
}
