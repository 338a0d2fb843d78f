# shellcheck shell=bash
# Cells on worker hosts with GNU parallel over SSH (./run.sh matrix --hosts).
# A run's remote part lives in RUN/remote/: plans/CELL (guest/boot.sh --plan
# of each cell to dispatch), bundle/ and bundle.tar (what every host gets,
# once), joblog (parallel --joblog, kept), out/CELL (each job's stdout: the
# tar of its outputs), hosts.csv (cell,host that ran it). Sourced after
# lib/common.sh and lib/hosts.sh.

# lab_parallel: GNU parallel, unpacked from its .deb (setup.sh --host-debs
# parallel; the package depends on sysstat, which ships a service)
lab_parallel() {
	local root
	root=$("$LAB_ROOT/scripts/run/setup.sh" --host-debs parallel) || return 1
	PERL5LIB=$root/usr/share/perl5${PERL5LIB:+:$PERL5LIB} "$root/usr/bin/parallel" --will-cite "$@"
}

# the one output a worker may send back per cell, all regular files
LAB_CELL_OUTPUTS="console.log results.txt qemu.log worker.info"

# bundle_make RDIR: RDIR/bundle.tar from RDIR/plans/*: the worker script,
# qemu-identity.sh, our identity, and every image a plan boots (its
# -kernel/-initrd files, stored by sha256 under img/, the plan pointing at
# @BUNDLE@/img/SHA). Reproducible (sorted, mtime 0, owner 0), so its id is
# its sha256; prints that id (16 hex digits).
bundle_make() {
	local r=$1 b=$1/bundle f a prev sha id cell
	rm -rf "$b" "$r/bundle.tar"
	mkdir -p "$b/img" "$b/plans"
	cp "$LAB_ROOT/guest/cell-worker.sh" "$LAB_ROOT/guest/qemu-identity.sh" "$b/"
	"$LAB_ROOT/guest/qemu-identity.sh" >"$b/identity"
	for f in "$r"/plans/*; do
		[[ -f $f ]] || continue
		cell=$(basename "$f")
		prev=""
		while IFS= read -r -d '' a; do
			if [[ $prev == -kernel || $prev == -initrd ]]; then
				sha=$(sha256_of "$a")
				[[ -f $b/img/$sha ]] || cp "$a" "$b/img/$sha"
				a=@BUNDLE@/img/$sha
			elif [[ $prev == -plugin ]]; then
				die "bundle: cell $cell is a plugin boot; attribution boots run locally"
			fi
			printf '%s\0' "$a"
			prev=$a
		done <"$f" >"$b/plans/$cell"
	done
	tar -C "$b" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$r/bundle.tar" .
	id=$(sha256_of "$r/bundle.tar")
	echo "${id:0:16}"
}

# the remote path of a bundle (expanded by the worker's shell)
# shellcheck disable=SC2016
remote_bundle_dir() { printf '"${LAB_CACHE:-$HOME/.cache/uring-audit-lab}"/bundles/%s' "$1"; }

# bundle_push LINE ID TAR: the bundle onto one host, once (a host that has
# it complete gets nothing); status 0 when the host has it
bundle_push() {
	local ssh d
	mapfile -t ssh < <(host_ssh "$1")
	d=$(remote_bundle_dir "$2")
	"${ssh[@]}" "test -f $d/.complete" 2>/dev/null && return 0
	"${ssh[@]}" "set -e; d=$d; rm -rf \"\$d.new\"; mkdir -p \"\$d.new\"; tar -xf - -C \"\$d.new\"; touch \"\$d.new/.complete\"; rm -rf \"\$d\"; mv \"\$d.new\" \"\$d\"" <"$3"
}

# remote_collect OUTFILE DEST: unpack one job's output tar into DEST, as
# data: only the names in LAB_CELL_OUTPUTS, only regular files, nothing
# else (no paths, links or devices), each at most 64 MB; status 1 (and one
# line) when the tar holds anything else
remote_collect() {
	local t=$1 dest=$2 list bad names
	list=$(tar -tvf "$t" 2>/dev/null) || { log "collect: $t is not a tar"; return 1; }
	bad=$(awk -v ok=" $LAB_CELL_OUTPUTS " '{
		name = $0; for (i = 0; i < 5; i++) sub(/^[^ ]+ +/, "", name)
		if (substr($1, 1, 1) != "-" || index(ok, " " name " ") == 0 || $3 > 67108864) print name
	}' <<<"$list")
	[[ -z $bad ]] || { log "collect: refused $(basename "$t"): it holds $(head -3 <<<"$bad" | paste -sd' ')"; return 1; }
	mapfile -t names < <(tar -tf "$t")
	mkdir -p "$dest"
	tar -xf "$t" -C "$dest" --no-same-owner --no-same-permissions --no-overwrite-dir -- "${names[@]}"
}

# mux_dir: where the SSH ControlMaster sockets live: /tmp/lab-mux-UID, ours
# alone (mode 700, owned by us, or refused); a short path, as a unix socket
# name must be
mux_dir() {
	local d=/tmp/lab-mux-$UID
	[[ -d $d ]] || mkdir -m 700 "$d" || return 1
	[[ -O $d && ! -L $d && $(stat -c %a "$d") == 700 ]] || { log "remote: $d is not ours alone (mode 700); remove it"; return 1; }
	echo "$d"
}

# mux_line LINE DIR: LINE with SSH connection sharing: the first ssh to a host
# becomes the master (ControlMaster=auto, socket DIR/%C), every later one a
# session on it, so a cell pays no SSH handshake; the master ends 15 s after
# its last session. A line without 'ssh' gets one (parallel's default).
mux_line() {
	local slots="" rest=$1
	if [[ $rest =~ ^([1-9][0-9]*/)(.*)$ ]]; then slots=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}; fi
	[[ $rest == ssh\ * ]] || rest="ssh $rest"
	echo "${slots}ssh -o ControlMaster=auto -o ControlPath=$2/%C -o ControlPersist=15 ${rest#ssh }"
}

# remote_hosts RDIR HOSTS_FILE: check every host (host_verdict, all at
# once), log its one line, and write the usable ones to RDIR/sshlogins: a
# host whose QEMU identity differs from ours is refused with one line naming
# it and the difference, and gets no cell. Status 1 when no host is usable.
remote_hosts() {
	local r=$1 hl mine i mux
	local -a lines pids
	hl=$(host_lines "$2") || exit
	mux=$(mux_dir) || return 1
	mapfile -t lines < <(while IFS= read -r i; do mux_line "$i" "$mux"; done <<<"$hl")
	mkdir -p "$r/verdicts"
	mine=$("$LAB_ROOT/guest/qemu-identity.sh")
	for i in "${!lines[@]}"; do
		host_verdict "${lines[i]}" "$mine" >"$r/verdicts/$i" 2>&1 &
		pids[i]=$!
	done
	: >"$r/sshlogins"
	for i in "${!lines[@]}"; do
		if wait "${pids[i]}"; then echo "${lines[i]}" >>"$r/sshlogins"; fi
		log "  host $(cat "$r/verdicts/$i")"
	done
	[[ -s $r/sshlogins ]] || { log "remote: no usable host in $2"; return 1; }
}

# remote_push RDIR ID: the bundle onto every usable host, all at once
remote_push() {
	local l bad=0
	local -a pids
	while IFS= read -r l; do
		bundle_push "$l" "$2" "$1/bundle.tar" &
		pids+=($!)
	done <"$1/sshlogins"
	for l in "${pids[@]}"; do wait "$l" || bad=1; done
	((bad == 0)) || log "remote: the bundle did not reach every host; their cells fail there and are retried elsewhere"
}

# remote_run RDIR ID RETRIES CELL...: run the cells on RDIR/sshlogins
# (the usable hosts remote_hosts wrote; parallel --sshloginfile, a failed or
# refused cell retried on another host up to RETRIES times; the joblog keeps
# each cell's last attempt), n/N progress as jobs end; each cell's tar lands in
# RDIR/out/CELL, the joblog in RDIR/joblog, RDIR/hosts.csv says which host
# ran each cell. Status: parallel's (the number of cells that failed).
remote_run() {
	local r=$1 id=$2 retries=$3 total pid rc=0 seen=0 start row alive
	shift 3
	total=$#
	mkdir -p "$r/out"
	start=$(now)
	printf '%s\n' "$@" | lab_parallel --sshloginfile "$r/sshlogins" --retries "$retries" \
		--joblog "$r/joblog" --results "$r/out/{}" --jobs "${LAB_REMOTE_JOBS:-100%}" \
		"bash $(remote_bundle_dir "$id")/cell-worker.sh run {}" 2>"$r/parallel.err" &
	pid=$!
	# progress from the joblog: one line per finished attempt (whether
	# parallel is still running is asked before the joblog is read, so the
	# read after its end sees its last rows too)
	while :; do
		alive=0
		! kill -0 "$pid" 2>/dev/null || alive=1
		if [[ -f $r/joblog ]]; then
			while IFS=$'\t' read -r -a row; do
				seen=$((seen + 1))
				((seen > 1)) || continue
				log "  [$(awk -F'\t' 'NR > 1 && $7 == 0' "$r/joblog" | wc -l)/$total] ${row[-1]##* } on ${row[1]##* }: $([[ ${row[6]} == 0 ]] && echo ok || echo "exit ${row[6]}") ($(fmt_secs $(($(now) - start))))"
			done < <(tail -n +"$((seen + 1))" "$r/joblog")
		fi
		((alive)) || break
		sleep 1
	done
	wait "$pid" || rc=$?
	# which host ran each cell: its last attempt that exited 0
	awk -F'\t' 'NR > 1 && $7 == 0 { n = split($9, w, " "); h = split($2, s, " "); host[w[n]] = s[h] } END { for (c in host) print c "," host[c] }' "$r/joblog" | sort >"$r/hosts.csv"
	# a cell that failed everywhere: the worker's line, once
	grep -h '^worker ' "$r"/out/*.err 2>/dev/null | sort -u | while IFS= read -r row; do log "  $row"; done
	return "$rc"
}

# slurm_dispatch RDIR SHARED ID CELL... [-- SBATCH_OPTION...]: the same
# boots as one Slurm job array (scripts/run/slurm-run.sh) over SHARED, a
# directory every node sees: the bundle unpacked once into SHARED/bundles/ID,
# one task per cell running guest/cell-worker.sh there (a node with another
# QEMU identity refuses, exit 3). Each cell that ran lands in RDIR/out/CELL
# and RDIR/hosts.csv ("CELL,slurm:USER@NODE"), as remote_run leaves them.
slurm_dispatch() {
	local r=$1 shared=$2 id=$3 c b host rc=0
	local -a cells=() opts=()
	shift 3
	while (($#)) && [[ $1 != -- ]]; do cells+=("$1"); shift; done
	(($#)) && { shift; opts=("$@"); }
	shared=$(mkdir -p "$shared" && cd "$shared" && pwd)
	b=$shared/bundles/$id
	if [[ ! -f $b/.complete ]]; then
		if ! { rm -rf "$b.new" && mkdir -p "$b.new" && tar -xf "$r/bundle.tar" -C "$b.new" && touch "$b.new/.complete" &&
			rm -rf "$b" && mv "$b.new" "$b"; }; then
			die "slurm: cannot unpack the bundle into $b"
		fi
	fi
	for c in "${cells[@]}"; do printf '%s\tbash %q run %q\n' "$c" "$b/cell-worker.sh" "$c"; done >"$r/slurm-jobs"
	"$LAB_ROOT/scripts/run/slurm-run.sh" --shared "$shared/run-$id" --jobs "$r/slurm-jobs" "${opts[@]}" || rc=$?
	mkdir -p "$r/out"
	: >"$r/hosts.csv"
	for c in "${cells[@]}"; do
		[[ $(cat "$shared/run-$id/out/$c.rc" 2>/dev/null) == 0 ]] || continue
		cp "$shared/run-$id/out/$c" "$r/out/$c"
		host=$(tar -xOf "$r/out/$c" worker.info 2>/dev/null | sed -n 's/^host=//p' | head -1 | tr -cd 'A-Za-z0-9@._:-')
		echo "$c,slurm:${host:-unknown}" >>"$r/hosts.csv"
	done
	return "$rc"
}
