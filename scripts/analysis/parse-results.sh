#!/bin/bash
# parse-results.sh RESULTS.TXT: one line per workload block in a guest's
# results stream (see guest/init), as key=value:
#   workload=W rc=N ops_per_sec=X ns_per_op=Y [extra fields]
# uring-bench blocks end in a 'result ...' line (ns_per_op = its elapsed time
# over its ops). fio blocks are two passes of the job, for N and 2N I/Os, each
# a 'fio-pass pass=P elapsed ns=E rc=R window_ns=W' line (bench/lab-time)
# then fio's JSON. T is W, the I/O loop between the job's exec_prerun and
# exec_postrun stamps (E, the whole fio process, for runs made before the
# window): ns_per_op = (T2 - T1) / (total_ios2 - total_ios1), the steady-state
# cost of one I/O with what is left of set-up and exit cancelled, exact under tcg-icount;
# ops_per_sec = 1e9 / ns_per_op; fio_iops is fio's own (ms-quantised) IOPS
# and the clat percentiles are pass 2's. A fio block of one JSON document (runs
# made before the two-pass method) gives ns_per_op = 1e9 / fio's IOPS.
# A block without numbers gets ops_per_sec=NA. A uring-bench line also has
# window_ops=N (its result line's ops: the plugin window's ops, for
# attribution). Also prints 'sink ...' lines.
# parse-results.sh --profile RESULTS.TXT: the profiled passes instead, as CSV
# rows without a header:
#   workload,function,hits,total_ns,avg_ns,perf_share_pct
# ftrace function-profiler rows (times include children: graph-time) come
# first with an empty perf share; perf cpu-clock rows have empty hit counts.
# Under tcg-icount ns are guest instructions.
# The one reader of a guest's results stream (guest/boot.sh only checks its
# end markers to name a boot's status).
set -euo pipefail

profile=0
[[ ${1:-} == --profile ]] && { profile=1; shift; }
f=${1:-}
[[ -f $f ]] || { echo "error: parse-results.sh: no results file '$f'" >&2; exit 2; }
if ((profile)); then
	tr -d '\r' <"$f" | awk '
		function ns(v, unit) {
			if (unit == "us") return v * 1000
			if (unit == "ms") return v * 1000000
			if (unit == "s") return v * 1000000000
			return v
		}
		/^@@LAB begin ftrace workload=/ { w = $4; sub(/workload=/, "", w); mode = "ftrace"; next }
		/^@@LAB begin perf workload=/ { w = $4; sub(/workload=/, "", w); mode = "perf"; next }
		/^@@LAB end (ftrace|perf)/ { mode = ""; next }
		/^@@LAB/ { next }
		mode == "ftrace" && NF >= 6 && $2 ~ /^[0-9]+$/ {
			# Function Hit Time unit Avg unit s^2 unit; several CPUs would repeat a function
			key = w SUBSEP $1
			if (!(key in hits)) order[++n] = key
			hits[key] += $2; tot[key] += ns($3, $4)
			next
		}
		mode == "perf" && $1 ~ /%$/ {
			p = $1; sub(/%/, "", p); sym = $NF
			printf "%s,%s,,,,%s\n", w, sym, p
		}
		END {
			for (i = 1; i <= n; i++) {
				split(order[i], k, SUBSEP)
				printf "%s,%s,%d,%.0f,%.3f,\n", k[1], k[2], hits[order[i]], tot[order[i]], hits[order[i]] ? tot[order[i]] / hits[order[i]] : 0
			}
		}' | sort -t, -k1,1 -s
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' <"$f" >"$tmp/all"

awk -v dir="$tmp" '
	/^@@LAB begin workload=/ { w = $3; sub(/workload=/, "", w); n++; file = dir "/block." n; print w > (dir "/name." n); next }
	/^@@LAB end workload=/ { rc = $4; sub(/rc=/, "", rc); print rc > (dir "/rc." n); file = ""; next }
	/^@@LAB begin sink/ { sink = 1; next }
	/^@@LAB end sink/ { sink = 0; next }
	/^@@LAB/ { next }
	sink { print > (dir "/sink"); next }
	file != "" { print > file }
' "$tmp/all"

for name in "$tmp"/name.*; do
	[[ -f $name ]] || continue
	i=${name##*.}
	w=$(cat "$name")
	rc=$(cat "$tmp/rc.$i" 2>/dev/null || echo died)
	block=$tmp/block.$i
	touch "$block"
	ops=NA extra=""
	if grep -q '^result ' "$block"; then
		ops=$(sed -n 's/^result .*ops_per_sec=\([0-9.]*\).*/\1/p' "$block" | tail -1)
		wops=$(sed -n 's/^result .* ops=\([0-9]*\).*/\1/p' "$block" | tail -1)
		extra=" window_ops=${wops:-NA}"
	elif grep -q '^fio-pass ' "$block"; then
		# two-pass fio: split the block at its fio-pass lines
		# (fio prints 'Saving output of prerun ...' lines before its JSON)
		awk -v b="$block" '/^fio-pass / { p = $2; sub(/pass=/, "", p); print > (b ".hdr" p); next }
			p != "" && (js[p] || /^\{/) { js[p] = 1; print > (b ".json" p) }' "$block"
		# the I/O window (fio's exec_prerun/postrun stamps) when both passes
		# have one, else the whole fio process (runs before the window)
		t1=$(sed -n 's/.* window_ns=\([0-9]*\).*/\1/p' "$block.hdr1" 2>/dev/null) t2=$(sed -n 's/.* window_ns=\([0-9]*\).*/\1/p' "$block.hdr2" 2>/dev/null)
		if [[ -z $t1 || -z $t2 ]]; then
			t1=$(sed -n 's/.* elapsed ns=\([0-9]*\).*/\1/p' "$block.hdr1" 2>/dev/null) t2=$(sed -n 's/.* elapsed ns=\([0-9]*\).*/\1/p' "$block.hdr2" 2>/dev/null)
		fi
		n1=$(jq -r '.jobs[0].read.total_ios' "$block.json1" 2>/dev/null || true)
		p50=NA p99=NA fio_iops=NA n2=""
		if read -r n2 fio_iops p50 p99 < <(jq -r '.jobs[0] | [.read.total_ios, .read.iops, (.read.clat_ns.percentile["50.000000"] // "NA"), (.read.clat_ns.percentile["99.000000"] // "NA")] | @tsv' "$block.json2" 2>/dev/null); then :; fi
		ops=$(awk -v t1="$t1" -v t2="$t2" -v n1="$n1" -v n2="$n2" 'BEGIN {
			if (t1 !~ /^[0-9]+$/ || t2 !~ /^[0-9]+$/ || n1 !~ /^[0-9]+$/ || n2 !~ /^[0-9]+$/ || n2 <= n1 || t2 <= t1) { print "NA"; exit }
			printf "%.6f", 1e9 * (n2 - n1) / (t2 - t1) }')
		extra=" clat_p50_ns=${p50:-NA} clat_p99_ns=${p99:-NA} fio_iops=${fio_iops:-NA}"
	elif grep -q '"jobs"' "$block"; then
		# fio JSON: IOPS of the read side, and completion latency percentiles (ns)
		if ! read -r ops p50 p99 < <(jq -r '.jobs[0] | [.read.iops, (.read.clat_ns.percentile["50.000000"] // "NA"), (.read.clat_ns.percentile["99.000000"] // "NA")] | @tsv' "$block" 2>/dev/null); then
			ops=NA
		fi
		extra=" clat_p50_ns=${p50:-NA} clat_p99_ns=${p99:-NA}"
	fi
	if [[ -z $ops || $ops == NA ]] || ! awk -v x="$ops" 'BEGIN { exit !(x > 0) }'; then
		echo "workload=$w rc=$rc ops_per_sec=NA ns_per_op=NA$extra"
	else
		echo "workload=$w rc=$rc ops_per_sec=$(awk -v x="$ops" 'BEGIN { printf "%.1f", x }') ns_per_op=$(awk -v x="$ops" 'BEGIN { printf "%.3f", 1e9 / x }')$extra"
	fi
done
[[ -f $tmp/sink ]] && sed 's/^/sink_line /' "$tmp/sink"
exit 0
