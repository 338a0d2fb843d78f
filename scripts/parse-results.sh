#!/bin/bash
# parse-results.sh RESULTS.TXT: one line per workload block in a guest's
# results stream (see guest/init), as key=value:
#   workload=W rc=N ops_per_sec=X ns_per_op=Y [extra fields]
# fio blocks are fio JSON (read IOPS of the single job); uring-bench blocks end
# in a 'result ...' line. ns_per_op is guest time per op: 1e9 / ops_per_sec.
# A block without numbers gets ops_per_sec=NA. Also prints 'sink ...' lines.
set -euo pipefail

f=${1:-}
[[ -f $f ]] || { echo "error: parse-results.sh: no results file '$f'" >&2; exit 2; }

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
