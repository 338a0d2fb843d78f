#!/bin/sh
# peer-suite.sh (guest, busybox sh; in the peer image only, peer/build.sh):
# runs liburing's own tests listed in /lab/peer/tests.list, one after the
# other in /tmp, each under its limit (guest seconds), with audit-sink
# draining the records (as auditd would) in whatever audit state the boot
# set up (tests/70 boots uring-hit: a rule on every io_uring op).
# Output, one line per test, then a summary:
#   peer-test name=NAME result=pass|fail|skip|timeout rc=RC cs=CENTISECONDS
#   peer-test name=ltimeout-pipe result=pass|hang rc=- cs=0 hangs=H/40
#   peer-out NAME: LINE          (the first lines a failing test printed)
#   peer-done tests=N sink_rc=RC
# liburing's convention: exit 0 pass, 77 skip (T_EXIT_SKIP), else fail; a
# test still running at its limit is killed (SIGKILL): timeout.
# loopback only (the guest has -nic none): the socket tests connect to 127.0.0.1
ifconfig lo 127.0.0.1 up 2>/dev/null || echo "peer-error no-loopback"
up_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# audit-sink only where the kernel has audit and it is on (state off: none)
sink=
if auditctl -s 2>/dev/null | grep -q '^enabled 1'; then
	rm -f /tmp/ps.ready
	audit-sink -r /tmp/ps.ready >/tmp/ps.out 2>/tmp/ps.err &
	sink=$!
	i=0
	while [ ! -f /tmp/ps.ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f /tmp/ps.ready ] || echo "peer-error sink-not-ready $(head -1 /tmp/ps.err)"
fi
mkdir -p /tmp/peer
cd /tmp/peer || exit 1
n=0
while read -r name limit; do
	[ -x "/lab/peer/$name.t" ] || { echo "peer-test name=$name result=missing rc=- cs=0"; continue; }
	n=$((n + 1))
	t0=$(up_cs)
	timeout -s KILL "$limit" "/lab/peer/$name.t" >"/tmp/peer-$name.out" 2>&1
	rc=$?
	t1=$(up_cs)
	case $rc in
	0) res=pass ;;
	77) res=skip ;;
	137) res=timeout ;;
	*) res=fail ;;
	esac
	echo "peer-test name=$name result=$res rc=$rc cs=$((t1 - t0))"
	[ $res = pass ] || head -5 "/tmp/peer-$name.out" | sed "s/^/peer-out $name: /"
done </lab/peer/tests.list
# the skip-cqe hang, reduced (peer/ltimeout-pipe.c): 40 READs of a pipe
# holding only a zero-length buffer, each linked to a 1 ms LINK_TIMEOUT
# (skip-cqe.t's first test_ltimeout_fire), at spread timer-tick phases;
# result hang when any READ never completed. Unlike skip-cqe.t's own verdict
# (one phase, set by whatever ran before it), this measures the race.
out=$(/lab/peer/ltimeout-pipe -z -n 1000000 -i 40 -w 1 2>&1)
hangs=$(echo "$out" | sed -n 's/.* hangs=\([0-9]*\).*/\1/p')
case $hangs in
0) res=pass ;;
[0-9]*) res=hang ;;
*) res=fail ;;
esac
echo "peer-test name=ltimeout-pipe result=$res rc=- cs=0 hangs=${hangs:-?}/40"
[ $res = fail ] && echo "$out" | head -3 | sed 's/^/peer-out ltimeout-pipe: /'
n=$((n + 1))
src=none
if [ -n "$sink" ]; then
	kill -TERM "$sink" 2>/dev/null
	wait "$sink"
	src=$?
fi
echo "peer-done tests=$n sink_rc=$src sink: $(grep -o 'name=[A-Z_]* count=[0-9]*' /tmp/ps.out 2>/dev/null | tr '\n' ' ')"
