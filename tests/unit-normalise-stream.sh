#!/bin/bash
# Unit test of scripts/proof/normalise-stream.awk on a recorded upstream stream
# (tests/data/streams/, stream-proof.sh on upstream, state smack, tcg-icount):
# no raw timestamps, pids, inodes or syscall args survive, and a stream whose
# pids and serials are shifted normalises to the same text.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
raw=$LAB_ROOT/tests/data/streams/upstream-smack-partial.raw
norm() { grep '^S ' | awk -f "$LAB_ROOT/scripts/proof/normalise-stream.awk"; }
a=$(norm <"$raw")
check "normalised stream is not empty" test -n "$a"
absent() { ! grep -qE "$1" <<<"$a"; }
check "no msg=audit(TS:SERIAL) left" absent 'msg=audit\('
check "no numeric pid/ppid/ses/inode left" absent '(^| )(pid|ppid|ses|inode)=[0-9]'
check "no syscall a0-a3 left" absent ' a[0-3]='
check "normaliser really rewrites (raw has pids)" grep -qE ' pid=[0-9]' "$raw"
check "no audit daemon pid left (op=set audit_pid=N old=M, N and M not 0)" absent 'op=set audit_pid=([1-9]|0 old=[1-9])'
check "raw has audit daemon pids to rewrite" grep -qE 'op=set audit_pid=[1-9]' "$raw"
# the daemon's pid shifted alone (a kernel that forked one more task before
# the sink started, 6.12): the same normalised stream
c=$(perl -pe 's/(op=set audit_pid=)([1-9]\d*)/$1.($2+1)/ge; s/(op=set audit_pid=0 old=)([1-9]\d*)/$1.($2+1)/ge' "$raw" | norm)
check "a shifted audit daemon pid normalises away" test "$a" = "$c"
# shift every pid by 1000 and every serial by 7: the same normalised stream
b=$(perl -pe 's/\b(pid|ppid)=(\d+)/"$1=".($2+1000)/ge; s/(msg=audit\(\d+\.\d+:)(\d+)/$1.($2+7)/ge' "$raw" | norm)
check "pid and serial shifts normalise away" test "$a" = "$b"
