#!/bin/bash
# boot-one.sh VARIANT [STATE] [boot.sh options]: boot one guest interactively
# (run.sh boot), print where its logs are and the parsed results.
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

(($# >= 1)) || die_usage "usage: run.sh boot VARIANT [STATE] [--workloads a,b] [--runtime S] [--accel kvm|tcg|tcg-wall|auto] [--seed N] [--out DIR]"
v=$1
shift
check_variant "$v"
state=idle
if (($#)) && [[ $1 != -* ]]; then state=$1; shift; fi
check_state "$state"
accel=auto out="" args=()
while (($#)); do
	case $1 in
	--accel) need_value "$@"; accel=$2; shift 2 ;;
	--out) need_value "$@"; out=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
check_accel "$accel" auto
out=${out:-$LAB_CACHE/boots/$v-$state-$(date +%Y%m%d-%H%M%S)}
# every option checked (by boot.sh itself) before setup or anything else runs
LAB_CHECK_ARGS=1 "$LAB_ROOT/guest/boot.sh" --accel tcg --out "$out" "${args[@]}" "$v" "$state"
[[ ${LAB_CHECK_ARGS:-0} == 1 ]] && exit 0
accel=$("$LAB_ROOT/guest/accel.sh" "$accel")
"$LAB_ROOT/scripts/run/setup.sh" --check >/dev/null || "$LAB_ROOT/scripts/run/setup.sh"
rc=0
"$LAB_ROOT/guest/boot.sh" --accel "$accel" --out "$out" "${args[@]}" "$v" "$state" || rc=$?
log "boot $v/$state on $accel: $(sed -n 's/^status=//p' "$out/boot.info" 2>/dev/null || echo no-boot-info), logs in $out"
"$LAB_ROOT/scripts/analysis/parse-results.sh" "$out/results.txt" 2>/dev/null || true
exit "$rc"
