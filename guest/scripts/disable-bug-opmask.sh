#!/bin/sh
# disable-bug-opmask.sh: the runtime-disable BUG, narrower (issue 25). An
# entry skipped while audit is disabled never sets ctx->uring_op, so the exit
# filters a stale op 0 (IORING_OP_NOP): a rule for OPENAT alone should not
# match, and upstream should survive io-wq and inline OPENAT/CLOSE after
# 'auditctl -e 0'. Phases as in disable-bug.sh.
DB_RULE=openat DB_PHASES="user root inline" exec sh "$(dirname "$0")/disable-bug.sh"
