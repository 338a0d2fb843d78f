#!/bin/bash
# parse-profile.sh RESULTS.TXT: the profiled passes of a guest's results
# stream (see guest/init, lab.profile) as CSV rows without a header:
#   workload,function,hits,total_ns,avg_ns,perf_share_pct
# ftrace function-profiler rows (times include children: graph-time) come
# first with an empty perf share; perf cpu-clock rows have empty hit counts.
# Under tcg-icount ns are guest instructions.
set -euo pipefail
f=${1:-}
[[ -f $f ]] || { echo "error: parse-profile.sh: no results file '$f'" >&2; exit 2; }
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
