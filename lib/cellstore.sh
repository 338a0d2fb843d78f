# shellcheck shell=bash
# The cell store (issue 19). A cell is one guest boot. Under tcg-icount a boot
# is a pure function of its inputs, so its raw guest output is stored once in
# $LAB_CACHE/cells/<key>/ and reused by every later boot with the same key,
# from any checkout or run. The key is the sha256 of a canonical record of
# everything that can change what the guest executes (cell_record). Parsing
# runs on the restored output, so a parser change reuses stored cells.
#
# Rules: only tcg-icount cells are stored; only outcomes the guest decides
# (ok, panic, kernel-warning = BUG/oops/WARNING, guest-error, died: QEMU exited
# by itself), never timeout, killed, qemu-error nor a real-time cell (kvm,
# tcg-wall: accel_realtime in lib/common.sh, wall-clock ns). Writes are
# atomic (a temp dir renamed into place); every entry carries the sha256 of
# its files, checked on every hit: a corrupt or partial entry is removed,
# named in a warning, and the cell recomputed. LAB_NO_CELL_STORE=1 turns the
# store off (tests/lib.sh sets it, so tests stay independent of the cache).
# LAB_CELL_VERIFY=P (matrix --verify P) reruns a random share P of hits and
# fails loudly on any byte difference.
#
# Entry layout: record (the key record; sha256(record) = key), outcome
# (status=, qemu_rc=, wall_secs= of the boot that computed it), out/ (the
# guest's output files: console.log, results.txt, qemu.log, a plugin's out=),
# sha256sums (of record, outcome and every file in out/). Sourced, never run.

# one place for the record's version: bump it when the record's meaning changes
LAB_CELL_SCHEMA=1
LAB_CELLS=${LAB_CELLS:-$LAB_CACHE/cells}
# ROMs QEMU executes for our machine (-M pc, default VGA, -kernel via fw_cfg DMA)
LAB_CELL_FIRMWARE=(bios-256k.bin linuxboot_dma.bin vgabios-stdvga.bin)
LAB_CELL_FIRMWARE_DIRS=${LAB_CELL_FIRMWARE_DIRS:-/usr/share/qemu /usr/share/seabios}
# statuses the guest decides (boot.sh's names); everything else is host-caused
LAB_CELL_STORED_STATUSES=" ok panic kernel-warning guest-error died "

# only tcg (icount) is a pure function of its inputs; tcg-wall is TCG too,
# but its figures are the host's wall clock: never stored, never restored
cell_store_on() { [[ ${LAB_NO_CELL_STORE:-0} != 1 && $1 == tcg ]]; }
cell_storable() { [[ $LAB_CELL_STORED_STATUSES == *" $1 "* ]]; }

# cell_hash FILE...: fill CELL_SHA[FILE] with each file's sha256 ("missing"
# for a file that does not exist), memoised by path, size, inode and mtime
# (ns) in $LAB_CELLS/.sha-memo: the bzImage, the 110 MB initramfs and QEMU
# are hashed once, not per boot, and a boot's record costs a few processes
# (a file hashed once in this process is not looked at again: a batch of
# boots, guest/boot.sh --restore-batch, costs no process per boot here)
declare -gA CELL_SHA=()
cell_hash() {
	local memo=$LAB_CELLS/.sha-memo f n sz ino mt st sha have=() missing=()
	for f in "$@"; do
		[[ -z ${CELL_SHA[$f]+x} ]] || continue
		if [[ -e $f ]]; then have+=("$f"); else CELL_SHA[$f]=missing; fi
	done
	((${#have[@]})) || return 0
	mkdir -p "$memo"
	while IFS='|' read -r n sz ino mt; do
		st="" sha=""
		[[ -f $memo/${n//\//%} ]] && read -r st sha <"$memo/${n//\//%}"
		if [[ $st == "$sz.$ino.$mt" && -n $sha ]]; then CELL_SHA[$n]=$sha; else missing+=("$n|$sz.$ino.$mt"); fi
	done < <(stat -L -c '%n|%s|%i|%.9Y' -- "${have[@]}")
	((${#missing[@]})) || return 0
	local -A stamp=()
	for f in "${missing[@]}"; do stamp[${f%|*}]=${f##*|}; done
	while read -r sha n; do
		CELL_SHA[$n]=$sha
		echo "${stamp[$n]} $sha" >"$memo/${n//\//%}.$$"
		mv "$memo/${n//\//%}.$$" "$memo/${n//\//%}"
	done < <(sha256sum -- "${!stamp[@]}")
}

# cell_firmware_file NAME: the ROM QEMU loads for NAME (its data dirs), in REPLY
cell_firmware_file() {
	local d
	for d in $LAB_CELL_FIRMWARE_DIRS; do
		[[ -e $d/$1 ]] && { REPLY=$d/$1; return 0; }
	done
	REPLY=$1
}

# cell_record OUT STATE WORKLOADS PROFILE SCRIPT RUNTIME SEED CMDLINE -- QEMU_ARGV...:
# print the canonical key record of a boot writing into OUT. Files the argv
# names (kernel, initrd, plugin and its map) enter by content, OUT by a fixed
# placeholder (output paths are not inputs); no host name, date, run id or
# wall time is in it.
declare -gA _CELL_QEMU_BIN=() _CELL_QEMU_VERSION=()
cell_record() {
	local out=$1 state=$2 workloads=$3 profile=$4 script=$5 runtime=$6 seed=$7 cmdline=$8 a fw f w part qemu_bin
	shift 9
	local args=("$@") i files=() wfiles=() fwfiles=() version vmemo
	# (resolved once per process: a batch writes hundreds of records)
	[[ -n ${_CELL_QEMU_BIN[$1]:-} ]] || _CELL_QEMU_BIN[$1]=$(command -v "$1")
	qemu_bin=${_CELL_QEMU_BIN[$1]}
	files+=("$LAB_ROOT/workloads/states/$state.state" "$qemu_bin")
	for w in ${workloads//,/ } ${profile//,/ }; do
		for f in "$LAB_ROOT/workloads/$w".{fio,bench}; do [[ -f $f ]] && wfiles+=("$f"); done
	done
	[[ -z $script ]] || files+=("$LAB_ROOT/guest/scripts/$script.sh")
	for fw in "${LAB_CELL_FIRMWARE[@]}"; do cell_firmware_file "$fw"; fwfiles+=("$REPLY"); done
	for ((i = 0; i < ${#args[@]}; i++)); do
		case ${args[i]} in
		-kernel | -initrd) files+=("${args[i + 1]}") ;;
		-plugin) for part in ${args[i + 1]//,/ }; do case $part in file=* | map=*) files+=("${part#*=}") ;; esac; done ;;
		esac
	done
	cell_hash "${files[@]}" "${wfiles[@]}" "${fwfiles[@]}"
	# QEMU's version string, memoised by its binary's content
	vmemo=$LAB_CELLS/.sha-memo/qemu-version-${CELL_SHA[$qemu_bin]}
	if [[ -z ${_CELL_QEMU_VERSION[$vmemo]:-} ]]; then
		[[ -s $vmemo ]] || { "$qemu_bin" --version | head -1 >"$vmemo.$$" && mv "$vmemo.$$" "$vmemo"; }
		read -r version <"$vmemo"
		_CELL_QEMU_VERSION[$vmemo]=$version
	fi
	version=${_CELL_QEMU_VERSION[$vmemo]}
	echo "schema=$LAB_CELL_SCHEMA"
	echo "state=$state"
	echo "state_file_sha256=${CELL_SHA[$LAB_ROOT/workloads/states/$state.state]}"
	echo "workloads=$workloads"
	echo "profile=$profile"
	for f in "${wfiles[@]}"; do echo "workload_file=${f##*/} ${CELL_SHA[$f]}"; done
	echo "script=$script"
	[[ -z $script ]] || echo "script_sha256=${CELL_SHA[$LAB_ROOT/guest/scripts/$script.sh]}"
	echo "runtime=$runtime"
	echo "seed=$seed"
	echo "cmdline=$cmdline"
	echo "qemu_version=$version"
	echo "qemu_sha256=${CELL_SHA[$qemu_bin]}"
	for f in "${fwfiles[@]}"; do echo "firmware=${f##*/} ${CELL_SHA[$f]}"; done
	for ((i = 0; i < ${#args[@]}; i++)); do
		a=${args[i]}
		case $a in
		-kernel | -initrd)
			i=$((i + 1))
			echo "qemu_arg=$a"
			echo "qemu_arg=sha256:${CELL_SHA[${args[i]}]}"
			;;
		-plugin)
			# file= and map= by content, out= dropped (an output path), the rest as given
			i=$((i + 1))
			echo "qemu_arg=$a"
			printf 'qemu_arg='
			for part in ${args[i]//,/ }; do
				case $part in
				file=* | map=*) printf '%s=sha256:%s,' "${part%%=*}" "${CELL_SHA[${part#*=}]}" ;;
				out=*) printf 'out=<out>,' ;;
				*) printf '%s,' "$part" ;;
				esac
			done
			echo
			;;
		*) echo "qemu_arg=${a//"$out"/<out>}" ;;
		esac
	done
}

cell_key() { local k _; read -r k _ < <(sha256sum "$1"); echo "$k"; }
# _cell_dir KEY: the entry's directory in REPLY (no fork: the hit path calls
# it per boot); cell_dir KEY prints it
_cell_dir() { REPLY=$LAB_CELLS/$1; }
cell_dir() { _cell_dir "$1"; echo "$REPLY"; }

# cell_lookup KEY: status 0 if a complete, intact entry exists. A damaged one
# (missing files, a sha256 mismatch, a record that is not its key) is named in
# a warning and removed, so the caller recomputes and stores it afresh.
cell_lookup() {
	local key=$1 d why=""
	_cell_dir "$key"
	d=$REPLY
	[[ -d $d ]] || return 1
	if [[ ! -f $d/sha256sums || ! -f $d/record || ! -f $d/outcome ]]; then
		why="missing files"
	elif ! (cd "$d" && sha256sum --quiet --strict -c sha256sums >/dev/null 2>&1); then
		why="sha256 mismatch: $(cd "$d" && sha256sum --quiet -c sha256sums 2>/dev/null | head -1)"
	elif [[ $(cell_key "$d/record") != "$key" ]]; then
		why="record does not hash to its key"
	fi
	[[ -z $why ]] && return 0
	log "cell store: WARNING: entry $key is corrupt ($why); removed, the cell is recomputed"
	cell_discard "$d"
	return 1
}

# cell_lookup_many KEY...: cell_lookup for many keys in a few processes (a
# warm matrix restores hundreds of boots at once): CELL_INTACT[KEY]=1 for each
# complete, intact entry; a damaged one goes through cell_lookup (warned of,
# removed) and stays out
declare -gA CELL_INTACT=()
# shellcheck disable=SC2034 # CELL_INTACT: read by the caller
cell_lookup_many() {
	local key d sums=() l
	local -A bad=()
	CELL_INTACT=()
	for key in "$@"; do
		_cell_dir "$key"
		d=$REPLY
		[[ -d $d ]] || continue
		CELL_INTACT[$key]=1
		if [[ -f $d/sha256sums && -f $d/record && -f $d/outcome ]]; then sums+=("$d/sha256sums"); else bad[$key]=1; fi
	done
	# one check of every entry's files against its sums (paths made
	# absolute), and of its record against its key: sha256sum names each
	# file that fails, and its entry is left to cell_lookup
	if ((${#sums[@]})); then
		while IFS= read -r l; do
			[[ $l == *": FAILED"* ]] || continue
			l=${l#"$LAB_CELLS/"}
			bad[${l%%/*}]=1
		done < <(awk '{ d = FILENAME; sub(/\/sha256sums$/, "", d); print $1 "  " d "/" $2 }
			FNR == 1 { k = d; sub(/.*\//, "", k); print k "  " d "/record" }' "${sums[@]}" |
			sha256sum --quiet --strict -c - 2>/dev/null || true)
	fi
	for key in "${!bad[@]}"; do
		unset "CELL_INTACT[$key]"
		cell_lookup "$key" || true
	done
}

# cell_discard DIR: rename out of the store's namespace first (atomic), then delete
cell_discard() {
	local bad
	bad=$(mktemp -d "$LAB_CELLS/.bad.XXXXXX")
	mv -T "$1" "$bad/entry" 2>/dev/null || true
	rm -rf "$bad"
}

# cell_quarantine KEY: move an entry a rerun disagreed with out of the store,
# kept for inspection in $LAB_CELLS/.mismatch/; prints where it went
cell_quarantine() {
	local q
	q=$LAB_CELLS/.mismatch/$1.$(date +%Y%m%d-%H%M%S).$$
	mkdir -p "$LAB_CELLS/.mismatch"
	mv -T "$(cell_dir "$1")" "$q" 2>/dev/null && echo "$q"
}

# cell_outcome KEY NAME: a value from the entry's outcome file
cell_outcome() {
	local l
	_cell_dir "$1"
	while IFS= read -r l || [[ -n $l ]]; do [[ $l != "$2="* ]] || echo "${l#"$2="}"; done <"$REPLY/outcome"
}

# cell_restore KEY OUT [PLUGIN_OUT]: copy the stored guest output into OUT
# (and the plugin's output file to PLUGIN_OUT)
cell_restore() {
	local d f files=()
	_cell_dir "$1"
	d=$REPLY/out
	[[ -d $2 ]] || mkdir -p "$2"
	for f in console.log results.txt qemu.log; do
		[[ ! -f $d/$f ]] || files+=("$d/$f")
	done
	((${#files[@]} == 0)) || cp "${files[@]}" "$2/"
	if [[ -n ${3:-} && -f $d/plugin.out ]]; then cp "$d/plugin.out" "$3"; fi
	return 0
}

# cell_store KEY RECORD OUT STATUS QEMU_RC WALL [PLUGIN_OUT]: store a computed
# cell (the caller checked cell_storable). Built in a temp dir in the store and
# renamed into place: readers see a whole entry or none; of two writers of one
# key the first rename wins and the second drops its copy.
cell_store() {
	local key=$1 record=$2 out=$3 tmp f
	mkdir -p "$LAB_CELLS"
	tmp=$(mktemp -d "$LAB_CELLS/.tmp.XXXXXX")
	mkdir "$tmp/out"
	cp "$record" "$tmp/record"
	printf 'status=%s\nqemu_rc=%s\nwall_secs=%s\n' "$4" "$5" "$6" >"$tmp/outcome"
	for f in console.log results.txt qemu.log; do
		[[ -f $out/$f ]] && cp "$out/$f" "$tmp/out/$f"
	done
	[[ -n ${7:-} && -f $7 ]] && cp "$7" "$tmp/out/plugin.out"
	(cd "$tmp" && find record outcome out -type f | LC_ALL=C sort | xargs sha256sum >sha256sums)
	chmod -R a+rX "$tmp"
	if ! mv -T "$tmp" "$(cell_dir "$key")" 2>/dev/null; then
		rm -rf "$tmp"
	fi
}

# cell_compare KEY OUT [PLUGIN_OUT]: the files a rerun wrote against the stored
# ones, byte for byte; prints the names that differ, status 1 if any
cell_compare() {
	local d f bad=0
	d=$(cell_dir "$1")/out
	for f in console.log results.txt qemu.log; do
		if [[ -f $d/$f || -f $2/$f ]] && ! cmp -s "$d/$f" "$2/$f"; then
			echo "$f"
			bad=1
		fi
	done
	if [[ -f $d/plugin.out ]] && ! cmp -s "$d/plugin.out" "${3:-/nonexistent}"; then
		echo "plugin out"
		bad=1
	fi
	return "$bad"
}

# cell_verify_pick P: status 0 for a random share P (0..1) of calls
cell_verify_pick() {
	awk -v p="$1" -v r="$(od -An -N4 -tu4 /dev/urandom)" 'BEGIN { exit !(r / 4294967296 < p) }'
}

# Memos: the output of a deterministic analysis step (a report section), kept
# beside the cells in $LAB_CELLS/.memo/KIND/KEY with KEY.sum, under the sha256
# of everything the step reads (memo_key). A warm rerun, whose cells are the
# same bytes, reads them instead of recomputing. A memo whose content does not
# match its sum is removed, named in a warning, and computed again. Off with
# the cell store (LAB_NO_CELL_STORE=1).

# memo_key FILE_LIST TEXT [DIR...]: REPLY is the sha256 of TEXT and of the
# files named in FILE_LIST (one path a line), each named by its path below
# the first DIR it is in (so that a run's files key alike in any run dir); a
# file that does not exist counts by its name alone
memo_key() {
	local list=$1 text=$2 f
	shift 2
	# (the missing names found in this shell: no second process over the list)
	read -r REPLY _ < <({
		printf '%s\n%s\n' "$LAB_CELL_SCHEMA" "$text"
		xargs -r -d '\n' sha256sum 2>/dev/null <"$list" || true
		echo "missing:"
		while IFS= read -r f; do [[ -e $f ]] || echo "$f"; done <"$list"
	} | awk -v dirs="$*" 'BEGIN { n = split(dirs, d, " ") }
		{ for (i = 1; i <= n; i++) if ((p = index($0, d[i] "/"))) { $0 = substr($0, 1, p - 1) substr($0, p + length(d[i]) + 1); break } print }' | sha256sum)
}

# memo_stdout KIND KEY CMD...: CMD's stdout, from the memo when it holds an
# intact one, else CMD's, stored when CMD succeeds (status: CMD's)
memo_stdout() {
	local kind=$1 key=$2 m rc=0 st=()
	shift 2
	if [[ ${LAB_NO_CELL_STORE:-0} == 1 ]]; then
		"$@"
		return
	fi
	m=$LAB_CELLS/.memo/$kind
	if [[ -f $m/$key.sum ]]; then
		if (cd "$m" && sha256sum --quiet --strict -c "$key.sum" >/dev/null 2>&1); then
			cat "$m/$key"
			return 0
		fi
		log "warning: memo $m/$key does not match its sum: removed, computed again"
		rm -f "$m/$key" "$m/$key.sum"
	fi
	# (a store that cannot be written to only costs the memo)
	if ! mkdir -p "$m" 2>/dev/null; then
		"$@"
		return
	fi
	# the output goes out as it is made; the copy is stored only when the
	# step and the copy's every write succeeded (a full disk is the host's
	# failure: never stored, so never read back truncated)
	{
		"$@" | tee "$m/.$key.$$" 2>/dev/null
		st=("${PIPESTATUS[@]}")
	} || true
	rc=${st[0]}
	if ((rc == 0 && st[1] == 0)) && mv "$m/.$key.$$" "$m/$key" 2>/dev/null &&
		(cd "$m" && sha256sum "$key" >".$key.sum.$$" && mv ".$key.sum.$$" "$key.sum") 2>/dev/null; then
		:
	else
		rm -f "$m/.$key.$$" "$m/.$key.sum.$$"
	fi
	return "$rc"
}

# summary_setup: labstat and its summary arguments in SUMMARY_TOOL and
# SUMMARY_ARGS, once a process (scripts/analysis/summary.sh, and adaptive
# seeds, which summarise every round): the baseline, its seed control and the
# codegen control of each base tree from the catalog (lib/catalog.sh, sourced
# by the caller), as BASE=VARIANT,..., and the device-time workloads
summary_setup() {
	local base aa codegen
	[[ -z ${SUMMARY_TOOL:-} ]] || return 0
	SUMMARY_TOOL=$(host_tool tools "$LAB_CACHE/tools" labstat)
	base=$(roles_by_base baseline) aa=$(roles_by_base seed-control) codegen=$(roles_by_base codegen-control)
	# (no baseline in the catalog: the cells are summarised with no Δ)
	[[ -n $base ]] || log "summary: no variant has role=baseline in its meta (lib/catalog.sh): the summary has no Δ"
	SUMMARY_ARGS=(summary ${base:+-B "$base"} ${aa:+-a "$aa"} ${codegen:+-g "$codegen"} -b "$LAB_DEFAULT_BASE" -D "$(device_time_workloads)")
}

# summary_of CELLS: labstat's summary of CELLS on stdout (status: labstat's).
# It is a pure function of CELLS, labstat and its arguments: memoised under
# their sha256 (memo_stdout), so a warm rerun of a matrix reads it back.
summary_of() {
	local key
	summary_setup
	read -r key _ < <({ sha256sum "$SUMMARY_TOOL" "$1" | cut -d' ' -f1; printf '%s\n' "${SUMMARY_ARGS[@]}"; } | sha256sum)
	memo_stdout summary "$key" "$SUMMARY_TOOL" "${SUMMARY_ARGS[@]}" "$1"
}
