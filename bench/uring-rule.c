// SPDX-License-Identifier: GPL-2.0
/*
 * uring-rule: add or delete audit rules on the io_uring filter list
 * (AUDIT_FILTER_URING_EXIT, list 7), which Debian 12's auditctl 3.0.9
 * cannot do, and plain syscall-exit rules for x86_64 (used to load N rules
 * that never match the workload), without depending on auditctl syntax.
 *
 *   uring-rule add|del [-k KEY] OPS
 *	as audit 3.1's "auditctl -a|-d always,io_uring -S OPS -k KEY"
 *   uring-rule syscall-add|syscall-del [-k KEY] [-n COUNT] SYSCALL[,...]
 *	as "auditctl -a|-d always,exit -F arch=b64 -S SYSCALL -k KEY"
 *   uring-rule ops
 *	the opcode table of Linux 6.1
 *
 * The kernel side (kernel/auditfilter.c, Linux 6.1): a rule on the io_uring
 * list is a normal struct audit_rule_data whose mask[] is a bitmap of
 * io_uring opcodes instead of syscall numbers; audit_filter_uring() tests
 * audit_in_mask(rule, req->opcode).  Any field is accepted except
 * AUDIT_PERM (and MSGTYPE/FSTYPE, which belong to other lists).  The key is
 * an AUDIT_FILTERKEY field with op AUDIT_EQUAL, value = key length, and the
 * key bytes (no NUL) in buf[], counted in buflen; at most AUDIT_MAX_KEY_LEN.
 * libaudit 3.0.9's audit_rule_fieldpair_data() refuses "key=" unless
 * auditctl's private _audit_syscalladded flag is set, so the key field is
 * built here by hand, for both lists.  A delete must match the added rule
 * exactly: same list, same mask, same fields in the same order, same key.
 *
 * Output (stdout), one line per command:
 *   rule action=add list=uring ops=openat,close key=k1
 *   rule action=add list=exit arch=b64 syscalls=getpriority key=k1
 *   rule action=add list=exit arch=b64 syscalls=getpriority count=8 key_prefix=nm
 *   op=openat nr=18 audit_skip=0		(uring-rule ops)
 * Exit: 0 ok, 1 runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libaudit.h>
#include <linux/audit.h>

#define PROG			"uring-rule"
#define DEFAULT_KEY		NULL	/* no key field */
#define DEFAULT_COUNT		1	/* syscall rules per invocation */
#define DEFAULT_ARCH		"b64"	/* syscall rules: -F arch=b64 */
#define MAX_COUNT		100000
#define URING_OP_MAX		255	/* opcodes are u8 in __audit_uring_entry */

#ifndef AUDIT_FILTER_URING_EXIT
#define AUDIT_FILTER_URING_EXIT	0x07
#endif

/*
 * enum io_uring_op of Linux 6.1 (include/uapi/linux/io_uring.h), index =
 * opcode.  skip = the op's audit_skip flag in io_uring/opdef.c: stock 6.1
 * never calls audit_uring_entry/exit for those ops, so a rule naming them
 * matches only on a kernel that ignores the flag.
 */
static const struct {
	const char *name;
	bool skip;
} uring_ops[] = {
	{ "nop", true },		/*  0 */
	{ "readv", true },
	{ "writev", true },
	{ "fsync", true },
	{ "read_fixed", true },
	{ "write_fixed", true },	/*  5 */
	{ "poll_add", true },
	{ "poll_remove", true },
	{ "sync_file_range", true },
	{ "sendmsg", false },
	{ "recvmsg", false },		/* 10 */
	{ "timeout", true },
	{ "timeout_remove", true },
	{ "accept", false },
	{ "async_cancel", true },
	{ "link_timeout", true },	/* 15 */
	{ "connect", false },
	{ "fallocate", false },
	{ "openat", false },
	{ "close", false },
	{ "files_update", true },	/* 20 */
	{ "statx", true },
	{ "read", true },
	{ "write", true },
	{ "fadvise", true },
	{ "madvise", false },		/* 25 */
	{ "send", true },
	{ "recv", true },
	{ "openat2", false },
	{ "epoll_ctl", true },
	{ "splice", true },		/* 30 */
	{ "provide_buffers", true },
	{ "remove_buffers", true },
	{ "tee", true },
	{ "shutdown", false },
	{ "renameat", false },		/* 35 */
	{ "unlinkat", false },
	{ "mkdirat", false },
	{ "symlinkat", false },
	{ "linkat", false },
	{ "msg_ring", false },		/* 40 */
	{ "fsetxattr", false },
	{ "setxattr", false },
	{ "fgetxattr", false },
	{ "getxattr", false },
	{ "socket", true },		/* 45 */
	{ "uring_cmd", false },
	{ "send_zc", true },
	{ "sendmsg_zc", false },	/* 48 */
};
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_URING_OPS	ARRAY_SIZE(uring_ops)
_Static_assert(NR_URING_OPS == 49, "IORING_OP_LAST is 49 in Linux 6.1");

enum cmd { CMD_ADD, CMD_DEL, CMD_SC_ADD, CMD_SC_DEL, CMD_OPS };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " add|del [-k KEY] OPS\n"
		"       " PROG " syscall-add|syscall-del [-k KEY] [-n COUNT] SYSCALL[,SYSCALL...]\n"
		"       " PROG " ops\n"
		"\n"
		"add|del      add/delete an always rule on the io_uring filter list\n"
		"             (AUDIT_FILTER_URING_EXIT), like audit 3.1's\n"
		"             'auditctl -a always,io_uring -S OPS -k KEY'.\n"
		"             OPS: 'all', or a comma list of opcode names or numbers\n"
		"             (0..%d); '" PROG " ops' lists the names.\n"
		"syscall-add|syscall-del\n"
		"             add/delete an always rule on the syscall exit list for\n"
		"             x86_64 syscalls, like 'auditctl -a always,exit\n"
		"             -F arch=" DEFAULT_ARCH " -S SYSCALL -k KEY'.\n"
		"ops          print the Linux 6.1 opcode table: op=NAME nr=N audit_skip=0|1\n"
		"             (audit_skip=1: stock 6.1 never audits that op; a kernel\n"
		"             that ignores audit_skip does)\n"
		"\n"
		"options:\n"
		"  -k KEY     filter key, 1..%d bytes (default: no key)\n"
		"  -n COUNT   syscall-add/del only: COUNT rules that differ only by key,\n"
		"             KEY.0 .. KEY.<COUNT-1>; needs -k (default %d: one rule, key KEY)\n"
		"  -h         this help\n"
		"\n"
		"A delete must name the same ops/syscalls and key as the add.\n"
		"exit: 0 ok, 1 runtime error, 2 bad usage\n",
		URING_OP_MAX, AUDIT_MAX_KEY_LEN, DEFAULT_COUNT);
}

/* one-line usage error naming the problem and the fix; exit 2 */
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

static void __attribute__((noreturn)) die_oom(void)
{
	fprintf(stderr, PROG ": malloc: %d (%s)\n", -ENOMEM, strerror(ENOMEM));
	exit(1);
}

/* "uring-rule: CALL: RC (strerror)[: HINT]" for a call returning -errno */
static void call_err(const char *call, int rc, const char *hint)
{
	fprintf(stderr, PROG ": %s: %d (%s)%s%s\n", call, rc, strerror(-rc),
		hint ? ": " : "", hint ? hint : "");
}

static int lookup_op(const char *tok)
{
	unsigned long v;
	char *end;
	size_t i;

	if (!strncasecmp(tok, "IORING_OP_", 10))
		tok += 10;
	for (i = 0; i < NR_URING_OPS; i++)
		if (!strcasecmp(tok, uring_ops[i].name))
			return i;
	if (!isdigit((unsigned char)tok[0]))
		return -1;
	errno = 0;
	v = strtoul(tok, &end, 0);
	if (errno || *end || v > URING_OP_MAX)
		return -1;
	return v;
}

static void set_bit_nr(struct audit_rule_data *rule, unsigned int nr)
{
	rule->mask[nr / 32] |= 1U << (nr % 32);
}

static bool test_bit_nr(const struct audit_rule_data *rule, unsigned int nr)
{
	return rule->mask[nr / 32] & (1U << (nr % 32));
}

/*
 * Fill the opcode mask from OPS ("all" or a comma list); on success
 * *desc is the canonical list (ascending, names where known).
 */
static void parse_ops(struct audit_rule_data *rule, const char *ops,
		      char **desc, bool warn_skip)
{
	char *copy, *tok, *save = NULL, *p;
	size_t len = 0, cap;
	unsigned int nr;
	int op, i;

	if (!strcmp(ops, "all")) {
		/* like audit 3.1's audit_rule_uringopbyname_data("all") */
		for (i = 0; i < AUDIT_BITMASK_SIZE; i++)
			rule->mask[i] = ~0U;
		*desc = strdup("all");
		if (!*desc)
			die_oom();
		return;
	}
	if (!*ops || ops[0] == ',' || ops[strlen(ops) - 1] == ',' ||
	    strstr(ops, ",,"))
		bad_usage("empty opcode in '%s'; give a comma list like openat,close or 'all'",
			  ops);
	copy = strdup(ops);
	if (!copy)
		die_oom();
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		op = lookup_op(tok);
		if (op < 0)
			bad_usage("unknown io_uring opcode '%s'; '" PROG " ops' lists the known names (or give a number 0..%d)",
				  tok, URING_OP_MAX);
		set_bit_nr(rule, op);
	}
	free(copy);

	cap = (URING_OP_MAX + 1) * 17;
	p = malloc(cap);
	if (!p)
		die_oom();
	p[0] = '\0';
	for (nr = 0; nr <= URING_OP_MAX; nr++) {
		if (!test_bit_nr(rule, nr))
			continue;
		if (nr < NR_URING_OPS)
			len += snprintf(p + len, cap - len, "%s%s", len ? "," : "",
					uring_ops[nr].name);
		else
			len += snprintf(p + len, cap - len, "%s%u", len ? "," : "",
					nr);
		if (warn_skip && nr < NR_URING_OPS && uring_ops[nr].skip)
			fprintf(stderr, PROG ": note: %s (%u) has audit_skip set in stock Linux 6.1, which never audits it; this part of the rule matches only on a kernel that ignores audit_skip\n",
				uring_ops[nr].name, nr);
	}
	*desc = p;
}

static void check_key(const char *key, int count)
{
	size_t max = AUDIT_MAX_KEY_LEN;
	int digits = 1, c;

	if (!key)
		return;
	if (count > 1) {
		for (c = count - 1; c >= 10; c /= 10)
			digits++;
		max -= 1 + digits;	/* ".N" suffix */
	}
	if (!*key)
		bad_usage("-k wants a non-empty key; e.g. -k uring");
	if (strlen(key) > max)
		bad_usage("key '%.20s...' is %zu bytes, the kernel takes at most %zu here; use a shorter -k",
			  key, strlen(key), max);
}

/*
 * Append an AUDIT_FILTERKEY field: op AUDIT_EQUAL, value = length, bytes in
 * buf[] (kernel: audit_data_to_entry -> audit_unpack_string).
 */
static int rule_add_key(struct audit_rule_data **rulep, const char *key)
{
	struct audit_rule_data *rule = *rulep;
	size_t len = strlen(key);

	if (rule->field_count >= AUDIT_MAX_FIELDS)
		return -E2BIG;
	rule = realloc(rule, sizeof(*rule) + rule->buflen + len);
	if (!rule)
		return -ENOMEM;
	memcpy(&rule->buf[rule->buflen], key, len);
	rule->fields[rule->field_count] = AUDIT_FILTERKEY;
	rule->fieldflags[rule->field_count] = AUDIT_EQUAL;
	rule->values[rule->field_count] = len;
	rule->field_count++;
	rule->buflen += len;
	*rulep = rule;
	return 0;
}

/* send one rule; returns 0 or prints the error and returns -errno */
static int send_rule(int fd, struct audit_rule_data *rule, bool add, int list,
		     const char *what)
{
	const char *call = add ? "audit_add_rule_data" : "audit_delete_rule_data";
	char hint[512];
	int rc;

	if (add)
		rc = audit_add_rule_data(fd, rule, list, AUDIT_ALWAYS);
	else
		rc = audit_delete_rule_data(fd, rule, list, AUDIT_ALWAYS);
	if (rc > 0)
		return 0;
	if (rc == 0)	/* cannot happen: audit_send returns seq or -errno */
		rc = -EPROTO;

	if (rc == -EINVAL && list == AUDIT_FILTER_URING_EXIT)
		snprintf(hint, sizeof(hint),
			 "kernel rejected the io_uring filter list (AUDIT_FILTER_URING_EXIT): needs Linux >= 5.16 with CONFIG_AUDITSYSCALL");
	else if (rc == -EINVAL)
		snprintf(hint, sizeof(hint),
			 "kernel rejected the rule (%s); needs CONFIG_AUDITSYSCALL",
			 what);
	else if (rc == -EEXIST && add)
		snprintf(hint, sizeof(hint),
			 "the rule already exists (%s); delete it first or use another -k",
			 what);
	else if (rc == -ENOENT && !add)
		snprintf(hint, sizeof(hint),
			 "no such rule (%s); a delete must name the same ops/syscalls and key as the add",
			 what);
	else if (rc == -EPERM)
		snprintf(hint, sizeof(hint),
			 "needs root (CAP_AUDIT_CONTROL) in the initial pid namespace, and audit not locked (enabled=2)");
	else if (rc == -ECONNREFUSED)
		snprintf(hint, sizeof(hint),
			 "kernel audit is off (CONFIG_AUDIT=n or booted with audit=0)");
	else
		snprintf(hint, sizeof(hint), "%s", what);
	call_err(call, rc, hint);
	return rc;
}

static int open_audit(void)
{
	int fd = audit_open();

	if (fd < 0) {
		int rc = errno ? -errno : -EPROTONOSUPPORT;

		call_err("audit_open", rc,
			 rc == -EPROTONOSUPPORT || rc == -EINVAL ||
			 rc == -EAFNOSUPPORT ?
			 "kernel has no audit support (CONFIG_AUDIT)" : NULL);
	}
	return fd;
}

static int cmd_ops(void)
{
	size_t i;

	for (i = 0; i < NR_URING_OPS; i++)
		printf("op=%s nr=%zu audit_skip=%d\n", uring_ops[i].name, i,
		       uring_ops[i].skip);
	return 0;
}

static int cmd_uring(bool add, const char *key, const char *ops)
{
	struct audit_rule_data *rule;
	char *desc = NULL, what[1024];
	int fd = -1, rc, ret = 1;

	check_key(key, 1);
	rule = audit_rule_create_data();
	if (!rule) {
		call_err("audit_rule_create_data", -ENOMEM, NULL);
		return 1;
	}
	parse_ops(rule, ops, &desc, add);
	if (key) {
		rc = rule_add_key(&rule, key);
		if (rc) {
			call_err("rule_add_key", rc, NULL);
			goto err;
		}
	}
	snprintf(what, sizeof(what), "list=uring ops=%s%s%s", desc,
		 key ? " key=" : "", key ? key : "");

	fd = open_audit();
	if (fd < 0)
		goto err;
	if (send_rule(fd, rule, add, AUDIT_FILTER_URING_EXIT, what))
		goto err;
	printf("rule action=%s %s\n", add ? "add" : "del", what);
	ret = 0;
err:
	if (fd >= 0)
		audit_close(fd);
	audit_rule_free_data(rule);
	free(desc);
	return ret;
}

/*
 * A syscall-exit rule: arch=b64 (via libaudit, exactly like auditctl's
 * -F arch=b64, which must come before -S), then the syscalls, then key.
 */
static int build_syscall_rule(struct audit_rule_data **rulep,
			      const char *syscalls, const char *key)
{
	char pair[] = "arch=" DEFAULT_ARCH;	/* fieldpair writes into it */
	char *copy, *tok, *save = NULL;
	int rc;

	rc = audit_rule_fieldpair_data(rulep, pair, AUDIT_FILTER_EXIT);
	if (rc < 0) {
		fprintf(stderr, PROG ": audit_rule_fieldpair_data(arch=" DEFAULT_ARCH "): %d (libaudit rule error)\n",
			rc);
		return 1;
	}
	copy = strdup(syscalls);
	if (!copy)
		die_oom();
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		rc = audit_rule_syscallbyname_data(*rulep, tok);
		if (rc == -1)
			bad_usage("unknown x86_64 syscall '%s'; give a name like getpriority or a number",
				  tok);
		if (rc < 0) {
			fprintf(stderr, PROG ": audit_rule_syscallbyname_data(%s): %d (cannot determine the machine type)\n",
				tok, rc);
			free(copy);
			return 1;
		}
	}
	free(copy);
	if (key) {
		rc = rule_add_key(rulep, key);
		if (rc) {
			call_err("rule_add_key", rc, NULL);
			return 1;
		}
	}
	return 0;
}

static int cmd_syscall(bool add, const char *key, int count, bool count_set,
		       const char *syscalls)
{
	struct audit_rule_data *rule = NULL;
	char keybuf[AUDIT_MAX_KEY_LEN + 1], what[1024];
	int fd = -1, i, ret = 1;

	if (!*syscalls || syscalls[0] == ',' ||
	    syscalls[strlen(syscalls) - 1] == ',' || strstr(syscalls, ",,"))
		bad_usage("empty syscall name in '%s'; give a comma list like getpriority,acct",
			  syscalls);
	if (count_set && !key)
		bad_usage("-n needs -k KEY: the rules differ only by key (KEY.0 .. KEY.%d)",
			  count - 1);
	check_key(key, count_set ? count : 1);

	fd = open_audit();
	if (fd < 0)
		return 1;
	for (i = 0; i < count; i++) {
		const char *k = key;

		if (count_set) {
			snprintf(keybuf, sizeof(keybuf), "%s.%d", key, i);
			k = keybuf;
		}
		rule = audit_rule_create_data();
		if (!rule) {
			call_err("audit_rule_create_data", -ENOMEM, NULL);
			goto err;
		}
		if (build_syscall_rule(&rule, syscalls, k))
			goto err;
		snprintf(what, sizeof(what),
			 "list=exit arch=" DEFAULT_ARCH " syscalls=%s%s%s", syscalls,
			 k ? " key=" : "", k ? k : "");
		if (send_rule(fd, rule, add, AUDIT_FILTER_EXIT, what)) {
			if (count_set)
				fprintf(stderr, PROG ": %d of %d rules %s before this one\n",
					i, count, add ? "added" : "deleted");
			goto err;
		}
		audit_rule_free_data(rule);
		rule = NULL;
	}
	if (count_set)
		printf("rule action=%s list=exit arch=" DEFAULT_ARCH " syscalls=%s count=%d key_prefix=%s\n",
		       add ? "add" : "del", syscalls, count, key);
	else
		printf("rule action=%s list=exit arch=" DEFAULT_ARCH " syscalls=%s%s%s\n",
		       add ? "add" : "del", syscalls, key ? " key=" : "",
		       key ? key : "");
	ret = 0;
err:
	if (rule)
		audit_rule_free_data(rule);
	audit_close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	const char *key = DEFAULT_KEY;
	int count = DEFAULT_COUNT, c;
	bool count_set = false;
	enum cmd cmd;
	char *end;
	long v;

	/* libaudit would print its own copy of every error */
	set_aumessage_mode(MSG_QUIET, DBG_NO);

	if (argc < 2)
		bad_usage("missing command; use add, del, syscall-add, syscall-del or ops (-h for help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "add"))
		cmd = CMD_ADD;
	else if (!strcmp(argv[1], "del"))
		cmd = CMD_DEL;
	else if (!strcmp(argv[1], "syscall-add"))
		cmd = CMD_SC_ADD;
	else if (!strcmp(argv[1], "syscall-del"))
		cmd = CMD_SC_DEL;
	else if (!strcmp(argv[1], "ops"))
		cmd = CMD_OPS;
	else
		bad_usage("unknown command '%s'; use add, del, syscall-add, syscall-del or ops",
			  argv[1]);

	/* options follow the command: parse argv[1..] */
	argc--;
	argv++;
	opterr = 0;
	while ((c = getopt(argc, argv, "k:n:h")) != -1) {
		switch (c) {
		case 'k':
			key = optarg;
			break;
		case 'n':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 || v > MAX_COUNT)
				bad_usage("-n wants a count 1..%d, got '%s'; e.g. -n 64",
					  MAX_COUNT, optarg);
			count = v;
			count_set = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt == 'k' || optopt == 'n')
				bad_usage("-%c needs a value; see " PROG " -h",
					  optopt);
			bad_usage("unknown option -%c; see " PROG " -h", optopt);
		}
	}
	argc -= optind;
	argv += optind;

	if (cmd == CMD_OPS) {
		if (argc || key || count_set)
			bad_usage("'ops' takes no arguments; use '" PROG " ops'");
		return cmd_ops();
	}
	if (argc != 1)
		bad_usage("%s wants exactly one %s argument after the options; e.g. %s",
			  (cmd == CMD_ADD || cmd == CMD_DEL) ? "add/del" :
			  "syscall-add/del",
			  (cmd == CMD_ADD || cmd == CMD_DEL) ? "OPS" : "SYSCALL[,...]",
			  (cmd == CMD_ADD || cmd == CMD_DEL) ?
			  PROG " add -k k1 openat,close" :
			  PROG " syscall-add -k nm -n 16 getpriority");
	if ((cmd == CMD_ADD || cmd == CMD_DEL) && count_set)
		bad_usage("-n is for syscall-add/syscall-del only; drop it");

	switch (cmd) {
	case CMD_ADD:
	case CMD_DEL:
		return cmd_uring(cmd == CMD_ADD, key, argv[0]);
	default:
		return cmd_syscall(cmd == CMD_SC_ADD, key, count, count_set,
				   argv[0]);
	}
}
