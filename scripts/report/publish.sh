#!/bin/bash
# publish.sh RUN_DIR: make a finished run the lab's published run.
# RUN_DIR is a run directory (results/<run-id> of this or another clone).
#  1. refuses a run whose manifest says it is not publishable (made from a
#     tree with uncommitted changes) or that has no cells.csv;
#  2. copies it to results/<run-id>/ (unless it is already there);
#  3. packs its raw files (raw/, cells/, attribution/, proof/) into raw.tar.xz,
#     reproducibly (sorted names, fixed owner and mtime);
#  4. recomputes summary.csv, plots and report.md with this tree's scripts;
#  5. names it in results/PUBLISHED.
# Then commit it: git add results/<run-id> && git add -f results/<run-id>/raw.tar.xz
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

src=${1:-}
[[ -n $src ]] || die_usage "usage: run.sh publish RUN_DIR (a results/<run-id> directory)"
[[ -d $src ]] || die_usage "publish: $src is not a directory; give a run directory such as results/<run-id>"
src=$(cd "$src" && pwd)
run=$(basename "$src")
dest=$(results_dir "$run")
# never through a link: one planted in a run dir would redirect a write
refuse_links "$src"
[[ ! -e $dest ]] || refuse_links "$dest"
[[ -f $src/cells.csv && -f $src/manifest.json ]] ||
	die_usage "publish: $src has no cells.csv or manifest.json; it is not a finished run"
# (not jq's //: it takes false for missing)
publishable=$(jq -r 'if (.lab | has("publishable")) then .lab.publishable else "unknown" end' "$src/manifest.json")
if [[ $publishable == false ]]; then
	die_usage "publish: $run was made from a tree with uncommitted changes (manifest lab.publishable=false, see its uncommitted.diff); rerun it from a clean commit"
fi
if [[ $publishable == unknown ]]; then
	# manifests before lab.publishable counted the run's own results dir as
	# uncommitted; say what they record and let the reader judge
	log "publish: note: $run's manifest predates lab.publishable (it records $(jq -r '.lab.uncommitted_files // "?"' "$src/manifest.json") uncommitted file(s))"
fi

if [[ $src != "$dest" ]]; then
	[[ ! -e $dest ]] || die_usage "publish: $dest already exists; remove it or publish that directory"
	mkdir -p "$(dirname "$dest")"
	# a copy whose summary, plots or report then fail is removed again:
	# nothing half-published is left in results/
	trap 'rm -rf "$dest.tmp" "$dest"' EXIT
	cp -a "$src" "$dest.tmp"
	mv "$dest.tmp" "$dest"
	log "publish: copied $src to $dest"
fi

packed=()
for d in raw cells attribution proof; do [[ -d $dest/$d ]] && packed+=("$d"); done
if ((${#packed[@]})); then
	save "$dest/raw.tar.xz" tar -C "$dest" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-cJf - "${packed[@]}"
	log "publish: $dest/raw.tar.xz ($(du -h "$dest/raw.tar.xz" | cut -f1): ${packed[*]})"
elif [[ ! -f $dest/raw.tar.xz ]]; then
	log "publish: warning: $run has no raw/, cells/ or attribution/ to pack"
fi

"$LAB_ROOT/scripts/analysis/summary.sh" "$run"
"$LAB_ROOT/scripts/report/plots.sh" "$run"
"$LAB_ROOT/scripts/report/report.sh" "$run"
published=${LAB_RESULTS:-$LAB_ROOT/results}/PUBLISHED
save "$published" echo "$run"
trap - EXIT
log "publish: $run is the published run (results/PUBLISHED)"
log "publish: commit it with: git add results/$run results/PUBLISHED && git add -f results/$run/raw.tar.xz"
