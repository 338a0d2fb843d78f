#!/bin/bash
# boot.sh [options] VARIANT STATE: boot VARIANT's kernel in QEMU with the lab
# initramfs, run workloads in audit state STATE, collect results.
#   --out DIR          where console.log, results.txt and boot.info go (required)
#   --workloads a,b    workloads (default randread-qd128)
#   --runtime SECS     guest seconds per workload (default 5)
#   --accel A          kvm, tcg (icount) or tcg-wall (TCG without icount: real
#                      time, the KVM user's path; lib/common.sh); default tcg;
#                      resolve auto with accel.sh first
#   --accel-args       print the QEMU arguments of --accel A that every boot
#                      shares (accelerator, CPU, clock) and exit: this file owns
#                      them, scripts/run/manifest.sh records them
#   --seed N           QEMU -seed and layout padding for this boot (default 1)
#   --timeout SECS     host wall-clock limit (default: computed from runtime)
#   --profile a,b      also run these workloads under ftrace's profiler and perf
#   --mode run|probe
#   --script NAME      run guest/scripts/NAME.sh in the guest instead of workloads
#   --plugin ARGS      attribution boot: QEMU -plugin ARGS (tools/lab-attrib.c)
#                      and nokaslr; ARGS "none": nokaslr only (its plain control)
#   --debug            boot the proof-only debug kernel (kernel/build.sh --debug)
#   --peer             boot the peer suite's image (peer/build.sh: the lab's
#                      initramfs plus liburing's tests); --script may then
#                      name a script of peer/ as well
#   --plan FILE        do not boot: write the boot's command (timeout, QEMU and
#                      its argv, --out as @OUT@), NUL-separated, to FILE, for
#                      a worker host (guest/cell-worker.sh, lib/remote.sh)
#   --ran              QEMU already ran on a worker: --out holds its serial
#                      logs and worker.info (qemu_rc, wall_secs, host); only
#                      classify and write boot.info (same rules as a local boot)
#   --restore-batch FILE  no VARIANT STATE: restore every stored boot of FILE
#                      (a line each: OUT SEED RUNTIME WORKLOADS PROFILE VARIANT
#                      STATE [PLUGIN], PROFILE - for none, PLUGIN as --plugin;
#                      under --accel tcg, LAB_BOOT_INITRD set) in one process: the
#                      same record, key, checks, files and boot.info as a
#                      boot's cell=hit; prints each restored OUT. Boots not
#                      stored are left alone (the caller boots them one by one)
# Exit 0 when the guest finished cleanly, 1 otherwise; boot.info says why
# (status=ok|timeout|killed|panic|kernel-warning|died|qemu-error|guest-error|
# verify-mismatch; killed: QEMU died of a signal before its deadline), and
# cell=off|miss|stored|hit|verified|mismatch whether it came from the cell store
# (lib/cellstore.sh; LAB_NO_CELL_STORE=1 turns it off, LAB_CELL_VERIFY=P
# reruns a share P of hits and compares).
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

print_accel=0 plan="" ran=0 batch="" debug="" peer=0 out="" workloads=randread-qd128 runtime=5 accel=tcg seed=1 timeout="" mode=run script="" profile="" plugin=""
while (($#)); do
	case $1 in
	--out | --workloads | --runtime | --accel | --seed | --timeout | --mode | --profile | --script | --plugin | --restore-batch) need_value "$@" ;;
	esac
	case $1 in
	--out) out=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--script) mode=script script=$2; shift 2 ;;
	--plugin) plugin=$2; shift 2 ;;
	--debug) debug=--debug; shift ;;
	--peer) peer=1; shift ;;
	--plan) plan=$2; shift 2 ;;
	--ran) ran=1; shift ;;
	--restore-batch) batch=$2; shift 2 ;;
	--accel-args) print_accel=1; shift ;;
	-*) die_usage "boot: unknown option $1" ;;
	*) break ;;
	esac
done
check_accel "$accel"
# the accelerator's own arguments: icount makes guest time an instruction
# count (tcg); tcg-wall is the same TCG without it, so guest time is host time
case $accel in
tcg) accel_args=(-accel tcg -icount 'shift=0,sleep=off,align=off' -cpu max) ;;
tcg-wall) accel_args=(-accel tcg -cpu max) ;;
kvm) accel_args=(-accel kvm -cpu host) ;;
esac
# -rtc: a fixed date on the virtual clock. A host-time RTC made boots of the
# same seed land on one of two fio figures (0.06% apart); pinned, a seed's
# boot repeats bit for bit, alone or beside other guests and builds
rtc='base=2026-01-01T00:00:00,clock=vm'
if ((print_accel)); then
	(($# == 0)) || die_usage "boot --accel-args takes no VARIANT or STATE"
	echo "${accel_args[*]} -smp 1 -rtc $rtc"
	exit 0
fi
# shellcheck source=../lib/cellstore.sh
. "$LAB_ROOT/lib/cellstore.sh"

# compose: the guest's command line and QEMU's argv (cmdline, qemu,
# plugin_out) of the boot the globals describe (v state workloads profile
# runtime seed mode script plugin image initrd out); no process is started,
# so a batch composes hundreds of boots cheaply
declare -A state_cmdline=()
compose() {
	# the host reads a state file as data, never sources it (lib/common.sh)
	[[ -n ${state_cmdline[$state]+x} ]] || state_cmdline[$state]=$(state_var "$state" STATE_CMDLINE)
	STATE_CMDLINE=${state_cmdline[$state]}
	# layout padding: a seed-dependent amount of cmdline text shifts the initial
	# stack and environment, so reps sample memory-layout effects (with -seed's KASLR)
	printf -v pad '%*s' $((seed % 64)) ''
	pad=${pad// /x}
	# no LSM unless the state asks for one: Smack is built in for the smack state
	lsm=lsm=capability
	[[ $STATE_CMDLINE == *lsm=* ]] && lsm=""
	# i8042.*: no PS/2 probing (0.6 s of guest time at every boot); noapictimer:
	# without ACPI the local APIC timer calibration stalls ~10 s of wall time
	# under icount with sleep=off, so the PIT is the clock event device.
	# null_blk.hw_queue_depth=1024 (an NVMe-like queue; null_blk's default is 64):
	# with 64 tags a QD128 workload is tag-starved and sbitmap_get's retry scan,
	# whose cost depends on the seed-random per-cpu alloc hint, added 0 or ~3.9
	# instructions per bench-read op (two modes; lab-attrib put the whole
	# difference, 1.13M instructions per window, in sbitmap_get)
	cmdline="console=ttyS0 loglevel=5 panic=-1 i8042.noaux i8042.nokbd noapictimer $STATE_CMDLINE${lsm:+ $lsm} null_blk.nr_devices=1 null_blk.memory_backed=0 null_blk.irqmode=0 null_blk.poll_queues=1 null_blk.hw_queue_depth=1024 lab.mode=$mode lab.state=$state lab.workloads=$workloads lab.runtime=$runtime${script:+ lab.script=$script}${profile:+ lab.profile=$profile} lab.pad=p$pad${plugin:+ nokaslr}"
	# (the argv's order is part of a stored cell's key: lib/cellstore.sh)
	qemu=(qemu-system-x86_64 "${accel_args[@]}" -smp 1 -m 1024 -seed "$seed"
		-kernel "$image" -initrd "$initrd" -append "$cmdline"
		-rtc "$rtc"
		-display none -monitor none -nic none -no-reboot
		-serial "file:$out/console.log" -serial "file:$out/results.txt")
	plugin_out=""
	if [[ -n $plugin && $plugin != none ]]; then
		qemu+=(-plugin "$plugin")
		local part
		for part in ${plugin//,/ }; do [[ $part != out=* ]] || plugin_out=${part#out=}; done
	fi
}

# has KIND: whether the boot's serial logs show KIND (panic: a kernel panic;
# trouble: lib/kernel-trouble.txt; finished: the guest's end marker; problems:
# its dmesg scan found some; error: the guest reported an error). One grep
# per question here; a batch asks once for all its boots (HAS, by file).
declare -A HAS=()
has() {
	if ((batch_mode)); then [[ -n ${HAS[$1 $out]:-} ]]; return; fi
	case $1 in
	panic) grep -q 'Kernel panic' "$out/console.log" 2>/dev/null ;;
	trouble) [[ -f $out/console.log ]] && kernel_trouble "$out/console.log" >/dev/null ;;
	finished) grep -q '^@@LAB done' "$out/results.txt" 2>/dev/null ;;
	problems) grep -q '^@@LAB dmesg problems=[1-9]' "$out/results.txt" 2>/dev/null ;;
	error) grep -q '^@@LAB error' "$out/results.txt" 2>/dev/null ;;
	esac
}

# classify: the boot's status from QEMU's exit (rc, wall, timeout) and its logs
classify() {
	status=ok
	# 137 is SIGKILL: from timeout at the deadline, or from outside before it
	if ((rc == 124 || rc == 137)) && awk -v w="$wall" -v t="$timeout" 'BEGIN { exit !(w >= t - 0.5) }'; then
		status=timeout
	elif ((rc > 128)); then
		status=killed
	elif has panic; then
		status=panic
	elif has trouble; then
		# any kernel trouble (lib/kernel-trouble.txt) fails the cell, whatever the workload's exit
		status=kernel-warning
	elif ((rc != 0)); then
		status="qemu-error"
	elif ! has finished; then
		status=died
	elif has problems; then
		status=kernel-warning
	elif has error; then
		status=guest-error
	fi
}

worker_info() { sed -n "s/^$1=//p" "$out/worker.info" 2>/dev/null | head -1; }

# write_info: boot.info, what a boot was and how it ended
write_info() {
	{
		echo "variant=$v"
		echo "state=$state"
		echo "accel=$accel"
		echo "seed=$seed"
		echo "status=$status"
		echo "qemu_rc=$rc"
		printf 'wall_secs=%.1f\n' "$wall"
		echo "bzimage_sha256=${CELL_SHA[$image]}"
		echo "initramfs_sha256=${CELL_SHA[$initrd]}"
		echo "cmdline=$cmdline"
		echo "qemu=${qemu[*]}"
		echo "cell=$cell"
		echo "cell_key=$key"
		# when QEMU ran here (host clock, s.ns): real-time runs show they were serial
		if [[ -n $started_at ]]; then echo "started_at=$started_at"; echo "ended_at=$ended_at"; fi
		if ((ran)); then echo "host=$(worker_info host | tr -cd 'A-Za-z0-9@._:-')"; fi
	} >"$out/boot.info"
}

# outcome KEY: rc and wall of a stored cell (its outcome file, no process)
outcome() {
	local l
	rc="" wall=""
	_cell_dir "$1"
	while IFS= read -r l || [[ -n $l ]]; do
		case $l in qemu_rc=*) rc=${l#qemu_rc=} ;; wall_secs=*) wall=${l#wall_secs=} ;; esac
	done <"$REPLY/outcome"
}

batch_mode=0 started_at="" ended_at="" plugin_out=""
# --restore-batch: the stored boots of a list, restored as one boot.sh restores
# a hit, in a handful of processes for the whole list
if [[ -n $batch ]]; then
	(($# == 0)) || die_usage "boot --restore-batch takes no VARIANT or STATE"
	[[ -f $batch ]] || die_usage "boot --restore-batch: no list '$batch'"
	cell_store_on "$accel" || exit 0
	[[ -z ${LAB_CELL_VERIFY:-} ]] || exit 0 # (a share of hits reruns: one boot at a time)
	initrd=${LAB_BOOT_INITRD:-}
	[[ -n $initrd && -f $initrd ]] || exit 0
	batch_mode=1 ran=0 rc=0 timeout=0 mode=run
	declare -A image_of=()
	outs=() recs=() keys=() lines=() pouts=()
	while read -r out seed runtime workloads profile v state plugin; do
		[[ -n $state ]] || die_usage "boot --restore-batch: a line of $batch is not OUT SEED RUNTIME WORKLOADS PROFILE VARIANT STATE [PLUGIN]"
		[[ $profile != - ]] || profile=""
		[[ -n ${image_of[$v]+x} ]] || image_of[$v]=$(build_of "$v")/arch/x86/boot/bzImage
		image=${image_of[$v]}
		[[ -f $image && -f $LAB_ROOT/workloads/states/$state.state ]] || continue
		lines+=("$out $seed $runtime $workloads ${profile:--} $v $state $plugin")
		outs+=("$out")
	done <"$batch"
	((${#outs[@]})) || exit 0
	mkdir -p "${outs[@]}"
	cell_hash "$initrd"
	for i in "${!lines[@]}"; do
		read -r out seed runtime workloads profile v state plugin <<<"${lines[$i]}"
		[[ $profile != - ]] || profile=""
		image=${image_of[$v]}
		compose
		cell_hash "$image"
		cell_record "$out" "$state" "$workloads" "$profile" "" "$runtime" "$seed" "$cmdline" -- "${qemu[@]}" >"$out/cell.record"
		recs+=("$out/cell.record") pouts+=("$plugin_out")
	done
	while read -r k _; do keys+=("$k"); done < <(sha256sum "${recs[@]}")
	cell_lookup_many "${keys[@]}"
	hits=()
	for i in "${!keys[@]}"; do [[ -z ${CELL_INTACT[${keys[i]}]:-} ]] || hits+=("$i"); done
	((${#hits[@]})) || exit 0
	# the restored files, then one grep per question over all of them
	# (the old files gone and the dirs made in one process each, not one a boot)
	olds=() dirs=()
	for i in "${hits[@]}"; do
		out=${outs[i]} plugin_out=${pouts[i]}
		olds+=("$out/console.log" "$out/results.txt" "$out/qemu.log" ${plugin_out:+"$plugin_out"})
		dirs+=("$out")
	done
	rm -f "${olds[@]}"
	mkdir -p "${dirs[@]}"
	for i in "${hits[@]}"; do cell_restore "${keys[i]}" "${outs[i]}" "${pouts[i]}"; done
	ask() { local f; while IFS= read -r f; do HAS[$1 ${f%/*}]=1; done < <(shift; "$@" 2>/dev/null || true); }
	cons=() ress=()
	for i in "${hits[@]}"; do cons+=("${outs[i]}/console.log"); ress+=("${outs[i]}/results.txt"); done
	ask panic grep -l 'Kernel panic' "${cons[@]}"
	ask trouble grep -lE -f <(grep -Ev '^[[:space:]]*(#|$)' "$LAB_KERNEL_TROUBLE") "${cons[@]}"
	ask finished grep -l '^@@LAB done' "${ress[@]}"
	ask problems grep -l '^@@LAB dmesg problems=[1-9]' "${ress[@]}"
	ask error grep -l '^@@LAB error' "${ress[@]}"
	for i in "${hits[@]}"; do
		read -r out seed runtime workloads profile v state plugin <<<"${lines[$i]}"
		[[ $profile != - ]] || profile=""
		image=${image_of[$v]}
		compose
		key=${keys[i]} cell=hit
		outcome "$key"
		classify
		write_info
		echo "$out"
	done
	exit 0
fi

(($# == 2)) || die_usage "usage: run.sh boot VARIANT STATE [--workloads a,b] [--runtime S] [--accel kvm|tcg|tcg-wall] [--seed N] [--out DIR]"
v=$1 state=$2
check_variant "$v"
check_state "$state"
check_list workload "$workloads"
for w in ${workloads//,/ }; do check_workload "$w"; done
if [[ -n $profile ]]; then
	check_list workload "$profile"
	for w in ${profile//,/ }; do check_workload "$w"; done
fi
check_number runtime "$runtime"
check_number seed "$seed"
[[ -z $timeout ]] || check_number timeout "$timeout"
# the mode and script name reach the guest's command line: a fixed set, or a name
case $mode in run | probe | script) ;; *) die_usage "boot: --mode must be run or probe (got '$mode')" ;; esac
[[ $mode != script ]] || { check_name script "$script"; [[ -f $LAB_ROOT/guest/scripts/$script.sh ]] || { ((peer)) && [[ -f $LAB_ROOT/peer/$script.sh ]]; } || die_usage "boot: no guest script guest/scripts/$script.sh (nor peer/$script.sh with --peer)"; }
[[ -n $out ]] || die_usage "boot: --out DIR is required"
[[ ${LAB_CHECK_ARGS:-0} == 1 ]] && exit 0
nwl=0
for w in ${workloads//,/ } ${profile//,/ } ${profile//,/ }; do nwl=$((nwl + 1)); done
# TCG runs ~3x slower than guest time, plus boot and fio start-up
timeout=${timeout:-$((90 + nwl * runtime * 8))}

image=$(build_of "$v")${debug:+-debug}/arch/x86/boot/bzImage
# a boot of the matrix takes the kernel the matrix built (LAB_BOOT_PREBUILT=1)
# and the initramfs it built (LAB_BOOT_INITRD) as they are: no per-boot check
if [[ ${LAB_BOOT_PREBUILT:-0} != 1 || -n $debug || ! -f $image ]]; then
	"$LAB_ROOT/kernel/build.sh" $debug "$v" >&2
fi
if ((peer)); then
	initrd=$("$LAB_ROOT/peer/build.sh")
elif [[ -n ${LAB_BOOT_INITRD:-} && -f ${LAB_BOOT_INITRD:-} ]]; then
	initrd=$LAB_BOOT_INITRD
else
	initrd=$("$LAB_ROOT/guest/build-initramfs.sh")
fi

mkdir -p "$out"
compose

# The cell store (lib/cellstore.sh): a tcg-icount boot whose key record is
# stored is restored, not run (cell=hit); LAB_CELL_VERIFY=P reruns a random
# share P of hits and compares the bytes (cell=verified, or status
# verify-mismatch). A boot that runs (here, or on a worker: --ran) is stored
# when the guest decided its outcome (cell=stored). --plan of a stored cell
# plans nothing (exit 3): the local loop restores it.
cell=off key=""
cell_hash "$image" "$initrd"
((ran)) || [[ -n $plan ]] || rm -f "$out/console.log" "$out/results.txt" "$out/qemu.log" ${plugin_out:+"$plugin_out"}
if cell_store_on "$accel"; then
	cell_record "$out" "$state" "$workloads" "$profile" "$script" "$runtime" "$seed" "$cmdline" -- "${qemu[@]}" >"$out/cell.record"
	key=$(cell_key "$out/cell.record")
	cell=miss
	if ((!ran)) && cell_lookup "$key"; then
		cell=hit
		[[ -n ${LAB_CELL_VERIFY:-} ]] && cell_verify_pick "$LAB_CELL_VERIFY" && cell=verify
	fi
fi
if [[ -n $plan ]]; then
	[[ $cell == hit ]] && { log "boot --plan $v/$state seed $seed: stored cell $key, nothing to plan"; exit 3; }
	printf '%s\0' timeout --signal=KILL "$timeout" "${qemu[@]//"$out"\//@OUT@/}" >"$plan"
	exit 0
fi

if ((ran)); then
	rc=$(worker_info qemu_rc) wall=$(worker_info wall_secs)
	[[ $rc =~ ^[0-9]+$ && $wall =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "boot --ran: $out/worker.info has no qemu_rc/wall_secs"
elif [[ $cell == hit ]]; then
	cell_restore "$key" "$out" "$plugin_out"
	outcome "$key"
else
	start=$(date +%s.%N) started_at=$start
	# timeout(1) gives QEMU its deadline, and the parent-death signals tie both to
	# this script: whoever is killed (this script, timeout, or QEMU), no QEMU
	# lives on without a deadline or writes into --out after the boot is recorded
	set +e
	setpriv --pdeathsig KILL timeout --signal=KILL "$timeout" \
		setpriv --pdeathsig KILL "${qemu[@]}" >"$out/qemu.log" 2>&1
	rc=$?
	set -e
	ended_at=$(date +%s.%N)
	wall=$(echo "$ended_at - $start" | bc)
fi

classify
case $cell in
miss) if ((rc == 0)) && cell_storable "$status"; then
	cell_store "$key" "$out/cell.record" "$out" "$status" "$rc" "$wall" "$plugin_out"
	cell=stored
fi ;;
verify)
	if diffs=$(cell_compare "$key" "$out" "$plugin_out") && [[ $status == "$(cell_outcome "$key" status)" ]]; then
		cell=verified
		wall=$(cell_outcome "$key" wall_secs)
	else
		was=$(cell_outcome "$key" status)
		q=$(cell_quarantine "$key" || true)
		log "cell store: VERIFY FAILED: boot $v/$state seed $seed (key $key) differs from its stored cell: status $status vs $was${diffs:+, files:} $(echo "$diffs" | paste -sd' ') (stored cell moved to ${q:-?}, rerun: $out)"
		status=verify-mismatch cell=mismatch
	fi
	;;
esac
write_info
[[ $status == ok ]] || { log "boot $v/$state: $status (logs in $out)"; exit 1; }
