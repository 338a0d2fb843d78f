#!/bin/bash
# adaptive-seeds.sh --next RUN_DIR: after a matrix run's reps, give the noisy
# cells more seeds, in batches (rounds), until their estimate is stable or
# the cap is reached (the rule and its numbers: lib/common.sh LAB_ADAPT_*).
# It decides and prints the next round's boots that are not yet on disk, one
# "VARIANT STATE REP" a line; scripts/run/matrix.sh adds them to its plan and
# runs them in its own loop (one scheduler, one progress line, the cell
# store), then asks again; nothing printed means the rounds are over, and
# then the rounds, the rule and every extra boot go into manifest.json
# (.matrix.adaptive). Each call replays the rounds from round 0 on the cells
# on disk: a round is decided from the cells of the rounds before it only,
# so a resumed run takes the same decisions and reruns no stored boot.
# Rep r > reps boots with the run's seed sequence (lib/common.sh run_seed:
# seed_base + r, A/A seed_base + 1000 + r). Only under tcg (icount): under a
# real-time accel the figure needs n >= 10 reps anyway. Exit 2 on bad input.
# adaptive-seeds.sh --list RUN_DIR: the run's extra boots on disk, one
# "VARIANT STATE REP" a line in boot order (rep, then the run's variant and
# state order), for the matrix to add to its cells.csv.
# adaptive-seeds.sh --plan RUN_DIR: round 0 only, changing nothing: the open
# rows and the boots the first round would add (the cost, before a run).
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"
# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
# shellcheck source=../../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

usage="usage: adaptive-seeds.sh --next|--list|--plan RUN_DIR"
list=0 plan=0
case ${1:-} in
--next) ;;
--list) list=1 ;;
--plan) plan=1 ;;
*) die_usage "$usage" ;;
esac
shift
(($# == 1)) || die_usage "$usage"
dir=$1
[[ -f $dir/matrix.conf ]] || die_usage "adaptive-seeds: $dir/matrix.conf not found"
read_matrix_conf "$dir/matrix.conf"
read -ra vlist <<<"${variants//,/ }"
read -ra slist <<<"${states//,/ }"

# extra_boots: the cell files of reps beyond the run's, in boot order
extra_boots() {
	local f b v s r i j
	for f in "$dir"/cells/*.csv; do
		[[ -f $f ]] || continue
		b=${f##*/} b=${b%.csv}
		IFS=. read -r v s r <<<"$b"
		[[ $r =~ ^[0-9]+$ ]] || continue
		((r > reps)) || continue
		for i in "${!vlist[@]}"; do if [[ ${vlist[$i]} == "$v" ]]; then break; fi; done
		for j in "${!slist[@]}"; do if [[ ${slist[$j]} == "$s" ]]; then break; fi; done
		if [[ ${vlist[$i]} == "$v" && ${slist[$j]} == "$s" ]]; then echo "$r $i $j $v $s"; fi
	done | sort -k1,1n -k2,2n -k3,3n | awk '{ print $4, $5, $1 }'
}
if ((list)); then
	extra_boots
	exit 0
fi

batch=$LAB_ADAPT_BATCH cap=$LAB_ADAPT_CAP width=$LAB_ADAPT_WIDTH move=$LAB_ADAPT_MOVE rel=$LAB_ADAPT_REL
[[ $batch =~ ^[1-9][0-9]?$ ]] || die_usage "adaptive-seeds: LAB_ADAPT_BATCH '$batch' is not a whole number 1-99"
[[ $cap =~ ^[0-9]+$ && $cap -le ${LAB_BOUNDS[reps]#* } ]] || die_usage "adaptive-seeds: LAB_ADAPT_CAP '$cap' is not a whole number 0-${LAB_BOUNDS[reps]#* }"
for x in "$width" "$move" "$rel"; do
	[[ $x =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "adaptive-seeds: LAB_ADAPT_WIDTH/LAB_ADAPT_MOVE/LAB_ADAPT_REL '$x' is not a non-negative decimal number"
done
rule="a hook-cost row whose seeds are not exact (labstat method rank-sum) is open while its Hodges-Lehmann interval of the delta is wider than $width (or $rel of |delta|, the larger) or its delta moved by more than $move (or $rel/4 of |delta|) at the last batch; its variant gets $batch more seeds, the state's baseline and A/A control as many as the most-seeded variant; cap $cap seeds; past the cap, a tested A/A row and its baseline get the fewest seeds a side at which Holm over the run's tested A/A rows can fire (2/C(2n,n) <= fdr/rows)"
if [[ $accel != tcg ]]; then
	log "adaptive seeds: off under $accel (only tcg-icount cells are exact or noisy by seed; a real-time figure needs n >= 10 reps)"
	exit 0
fi
if ((reps < 2 || cap <= reps)); then
	why="$reps rep(s), cap $cap: two reps tell an exact cell from a noisy one, and the cap must exceed them"
	log "adaptive seeds: off ($why)"
	# the manifest says so: a reader must not take the run's noisy cells for adaptively seeded ones
	if ((!list && !plan)) && [[ -f $dir/manifest.json ]]; then
		jq --arg why "$why" --argjson cap "$cap" '.matrix.adaptive = {off: $why, cap: $cap, rounds: [], extra_boots: []}' \
			"$dir/manifest.json" >"$dir/manifest.json.tmp" && mv "$dir/manifest.json.tmp" "$dir/manifest.json"
	fi
	exit 0
fi

# (tcg-icount only, so ns_per_op counts instructions, as the matrix's cells say)
unit=instructions
# the controls every variant's delta needs: its base tree's baseline and that
# baseline's A/A pseudo-variant, where the run has them
declare -A in_run=() ctl=() target=()
for v in "${vlist[@]}"; do in_run[$v]=1; done
# (in this shell: --next runs after every round; the matrix checked the
# variants' '# base:' lines)
declare -A baseline_on=()
IFS=, read -ra pairs <<<"$(roles_by_base baseline)"
for p in "${pairs[@]}"; do baseline_on[${p%%=*}]=${p#*=}; done
for v in "${vlist[@]}"; do
	_cat_base "${v%-aa}"
	b=${baseline_on[$REPLY]:-}
	c=""
	[[ -n $b && -n ${in_run[$b]:-} ]] && c=$b
	a=""
	[[ -z $b ]] || { _cat_meta "$b" seed-control; a=$REPLY; }
	[[ -n $a && -n ${in_run[$a]:-} ]] && c+=" $a"
	ctl[$v]=$c
	for s in "${slist[@]}"; do target[$v.$s]=$reps; done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/res/adapt"
: >"$tmp/prev"
# cells_now: the run's cells.csv with the extra reps decided so far, in one
# awk (a warm matrix replays every round, each over hundreds of extra cells).
# Columns after a boot's own 14 (cells.csv's run columns, e.g. a base tree)
# are the variant's: an extra boot's rows take them from its first row there.
cells_now() {
	local v s r files=()
	for v in "${vlist[@]}"; do
		for s in "${slist[@]}"; do
			for ((r = reps + 1; r <= target[$v.$s]; r++)); do
				[[ ! -f $dir/cells/$v.$s.$r.csv ]] || files+=("$dir/cells/$v.$s.$r.csv")
			done
		done
	done
	# (the run's own reps: a finished run's cells.csv has the extra ones too)
	awk -F, -v reps="$reps" '
		FNR == 1 { f++ }
		f == 1 && FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
		f == 1 {
			if (!($1 in sfx)) { t = ""; for (i = 15; i <= NF; i++) t = t "," $i; sfx[$1] = t }
			if ($c["rep"] <= reps) print
			next
		}
		{ print $0 sfx[$1] }' "$dir/cells.csv" "${files[@]}"
}

# open_rows: "VARIANT STATE WORKLOAD REASON" for every open row of the summary;
# the deltas go to $tmp/prev for the next round
open_rows() {
	awk -F, -v W="$width" -v M="$move" -v R="$rel" -v prev="$tmp/prev" -v next_="$tmp/next" '
		function abs(x) { return x < 0 ? -x : x }
		FILENAME == prev { p[$1] = $2; next }
		FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			k = $c["variant"] "/" $c["state"] "/" $c["workload"]
			if ($c["method"] != "rank-sum" || $c["measure"] != "hook-cost" || $c["delta_ci_lo"] == "") next
			d = $c["delta_ns_per_op"]; lo = $c["delta_ci_lo"]; hi = $c["delta_ci_hi"]
			print k "," d > next_
			why = ""; w = W; m = M
			if (R * abs(d) > w) w = R * abs(d)
			if (R * abs(d) / 4 > m) m = R * abs(d) / 4
			if (hi - lo > w + 1e-9) why = sprintf("interval [%s, %s] wider than %.4g", lo, hi, w)
			else if ((k in p) && abs(d - p[k]) > m + 1e-9) why = sprintf("delta moved %+.3f at the last batch (more than %.4g)", d - p[k], m)
			if (why != "") print $c["variant"], $c["state"], $c["workload"], "n=" $c["n"] ": " why
		}' "$tmp/prev" "$1"
	if [[ -f $tmp/next ]]; then mv "$tmp/next" "$tmp/prev"; else : >"$tmp/prev"; fi
}

# gate_rows SUMMARY: "N M ALPHA" (the fewest seeds a side at which the exact
# two-sided rank-sum p, 2/C(2N,N), reaches Holm's first threshold ALPHA/M over
# the M tested A/A rows), then "VARIANT STATE" of each tested A/A row;
# nothing when no A/A row is tested
gate_rows() {
	awk -F, '
		FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["error_control"] == "fwer-holm" { m++; a = $c["fdr"]; V[m] = $c["variant"]; S[m] = $c["state"] }
		END {
			if (!m) exit
			for (n = 2; n < 100; n++) {
				b = 1; for (i = 1; i <= n; i++) b = b * (n + i) / i
				if (2 / b <= a / m + 1e-12) break
			}
			print n, m, a
			for (i = 1; i <= m; i++) if (!((V[i], S[i]) in done)) { done[V[i], S[i]]; print V[i], S[i] }
		}' "$1"
}

rounds_json="[]"
round=0
# The rounds decided so far, kept in RUN_DIR/.adaptive-state by the call that
# decided the last of them (the matrix asks again after every round): a call
# takes them from there, instead of replaying them from round 0, when the
# rule, the lab's code and labstat are the ones that decided them and the
# cells that last round was decided from are byte for byte the ones on disk
# now (so a replay would decide the same); else it replays. The file is data:
# every line is checked, and a bad one means a replay.
state=$dir/.adaptive-state
summary_setup
read -r state_key _ < <({
	printf '%s\n' "${LAB_CELL_SCHEMA:-}" "$batch $cap $width $move $rel $reps $variants $states $seed_base" "$SUMMARY_TOOL" "${SUMMARY_ARGS[@]}"
	sha256sum "$0" "$LAB_ROOT/lib/common.sh" "$LAB_ROOT/lib/catalog.sh" "$LAB_ROOT/lib/cellstore.sh" | cut -d' ' -f1
} | sha256sum)
# targets_text: the targets, "VARIANT.STATE=N" a line
targets_text() { local k; for k in "${!target[@]}"; do echo "$k=${target[$k]}"; done | LC_ALL=C sort; }
# set_targets TEXT: targets from targets_text lines (status 1 on a bad line)
set_targets() {
	local l k n
	while IFS= read -r l; do
		[[ -n $l ]] || continue
		k=${l%=*} n=${l##*=}
		[[ -n ${target[$k]+x} && $n =~ ^[0-9]{1,3}$ ]] || return 1
		target[$k]=$n
	done <<<"$1"
}
load_state() {
	local l key="" cells="" r="" rj="" told="" tnew="" prev=""
	while IFS= read -r l; do
		case $l in
		"key "*) key=${l#key } ;;
		"cells "*) cells=${l#cells } ;;
		"round "*) r=${l#round } ;;
		"rounds "*) rj=${l#rounds } ;;
		"told "*) told+=${l#told }$'\n' ;;
		"target "*) tnew+=${l#target }$'\n' ;;
		"prev "*) prev+=${l#prev }$'\n' ;;
		*) return 1 ;;
		esac
	done <"$state"
	[[ $key == "$state_key" && $r =~ ^[1-9][0-9]?$ && $cells =~ ^[0-9a-f]{64}$ ]] || return 1
	jq -e 'type == "array"' >/dev/null 2>&1 <<<"$rj" || return 1
	grep -qvE '^([a-z0-9][a-z0-9-]*/){2}[a-z0-9][a-z0-9-]*,-?[0-9]+(\.[0-9]+)?$' <<<"${prev%$'\n'}" && [[ -n $prev ]] && return 1
	set_targets "$told" || return 1
	read -r l _ < <(cells_now | sha256sum)
	[[ $l == "$cells" ]] || return 1
	local -A t0=()
	local k rep f files=()
	for k in "${!target[@]}"; do t0[$k]=${target[$k]}; done
	set_targets "$tnew" || return 1
	# every boot of the kept round on disk, none failed on the host's side
	# (else a replay asks for it again)
	for k in "${!target[@]}"; do
		for ((rep = t0[$k] + 1; rep <= target[$k]; rep++)); do files+=("$dir/cells/$k.$rep.csv"); done
	done
	for f in "${files[@]}"; do [[ -f $f ]] || return 1; done
	[[ -z $(host_failed "${files[@]}") ]] || return 1
	printf '%s' "$prev" >"$tmp/prev"
	round=$r rounds_json=$rj
}
# save_state CELLS_SHA TARGETS_BEFORE: the state after this call's last round
save_state() {
	local l
	if {
		echo "key $state_key"
		echo "cells $1"
		echo "round $round"
		echo "rounds $rounds_json"
		while IFS= read -r l; do echo "told $l"; done <<<"$2"
		targets_text | sed 's/^/target /'
		[[ ! -s $tmp/prev ]] || sed 's/^/prev /' "$tmp/prev"
	} >"$state.tmp"; then
		mv "$state.tmp" "$state"
	else
		rm -f "$state.tmp"
	fi
}
# (--plan is round 0 alone, whatever was decided since)
if ((!plan)) && [[ -f $state ]] && ! load_state; then
	# (what load_state changed goes back to round 0's)
	for k in "${!target[@]}"; do target[$k]=$reps; done
	: >"$tmp/prev"
	round=0 rounds_json="[]"
fi
while :; do
	cells_now >"$tmp/res/adapt/cells.csv"
	read -r cells_sha _ < <(sha256sum "$tmp/res/adapt/cells.csv")
	told=$(targets_text)
	# (labstat and its arguments found once, lib/cellstore.sh summary_of: a
	# warm matrix replays every round at every call)
	if ! summary_of "$tmp/res/adapt/cells.csv" >"$tmp/res/adapt/summary.csv" 2>"$tmp/summary.err"; then
		cat "$tmp/summary.err" >&2
		die "adaptive seeds: the summary of round $round failed"
	fi
	mapfile -t open < <(open_rows "$tmp/res/adapt/summary.csv")
	# the new targets: +batch for an open row's variant, then its controls
	declare -A want=()
	for o in "${open[@]}"; do
		read -r v s _ <<<"$o"
		[[ -n ${target[$v.$s]:-} ]] || continue
		n=$((target[$v.$s] + batch))
		((n > cap)) && n=$cap
		((n > ${want[$v.$s]:-0})) && want[$v.$s]=$n
	done
	for k in "${!want[@]}"; do
		v=${k%%.*} s=${k#*.}
		for c in ${ctl[$v]}; do ((${want[$k]} > ${want[$c.$s]:-0})) && want[$c.$s]=${want[$k]}; done
	done
	# the A/A gate's seeds, past the cap: a tested A/A row and its baseline
	# get the fewest seeds at which Holm over the run's tested A/A rows can
	# fire at all (a gate that cannot fire checks nothing)
	gate=$(gate_rows "$tmp/res/adapt/summary.csv")
	if [[ -n $gate ]]; then
		read -r gate_n gate_m _ <<<"${gate%%$'\n'*}"
		((gate_n <= ${LAB_BOUNDS[reps]#* })) || die "adaptive seeds: the A/A gate over $gate_m tested rows needs $gate_n seeds a side, beyond the reps bound ${LAB_BOUNDS[reps]#* }"
		while read -r a s; do
			[[ -n ${target[$a.$s]:-} ]] || continue
			for c in ${ctl[$a]}; do ((gate_n > ${want[$c.$s]:-${target[$c.$s]}})) && want[$c.$s]=$gate_n; done
		done < <(tail -n +2 <<<"$gate")
	fi
	boots=()
	for v in "${vlist[@]}"; do
		for s in "${slist[@]}"; do
			n=${want[$v.$s]:-0}
			((n > target[$v.$s])) || continue
			for ((r = target[$v.$s] + 1; r <= n; r++)); do boots+=("$v $s $r"); done
			target[$v.$s]=$n
		done
	done
	# (a replayed round, whose boots are all on disk, says nothing again:
	# its lines are printed only for the round that has boots to run, or the last)
	if ((${#open[@]})); then
		said=$(log "adaptive seeds: round $round: ${#open[@]} open row(s):" 2>&1
			printf '  %s\n' "${open[@]}" | sed 's|^  \([^ ]*\) \([^ ]*\) \([^ ]*\) |  \1 / \2 / \3: |')
	else
		said=$(log "adaptive seeds: round $round: no open row" 2>&1)
	fi
	rounds_json=$(jq -c --argjson r "$round" --arg open "$(printf '%s\n' "${open[@]}")" \
		--arg boots "$(printf '%s\n' "${boots[@]}")" \
		'. + [{round: $r, open: ($open | split("\n") | map(select(. != ""))),
		       boots: ($boots | split("\n") | map(select(. != "")))}]' <<<"$rounds_json")
	if ((plan)); then
		printf '%s\n' "$said" >&2
		log "adaptive seeds --plan: round 1 would add ${#boots[@]} boot(s) over $(printf '%s\n' "${boots[@]}" | awk 'NF { k[$1 " " $2] = 1 } END { print length(k) }') variant x state pair(s); at most $(for k in "${!want[@]}"; do echo $((cap - want[$k])); done | awk '$1 > 0' | awk '{ t += $1 } END { print t + 0 }') more could follow"
		exit 0
	fi
	if ((${#boots[@]} == 0)); then
		printf '%s\n' "$said" >&2
		((${#open[@]} == 0)) || log "adaptive seeds: every open row is at the cap ($cap seeds): stopping"
		break
	fi
	round=$((round + 1))
	# the most these cells can still cost after this round
	left=0
	for k in "${!want[@]}"; do ((want[$k] >= cap)) || left=$((left + cap - want[$k])); done
	# boots whose cell is stored in the run dir (a resumed run) are done,
	# but one that failed on the host's side runs again
	# (one awk over the round's cells on disk)
	todo=() have=()
	for b in "${boots[@]}"; do
		read -r v s r <<<"$b"
		f=$dir/cells/$v.$s.$r.csv
		[[ ! -f $f ]] || have+=("$f")
	done
	host_failed "${have[@]}" | while IFS= read -r f; do rm -f "$f"; done
	for b in "${boots[@]}"; do
		read -r v s r <<<"$b"
		[[ -f $dir/cells/$v.$s.$r.csv ]] || todo+=("$b")
	done
	((${#todo[@]})) || continue
	printf '%s\n' "$said" >&2
	log "adaptive seeds: round $round: ${#boots[@]} more boot(s) (${#todo[@]} to run, the rest already in $dir/cells); at most $left more boot(s) can follow"
	save_state "$cells_sha" "$told"
	printf '%s\n' "${todo[@]}"
	exit 0
done

# (one jq for them all: a round can add hundreds)
extra=$(extra_boots | while read -r v s r; do
	printf '%s %s %s ' "$v" "$s" "$r"
	run_seed "$seed_base" "$v" "$r"
done | jq -Rsc 'split("\n") | map(select(. != "") | split(" ") | {variant: .[0], state: .[1], rep: (.[2] | tonumber), seed: (.[3] | tonumber)})')
log "adaptive seeds: done after $round round(s): $(jq length <<<"$extra") extra boot(s)"
if [[ -f $dir/manifest.json ]]; then
	jq --arg rule "$rule" --argjson batch "$batch" --argjson cap "$cap" --argjson width "$width" --argjson move "$move" \
		--argjson rel "$rel" --argjson rounds "$rounds_json" --argjson extra "$extra" \
		'.matrix.adaptive = {rule: $rule, batch: $batch, cap: $cap, width: $width, move: $move, rel: $rel,
		                     rounds: $rounds, extra_boots: $extra}' "$dir/manifest.json" >"$dir/manifest.json.tmp"
	mv "$dir/manifest.json.tmp" "$dir/manifest.json"
fi
