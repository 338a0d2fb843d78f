# shellcheck shell=bash
# shellcheck disable=SC2034 # variables here are used by the scripts that source this
# Shared paths and helpers for the lab's scripts. Sourced, never run.

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_CACHE=${LAB_CACHE:-$HOME/.cache/uring-audit-lab}
LAB_SRC_TARBALL=${LAB_SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
LAB_PRISTINE=$LAB_CACHE/src/linux-source-6.1
LAB_JOBS=${LAB_JOBS:-$(nproc)}
# Each variant builds in O=<tree>/$LAB_BUILD_SUBDIR: a build dir inside the
# source tree makes kbuild use srctree=.. (relative paths), so ccache hits
# across variants whose trees live at different absolute paths.
LAB_BUILD_SUBDIR=lab-build
export LAB_ROOT LAB_CACHE
# guest-only Debian packages, unpacked (never installed) by scripts/run/setup.sh
LAB_GUEST_DEBS=${LAB_GUEST_DEBS:-$LAB_CACHE/guest-debs}
LAB_AUDITCTL=$LAB_GUEST_DEBS/auditd/root/sbin/auditctl
# scale-out tools (GNU parallel; sshd and Slurm for the tests), unpacked by
# scripts/run/setup.sh --host-debs GROUP into $LAB_HOST_DEBS/GROUP/root
LAB_HOST_DEBS=$LAB_CACHE/host-debs
# the peer suite (issue 25, peer/): Debian's liburing source package, this
# version, whose .dsc must have this sha256; unpacked by scripts/run/setup.sh
# --peer-src into $LAB_PEER_SRC/tree
LAB_PEER_VERSION=2.3-3
LAB_PEER_DSC_SHA256=1eefd4e81c0c3c767ccc95adcb6a37d184418ea127dd9e8b68624ae911f2f66d
LAB_PEER_SRC=${LAB_PEER_SRC:-$LAB_CACHE/peer-src}

# LAB_TREES and LAB_VARIANTS let the tests apply series into scratch space
LAB_TREES=${LAB_TREES:-$LAB_CACHE/trees}
tree_of() { echo "$LAB_TREES/$1"; }
build_of() { echo "$LAB_TREES/$1/$LAB_BUILD_SUBDIR"; }

log() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# usage errors (bad input from the user) exit 2, like the dispatcher
die_usage() { printf 'error: %s\n' "$*" >&2; exit 2; }

# Seconds since epoch, and a human duration.
now() { date +%s; }
fmt_secs() {
	local s=$1
	if ((s >= 60)); then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}

# progress STEP TOTAL START_EPOCH WHAT: "[n/N] what (elapsed 1m02s, ETA 3m10s)"
progress() {
	local n=$1 total=$2 start=$3 what=$4 el eta=""
	el=$(($(now) - start))
	if ((n > 1)); then
		eta=", ETA $(fmt_secs $((el * (total - n + 1) / (n - 1))))"
	fi
	log "[$n/$total] $what (elapsed $(fmt_secs "$el")$eta)"
}

# check_name KIND NAME: every name the user gives (variant, state, workload,
# run id) is data, never a path or code: [a-z0-9][a-z0-9-]*, so it resolves
# inside its own directory. The one validator; the check_* below and the
# scripts that take run ids call it. A base tree (kind base) is a Debian
# linux-source version instead: digits, one dot, digits (6.1, 6.12).
check_name() {
	if [[ $1 == base ]]; then
		[[ $2 =~ ^[0-9]+\.[0-9]+$ ]] ||
			die_usage "bad base name '$2': a Debian linux-source version such as 6.1 or 6.12"
		return 0
	fi
	[[ $2 =~ ^[a-z0-9][a-z0-9-]*$ ]] ||
		die_usage "bad $1 name '$2': use lowercase letters, digits and '-' (starting with a letter or digit), no paths"
}

# check_list KIND LIST: a comma list of names (--variants a,b, variants= in a
# matrix.conf): every entry a name (check_name), none empty, none twice
check_list() {
	local kind=$1 list=$2 x seen=, xs=()
	[[ -n $list && $list != ,* && $list != *, && $list != *,,* ]] ||
		die_usage "bad $kind list '$list': an empty entry (give names separated by single commas)"
	IFS=, read -ra xs <<<"$list"
	for x in "${xs[@]}"; do
		check_name "$kind" "$x"
		[[ $seen != *,"$x",* ]] || die_usage "bad $kind list '$list': '$x' is given twice"
		seen+=$x,
	done
}

# The bounds of every number a user gives, in one place: NAME -> "MIN MAX"
declare -A LAB_BOUNDS=([reps]="1 100" [runtime]="1 3600" [jobs]="1 64" [seed]="0 100000" [seed-base]="0 98000" [timeout]="1 86400")
# check_number NAME VALUE: VALUE is a whole number within NAME's LAB_BOUNDS
check_number() {
	local lo hi
	read -r lo hi <<<"${LAB_BOUNDS[$1]}"
	if ! [[ $2 =~ ^[0-9]{1,9}$ ]] || ((10#$2 < lo || 10#$2 > hi)); then
		die_usage "--$1 must be a whole number from $lo to $hi (got '$2')"
	fi
}

# need_value OPTION ARGS...: called as need_value "$@" on an option that takes
# a value: one clear line when the value is missing
need_value() {
	[[ $# -ge 2 && -n $2 && $2 != --* ]] || die_usage "$1 needs a value (see ./run.sh help)"
}

# no_more_args COMMAND ARGS...: COMMAND takes no further arguments
no_more_args() {
	local c=$1
	shift
	(($# == 0)) || die_usage "$c: unexpected argument '$1' (see ./run.sh help)"
}

# run_read_only DIR: print why the run in DIR may not be written (it is the
# published run, or git tracks files in it) and succeed; fail if it may be
run_read_only() {
	local d=$1 published
	published=$(cat "${LAB_RESULTS:-$LAB_ROOT/results}/PUBLISHED" 2>/dev/null || true)
	if [[ -n $published && $(basename "$d") == "$published" ]]; then
		echo "it is the published run (results/PUBLISHED)"
	elif [[ -n $(git -C "$d" ls-files -- . 2>/dev/null | head -1) ]]; then
		echo "git tracks its files (a committed run)"
	else
		return 1
	fi
}

# refuse_links DIR: die if DIR holds a symbolic link; the lab writes into run
# dirs and never follows a link there (a planted link would redirect a write)
refuse_links() {
	local l
	l=$(find "$1" -type l -print -quit 2>/dev/null)
	[[ -z $l ]] || die "$l is a symbolic link; the lab never writes through links in a run dir (remove it)"
}

# save FILE CMD [ARGS...]: CMD's stdout becomes FILE, atomically: written to
# a new temp file (mktemp, in FILE's dir: never an existing file or a link)
# and moved over FILE (mv -T) only if CMD and every write succeeded. A
# failure (a full disk) leaves FILE as it was, no temp file, and one line.
# CMD runs under set -e of its own; do not call save after || or && (bash
# would turn that off), it dies itself.
save() {
	local f=$1 t rc full
	shift
	[[ ! -L $f ]] || die "$f is a symbolic link; the lab never writes through a link"
	t=$(mktemp "$(dirname "$f")/.$(basename "$f").XXXXXX" 2>/dev/null) ||
		die "cannot create a file in $(dirname "$f") for $(basename "$f")$(df_free "$(dirname "$f")")"
	set +e
	(set -e; "$@" >"$t")
	rc=$?
	set -e
	if ((rc == 0)); then chmod 644 "$t" && mv -T "$t" "$f" || rc=$?; fi
	if ((rc)); then
		rm -f "$t"
		# a full disk is named here; any other failure was the command's,
		# which said why: its status is passed on, FILE left as it was
		full=$(df_free "$(dirname "$f")")
		[[ -z $full ]] || die "writing $f failed$full; it is left as it was"
		exit "$rc"
	fi
}
# df_free DIR: ": no space left on DEVICE, free N MB" when DIR's file system
# is (nearly) full, else nothing
df_free() {
	df -Pm "$1" 2>/dev/null | awk 'NR == 2 && $4 + 0 < 2 { printf ": no space left on %s, free %s MB", $1, $4 }'
}

# results_dir RUN: the run's directory under results/, RUN checked first
results_dir() {
	check_name run-id "$1"
	echo "${LAB_RESULTS:-$LAB_ROOT/results}/$1"
}

variants_dir() { echo "${LAB_VARIANTS:-$LAB_ROOT/kernel/variants}"; }

# Base trees: a variant's series applies to the Debian linux-source-BASE tree
# its series file names in a '# base: BASE' line (default LAB_DEFAULT_BASE).
# BASE's tarball is /usr/src/linux-source-BASE.tar.xz (Debian package
# linux-source-BASE; LAB_SRC_TARBALL overrides the default base's), its
# pristine tree $LAB_CACHE/src/linux-source-BASE.
LAB_DEFAULT_BASE=6.1
variant_base() {
	variants_load
	local b=${_VAR_BASE[$1]-}
	b=${b:-$LAB_DEFAULT_BASE}
	[[ $b =~ ^[0-9]+\.[0-9]+$ ]] || die "variant $1: bad '# base: $b' line in its series (use a Debian linux-source version such as 6.1 or 6.12)"
	echo "$b"
}
# csv_bases CSV: the base trees of a cells.csv or summary.csv (its base
# column; a file without one, a run from before issue 23, is on the default
# base), oldest first, one a line
csv_bases() {
	awk -F, -v d="$LAB_DEFAULT_BASE" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "base") k = i; next }
		{ print (k && $k != "") ? $k : d }' "$1" | sort -u -V
}
base_tarball() { if [[ $1 == "$LAB_DEFAULT_BASE" ]]; then echo "$LAB_SRC_TARBALL"; else echo "/usr/src/linux-source-$1.tar.xz"; fi; }
base_pristine() { echo "$LAB_CACHE/src/linux-source-$1"; }
# run_streams [RUN_DIR]: the record-stream verdicts a report shows: RUN_DIR's
# own proof boots (streams.txt, scripts/proof/stream-proofs.sh) when it has
# them, else the committed tests/61 record; nothing if neither exists
run_streams() {
	local f
	for f in ${1:+"$1/streams.txt"} "$LAB_ROOT/tests/data/streams/verdicts-tcg.txt"; do
		[[ -f $f ]] && { echo "$f"; return 0; }
	done
	return 0
}
# unlink_file FILE: give FILE (hard-linked from the pristine tree, cp -al) an
# inode of its own, same content and mtime, so that patch or touch cannot
# write through to the pristine tree (kernel/prepare-tree.sh, kernel/build.sh)
unlink_file() { cp -p "$1" "$1.unlink" && mv "$1.unlink" "$1"; }

# series_patches SERIES_FILE: the patch file names a series lists, in order
# ('#' comments, the '# base:' line among them, and blank lines ignored).
# The one reader of series files.
series_patches() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }

# The variants dir is read once per shell, and again when LAB_VARIANTS
# points elsewhere: each variant (a folder with a series) with its series'
# first '# base:' value and its meta's key=value lines (the last of a key
# wins; '#' lines are comments), so a catalog lookup (lib/catalog.sh) is an
# array read rather than a sed (the warm matrix made ~3,000 of them). A
# shell that changes a variant folder after a lookup calls variants_reload.
declare -gA _VAR_BASE=() _VAR_META=()
_VAR_DIR="" _VAR_NAMES=""
variants_load() {
	local d=${LAB_VARIANTS:-$LAB_ROOT/kernel/variants} kind v k val
	[[ $d == "$_VAR_DIR" ]] && return 0
	_VAR_BASE=() _VAR_META=() _VAR_NAMES=""
	while IFS=$'\t' read -r kind v k val; do
		if [[ $kind == V ]]; then
			_VAR_NAMES+="$v "
			_VAR_BASE[$v]=$k
		else
			_VAR_META[$v|$k]=$val
		fi
	done < <(shopt -s nullglob; f=("$d"/*/series "$d"/*/meta); ((${#f[@]})) && awk '
		function vname(f) { sub(/\/[^\/]*$/, "", f); sub(/.*\//, "", f); return f }
		FNR == 1 { v = vname(FILENAME); series = FILENAME ~ /\/series$/; if (series) { names[++n] = v; base[v] = "" } }
		series && !(v in got) && match($0, /^#[[:space:]]*base:[[:space:]]*/) { b = substr($0, RLENGTH + 1); sub(/[[:space:]].*/, "", b); base[v] = b; got[v] = 1 }
		!series && /^[A-Za-z0-9_-]+=/ { k = $0; sub(/=.*/, "", k); val = substr($0, length(k) + 2); meta[v "\t" k] = val }
		END {
			for (i = 1; i <= n; i++) printf "V\t%s\t%s\t\n", names[i], base[names[i]]
			for (m in meta) printf "M\t%s\t%s\n", m, meta[m]
		}' "${f[@]}")
	_VAR_DIR=$d
}

# variants_reload: read the variants dir again at the next lookup (after this
# shell added or changed a variant folder: run.sh try's temporary variant)
variants_reload() { _VAR_DIR=""; }

known_variants() {
	variants_load
	local v
	for v in $_VAR_NAMES; do echo "$v"; done
}

# check_variant NAME: exit 2 with the list of known variants if NAME is not one.
check_variant() {
	local v=$1
	[[ -z $v ]] || check_name variant "$v"
	if [[ -z $v || ! -f $(variants_dir)/$v/series ]]; then
		die_usage "unknown variant '$v'; known: $(known_variants | tr '\n' ' ')"
	fi
}

# The kernel-trouble patterns (lib/kernel-trouble.txt) without comments and
# blank lines, as grep -E -f reads them; the guest init reads the same file.
LAB_KERNEL_TROUBLE=$LAB_ROOT/lib/kernel-trouble.txt
# kernel_trouble LOG: print LOG's lines that report kernel trouble (BUG, oops,
# warning, lockdep, KASAN, hung task...); status 0 if there is any, 1 if none
kernel_trouble() {
	grep -E -f <(grep -Ev '^[[:space:]]*(#|$)' "$LAB_KERNEL_TROUBLE") "$1"
}

sha256_of() { sha256sum "$@" | awk '{print $1}'; }

known_states() {
	local f
	for f in "$LAB_ROOT"/workloads/states/*.state; do basename "$f" .state; done
}

# check_state NAME: exit 2 with the list of known states if NAME is not one.
check_state() {
	[[ -z $1 ]] || check_name state "$1"
	[[ -n $1 && -f $LAB_ROOT/workloads/states/$1.state ]] ||
		die_usage "unknown state '$1'; known: $(known_states | tr '\n' ' ')"
	check_state_file "$LAB_ROOT/workloads/states/$1.state"
}

# What a workloads/states/*.state file may hold, checked here and nowhere
# else: comments, blank lines, STATE_NAME=value assignments (a value is
# plain text or "plain text": no $, `, \ or ;), and one state_setup function:
# either exactly 'state_setup() { :; }', or 'state_setup() {' on a line of its
# own, body lines holding no { or } (so no second function and no early
# close), and a line holding only '}'. Only the guest's /init runs
# state_setup. The host never sources a state file: it reads the STATE_*
# values as data with state_var.
check_state_file() {
	local f=$1 bad
	bad=$(awk '
		!infn && /^state_setup\(\) \{ :; \}$/ { if (seen++) { print FILENAME ":" NR ": a second state_setup"; err = 1; exit } next }
		!infn && /^state_setup\(\) \{$/ { if (seen++) { print FILENAME ":" NR ": a second state_setup"; err = 1; exit } infn = 1; next }
		infn && /^\}$/ { infn = 0; next }
		infn && /[{}]/ { print FILENAME ":" NR ": " $0 " (no { or } inside state_setup)"; err = 1; exit }
		infn { next }
		/^[[:space:]]*(#.*)?$/ { next }
		/^STATE_[A-Z_]+=("[^"$`\\;]*"|[^"$`\\; ]*)$/ { next }
		{ print FILENAME ":" NR ": " $0; err = 1; exit }
		END { if (infn && !err) print FILENAME ": state_setup() not closed by a line holding only }" }' "$f")
	[[ -z $bad ]] || die_usage "state file $bad: not allowed (see check_state_file in lib/common.sh)"
}

# state_var STATE NAME: the value of STATE_NAME in a state file, read as data
state_var() {
	local l val=""
	while IFS= read -r l || [[ -n $l ]]; do [[ $l != "$2="* ]] || val=${l#"$2="}; done <"$LAB_ROOT/workloads/states/$1.state"
	[[ ! $val =~ ^\"(.*)\"$ ]] || val=${BASH_REMATCH[1]}
	echo "$val"
}
# has_audit VARIANT: a kernel has audit unless its fragment turns it off
# (check-config.sh makes every fragment option stick), so it is known before
# the kernel is built; an A/A control (X-aa) is kernel X
# (memoised per variant in the shell that asks: a plan asks once per cell)
declare -gA _HAS_AUDIT=()
has_audit() {
	local v=${1%-aa}
	if [[ -z ${_HAS_AUDIT[$v]:-} ]]; then
		_HAS_AUDIT[$v]=y
		! grep -qsx '# CONFIG_AUDIT is not set\|CONFIG_AUDIT=n' "$(variants_dir)/$v/config" || _HAS_AUDIT[$v]=n
	fi
	[[ ${_HAS_AUDIT[$v]} == y ]]
}
# cell_na VARIANT STATE: the one n/a rule of every boot (timed, attribution,
# proof): a state that needs audit rules on a kernel without audit
declare -gA _NEEDS_AUDIT=()
cell_na() {
	[[ -n ${_NEEDS_AUDIT[$2]:-} ]] || _NEEDS_AUDIT[$2]=$(state_var "$2" STATE_NEEDS_AUDIT)
	[[ ${_NEEDS_AUDIT[$2]} == 1 ]] && ! has_audit "$1"
}

known_workloads() {
	local f
	for f in "$LAB_ROOT"/workloads/*.fio "$LAB_ROOT"/workloads/*.bench; do
		[[ -f $f ]] && basename "${f%.*}"
	done
}

# device_time_workloads: comma list of the workloads whose per-op count depends
# on device time (a "measure: device-time" line in the workload file): their
# deltas are not hook-cost measures and are never starred
device_time_workloads() {
	grep -lE '^[;#] *measure: *device-time' "$LAB_ROOT"/workloads/*.fio "$LAB_ROOT"/workloads/*.bench 2>/dev/null |
		sed 's|.*/||; s|\.[^.]*$||' | paste -sd, || true
}

# host_failed CELL_FILE...: the boots' cell files (cells/V.S.R.csv) whose
# rows say the host caused the failure (QEMU killed, past its deadline, or not
# starting): such a boot says nothing about the kernel and runs again
host_failed() { (($#)) || return 0; awk -F, '$7 ~ /^(killed|timeout|qemu-error)$/ && !seen[FILENAME]++ { print FILENAME }' "$@"; }

# run_seed SEED_BASE VARIANT REP: the seed rep REP of VARIANT boots with in a
# run: seed_base + rep, and seed_base + 1000 + rep for an A/A (-aa) variant.
# Extra reps (adaptive seeds) continue the same sequence. The one owner of
# the rule (scripts/run/matrix.sh, scripts/run/adaptive-seeds.sh, manifest.sh's layout).
run_seed() { if [[ $2 == *-aa ]]; then echo $(($1 + 1000 + $3)); else echo $(($1 + $3)); fi; }

# run_state_workloads WORKLOADS STATE: the workloads a boot in STATE runs:
# WORKLOADS (a run's --workloads) if given, else the state's STATE_WORKLOADS,
# else every workload
run_state_workloads() {
	if [[ -n $1 ]]; then echo "$1"; return; fi
	local wl
	wl=$(state_var "$2" STATE_WORKLOADS)
	echo "${wl:-$(known_workloads | paste -sd,)}"
}

# Adaptive seeds (issue 24; scripts/run/adaptive-seeds.sh, run by the matrix
# after its reps under tcg-icount). The rule, in one place: a hook-cost row
# (variant, state, workload) whose seeds are not exact (labstat's method
# rank-sum: a side's seeds spread by 0.01 instructions/op or more) is OPEN
# while its Hodges-Lehmann interval for the delta against the baseline is
# wider than LAB_ADAPT_WIDTH, or its delta moved by more than LAB_ADAPT_MOVE
# at the last batch; for a large delta both bounds grow with it, to
# LAB_ADAPT_REL x |delta| and a quarter of that (a record's ~14,800
# instructions need no 1-instruction interval: with the absolute bound alone
# every such row ran to the cap, 122 boots in round 1 of the 6.1 matrix). Each round, the variant of every open row gets
# LAB_ADAPT_BATCH more seeds in that state, and the state's baseline and its
# A/A control get as many seeds as the most-seeded variant there (a fair
# test: both sides sampled alike); nobody beyond LAB_ADAPT_CAP seeds. Rounds
# end when no row is open or every open row is at the cap. Exact rows never
# get a seed. Units: instructions/op (the run's unit).
LAB_ADAPT_BATCH=${LAB_ADAPT_BATCH:-2}
LAB_ADAPT_CAP=${LAB_ADAPT_CAP:-9}
LAB_ADAPT_WIDTH=${LAB_ADAPT_WIDTH:-1.0}
LAB_ADAPT_MOVE=${LAB_ADAPT_MOVE:-0.25}
LAB_ADAPT_REL=${LAB_ADAPT_REL:-0.02}

check_workload() {
	[[ -z $1 ]] || check_name workload "$1"
	[[ -n $1 && ( -f $LAB_ROOT/workloads/$1.fio || -f $LAB_ROOT/workloads/$1.bench ) ]] ||
		die_usage "unknown workload '$1'; known: $(known_workloads | tr '\n' ' ')"
}

# Accelerators, in one place. tcg is TCG with icount (guest ns = executed
# instructions: deterministic, so cells are stored and guests run in
# parallel). kvm and tcg-wall are the real-time accelerators: guest time is
# host time, figures are wall-clock ns, and every real-time run takes one
# path (accel_realtime): kernels built first, one guest at a time whatever
# --jobs says, variant order rotated per rep (boot_order), no cell store,
# the median with a bootstrap CI at n >= 10 (tools/labstat). tcg-wall is TCG
# without icount: the KVM user's path, exercised on machines without KVM;
# its ns are wall-clock under emulation, not hardware ns. The QEMU arguments
# of each are guest/boot.sh's (boot.sh --accel-args ACCEL prints them).
LAB_ACCELS="kvm tcg tcg-wall"
# check_accel VALUE [auto]: VALUE is an accelerator (or auto, when allowed)
check_accel() {
	local all="$LAB_ACCELS${2:+ $2}" list
	list=${all// /, }
	[[ -n $1 && " $all " == *" $1 "* ]] ||
		die_usage "--accel must be ${list%, *} or ${list##*, } (got '$1')"
}
accel_realtime() { [[ $1 == kvm || $1 == tcg-wall ]]; }
# accel_unit ACCEL: the unit of ns_per_op under ACCEL
accel_unit() { if accel_realtime "$1"; then echo ns; else echo instructions; fi; }
# accel_label ACCEL: how summaries, plots and the report name ACCEL
accel_label() {
	case $1 in
	tcg) echo tcg-icount ;;
	tcg-wall) echo "wall-clock under emulation (tcg-wall)" ;;
	*) echo "$1" ;;
	esac
}
# accel_unit_meaning ACCEL: what one unit of ns_per_op is (manifest, report)
accel_unit_meaning() {
	case $1 in
	tcg) echo 'guest ns under tcg-icount shift=0 = executed guest instructions' ;;
	kvm) echo 'guest wall-clock ns (KVM)' ;;
	tcg-wall) echo 'guest wall-clock ns under TCG emulation without icount (tcg-wall): real time on this host, slowed by emulation, not hardware ns' ;;
	esac
}
# boot_order ACCEL: how a matrix orders its boots: rep-major under tcg-icount
# (order moves no figure there); interleaved under a real-time accel: the
# variant order rotates by one every rep, so a drift of the host over the run
# hits every variant alike
boot_order() { if accel_realtime "$1"; then echo interleaved; else echo rep-major; fi; }

# run_accel_unit RUN_DIR SUMMARY_CSV UNKNOWN_LABEL: set accel, unit and
# accel_label for a results dir: the accelerator from manifest.json, else the
# summary's accel column; the unit from cells.csv's ns_per_op_unit, else
# derived from the accelerator. Shared by scripts/report/plots.sh and report.sh.
run_accel_unit() {
	local dir=$1 summary=$2 unknown=$3
	# first non-empty value of column NAME in FILE
	first_of() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) k = i; next } k && $k != "" { print $k; exit }' "$2"; }
	accel=""
	[[ -f $dir/manifest.json ]] && accel=$(jq -r '.accel // empty' "$dir/manifest.json" 2>/dev/null || true)
	[[ -n $accel ]] || accel=$(first_of accel "$summary")
	unit=""
	[[ -f $dir/cells.csv ]] && unit=$(first_of ns_per_op_unit "$dir/cells.csv")
	[[ -n $unit || -z $accel ]] || unit=$(accel_unit "$accel")
	[[ -n $unit ]] || unit=ns
	if [[ -n $accel ]]; then accel_label=$(accel_label "$accel"); else accel_label=$unknown; fi
}

# read_matrix_conf FILE: a run's matrix.conf, parsed as key=value data (never
# sourced); sets variants states workloads reps runtime accel profile
# seed_base (0 when the file predates it) and bases (empty when the file
# predates it: the bases of its variants).
# Shared by scripts/run/matrix.sh (--resume) and scripts/run/attribute.sh
# shellcheck disable=SC2154 # the keys are set by printf -v
read_matrix_conf() {
	local k v line
	seed_base=0 bases=""
	while IFS= read -r line || [[ -n $line ]]; do
		[[ -z $line ]] && continue
		k=${line%%=*} v=${line#*=}
		case $k in
		variants | states | workloads | reps | runtime | accel | profile | seed_base | bases) printf -v "$k" '%s' "$v" ;;
		*) die_usage "$1: unknown line '$line'" ;;
		esac
	done <"$1"
	# every value is checked as on the command line: names as names, never paths
	(check_accel "$accel") 2>/dev/null || die_usage "$1: accel must be one of $LAB_ACCELS (got '$accel')"
	check_list variant "$variants"
	check_list state "$states"
	[[ -z $bases ]] || check_list base "$bases"
	[[ -z $workloads ]] || check_list workload "$workloads"
	[[ $profile == none ]] || check_list workload "$profile"
	check_number reps "$reps"
	check_number runtime "$runtime"
	check_number seed-base "$seed_base"
}

# host_tool SRC OUTDIR NAME: build NAME (make -C $LAB_ROOT/SRC) into
# OUTDIR/ID/NAME and print its path, ID being the hash of SRC's files. The
# cache is shared between checkouts (and running matrices): a path named by
# the source's content is never rebuilt under a user of another source (a
# QEMU loading the plugin another checkout had just rebuilt from older
# source failed on an argument it did not know), and is written once, by a
# rename, so a reader never sees a half-written file.
host_tool() {
	local src=$LAB_ROOT/$1 id dir tmpd
	id=$(find "$src" -maxdepth 1 -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)
	dir=$2/$id
	if [[ ! -x $dir/$3 ]]; then
		mkdir -p "$dir"
		# one builder at a time (test files run in parallel share the cache)
		exec {lk}>"$dir/.build.lock"
		flock "$lk"
		if [[ ! -x $dir/$3 ]]; then
			tmpd=$(mktemp -d "$dir/.build.XXXXXX")
			if ! make -s -B -C "$src" O="$tmpd" "$tmpd/$3" >&2 || ! mv "$tmpd/$3" "$dir/$3"; then
				rm -rf "$tmpd"
				exec {lk}>&-
				die "building $3 failed (make -C $1)"
			fi
			rm -rf "$tmpd"
		fi
		exec {lk}>&-
	fi
	echo "$dir/$3"
}

variants_load
