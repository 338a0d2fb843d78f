#!/bin/bash
# Crash detection: recorded console excerpts of every kind of kernel trouble
# (tests/data/consoles/, expectations in its EXPECTED file) replayed through
# the host's console scan (kernel_trouble, lib/common.sh, as guest/boot.sh
# calls it) and through the guest's dmesg scan (busybox grep -E -f on the
# same lib/kernel-trouble.txt, as guest/init runs it). Each expected line must
# be reported, and the clean console must report nothing.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
data=$LAB_ROOT/tests/data/consoles
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the guest's scan, as in guest/init (busybox grep, comments stripped first)
bb=""
for b in /bin/busybox /usr/bin/busybox; do [[ -x $b ]] && bb=$b && break; done
if [[ -n $bb ]]; then
	"$bb" grep -Ev '^[[:space:]]*(#|$)' "$LAB_KERNEL_TROUBLE" >"$tmp/trouble.re"
fi
guest_scan() { "$bb" grep -E -f "$tmp/trouble.re" "$1"; }

# a blank or catch-all pattern would flag every console
no_catch_all() { ! grep -Ev '^[[:space:]]*(#|$)' "$LAB_KERNEL_TROUBLE" | grep -qxE '[[:space:]]*|\.\*|\^|\$'; }
check "the pattern list has no pattern that matches every line" no_catch_all

while IFS=$'\t' read -r file want; do
	[[ -z $file || $file == \#* ]] && continue
	log=$data/$file
	[[ -f $log ]] || { not_ok "$file: console excerpt exists"; continue; }
	host=$(kernel_trouble "$log" || true)
	if [[ $want == - ]]; then
		check "host scan: $file is clean" test -z "$host"
	else
		check "host scan: $file reports '$want'" grep -qF -- "$want" <<<"$host"
	fi
	if [[ -z $bb ]]; then
		skip "guest scan: $file" "no busybox on the host (busybox-static, ./run.sh setup)"
		continue
	fi
	guest=$(guest_scan "$log" || true)
	if [[ $want == - ]]; then
		check "guest scan: $file is clean" test -z "$guest"
	else
		check "guest scan: $file reports '$want'" grep -qF -- "$want" <<<"$guest"
	fi
done <"$data/EXPECTED"

# every console excerpt has an expectation (none replayed unchecked)
for log in "$data"/*.log; do
	check "$(basename "$log") is listed in EXPECTED" grep -q "^$(basename "$log")	" "$data/EXPECTED"
done

# boot.sh must scan the console with kernel_trouble before it looks at the
# workload's results (a BUG in an io-wq worker fails the cell even when the
# workload exits 0 and the guest reaches '@@LAB done'), and init must read the
# shared list
boot=$LAB_ROOT/guest/boot.sh
# shellcheck disable=SC2016 # literal text of boot.sh and an awk program
check "boot.sh: the console scan (kernel_trouble) comes before the results checks" \
	awk -v scan='kernel_trouble "$out/console.log"' 'index($0, scan) { k = NR } /\^@@LAB done/ && !d { d = NR } END { exit !(k && d && k < d) }' "$boot"
check "guest init scans dmesg with /lab/kernel-trouble.txt" grep -q 'kernel-trouble.txt' "$LAB_ROOT/guest/init"
