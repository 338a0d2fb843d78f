#!/bin/sh
# stream-proof.sh: the full audit record stream (every record type) per
# scenario, captured raw by audit-sink -l and handed to the host, which
# normalises it (scripts/normalise-stream.awk) and diffs variants against
# upstream (tests/61-record-stream.sh). Output, per scenario:
#   stream-begin scenario=NAME
#   S NAME type=N msg=audit(TS:SERIAL): ...     (every record, in order)
#   stream-end scenario=NAME bench_rc=RC lost=L
# Scenarios never combine an io_uring rule, 'auditctl -e 0' and io-wq/SQPOLL
# OPENAT (the runtime-disable BUG on upstream, proven in its own phase).
# Smack must be active for 'lsm' (boot in state smack); without it the
# scenario reports lsm=absent. PROOF_EXE_RULE=1 adds the autoremove scenario.
N=${STREAM_N:-8}
SM=/tmp/sm

sink_start() {
	rm -f /tmp/ss.ready /tmp/ss.log
	audit-sink -r /tmp/ss.ready -l /tmp/ss.log >/tmp/ss.out 2>/tmp/ss.err &
	sink=$!
	i=0
	while [ ! -f /tmp/ss.ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f /tmp/ss.ready ] || echo "stream-error sink-not-ready $(head -1 /tmp/ss.err)"
}
sink_stop() { # NAME RC
	kill -TERM "$sink"
	wait "$sink"
	lost=$(sed -n 's/^sink records=.* lost=\([-0-9]*\).*/\1/p' /tmp/ss.out)
	lost0=$(sed -n 's/^sink status .*lost_start=\([0-9]*\).*/\1/p' /tmp/ss.out)
	echo "stream-begin scenario=$1"
	sed "s/^/S $1 /" /tmp/ss.log
	echo "stream-end scenario=$1 bench_rc=$2 lost=$((${lost:-0} - ${lost0:-0}))"
}
bench() { uring-bench -n "$N" -i 0 "$@" >/tmp/sb.out 2>/tmp/sb.err; }
rules_clear() { auditctl -D >/dev/null 2>&1; }

if ! auditctl -s >/dev/null 2>&1; then
	echo "stream audit=absent"
	exit 0
fi
echo "stream audit=present"
rules_clear

# inline: io_uring rule on all opcodes, NOP and OPENAT/CLOSE issued inline
sink_start
uring-rule add -k st all >/dev/null
bench -m nop; rc=$?
bench -m openclose; rc=$((rc + $?))
rules_clear
sink_stop inline $rc

# iowq: the same rule, OPENAT/CLOSE forced to an io-wq worker
sink_start
uring-rule add -k st all >/dev/null
bench -m openclose -A; rc=$?
rules_clear
sink_stop iowq $rc

# sqpoll: the same rule, OPENAT/CLOSE issued by the SQPOLL thread
sink_start
uring-rule add -k st all >/dev/null
bench -m openclose -S; rc=$?
rules_clear
sink_stop sqpoll $rc

# midrun: a rule added, ops, the rule deleted, ops (per-run boundaries)
sink_start
bench -m openclose; rc=$?
uring-rule add -k st openat,close >/dev/null
bench -m openclose; rc=$((rc + $?))
uring-rule del -k st openat,close >/dev/null
bench -m openclose -A; rc=$((rc + $?))
sink_stop midrun $rc

# syscall: a syscall-exit rule (io_uring_enter, 426) beside an io_uring rule
sink_start
uring-rule syscall-add -k sc io_uring_enter >/dev/null
uring-rule add -k st openat >/dev/null
bench -m openclose; rc=$?
bench -m openclose -A; rc=$((rc + $?))
rules_clear
sink_stop syscall $rc

# disable: a syscall rule only, audit turned off and on at runtime
sink_start
uring-rule syscall-add -k sc io_uring_enter >/dev/null
auditctl -e 0 >/dev/null
bench -m openclose; rc=$?
bench -m openclose -A; rc=$((rc + $?))
auditctl -e 1 >/dev/null
bench -m openclose; rc=$((rc + $?))
rules_clear
sink_stop disable $rc

# lsm: a Smack denial inside an io_uring OPENAT (inline and io-wq), as an
# unprivileged user labelled A opening a file labelled B
if [ "$(cat /proc/self/attr/current 2>/dev/null)" = "_" ]; then
	mkdir -p $SM && chmod 777 $SM
	sh -c "echo B >/proc/self/attr/current && echo x >$SM/secret && chmod 644 $SM/secret"
	sink_start
	uring-rule add -k st openat >/dev/null
	sh -c "echo A >/proc/self/attr/current && exec setpriv --reuid=1000 --regid=1000 --clear-groups uring-bench -n $N -i 0 -m openclose -f $SM/secret" >/tmp/sb.out 2>/tmp/sb.err
	rc=$?
	sh -c "echo A >/proc/self/attr/current && exec setpriv --reuid=1000 --regid=1000 --clear-groups uring-bench -n $N -i 0 -m openclose -A -f $SM/secret" >/tmp/sb2.out 2>/tmp/sb2.err
	rc="$rc,$?"
	rules_clear
	sink_stop lsm "$rc"
	echo "lsm-bench inline: $(head -1 /tmp/sb.err) $(grep ^result /tmp/sb.out)"
	echo "lsm-bench iowq: $(head -1 /tmp/sb2.err) $(grep ^result /tmp/sb2.out)"
else
	echo "stream lsm=absent"
fi

# primed: an SQPOLL ring and an io-wq worker run ops while a rule exists,
# the rule is deleted, and the same thread keeps issuing ops with no rules
sink_start
uring-rule add -k st all >/dev/null
uring-bench -t 3 -i 0 -m openclose -S >/tmp/sp.out 2>/tmp/sp.err &
b1=$!
uring-bench -t 3 -i 0 -m openclose -A -d 1 -b 1 >/tmp/sa.out 2>/tmp/sa.err &
b2=$!
sleep 1
rules_clear
wait $b1; rc=$?
wait $b2; rc="$rc,$?"
sink_stop primed "$rc"

# exe: an exe= rule whose target is deleted (fsnotify autoremove reaches
# audit_del_rule()), then the directory watch of a rule removed the same way
if [ "${PROOF_EXE_RULE:-1}" = 1 ]; then
	mkdir -p /tmp/exe && cp /bin/busybox /tmp/exe/victim
	sink_start
	auditctl -a always,exit -F arch=b64 -S openat -F exe=/tmp/exe/victim -k ex >/dev/null 2>&1; r1=$?
	auditctl -w /tmp/exe/victim -p r -k wt >/dev/null 2>&1; r2=$?
	/tmp/exe/victim true
	rm -f /tmp/exe/victim
	rmdir /tmp/exe
	sleep 0.2
	rules=$(auditctl -l 2>&1 | tr '\n' ';')
	rules_clear
	sink_stop exe "$r1,$r2"
	echo "stream exe rule_rc=$r1,$r2 rules_after_delete=$rules"
fi
