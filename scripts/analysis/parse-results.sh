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
# parse-results.sh --each RESULTS.TXT...: the lines of each file, after a line
# "@@file RESULTS.TXT" (a warm matrix parses hundreds of restored boots at once).
# The lines of a file are memoised by its sha256 and this parser's (the
# script, jq and awk binaries) in $LAB_CACHE/cells/.parsed/, with the cell
# store (not under LAB_NO_CELL_STORE=1); a memo whose sum does not match is
# not trusted: the file is parsed again.
# The one reader of a guest's results stream (guest/boot.sh only checks its
# end markers to name a boot's status).
set -euo pipefail

profile=0 each=0
[[ ${1:-} == --profile ]] && { profile=1; shift; }
[[ ${1:-} == --each ]] && { each=1; shift; }
if ((each)); then
	# shellcheck source=../../lib/common.sh
	. "$(dirname "$0")/../../lib/common.sh"
	(($#)) || exit 0
	for f in "$@"; do [[ -f $f ]] || { echo "error: parse-results.sh: no results file '$f'" >&2; exit 2; }; done
	memo=""
	if [[ ${LAB_NO_CELL_STORE:-0} != 1 ]]; then
		jq_bin=$(command -v jq) awk_bin=$(command -v awk)
		parser=$(sha256sum "$0" "$jq_bin" "$(readlink -f "$awk_bin")" | sha256sum)
		memo=${LAB_CELLS:-$LAB_CACHE/cells}/.parsed/${parser%% *}
		mkdir -p "$memo"
	fi
	declare -A sha_of=() good=()
	if [[ -n $memo ]]; then
		while read -r sha f; do sha_of[$f]=$sha; done < <(sha256sum "$@")
		sums=()
		for f in "$@"; do [[ ! -f $memo/${sha_of[$f]}.sum ]] || sums+=("$memo/${sha_of[$f]}.sum"); done
		if ((${#sums[@]})); then
			# a memo is good when its content has the sum it was written with
			while IFS= read -r l; do
				[[ $l == *": OK" ]] && good[${l%: OK}]=1
			done < <(cat "${sums[@]}" | (cd "$memo" && sha256sum --strict -c - 2>/dev/null) || true)
		fi
	fi
	for f in "$@"; do
		echo "@@file $f"
		sha=${sha_of[$f]:-}
		if [[ -n $sha && -n ${good[$sha]:-} ]]; then
			mapfile -t lines <"$memo/$sha"
			((${#lines[@]} == 0)) || printf '%s\n' "${lines[@]}"
			continue
		fi
		if [[ -z $sha ]]; then "$0" "$f"; continue; fi
		"$0" "$f" >"$memo/.$sha.$$"
		mv "$memo/.$sha.$$" "$memo/$sha"
		(cd "$memo" && sha256sum "$sha" >".$sha.sum.$$" && mv ".$sha.sum.$$" "$sha.sum")
		cat "$memo/$sha"
	done
	exit 0
fi
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

# One awk pass splits the stream into workload blocks and reads each block's
# kind and figures; jq reads fio's JSON; one awk formats every line. (A
# warm rerun parses hundreds of restored boots: this runs a dozen processes
# a boot, not a dozen a workload.)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' <"$f" | awk -v dir="$tmp" '
	# last(s, key, set): the value set (a regex of its characters) after the
	# last "key" in s, "" if none; found says whether key was there
	function last(s, key, set) {
		found = 0
		if (!match(s, ".*" key)) return ""
		found = 1
		s = substr(s, RLENGTH + 1)
		return match(s, "^" set "*") ? substr(s, 1, RLENGTH) : ""
	}
	# add(a, k, v): one more sed output line for a[k] ("MULTI" when a second
	# line would make it no number)
	function add(a, k, v) { a[k] = (k in cnt) ? "MULTI" : v; cnt[k] = 1 }
	/^@@LAB begin workload=/ { w = $3; sub(/workload=/, "", w); n++; name[n] = w; p = ""; split("", js); next }
	/^@@LAB end workload=/ { r = $4; sub(/rc=/, "", r); if (!(n in rc)) rc[n] = r; next }
	/^@@LAB begin sink/ { sink = 1; next }
	/^@@LAB end sink/ { sink = 0; next }
	/^@@LAB/ { next }
	sink { print > (dir "/sink"); next }
	n && !(n in rc) {
		if (/^result /) {
			res[n] = 1
			v = last($0, "ops_per_sec=", "[0-9.]"); if (found) rops[n] = v
			v = last(substr($0, 8), " ops=", "[0-9]"); if (found) wops[n] = v
		}
		print > (dir "/block." n)
		if (/"jobs"/) jobs[n] = 1
		if (/^fio-pass /) {
			fio[n] = 1
			p = $2; sub(/pass=/, "", p)
			v = last($0, " window_ns=", "[0-9]"); if (found) add(win, n SUBSEP p, v)
			v = last($0, " elapsed ns=", "[0-9]"); if (found) add(ela, n SUBSEP p, v)
			next
		}
		if (p != "" && (js[p] || /^\{/)) { js[p] = 1; print > (dir "/json." n "." p) }
	}
	END {
		# the blocks in the order of their file names (name.1, name.10, name.2)
		for (i = 1; i <= n; i++) o[i] = i ""
		for (i = 2; i <= n; i++) for (j = i; j > 1 && o[j] < o[j - 1]; j--) { t = o[j]; o[j] = o[j - 1]; o[j - 1] = t }
		for (j = 1; j <= n; j++) {
			i = o[j]
			k = (i in res) ? "result" : (i in fio) ? "fio" : (i in jobs) ? "json" : "none"
			printf "%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\n", i, name[i], (i in rc) ? rc[i] : "died", k,
				rops[i], wops[i], win[i SUBSEP 1], win[i SUBSEP 2], ela[i SUBSEP 1], ela[i SUBSEP 2]
		}
	}' >"$tmp/blocks"

# per block: its kind and raw figures, one record a block, in order, fields
# separated by US (\037: not whitespace, so an empty field stays a field):
# name rc kind ops n1 n2 t1 t2 p50 p99 fio_iops wops
us=$'\037'
while IFS=$us read -r i w rc kind rops wops w1 w2 e1 e2; do
	n1="" n2="" fio_iops=NA p50=NA p99=NA ops="" t1="" t2=""
	case $kind in
	result) ops=$rops ;;
	fio)
		# the I/O window (fio's exec_prerun/postrun stamps) when both passes
		# have one, else the whole fio process (runs before the window)
		t1=$w1 t2=$w2
		[[ -n $t1 && -n $t2 ]] || { t1=$e1 t2=$e2; }
		n1=$(jq -r '.jobs[0].read.total_ios' "$tmp/json.$i.1" 2>/dev/null || true)
		if read -r n2 fio_iops p50 p99 < <(jq -r '.jobs[0] | [.read.total_ios, .read.iops, (.read.clat_ns.percentile["50.000000"] // "NA"), (.read.clat_ns.percentile["99.000000"] // "NA")] | @tsv' "$tmp/json.$i.2" 2>/dev/null); then :; fi
		;;
	json)
		# fio JSON: IOPS of the read side, and completion latency percentiles (ns)
		if ! read -r ops p50 p99 < <(jq -r '.jobs[0] | [.read.iops, (.read.clat_ns.percentile["50.000000"] // "NA"), (.read.clat_ns.percentile["99.000000"] // "NA")] | @tsv' "$tmp/block.$i" 2>/dev/null); then
			ops=NA
		fi
		;;
	esac
	printf "%s$us" "$w" "$rc" "$kind" "$ops" "${n1//$'\n'/ }" "$n2" "$t1" "$t2" "${p50:-NA}" "${p99:-NA}" "${fio_iops:-NA}"
	printf '%s\n' "${wops:-NA}"
done <"$tmp/blocks" >"$tmp/recs"

# the lines; figures are awk fields (strnums), as they were -v values
awk -v FS="$us" '
	function isnum(s) { return s ~ /^[0-9]+$/ }
	{
		w = $1; rc = $2; kind = $3; ops = $4; extra = ""
		if (kind == "result") extra = " window_ops=" $12
		else if (kind == "fio") {
			if (!isnum($7) || !isnum($8) || !isnum($5) || !isnum($6) || $6 + 0 <= $5 + 0 || $8 + 0 <= $7 + 0) ops = "NA"
			else { ops = sprintf("%.6f", 1e9 * ($6 - $5) / ($8 - $7)); ops = ops + 0 }
			extra = " clat_p50_ns=" $9 " clat_p99_ns=" $10 " fio_iops=" $11
		} else if (kind == "json") extra = " clat_p50_ns=" $9 " clat_p99_ns=" $10
		if (ops == "" || ops == "NA" || !(ops > 0)) print "workload=" w " rc=" rc " ops_per_sec=NA ns_per_op=NA" extra
		else printf "workload=%s rc=%s ops_per_sec=%.1f ns_per_op=%.3f%s\n", w, rc, ops, 1e9 / ops, extra
	}' "$tmp/recs"
[[ -f $tmp/sink ]] && sed 's/^/sink_line /' "$tmp/sink"
exit 0
