#!/bin/bash
# Static checks: shellcheck on every script, the C tools build -Werror clean,
# every patch is a real format-patch with a subject, a why and a Signed-off-by.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$LAB_ROOT"

mapfile -t scripts < <( { git ls-files '*.sh' run.sh .ci/run 2>/dev/null; find . -name '*.sh' -not -path './.git/*' | sed 's|^\./||'; } | sort -u)
# one shellcheck per script, as many at once as there are CPUs (-x follows
# sourced files, so a script is checked with what it sources). A clean
# result is a function of the script, the files scripts source (every file a
# '# shellcheck source=' line names) and shellcheck's version: it is kept in
# $LAB_CACHE/lint-clean under those hashes and not recomputed (a script with
# findings is always checked again)
memo=$LAB_CACHE/lint-clean
mkdir -p "$memo"
mapfile -t sourced < <(for s in "${scripts[@]}"; do
	sed -n 's/.*# shellcheck source=\([^ ]*\).*/\1/p' "$s" | while read -r f; do
		for c in "$f" "$(dirname "$s")/$f"; do [[ -f $c ]] && realpath --relative-to=. "$c"; done
	done
done | sort -u)
ctx=$({ shellcheck --version; cat "${sourced[@]}"; } | sha256sum | cut -c1-16)
todo=() keys=()
while read -r sha f; do
	if [[ -e $memo/$sha-$ctx ]]; then continue; fi
	todo+=("$f") keys+=("$sha-$ctx")
done < <(sha256sum "${scripts[@]}")
if ((${#todo[@]} == 0)); then
	ok "shellcheck clean (${#scripts[@]} scripts, all unchanged since a clean check: $memo)"
elif out=$(printf '%s\0' "${todo[@]}" | xargs -0 -n 4 -P "$(nproc)" shellcheck -x 2>&1); then
	for k in "${keys[@]}"; do : >"$memo/$k"; done
	ok "shellcheck clean (${#scripts[@]} scripts, ${#todo[@]} checked, the rest unchanged since a clean check)"
else
	printf '%s\n' "$out" | head -40
	not_ok "shellcheck clean"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# guest tools (bench/) and host tools (tools/; the plugin is a .so, built
# and checked by tests/63)
for c in bench/*.c tools/*.c; do
	t=$(basename "$c" .c)
	d=$(dirname "$c")
	grep -q "^\$(O)/$t:" "$d/Makefile" || continue
	if out=$(make -s -C "$d" O="$tmp" "$tmp/$t" 2>&1); then
		ok "$c builds with -Wall -Wextra -Werror"
	else
		printf '%s\n' "$out" | head -20
		not_ok "$c builds with -Wall -Wextra -Werror"
	fi
	# (grep reads all of it: -q would stop early, and a SIGPIPE fail the pipe)
	if "$tmp/$t" -h 2>&1 | grep -i usage >/dev/null; then ok "$t -h prints usage"; else not_ok "$t -h prints usage"; fi
done

for v in $(known_variants); do
	vdir=kernel/variants/$v
	check "variant $v has a README" test -s "$vdir/README"
	check "variant $v meta says what the runtime-disable phase expects (tests/62, the report)" \
		grep -qE '^runtime-disable=(bug|survives)$' "$vdir/meta"
	while read -r p; do
		f=$vdir/$p
		if head -1 "$f" | grep -q '^From [0-9a-f]\{40\} ' && grep -q '^Subject: \[PATCH' "$f" &&
			grep -q '^Signed-off-by: .* <.*>' "$f" &&
			[[ $(sed -n '/^Subject:/,/^---$/p' "$f" | wc -l) -gt 5 ]]; then
			ok "$v/$p is a format-patch with subject, rationale and Signed-off-by"
		else
			not_ok "$v/$p is a format-patch with subject, rationale and Signed-off-by"
		fi
	done < <(series_patches "$vdir/series")
done
