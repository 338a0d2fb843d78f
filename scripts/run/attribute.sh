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
# the start of both readers below: file 1 is parse-results.sh of the boot's
# results.txt, whose window_ops give each uring-bench workload's ops (ops[w]);
# file 2 (f == 2) is the plugin's attrib.out
# shellcheck disable=SC2016 # awk source
ops_awk='
		FNR == 1 { f++ }
		{ sub(/\r$/, "") }
		f == 1 {
			w = $1; sub(/^workload=/, "", w)
			for (i = 2; i <= NF; i++) if ($i ~ /^window_ops=[0-9]+$/) { sub(/window_ops=/, "", $i); ops[w] = $i }
			next
		}'
# rows OUT_DIR V S WL: attribution.csv rows of one attribution boot
rows() {
	local o=$1 v=$2 s=$3 wl=$4
	awk -v v="$v" -v s="$s" -v wl="$wl" '
'"$ops_awk"'
		f == 2 && /^window / { split($2, a, "="); n = a[2]; split($3, b, "="); tot[n] = b[2]; nw = n + 1; next }
		f == 2 && /^sym / {
			for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); val = $i; sub(/^[^=]*=/, "", val); x[k] = val }
			key[++nk] = x["n"] SUBSEP x["name"]; ins[nk] = x["insns"]; mem[nk] = x["mem"]; calls[nk] = x["calls"]
			next
		}
		END {
			m = split(wl, name, ",")
			if (nw != m) { printf "attribute: %s/%s: %d windows for %d workloads\n", v, s, nw, m > "/dev/stderr"; exit 1 }
			for (j = 1; j <= nk; j++) {
				split(key[j], kk, SUBSEP); w = name[kk[1] + 1]; o = ops[w]
				if (o <= 0) { printf "attribute: %s/%s/%s: no ops count\n", v, s, w > "/dev/stderr"; exit 1 }
				printf "%s,%s,%s,1,tcg,instructions,%s,%.4f,%.4f,%.4f\n", v, s, w, kk[2], ins[j] / o, mem[j] / o, calls[j] / o
			}
			for (n = 0; n < nw; n++)
				printf "%s,%s,%s,1,tcg,instructions,[total],%.4f,,\n", v, s, name[n + 1], tot[n] / ops[name[n + 1]]
		}' <("$LAB_ROOT/scripts/analysis/parse-results.sh" "$o/results.txt") "$o/attrib.out"
}
# footprint OUT_DIR V S WL: footprint.csv rows of one attribution boot (its
# line and sub records; a window without them gives empty fields)
footprint() {
	local o=$1 v=$2 s=$3 wl=$4
	awk -v v="$v" -v s="$s" -v wl="$wl" '
'"$ops_awk"'
		f == 2 && /^window / { split($2, a, "="); nw = a[2] + 1; next }
		f == 2 && (/^line / || /^sub /) {
			delete x
			for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); val = $i; sub(/^[^=]*=/, "", val); x[k] = val }
			n = x["n"]
			if ($1 == "sub") { sname[n] = x["name"]; sins[n] = x["insns"]; smem[n] = x["mem"]; scalls[n] = x["calls"]; hassub[n] = 1; next }
			nl[n]++; bytes[n] += x["bytes"]; mx[n, nl[n]] = x["max"]; lb[n, nl[n]] = x["bytes"]; haslines[n] = 1
			next
		}
		END {
			m = split(wl, name, ",")
			if (nw != m) { printf "attribute: %s/%s: %d windows for %d workloads\n", v, s, nw, m > "/dev/stderr"; exit 1 }
			for (n = 0; n < nw; n++) {
				w = name[n + 1]; o = ops[w] + 0
				if (o <= 0) { printf "attribute: %s/%s/%s: no ops count\n", v, s, w > "/dev/stderr"; exit 1 }
				lpo = ""; hot = ""; lines = ""; tb = ""
				if (n in haslines) {
					lpo = 0; hot = 0
					for (j = 1; j <= nl[n]; j++) {
						r = mx[n, j] / o; lpo += r < 1 ? r : 1
						if (mx[n, j] * 64 >= o) hot += lb[n, j]
					}
					lines = nl[n]; tb = bytes[n]; lpo = sprintf("%.2f", lpo)
				}
				if (n in hassub) printf "%s,%s,%s,1,tcg,%d,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f\n", v, s, w, o, lines, lpo, tb, hot, sname[n], sins[n] / o, smem[n] / o, scalls[n] / o
				else printf "%s,%s,%s,1,tcg,%d,%s,%s,%s,%s,,,,\n", v, s, w, o, lines, lpo, tb, hot
			}
		}' <("$LAB_ROOT/scripts/analysis/parse-results.sh" "$o/results.txt") "$o/attrib.out"
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

# write_paths OUT_DIR V S WL: the executed path of $fn in each window of one
# attribution boot, as RUN_DIR/paths/V.S.W.$fn.txt (executed instructions only)
write_paths() {
	local o=$1 v=$2 s=$3 wl=$4 i=0 w ops l x vmlinux body
	local -A wops=()
	# the listing once per kernel build and run (a run attributes a kernel in
	# up to 9 states), named by the vmlinux's size and mtime
	vmlinux=$(build_of "$v")/vmlinux
	body=$dir/raw/attrib/.$v.$fn.$(stat -L -c %s.%.9Y "$vmlinux").body
	if [[ ! -f $body ]]; then
		function_body "$vmlinux" "$fn" >"$body.$$"
		mv "$body.$$" "$body"
	fi
	cp "$body" "$o/$fn.body"
	[[ -s $o/$fn.body ]] || return 0	# not a function of this kernel
	mkdir -p "$dir/paths"
	# every window's ops from one parse of the boot's results
	while read -r l; do
		for x in $l; do [[ $x != window_ops=* ]] || wops[${l%% *}]=${x#window_ops=}; done
	done < <("$LAB_ROOT/scripts/analysis/parse-results.sh" "$o/results.txt" 2>/dev/null)
	for w in ${wl//,/ }; do
		ops=${wops[workload=$w]:-}
		[[ $ops =~ ^[0-9]+$ ]] || ops=""
		[[ -n $ops && $ops -gt 0 ]] || return 1
		annotate_listing "$o/attrib.out" "$i" "$ops" "$o/$fn.body" "$o/$fn.$w.sum" | awk '$2 + 0 > 0' >"$dir/paths/$v.$s.$w.$fn.txt.tmp" ||
			{ rm -f "$dir/paths/$v.$s.$w.$fn.txt.tmp"; return 1; }
		mv "$dir/paths/$v.$s.$w.$fn.txt.tmp" "$dir/paths/$v.$s.$w.$fn.txt"
		i=$((i + 1))
	done
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

# derive V S WL: the rows of a finished attribution boot in raw/attrib/V.S,
# written last and atomically (attribution/V.S.csv there means the boot is
# done); status 1, and one line saying why, when they cannot be made
derive() {
	local v=$1 s=$2 wl=$3 o=$dir/raw/attrib/$1.$2 l wall=""
	if rows "$o" "$v" "$s" "$wl" >"$dir/attribution/$v.$s.csv.tmp" && write_paths "$o" "$v" "$s" "$wl" &&
		footprint "$o" "$v" "$s" "$wl" >"$dir/attribution/$v.$s.footprint.tmp"; then
		mv "$dir/attribution/$v.$s.footprint.tmp" "$dir/attribution/$v.$s.footprint"
		mv "$dir/attribution/$v.$s.csv.tmp" "$dir/attribution/$v.$s.csv"
		while IFS= read -r l; do [[ $l != wall_secs=* ]] || wall=${l#wall_secs=}; done <"$o/boot.info"
		mapfile -t l <"$dir/attribution/$v.$s.csv"
		log "  done attribution $v / $s: ${#l[@]} rows, ${wall}s wall"
	else
		rm -f "$dir/attribution/$v.$s.csv.tmp" "$dir/attribution/$v.$s.footprint.tmp"
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
	local list=$1 v s wl o blist=$dir/.attrib-restore.$$ outs=()
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
	for o in "${outs[@]}"; do
		read -r v s wl <<<"${spec[$o]}"
		: >"$o/boot.stderr"
		derive "$v" "$s" "$wl" && echo "$v $s"
	done
	return 0
}

# assemble: attribution.csv and footprint.csv from the plan's boots, in plan
# order; a boot without rows is left out (and counted)
assemble() {
	local jobs=() j v s missing=0
	mapfile -t jobs < <(plan)
	for j in "${jobs[@]}"; do
		read -r v s _ <<<"$j"
		[[ -f $dir/attribution/$v.$s.csv ]] || missing=$((missing + 1))
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
	log "attribute: $dir/attribution.csv ($((${#jobs[@]} - missing)) of ${#jobs[@]} attribution boots)"
	((missing == 0))
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
