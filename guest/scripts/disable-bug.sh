#!/bin/sh
# disable-bug.sh: the runtime-disable BUG (issue 12). With an io_uring-list
# rule matching every opcode loaded and audit then disabled at runtime
# (auditctl -e 0), OPENAT/CLOSE forced to io-wq (IOSQE_ASYNC) reach
# __audit_uring_exit() in a worker whose audit context the entry hook never
# set up; upstream 6.1/6.12 then hit BUG() in audit_log_exit().
# The ops run first as an unprivileged user (uid 1000, via busybox su: does
# root's rule + 'auditctl -e 0' let any local user set it off?), then as
# root. panic_on_oops ends the boot at the first oops, so a kernel that hits
# the BUG exits QEMU at once (panic=-1) instead of hanging until the host
# timeout; the host reads which phase was running from the last 'begin'.
# One 'disable-bug ...' line per step; tests/62-runtime-disable.sh checks them.
# The wrappers disable-bug-opmask.sh and disable-bug-inline.sh set, before
# sourcing this file (issue 25):
#   DB_RULE    the rule's op list for uring-rule add (default all)
#   DB_PHASES  phases in order (default "user root"):
#                user    uid 1000, OPENAT/CLOSE with IOSQE_ASYNC (io-wq)
#                root    root, the same
#                inline  root, OPENAT/CLOSE without IOSQE_ASYNC: issued in
#                        the bench's own task (forked after 'auditctl -e 0',
#                        so its context was never made dummy)
N=${DISABLE_BUG_N:-100}
UID_USER=1000

bench() {
	name=$1
	shift
	echo "disable-bug begin phase=$name"
	"$@" >/tmp/db.out 2>/tmp/db.err
	rc=$?
	ops=$(sed -n 's/^result .* ops=\([0-9]*\) .*/\1/p' /tmp/db.out)
	echo "disable-bug phase=$name bench_rc=$rc ops=${ops:-0} err=$(head -1 /tmp/db.err | tr ' ' '_')"
}

echo 1 >/proc/sys/kernel/panic_on_oops 2>/dev/null
echo "disable-bug panic_on_oops=$(cat /proc/sys/kernel/panic_on_oops 2>/dev/null || echo unknown)"
DB_RULE=${DB_RULE:-all}
DB_PHASES=${DB_PHASES:-user root}
echo "disable-bug rule=$DB_RULE phases=$(echo "$DB_PHASES" | tr ' ' ',')"
if ! uring-rule add -k bug "$DB_RULE" >/tmp/db.rule 2>&1; then
	echo "disable-bug audit=absent rule_error=$(head -1 /tmp/db.rule | tr ' ' '_')"
else
	auditctl -e 0 >/dev/null 2>&1
	echo "disable-bug audit=present enabled=$(auditctl -s | sed -n 's/^enabled \([0-9]*\)/\1/p') rules=$(auditctl -s | sed -n 's/^rules \([0-9]*\)/\1/p')"
fi

# an unprivileged user: busybox su as root needs no password, only a passwd entry
grep -q '^lab:' /etc/passwd || echo "lab:x:$UID_USER:$UID_USER:lab:/tmp:/bin/sh" >>/etc/passwd
grep -q '^lab:' /etc/group || echo "lab:x:$UID_USER:" >>/etc/group
mkdir -p /tmp/lab-user && chown "$UID_USER:$UID_USER" /tmp/lab-user
echo "disable-bug user uid=$(su -s /bin/sh lab -c 'id -u' 2>&1 | tr ' ' '_')"
for ph in $DB_PHASES; do
	case $ph in
	user) bench user su -s /bin/sh lab -c "uring-bench -m openclose -n $N -i 0 -A -f /tmp/lab-user/f" ;;
	root) bench root uring-bench -m openclose -n "$N" -i 0 -A -f /tmp/root-f ;;
	inline) bench inline uring-bench -m openclose -n "$N" -i 0 -f /tmp/root-f ;;
	*) echo "disable-bug error unknown-phase=$ph" ;;
	esac
done
echo "disable-bug done"
