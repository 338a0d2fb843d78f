# shellcheck shell=bash
# A one-node Slurm on localhost for tests/66-slurm.sh: munged, slurmctld and
# slurmd from the .debs (setup.sh --host-debs slurm; unpacked, never
# installed, so no service is enabled), every file, socket, port and spool
# under a temp dir, listening on 127.0.0.1 only. slurm_up starts them and
# exports SLURM_CONF and a PATH with the client tools; slurm_down (on EXIT)
# stops what slurm_up started, by pid. Needs root (slurmd runs jobs as
# their user). Sourced after tests/lib.sh and tests/hosts-lib.sh (free_port).

ST="" slurm_pids=()

slurm_up() {
	local root lib port1 port2 node i
	ST=$(mktemp -d)
	chmod 755 "$ST"
	trap slurm_down EXIT
	root=$("$LAB_ROOT/scripts/run/setup.sh" --host-debs slurm) || return 1
	lib=$root/usr/lib/x86_64-linux-gnu
	export LD_LIBRARY_PATH=$lib:$lib/slurm-wlm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	mkdir -p "$ST/munge" "$ST/state" "$ST/spool" "$ST/bin"
	chmod 700 "$ST/munge"
	"$root/usr/sbin/mungekey" -c -k "$ST/munge/munge.key" || return 1
	"$root/usr/sbin/munged" -f --key-file="$ST/munge/munge.key" --socket="$ST/munge/munge.sock" \
		--pid-file="$ST/munge/munged.pid" --log-file="$ST/munge/munged.log" --seed-file="$ST/munge/seed" || return 1
	slurm_pids+=("$(cat "$ST/munge/munged.pid")")
	port1=$(free_port) port2=$(free_port)
	node=$(hostname -s)
	cat >"$ST/slurm.conf" <<-CONF
		ClusterName=lab
		SlurmctldHost=$node(127.0.0.1)
		SlurmctldPort=$port1
		SlurmdPort=$port2
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		AuthInfo=socket=$ST/munge/munge.sock
		CredType=cred/munge
		PluginDir=$lib/slurm-wlm
		StateSaveLocation=$ST/state
		SlurmdSpoolDir=$ST/spool
		SlurmctldPidFile=$ST/slurmctld.pid
		SlurmdPidFile=$ST/slurmd.pid
		SlurmctldLogFile=$ST/slurmctld.log
		SlurmdLogFile=$ST/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core
		SchedulerType=sched/builtin
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		MpiDefault=none
		ReturnToService=2
		SlurmdTimeout=30
		NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
		PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP
	CONF
	export SLURM_CONF=$ST/slurm.conf
	for i in sbatch squeue scancel sinfo scontrol sacct; do ln -s "$root/usr/bin/$i" "$ST/bin/$i"; done
	export PATH=$ST/bin:$PATH
	"$root/usr/sbin/slurmctld-wlm" -D -i >>"$ST/slurmctld.out" 2>&1 &
	slurm_pids+=($!)
	"$root/usr/sbin/slurmd-wlm" -D -d "$root/usr/sbin/slurmstepd-wlm" >>"$ST/slurmd.out" 2>&1 &
	slurm_pids+=($!)
	# up when the node is idle; 30 s at most, and not once a daemon died
	local deadline=$((SECONDS + 30))
	while ((SECONDS < deadline)); do
		timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && return 0
		kill -0 "${slurm_pids[1]}" "${slurm_pids[2]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "# slurm did not come up:"
	tail -n 5 "$ST"/slurmctld.log "$ST"/slurmd.log 2>/dev/null | sed 's/^/#   /'
	return 1
}

slurm_down() {
	local p
	for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${slurm_pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	# a slurmstepd outlives slurmd (it daemonizes); ours hold a file under $ST
	if [[ -n $ST ]]; then
		for p in /proc/[0-9]*; do
			for f in "$p"/fd/*; do
				[[ $(readlink "$f" 2>/dev/null) == "$ST"/* ]] && { kill -KILL "${p#/proc/}" 2>/dev/null; break; }
			done
		done
		rm -rf "$ST"
	fi
	return 0
}
