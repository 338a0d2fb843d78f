#!/bin/sh
# proof.sh: what does this kernel actually audit? Runs exactly PROOF_N
# io_uring ops of each kind (NOP, READ on /dev/nullb0, OPENAT+CLOSE on tmpfs)
# with a fresh audit-sink per phase and counts the URINGOP (1336) records
# per opcode in the sink's log. Phases: with a uring rule matching all
# opcodes (issued inline and forced to io-wq), after deleting it, and after re-adding it (a static key must flip
# both ways). One 'proof ...' line per phase; the host test checks them.
N=${PROOF_N:-1000}

count() { grep -c "^type=1336 .*uring_op=$1 " /tmp/sink.log; }

phase() {
	name=$1 mode=$2
	shift 2
	rm -f /tmp/sink.ready /tmp/sink.log
	audit-sink -r /tmp/sink.ready -l /tmp/sink.log >/tmp/sink.out 2>/tmp/sink.err &
	sink=$!
	i=0
	while [ ! -f /tmp/sink.ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if [ ! -f /tmp/sink.ready ]; then
		echo "proof phase=$name mode=$mode error=sink-not-ready $(head -1 /tmp/sink.err)"
		kill "$sink" 2>/dev/null
		return
	fi
	uring-bench -m "$mode" -n "$N" -i 0 "$@" >/tmp/bench.out 2>/tmp/bench.err
	brc=$?
	kill -TERM "$sink"
	wait "$sink"
	ops=$(sed -n 's/^result .* ops=\([0-9]*\) .*/\1/p' /tmp/bench.out)
	lost=$(sed -n 's/^sink records=.* lost=\([-0-9]*\).*/\1/p' /tmp/sink.out)
	lost0=$(sed -n 's/^sink status .*lost_start=\([0-9]*\).*/\1/p' /tmp/sink.out)
	fails=$(grep -c '^type=1336 .*success=no' /tmp/sink.log)
	echo "proof phase=$name mode=$mode bench_rc=$brc ops=${ops:-0} uringop=$(grep -c '^type=1336 ' /tmp/sink.log) op_nop=$(count 0) op_read=$(count 22) op_openat=$(count 18) op_close=$(count 19) uringop_failed=$fails lost=$((${lost:-0} - ${lost0:-0}))"
	# keep a few records of each kind for the note (success=, exit= fields)
	grep '^type=1336 ' /tmp/sink.log | sed 's/msg=audit([^)]*)//' | sort | uniq -c | head -3 |
		sed "s/^ */proof-record phase=$name mode=$mode count=/"
}

if ! uring-rule add -k proof all >/tmp/rule.out 2>&1; then
	echo "proof audit=absent rule_error=$(head -1 /tmp/rule.out | tr ' ' '_')"
	uring-bench -m nop -n "$N" -i 0 >/tmp/bench.out 2>&1
	echo "proof phase=noaudit mode=nop bench_rc=$? ops=$(sed -n 's/^result .* ops=\([0-9]*\) .*/\1/p' /tmp/bench.out)"
	exit 0
fi
echo "proof audit=present $(auditctl -s | tr '\n' ' ')"
phase rule nop
phase rule read -B 0
phase rule openclose
# IOSQE_ASYNC: issued from an io-wq worker, which has its own audit context
phase async nop -A
phase async openclose -A
uring-rule del -k proof all >/dev/null
phase norule nop
phase norule read -B 0
phase norule openclose
uring-rule add -k proof all >/dev/null
phase readd nop
phase readd openclose
