#!/bin/bash
# check-config.sh DOTCONFIG FRAGMENT...: every option the fragments request
# (the last fragment wins for a symbol) must be in DOTCONFIG exactly as asked
# after olddefconfig. Kconfig silently drops options whose dependencies are
# missing; this is where that becomes a loud failure naming the option.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

(($# >= 2)) || die_usage "usage: check-config.sh DOTCONFIG FRAGMENT..."
dotconfig=$1
shift
[[ -f $dotconfig ]] || die "$dotconfig: no such file"

missing=$(awk '
	# fragments: remember the last requested value of each symbol
	FILENAME != cfg {
		if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			sym = $0; sub(/=.*/, "", sym); want[sym] = $0
			if (!(sym in order)) { order[sym] = ++n; name[n] = sym }
		} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) {
			sym = $2; want[sym] = "n"
			if (!(sym in order)) { order[sym] = ++n; name[n] = sym }
		}
		next
	}
	/^CONFIG_/ { sym = $0; sub(/=.*/, "", sym); have[sym] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			s = name[i]
			if (want[s] == "n") {
				if ((s in have) && have[s] !~ /=n$/) print s " requested off but is " have[s]
			} else if (!(s in have)) {
				print want[s] " requested but " s " is not set"
			} else if (have[s] != want[s]) {
				print want[s] " requested but got " have[s]
			}
		}
	}' cfg="$dotconfig" "$@" "$dotconfig")

if [[ -n $missing ]]; then
	while read -r line; do log "config: $line"; done <<<"$missing"
	die "kernel config check failed: $(wc -l <<<"$missing") requested option(s) did not survive olddefconfig (missing dependency?); fix the fragment"
fi
log "config: all $(grep -chE '^(CONFIG_|# CONFIG_.* is not set)' "$@" | paste -sd+ | bc) requested options present in $(basename "$dotconfig")"
