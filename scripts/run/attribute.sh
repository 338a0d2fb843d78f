#!/bin/bash
# attribute.sh: the attribution boots of a matrix run. For every variant x
# state of RUN_DIR/matrix.conf (A/A controls and n/a cells left out) that runs
# a headline workload, one boot with the lab-attrib QEMU plugin
# (tools/lab-attrib.c; nokaslr, seed 1), whose rows make RUN_DIR/attribution.csv:
#   variant,state,workload,seed,accel,unit,symbol,instructions_per_op,
#   mem_accesses_per_op,calls_per_op
# per kernel symbol inside uring-bench's measurement window, divided by the
# window's ops; symbol [user] is user space, [kernel-other] kernel code outside
# System.map's text, [total] the whole window. Only uring-bench workloads
# open a window; fio workloads are not attributed (yet).
# Attribution boots are separate from the timed cells (which keep
# -seed-driven KASLR) and need TCG: under KVM there is nothing to do.
# The plugin also counts LAB_ATTRIB_FUNCTION (default io_issue_sqe) per
# instruction: RUN_DIR/paths/VARIANT.STATE.WORKLOAD.FUNCTION.txt is its
# executed path ("+0xOFF  executions/op  instruction"), from which the report
# diffs every variant against nohooks instruction by instruction.
# The boots are scheduled by scripts/run/matrix.sh, in the same plan as its timed
# cells (one loop, one progress line, one n/a rule: lib/common.sh cell_na):
#   attribute.sh --plan RUN_DIR       the boots: "VARIANT STATE WORKLOADS" a line
#   attribute.sh --cell RUN_DIR V S WL  one boot, its rows in RUN_DIR/attribution/
#   attribute.sh --cells RUN_DIR LIST  the stored boots of LIST ("V S WL" lines)
#                                     restored together; prints "V S" of each done
#   attribute.sh --assemble RUN_DIR   attribution.csv and footprint.csv from them
#   attribute.sh RUN_DIR              all three, one boot at a time (by hand)
#   LAB_ATTRIB_WORKLOADS  headline workloads (default bench-nop,bench-read,bench-openclose,
#                         bench-openclose-sqpoll,bench-nop-async,bench-openclose-async,
#                         randread-qd128: a state runs those it lists; the io-wq pair
#                         so that a move of the io-wq path, e.g. between base trees,
#                         is attributed: the window counts the workers too)
#   LAB_ATTRIB_FUNCTION   the function traced per instruction (default io_issue_sqe)
#   LAB_ATTRIB_SUB        the subtree counted apart (default io_submit_sqes)
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/disasm.sh
. "$LAB_ROOT/lib/disasm.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

# attribute.sh --rows|--footprint BOOT_DIR VARIANT STATE WORKLOADS: only print
# the attribution.csv (footprint.csv) rows of one attribution boot's
# results.txt and attrib.out (for the unit test)
rows_only=0 mode=all
case ${1:-} in
--rows) rows_only=1; shift ;;
--footprint) rows_only=2; shift ;;
--plan | --cell | --cells | --assemble) mode=${1#--}; shift ;;
esac
if ((rows_only)); then
	(($# == 4)) || die_usage "usage: attribute.sh --rows|--footprint BOOT_DIR VARIANT STATE WORKLOADS"
elif [[ $mode == cell ]]; then
	(($# == 4)) || die_usage "usage: attribute.sh --cell RUN_DIR VARIANT STATE WORKLOADS"
elif [[ $mode == cells ]]; then
	(($# == 2)) || die_usage "usage: attribute.sh --cells RUN_DIR LIST"
else
	(($# == 1)) || die_usage "usage: attribute.sh [--plan | --assemble] RUN_DIR (a results/<run-id> dir with matrix.conf)"
fi
dir=$1
((rows_only)) || [[ -f $dir/matrix.conf ]] || die_usage "attribute.sh: $dir/matrix.conf not found; give a results/<run-id> dir"
# One awk program reads a boot's files once and writes all it derives:
#   file 1: parse-results.sh of results.txt, whose window_ops give each
#           uring-bench workload's ops (ops[w]);
#   file 2: the plugin's attrib.out;
#   file 3 (with paths=1): the function's listing (lib/disasm.sh function_body).
# Out: the attribution.csv rows to rows_out, the footprint.csv rows to
# foot_out and, with paths=1, window n's executed path of the function
# ("+0xOFF  per-op  insn", executed instructions only) to path_pre W path_suf
# and its exact per-op sum to sum_pre W ".sum". A count at an offset that is
# no instruction start of the listing (map and vmlinux differ) fails it.
# shellcheck disable=SC2016 # awk source
derive_awk=$DISASM_HEX_AWK'
	function fields(   i, k, val) { delete x; for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); val = $i; sub(/^[^=]*=/, "", val); x[k] = val } }
	FNR == 1 { f++ }
	{ sub(/\r$/, "") }
	f == 1 {
		w = $1; sub(/^workload=/, "", w)
		for (i = 2; i <= NF; i++) if ($i ~ /^window_ops=[0-9]+$/) { sub(/window_ops=/, "", $i); ops[w] = $i }
		next
	}
	f == 2 && $1 == "insn" { if (paths) { split($2, a, "="); split($4, b, "="); split($5, c, "="); cnt[a[2], hex(b[2])] = c[2] } next }
	f == 2 && $1 == "window" { split($2, a, "="); n = a[2]; split($3, b, "="); tot[n] = b[2]; nw = n + 1; next }
	f == 2 && $1 == "sym" {
		fields()
		key[++nk] = x["n"] SUBSEP x["name"]; ins[nk] = x["insns"]; mem[nk] = x["mem"]; calls[nk] = x["calls"]
		next
	}
	f == 2 && ($1 == "line" || $1 == "sub") {
		fields()
		n = x["n"]
		if ($1 == "sub") { sname[n] = x["name"]; sins[n] = x["insns"]; smem[n] = x["mem"]; scalls[n] = x["calls"]; hassub[n] = 1; next }
		nl[n]++; bytes[n] += x["bytes"]; mx[n, nl[n]] = x["max"]; lb[n, nl[n]] = x["bytes"]; haslines[n] = 1
		next
	}
	f == 3 { nb++; boff[nb] = hex(substr($1, 2)); bline[nb] = $0; inbody[boff[nb]] = 1 }
	END {
		m = split(wl, name, ",")
		if (nw != m) { printf "attribute: %s/%s: %d windows for %d workloads\n", v, s, nw, m > "/dev/stderr"; exit 1 }
		for (n = 0; n < nw; n++) if (ops[name[n + 1]] + 0 <= 0) { printf "attribute: %s/%s/%s: no ops count\n", v, s, name[n + 1] > "/dev/stderr"; exit 1 }
		for (j = 1; j <= nk; j++) {
			split(key[j], kk, SUBSEP); o = ops[name[kk[1] + 1]]
			printf "%s,%s,%s,1,tcg,instructions,%s,%.4f,%.4f,%.4f\n", v, s, name[kk[1] + 1], kk[2], ins[j] / o, mem[j] / o, calls[j] / o > rows_out
		}
		for (n = 0; n < nw; n++)
			printf "%s,%s,%s,1,tcg,instructions,[total],%.4f,,\n", v, s, name[n + 1], tot[n] / ops[name[n + 1]] > rows_out
		for (n = 0; n < nw; n++) {
			w = name[n + 1]; o = ops[w] + 0
			lpo = ""; hot = ""; lines = ""; tb = ""
			if (n in haslines) {
				lpo = 0; hot = 0
				for (j = 1; j <= nl[n]; j++) {
					r = mx[n, j] / o; lpo += r < 1 ? r : 1
					if (mx[n, j] * 64 >= o) hot += lb[n, j]
				}
				lines = nl[n]; tb = bytes[n]; lpo = sprintf("%.2f", lpo)
			}
			if (n in hassub) printf "%s,%s,%s,1,tcg,%d,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f\n", v, s, w, o, lines, lpo, tb, hot, sname[n], sins[n] / o, smem[n] / o, scalls[n] / o > foot_out
			else printf "%s,%s,%s,1,tcg,%d,%s,%s,%s,%s,,,,\n", v, s, w, o, lines, lpo, tb, hot > foot_out
		}
		if (!paths) exit 0
		for (k in cnt) { split(k, a, SUBSEP); if (!(a[2] in inbody)) { printf "annotate: count at offset 0x%x, which is no instruction of the listing\n", a[2] > "/dev/stderr"; exit 1 } }
		for (n = 0; n < nw; n++) {
			w = name[n + 1]; o = ops[w]; t = 0; out = path_pre w path_suf
			printf "" > out
			for (j = 1; j <= nb; j++) {
				y = ((n, boff[j]) in cnt) ? cnt[n, boff[j]] / o : 0; t += y
				p = sprintf("%9.4f", y)
				if (p + 0 > 0) { bl = bline[j]; printf "%s  %s  %s\n", substr(bl, 1, index(bl, " ") - 1), p, substr(bl, index(bl, "  ") + 2) > out }
			}
			close(out)
			printf "%.2f\n", t > (sum_pre w ".sum"); close(sum_pre w ".sum")
		}
	}'
# rows OUT_DIR V S WL, footprint OUT_DIR V S WL: attribution.csv
# (footprint.csv) rows of one attribution boot
rows() { derive_one "$@" /dev/stdout /dev/null; }
footprint() { derive_one "$@" /dev/null /dev/stdout; }
# derive_one OUT_DIR V S WL ROWS FOOT [BODY PATH_PREFIX PATH_SUFFIX SUM_PREFIX]
# (the boot's parsed results from parsed[OUT_DIR] where a batch parsed them)
declare -A parsed=()
derive_one() {
	local o=$1 v=$2 s=$3 wl=$4 body=(); shift 4
	(($# == 2)) || body=("$3")
	set -- -v v="$v" -v s="$s" -v wl="$wl" -v rows_out="$1" -v foot_out="$2" -v paths="${#body[@]}" \
		-v path_pre="${4:-}" -v path_suf="${5:-}" -v sum_pre="${6:-}" "$derive_awk"
	if [[ -n ${parsed[$o]:-} ]]; then
		awk "$@" "${parsed[$o]}" "$o/attrib.out" "${body[@]}"
	else
		awk "$@" <("$LAB_ROOT/scripts/analysis/parse-results.sh" "$o/results.txt") "$o/attrib.out" "${body[@]}"
	fi
}

if ((rows_only)); then
	[[ -f $1/results.txt && -f $1/attrib.out ]] || die_usage "attribute.sh --rows: $1 has no results.txt and attrib.out"
	if ((rows_only == 1)); then rows "$@"; else footprint "$@"; fi
	exit
fi
headline=${LAB_ATTRIB_WORKLOADS:-bench-nop,bench-read,bench-openclose,bench-openclose-sqpoll,bench-nop-async,bench-openclose-async,randread-qd128}
subfn=${LAB_ATTRIB_SUB:-io_submit_sqes}
[[ $subfn =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || die_usage "attribute: LAB_ATTRIB_SUB '$subfn' is not a function name"
fn=${LAB_ATTRIB_FUNCTION:-io_issue_sqe}
[[ $fn =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || die_usage "attribute: LAB_ATTRIB_FUNCTION '$fn' is not a function name"

# body_of V: REPLY is the listing of $fn in V's vmlinux, made once per kernel
# build and run (a run attributes a kernel in up to 9 states) and named by the
# vmlinux's size and mtime; empty when $fn is no function of that kernel
declare -A body_of=()
body_of() {
	local vmlinux body
	if [[ -z ${body_of[$1]:-} ]]; then
		vmlinux=$(build_of "$1")/vmlinux
		body=$dir/raw/attrib/.$1.$fn.$(stat -L -c %s.%.9Y "$vmlinux").body
		if [[ ! -f $body ]]; then
			function_body "$vmlinux" "$fn" >"$body.$BASHPID"
			mv "$body.$BASHPID" "$body"
		fi
		body_of[$1]=$body
	fi
	REPLY=${body_of[$1]}
}
# shellcheck disable=SC2034 # read_matrix_conf sets every key; reps and profile are unused here
variants="" states="" workloads="" reps="" runtime="" accel="" profile=""
read_matrix_conf "$dir/matrix.conf"
# every name is checked before it is used in a path (read_matrix_conf checks
# the lists' syntax; these check that each names a known variant or state)
for v in ${variants//,/ }; do check_variant "${v%-aa}"; done
for s in ${states//,/ }; do check_state "$s"; done
# state_workloads STATE: as in matrix.sh, the run's list or the state's own
state_workloads() { run_state_workloads "$workloads" "$1"; }

# plan: the boots, "V S WL" (variant, state, headline bench workloads of that
# state); none under a real-time accel
plan() {
	[[ $accel == tcg ]] || return 0
	local v s w hw
	local -A swl=()
	for v in ${variants//,/ }; do
		[[ $v == *-aa ]] && continue
		for s in ${states//,/ }; do
			! cell_na "$v" "$s" || continue
			# (each state's list once: the plan is asked for at every assemble)
			if [[ -z ${swl[$s]+x} ]]; then
				hw=()
				for w in $(state_workloads "$s" | tr ',' ' '); do
					[[ ,$headline, == *,$w,* && -f $LAB_ROOT/workloads/$w.bench ]] && hw+=("$w")
				done
				swl[$s]=$(IFS=,; echo "${hw[*]}")
			fi
			[[ -z ${swl[$s]} ]] || echo "$v $s ${swl[$s]}"
		done
	done
}

# plugin_args V O: the lab-attrib arguments of V's attribution boot into O
declare -A map_of=()
plugin_args() {
	[[ -n ${map_of[$1]:-} ]] || map_of[$1]=$(build_of "$1")/System.map
	REPLY="file=$plugin,map=${map_of[$1]},out=$2/attrib.out,insns=$fn,lines=1,sub=$subfn"
}

# done_line V S [NOTE]: the log line of an attribution boot whose rows are
# written: their number and the boot's wall time
done_line() {
	local l wall="" rows
	while IFS= read -r l; do [[ $l != wall_secs=* ]] || wall=${l#wall_secs=}; done <"$dir/raw/attrib/$1.$2/boot.info"
	mapfile -t rows <"$dir/attribution/$1.$2.csv"
	log "  done attribution $1 / $2: ${#rows[@]} rows, ${wall}s wall${3:+ ($3)}"
}

# derive V S WL: the rows of a finished attribution boot in raw/attrib/V.S,
# written last and atomically (attribution/V.S.csv there means the boot is
# done); status 1, and one line saying why, when they cannot be made
derive() {
	local v=$1 s=$2 wl=$3 o=$dir/raw/attrib/$1.$2 l w body=() paths=() t=$dir/attribution/$1.$2
	# with the executed path of $fn in each window of the boot, as
	# RUN_DIR/paths/V.S.W.$fn.txt, where $fn is a function of the kernel
	body_of "$v"
	cp "$REPLY" "$o/$fn.body"
	if [[ -s $o/$fn.body ]]; then
		mkdir -p "$dir/paths"
		body=("$o/$fn.body" "$dir/paths/$v.$s." ".$fn.txt.tmp" "$o/$fn.")
		for w in ${wl//,/ }; do paths+=("$dir/paths/$v.$s.$w.$fn.txt"); done
	fi
	if derive_one "$o" "$v" "$s" "$wl" "$t.csv.tmp" "$t.footprint.tmp" "${body[@]}"; then
		for l in "${paths[@]}"; do mv "$l.tmp" "$l"; done
		mv "$t.footprint.tmp" "$t.footprint"
		mv "$t.csv.tmp" "$t.csv"
		done_line "$v" "$s"
	else
		rm -f "$t.csv.tmp" "$t.footprint.tmp"
		for l in "${paths[@]}"; do rm -f "$l.tmp"; done
		log "  attribution $v / $s: failed (logs in $o)"
		return 1
	fi
}

# cell V S WL: one attribution boot and its rows (derive); a failed boot
# writes none and says why on one line
cell() {
	local v=$1 s=$2 wl=$3 o rc=0 bpid
	plugin=$(host_tool tools "$LAB_CACHE/tools" lab-attrib.so)
	o=$dir/raw/attrib/$v.$s
	rm -rf "$o"
	mkdir -p "$o" "$dir/attribution"
	plugin_args "$v" "$o"
	# boot.sh dies with this script (parent-death signal), and QEMU with boot.sh;
	# a stop (TERM, INT) is passed on to it at once: it runs in the background
	# and is waited for, so the trap runs without waiting for the boot
	setpriv --pdeathsig KILL "$LAB_ROOT/guest/boot.sh" --accel tcg --seed 1 --runtime "${runtime:-1}" --workloads "$wl" \
		--plugin "$REPLY" --out "$o" "$v" "$s" 2>"$o/boot.stderr" &
	bpid=$!
	trap 'kill -TERM "$bpid" 2>/dev/null; exit 143' TERM
	trap 'kill -TERM "$bpid" 2>/dev/null; exit 130' INT
	wait "$bpid" || rc=$?
	trap - TERM INT
	if ((rc != 0)); then
		log "  attribution $v / $s: failed (rc $rc, logs in $o)"
		return 1
	fi
	derive "$v" "$s" "$wl"
}

# cells LIST: the boots of LIST ("V S WL" lines) that the cell store holds,
# restored in one go (guest/boot.sh --restore-batch) and their rows made in
# this process; prints "V S" of each one done (the rest boot one by one)
cells() {
	local list=$1 v s wl o l k lanes blist=$dir/.attrib-restore.$$ outs=()
	local -A spec=()
	plugin=$(host_tool tools "$LAB_CACHE/tools" lab-attrib.so)
	while read -r v s wl; do
		[[ -n $wl ]] || die_usage "attribute --cells: a line of $list is not VARIANT STATE WORKLOADS"
		o=$dir/raw/attrib/$v.$s
		outs+=("$o")
		spec[$o]="$v $s $wl"
		plugin_args "$v" "$o"
		echo "$o 1 ${runtime:-1} $wl - $v $s $REPLY"
	done <"$list" >"$blist"
	((${#outs[@]})) || { rm -f "$blist"; return 0; }
	rm -rf "${outs[@]}"
	mkdir -p "$dir/attribution"
	mapfile -t outs < <(LAB_BOOT_PREBUILT=1 "$LAB_ROOT/guest/boot.sh" --accel tcg --restore-batch "$blist" || true)
	rm -f "$blist"
	((${#outs[@]})) || return 0
	# A boot's derived files are one pure function of its cell (boot.info
	# cell_key), its kernel's listing of $fn, its workloads and this code:
	# memoised as one tar (lib/cellstore.sh memo_stdout, off under
	# LAB_NO_CELL_STORE=1), so a warm rerun unpacks them instead of deriving.
	# (each kernel's listing made here, once, before the lanes fork)
	local -A dkey=() bsha=()
	local code ck todo=() hits=()
	read -r code _ < <(sha256sum "$0" "$LAB_ROOT/lib/disasm.sh" "$LAB_ROOT/scripts/analysis/parse-results.sh" | sha256sum)
	for o in "${outs[@]}"; do
		read -r v s wl <<<"${spec[$o]}"
		body_of "$v"
		[[ ${LAB_NO_CELL_STORE:-0} != 1 ]] || { todo+=("$o"); continue; }
		if [[ -z ${bsha[$v]:-} ]]; then
			read -r ck _ < <(sha256sum "$REPLY")
			bsha[$v]=$ck
		fi
		ck=""
		while IFS= read -r l; do [[ $l != cell_key=* ]] || ck=${l#cell_key=}; done <"$o/boot.info"
		[[ -n $ck ]] || { todo+=("$o"); continue; }
		read -r ck _ < <(printf '%s\n' "$code" "$v" "$s" "$wl" "$fn" "$subfn" "$ck" "${bsha[$v]}" | sha256sum)
		dkey[$o]=$ck
		if [[ -f $LAB_CELLS/.memo/attrib/${dkey[$o]}.sum ]]; then hits+=("$o"); else todo+=("$o"); fi
	done
	# the memo's hits, in one go: their sums checked by one sha256sum, their
	# tars unpacked by one tar (the rows to temp names, renamed last); a
	# memo that fails its sum is derived (and memo_stdout says so)
	if ((${#hits[@]})); then
		local m=$LAB_CELLS/.memo/attrib sums=() good=() bad
		for o in "${hits[@]}"; do sums+=("${dkey[$o]}.sum"); done
		bad=$(cd "$m" || exit 0; sha256sum --quiet --strict -c "${sums[@]}" 2>/dev/null | sed -n 's/: FAILED.*//p'; true)
		for o in "${hits[@]}"; do
			if [[ $bad == *"${dkey[$o]}"* ]]; then todo+=("$o"); else good+=("$o"); fi
		done
		if ((${#good[@]})) && (for o in "${good[@]}"; do cat "$m/${dkey[$o]}"; done) | untar_derived; then
			for o in "${good[@]}"; do
				read -r v s _ <<<"${spec[$o]}"
				rows_in "$v" "$s" || continue
				: >"$o/boot.stderr"
				done_line "$v" "$s" "derived files from the memo"
				echo "$v $s"
			done
		else
			todo+=("${good[@]}")
		fi
	fi
	# the results of the boots to derive parsed in one go (memoised), a file
	# each; where that fails, each boot's own parse (derive_one) says why
	if ((${#todo[@]})); then
		for o in "${todo[@]}"; do parsed[$o]=$o/.results.parsed; done
		"$LAB_ROOT/scripts/analysis/parse-results.sh" --each "${todo[@]/%//results.txt}" |
			awk '/^@@file / { if (f != "") close(f); f = $2; sub(/\/results\.txt$/, "/.results.parsed", f); printf "" > f; next } { print > f }' ||
			parsed=()
	fi
	# the derivations, one awk a boot, in as many lanes as the host has
	# cores (the matrix runs this batch beside the timed one, which ends
	# first: one lane would leave a core idle)
	lanes=$(nproc)
	for ((l = 0; l < lanes; l++)); do
		for ((k = l; k < ${#todo[@]}; k += lanes)); do
			o=${todo[$k]}
			read -r v s wl <<<"${spec[$o]}"
			: >"$o/boot.stderr"
			if [[ -n ${dkey[$o]:-} ]]; then
				memo_stdout attrib "${dkey[$o]}" derived_tar "$v" "$s" "$wl" >"$o/.derived.tar" &&
					unpack_derived "$o" "$v" "$s" && echo "$v $s"
				rm -f "$o/.derived.tar" "$o/.derived-ran"
			else
				derive "$v" "$s" "$wl" && echo "$v $s"
			fi
			rm -f "$o/.results.parsed"
		done &
	done
	wait
	return 0
}
# derived_tar V S WL: derive V.S, then its files as a tar on stdout (names
# below the run dir; its rows, which say the boot is done, last)
derived_tar() {
	local v=$1 s=$2 f files=()
	derive "$@" >&2 || return
	: >"$dir/raw/attrib/$v.$s/.derived-ran"
	for f in "$dir/paths/$v.$s."*".$fn.txt" "$dir/raw/attrib/$v.$s/$fn."* "$dir/attribution/$v.$s.footprint" "$dir/attribution/$v.$s.csv"; do
		[[ ! -f $f ]] || files+=("${f#"$dir"/}")
	done
	tar -C "$dir" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - "${files[@]}"
}
# untar_derived: derived_tar's tars on stdin (one or many, concatenated) into
# the run dir, each boot's rows to attribution/V.S.csv.tmp (rows_in renames them)
untar_derived() { tar -C "$dir" -m -x -i -f - --transform 's|^\(attribution/.*\)\.csv$|\1.csv.tmp|'; }
# rows_in V S: the unpacked rows put in place, last (they say the boot is done)
rows_in() { mv "$dir/attribution/$1.$2.csv.tmp" "$dir/attribution/$1.$2.csv"; }
# unpack_derived OUT V S: OUT/.derived.tar's files into the run dir; when they
# came from the memo (derive did not run), derive's line
unpack_derived() {
	if ! { untar_derived <"$1/.derived.tar" && rows_in "$2" "$3"; }; then
		rm -f "$dir/attribution/$2.$3.csv.tmp"
		return 1
	fi
	[[ -f $1/.derived-ran ]] || done_line "$2" "$3" "derived files from the memo"
}

# assemble: attribution.csv and footprint.csv from the plan's boots, in plan
# order; a boot without rows is left out (and counted)
assemble() {
	local jobs=() j v s absent=0
	mapfile -t jobs < <(plan)
	for j in "${jobs[@]}"; do
		read -r v s _ <<<"$j"
		[[ -f $dir/attribution/$v.$s.csv ]] || absent=$((absent + 1))
	done
	# joined HEADER EXT: HEADER, then each boot's attribution/V.S.EXT in plan order
	joined() {
		local files=()
		echo "$1"
		for j in "${jobs[@]}"; do
			read -r v s _ <<<"$j"
			if [[ -f $dir/attribution/$v.$s.$2 ]]; then files+=("$dir/attribution/$v.$s.$2"); fi
		done
		((${#files[@]} == 0)) || cat "${files[@]}"
	}
	attribution_csv() { joined "variant,state,workload,seed,accel,unit,symbol,instructions_per_op,mem_accesses_per_op,calls_per_op" csv; }
	footprint_csv() { joined "variant,state,workload,seed,accel,ops,kernel_lines,kernel_lines_per_op,kernel_text_bytes,hot_text_bytes,sub_symbol,sub_instructions_per_op,sub_mem_accesses_per_op,sub_calls_per_op" footprint; }
	if ((${#jobs[@]} == 0)); then
		log "attribute: no attribution boots in $dir (accel $accel; attribution needs tcg-icount and a headline uring-bench workload)"
		return 0
	fi
	save "$dir/attribution.csv" attribution_csv
	save "$dir/footprint.csv" footprint_csv
	log "attribute: $dir/attribution.csv ($((${#jobs[@]} - absent)) of ${#jobs[@]} attribution boots)"
	((absent == 0))
}

case $mode in
plan) plan ;;
cell)
	check_workload_list() { local w; for w in ${1//,/ }; do check_workload "$w"; done; }
	check_variant "$2" && check_state "$3" && check_workload_list "$4"
	cell "$2" "$3" "$4"
	;;
cells) cells "$2" ;;
assemble) assemble ;;
all)
	# by hand: the plan's boots one at a time (the matrix runs them in its
	# own plan, --jobs at a time), then the CSVs
	mapfile -t todo < <(plan)
	n=0 start=$(now) failed=0
	for j in "${todo[@]}"; do
		read -r v s wl <<<"$j"
		n=$((n + 1))
		progress "$n" "${#todo[@]}" "$start" "attribution boot $v / $s ($wl)"
		cell "$v" "$s" "$wl" || failed=$((failed + 1))
	done
	assemble && ((failed == 0))
	;;
esac
