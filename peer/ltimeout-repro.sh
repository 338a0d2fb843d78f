#!/bin/sh
# ltimeout-repro.sh (guest, busybox sh; peer image only): the skip-cqe hang
# (issue 25) reduced to peer/ltimeout-pipe.c, in whatever audit state the
# boot set up, with audit-sink draining records. Phases, each N fresh
# pipe+ring iterations of a READ linked to a LINK_TIMEOUT:
#   skipcqe     -z, 1 ms: skip-cqe.t's first test_ltimeout_fire (an empty
#               buffer left by a faulting write, 1 ms linked timeout)
#   short       -z, 1 ns, 10 N iterations: the timer fires at the next tick, wherever the
#               128 poll retries are: the window without audit's help
#   no-zero     1 ns, no empty buffer: the READ waits in poll, the timeout
#               cancels it (control)
#   async       -z -a, 1 ns: IOSQE_ASYNC, straight to io-wq (control)
#   trace       one skipcqe iteration under ftrace's function profiler:
#               how often io_arm_poll_handler, io_read, io_wq_submit_work
#               and the link-timeout functions ran
#   sequence    single skipcqe iterations under the function tracer (same
#               functions) until one hangs and one does not: the order of
#               the calls, and the hung one's kernel stacks
# Output: 'repro phase=NAME <ltimeout-pipe's summary>' per phase, then
# 'repro-profile FUNCTION hits=N' lines, 'repro-seq' lines and 'repro-done'.
N=${LTIMEOUT_ITERS:-40}
# audit-sink only where the kernel has audit and it is on (state off: none)
sink=
if auditctl -s 2>/dev/null | grep -q '^enabled 1'; then
	rm -f /tmp/lr.ready
	audit-sink -r /tmp/lr.ready >/tmp/lr.out 2>/tmp/lr.err &
	sink=$!
	i=0
	while [ ! -f /tmp/lr.ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -f /tmp/lr.ready ] || echo "repro-error sink-not-ready $(head -1 /tmp/lr.err)"
fi
P=/lab/peer/ltimeout-pipe
phase() { # NAME ARGS...
	n=$1
	shift
	last=$($P "$@" 2>&1 | tr '\n' ' ')
	echo "repro phase=$n $last"
}
phase skipcqe -z -n 1000000 -i "$N"
phase short -z -n 1 -i "$((N * 10))"
short_first=$(echo "$last" | sed -n 's/.* first_hang=\([0-9]*\).*/\1/p')
phase no-zero -n 1 -i "$N"
phase async -z -a -n 1 -i "$N"
T=/sys/kernel/tracing
if [ -f $T/function_profile_enabled ]; then
	: >$T/set_ftrace_filter
	for f in io_arm_poll_handler io_read io_wq_submit_work io_link_timeout_fn \
		io_req_task_link_timeout io_try_cancel io_poll_cancel pipe_read pipe_poll; do
		echo "$f" >>$T/set_ftrace_filter 2>/dev/null || echo "repro-profile $f not-traceable"
	done
	echo 1 >$T/function_profile_enabled
	phase trace -z -n 1000000 -i 1
	echo 0 >$T/function_profile_enabled
	cat $T/trace_stat/function* | awk '$1 != "Function" && $1 !~ /^-/ && NF >= 2 { print "repro-profile " $1 " hits=" $2 }'
else
	echo "repro-profile none (no function profiler)"
fi
# sequence: the same functions under the function tracer, one iteration at
# a time (spin phases 1..12, 1 ms; then 1 ns at the short phase's first
# hung iteration and the next three) until one hangs and one does not; each is
# printed as the calls other than the retry loop's (io_read,
# io_arm_poll_handler, pipe_poll), each with the number of poll arms before
# it ('io_link_timeout_fn@57': the timer fired after the 57th retry), and
# while the hung one waits, the kernel stacks of its threads
if grep -qw function $T/available_tracers 2>/dev/null; then
	echo function >$T/current_tracer
	# seqrun NS K...: single iterations at spin phases K... until one hung and one not
	seqrun() {
		ns=$1
		shift
		seen_hang="" seen_ok=""
		for k in "$@"; do
			[ -n "$seen_hang" ] && [ -n "$seen_ok" ] && break
			echo 0 >$T/tracing_on
			: >$T/trace
			echo 1 >$T/tracing_on
			$P -z -n "$ns" -i 1 -w 2 -s "$k" >/tmp/lr.one 2>&1 &
			p=$!
			sleep 1
			stacks=""
			for t in "/proc/$p/task/"*; do
				[ -d "$t" ] || continue
				stacks="$stacks [$(cat "$t/comm" 2>/dev/null): $(head -4 "$t/stack" 2>/dev/null | sed 's/^\[<[0-9a-f]*>\] //; s/+0x[0-9a-f/x]*//' | tr '\n' ' ')]"
			done
			wait $p
			echo 0 >$T/tracing_on
			h=$(sed -n 's/.* hangs=\([0-9]*\).*/\1/p' /tmp/lr.one)
			kind=""
			[ "$h" = 1 ] && [ -z "$seen_hang" ] && kind=hang seen_hang=1
			[ "$h" = 0 ] && [ -z "$seen_ok" ] && kind=ok seen_ok=1
			[ -n "$kind" ] || continue
			echo "repro-seq kind=$kind phase=$k $(cat /tmp/lr.one)"
			grep -v '^#' $T/trace | awk '{ fn = $(NF - 1) } fn == "io_arm_poll_handler" { arms++; next } fn == "io_read" || fn == "pipe_poll" { next } { printf "%s@%d ", fn, arms } END { printf "(poll arms: %d)\n", arms }' | sed 's/^/repro-seq calls (FUNCTION@POLL_ARMS_BEFORE_IT): /'
			[ $kind = hang ] && echo "repro-seq stacks:$stacks"
		done
	}
	seqrun 1000000 1 2 3 4 5 6 7 8 9 10 11 12
	# the short phase's first hung iteration (and the next ones), 1 ns
	if [ -n "$short_first" ] && [ "$short_first" -ge 1 ]; then
		seqrun 1 "$short_first" $((short_first + 1)) $((short_first + 2)) $((short_first + 3))
	fi
	echo nop >$T/current_tracer
	: >$T/set_ftrace_filter
fi
src=none
if [ -n "$sink" ]; then
	kill -TERM "$sink" 2>/dev/null
	wait "$sink"
	src=$?
fi
echo "repro-done sink_rc=$src sink: $(grep -o 'name=[A-Z_]* count=[0-9]*' /tmp/lr.out 2>/dev/null | tr '\n' ' ')"
