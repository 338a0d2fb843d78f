#!/bin/sh
# disable-bug-inline.sh: the runtime-disable BUG, broader (issue 25). A task
# forked after 'auditctl -e 0' has a zeroed, non-dummy audit context that no
# syscall entry sets up; its own inline OPENAT/CLOSE (no IOSQE_ASYNC) exits
# through __audit_uring_exit() as an io-wq worker's does: expected, upstream
# BUG()s in the submitting task (Comm uring-bench), not in iou-wrk.
DB_RULE=all DB_PHASES=inline exec sh "$(dirname "$0")/disable-bug.sh"
