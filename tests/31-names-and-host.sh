#!/bin/bash
# Names are data (one validator, lib/common.sh check_name), matrix.conf is
# parsed not sourced, options are checked before anything is created,
# labstat takes decimal numbers only and summary leaves no .tmp, --accel kvm
# is checked up front, and setup installs no package that starts a service.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results LAB_TREES=$tmp/trees
mkdir -p "$LAB_RESULTS"

# expect DESC RC PATTERN CMD...: CMD exits RC within 60 s, stderr matches PATTERN
expect() {
	local desc=$1 want=$2 pat=$3 rc=0
	shift 3
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if ((rc == want)) && grep -qE -e "$pat" "$tmp/err"; then ok "$desc"; else
		echo "exit $rc (want $want):"; head -3 "$tmp/err"; not_ok "$desc"
	fi
}
m=scripts/run/matrix.sh
expect "--states ../states/idle is refused" 2 "bad state name" $m --states ../states/idle --accel tcg
expect "--run-id ../escaped-run is refused" 2 "bad run-id name" $m --run-id ../escaped-run --accel tcg
check "nothing written outside results/" test ! -e "$tmp/escaped-run"
expect "variant ../variants/upstream is refused" 2 "bad variant name" $m --variants ../variants/upstream --accel tcg
expect "variant 'my var' is refused by build" 2 "bad variant name" kernel/build.sh "my var"
check "no stray tree for 'my var'" test ! -e "$LAB_TREES"
expect "summary ../results/x is refused" 2 "bad run-id name" scripts/analysis/summary.sh ../results/x
expect "--jobs 0 is refused" 2 "--jobs must be a whole number from 1 to 64" $m --jobs 0 --accel tcg
expect "--reps without a value: one clear line" 2 "reps needs a value" $m --reps
mkdir -p "$LAB_RESULTS/evil"
# shellcheck disable=SC2016 # the $(...) is the point: it must never run
printf 'variants=upstream\nstates=off\nworkloads=\nreps=$(touch %s/pwned)1\nruntime=1\naccel=tcg\nprofile=none\n' "$tmp" >"$LAB_RESULTS/evil/matrix.conf"
expect "matrix.conf with a command substitution is refused" 2 "--reps must be a whole number" $m --resume evil
check "matrix.conf is never run as code" test ! -e "$tmp/pwned"
check "rejected runs left no results dir" test "$(find "$LAB_RESULTS" -mindepth 1 -maxdepth 1 | wc -l)" = 1
# state files: data plus the guest's state_setup, checked in one place
printf 'STATE_CMDLINE="audit=1"\ntouch /tmp/x\nstate_setup() { :; }\n' >"$tmp/bad.state"
check "a state file with top-level code is rejected" bash -c ". lib/common.sh; ! (check_state_file '$tmp/bad.state') 2>/dev/null"
check "every shipped state file passes the check" bash -c ". lib/common.sh; for s in \$(known_states); do check_state \$s; done"

# labstat: decimal numbers only, and summary.sh leaves nothing half-written
mkdir -p "$LAB_RESULTS/hex"
{
	echo "variant,state,workload,rep,seed,accel,status,ops_per_sec,ns_per_op,ns_per_op_unit,clat_p50_ns,clat_p99_ns,wall_secs,raw"
	echo "upstream,off,bench-nop,1,1,tcg,ok,0x10,62500000.0,instructions,,,1,raw/x"
} >"$LAB_RESULTS/hex/cells.csv"
echo stale >"$LAB_RESULTS/hex/summary.csv"
rc=0
scripts/analysis/summary.sh hex >/dev/null 2>"$tmp/err" || rc=$?
check "labstat rejects ops_per_sec 0x10 (rc $rc)" test "$rc" -ne 0
check "a failed summary leaves no summary.csv.tmp and no stale summary.csv" bash -c "! ls '$LAB_RESULTS/hex/summary.csv'* 2>/dev/null | grep -q ."

# --accel kvm where KVM cannot run the guest: one line up front
if [[ -w /dev/kvm ]] && grep -qm1 -wE 'vmx|svm' /proc/cpuinfo; then
	skip "--accel kvm refused up front" "this host has a KVM with vmx/svm"
else
	expect "--accel kvm is refused up front with what to do" 2 "accel kvm: KVM cannot run .*use --accel tcg" $m --accel kvm --variants upstream --states off
fi

# setup: no listed package may start or enable a service on the host
bad=""
while read -r p; do
	dpkg-query -W "$p" >/dev/null 2>&1 || continue
	dpkg -L "$p" | grep -E '^/(usr/)?lib/systemd/system/[^/]+\.service$|^/etc/init\.d/' >/dev/null || continue
	pi=/var/lib/dpkg/info/$p.postinst
	# shellcheck disable=SC2012
	[[ -f $pi ]] || pi=$(ls /var/lib/dpkg/info/"$p":*.postinst 2>/dev/null | head -1)
	if [[ -n $pi ]] && grep -qE 'invoke-rc\.d|deb-systemd-invoke|update-rc\.d [^ ]+ defaults( |$)' "$pi"; then bad+=" $p"; fi
done < <(awk '/^packages=\(/ { on = 1; next } on && /^\)/ { exit } on { sub(/#.*/, ""); for (i = 1; i <= NF; i++) print $i }' scripts/run/setup.sh)
check "setup installs no package that starts or enables a service (offenders:${bad:- none})" test -z "$bad"
check "auditctl for the guest does not come from an installed auditd" bash -c "! grep -qE '[( ]/sbin/auditctl' guest/build-initramfs.sh"
