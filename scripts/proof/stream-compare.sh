#!/bin/bash
# stream-compare.sh BASE_RESULTS VARIANT VARIANT_RESULTS: the record-stream
# proof's verdicts. Both files are guest results of guest/scripts/stream-proof.sh
# (BASE is upstream's). Each scenario's records are normalised on their own
# (scripts/proof/normalise-stream.awk: stamps, pids, inodes to their order) and
# compared with the base's:
#   same          identical normalised streams
#   TYPE:+N,...   the record-type counts differ by exactly this (variant - base)
#   content       same counts per type, different records
#   absent        the scenario is missing from one of the two
# 'primed' runs two time-based benches at once, so its op counts and their
# interleaving follow the kernel's speed: it is compared as the set of
# distinct normalised events (no stale or foreign record may appear).
# The expected verdict per scenario is the variant README's line
#   stream-expect: SCENARIO VERDICT   (reason)
# and 'same' where there is none. Prints one line per scenario:
#   stream variant=V scenario=S got=VERDICT want=VERDICT ok=0|1 bench_rc=RC lost=L
# then one per LSM denial check of the 'lsm' scenario (ok=1: the op failed
# with the errno the hook gives):
#   lsm variant=V name=N ok=0|1 rc=RC err=...
# and exits 1 if any scenario is not as expected (or its bench failed or lost
# records), 2 on bad input.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

(($# == 3)) || die_usage "usage: stream-compare.sh BASE_RESULTS VARIANT VARIANT_RESULTS"
base=$1 v=$2 res=$3
check_name variant "$v"
for f in "$base" "$res"; do
	[[ -f $f ]] || die_usage "stream-compare: no results file '$f'; boot with --script stream-proof first"
done
readme=$(variants_dir)/$v/README

# record type numbers to names (include/uapi/linux/audit.h)
tname() {
	case $1 in
	1300) echo SYSCALL ;; 1302) echo PATH ;; 1305) echo CONFIG_CHANGE ;;
	1306) echo SOCKADDR ;; 1307) echo CWD ;; 1320) echo EOE ;; 1327) echo PROCTITLE ;;
	1336) echo URINGOP ;; 1400) echo AVC ;; *) echo "T$1" ;;
	esac
}
scenarios() { sed -n 's/^stream-end scenario=\([^ ]*\).*/\1/p' "$1" | tr -d '\r'; }
end_field() { sed -n "s/^stream-end scenario=$2 .*$3=\([^ ]*\).*/\1/p" "$1" | tr -d '\r'; }
norm() { # FILE SCENARIO
	tr -d '\r' <"$1" | awk -v s="$2" '$1 == "S" && $2 == s' | awk -f "$LAB_ROOT/scripts/proof/normalise-stream.awk" |
		if [[ $2 == primed ]]; then sed 's/^x[0-9]* //' | sort -u | sed 's/^/x1 /'; else cat; fi
}
# type counts of a normalised stream: "TYPE N" lines (xCOUNT multiplies)
counts() {
	awk '{ n = substr($1, 2); for (i = 1; i <= NF; i++) if ($i ~ /^type=[0-9]+$/) c[substr($i, 6)] += n }
		END { for (t in c) print t, c[t] }' | sort
}
signature() { # BASE_COUNTS VARIANT_COUNTS
	join -a1 -a2 -e 0 -o 0,1.2,2.2 <(echo "$1") <(echo "$2") | while read -r t a b; do
		[[ -z $t ]] && continue
		if ((b != a)); then printf '%s:%+d\n' "$(tname "$t")" $((b - a)); fi
	done | paste -sd, -
}

fail=0
all=$( (scenarios "$base"; scenarios "$res") | awk '!seen[$0]++')
for s in $all; do
	want=$(sed -n "s/^stream-expect:[[:space:]]*${s}[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p" "$readme" 2>/dev/null | head -1)
	want=${want:-same}
	if ! grep -q "^stream-end scenario=$s " "$base" || ! grep -q "^stream-end scenario=$s " "$res"; then
		got=absent
	else
		a=$(norm "$base" "$s") b=$(norm "$res" "$s")
		if [[ $a == "$b" ]]; then
			got=same
		else
			got=$(signature "$(counts <<<"$a")" "$(counts <<<"$b")")
			got=${got:-content}
		fi
	fi
	rc=$(end_field "$res" "$s" bench_rc) lost=$(end_field "$res" "$s" lost)
	ok=1
	[[ $got == "$want" ]] || ok=0
	[[ $got == absent || ($rc =~ ^0(,0)*$ && $lost == 0) ]] || ok=0
	((ok)) || fail=1
	echo "stream variant=$v scenario=$s got=$got want=$want ok=$ok bench_rc=${rc:--} lost=${lost:--}"
done
# the LSM denials: each must have failed with its errno (guest-checked)
while read -r _ name ok rest; do
	[[ $ok == ok=1 ]] || fail=1
	echo "lsm variant=$v ${name} ${ok} ${rest}"
done < <(tr -d '\r' <"$res" | grep '^lsm-check ' || true)
exit $fail
