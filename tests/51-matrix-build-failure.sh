#!/bin/bash
# A kernel that fails to build fails its own boots, not the run: in a matrix
# of upstream and a variant whose patch does not apply, upstream's cell is
# measured, the broken variant's boots are left unrun (so --resume redoes
# them), the failure is named with its log, and the matrix exits non-zero.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if quick; then
	skip "a failed kernel build fails only its boots (builds and boots)" "--quick"
	exit 0
fi
tmp=$(mktemp -d)
v=lab-test-unbuildable
trap 'rm -rf "$tmp" "$LAB_CACHE/build-$v.lock"' EXIT
export LAB_RESULTS=$tmp/results LAB_VARIANTS=$tmp/variants
# upstream as it is (same series, so its cached build is reused) and a
# variant whose only patch has a context line that is not in the tree
mkdir -p "$LAB_VARIANTS/$v"
cp -r "$LAB_ROOT/kernel/variants/upstream" "$LAB_VARIANTS/"
# the patch that carries the context line (find's order is the directory's,
# not the series'; a patch without the line would apply and pass as "bad")
good=$(grep -l '^ 	ret = def->issue(req, issue_flags);' "$LAB_ROOT"/kernel/variants/rfc/*.patch | head -1)
sed 's/^ \tret = def->issue(req, issue_flags);/ \tret = no_such_context_line(req);/' "$good" >"$LAB_VARIANTS/$v/0001-bad.patch"
if cmp -s "$good" "$LAB_VARIANTS/$v/0001-bad.patch"; then
	not_ok "the test's broken patch differs from $good (the sed matched nothing)"
	exit 0
fi
echo 0001-bad.patch >"$LAB_VARIANTS/$v/series"
echo "does not apply: for tests/51 only" >"$LAB_VARIANTS/$v/README"
rc=0
"$LAB_ROOT/run.sh" matrix --variants "upstream,$v" --states off --workloads bench-nop --reps 1 --runtime 1 \
	--profile none --run-id broken >"$tmp/log" 2>&1 || rc=$?
d=$LAB_RESULTS/broken
check "matrix exits non-zero when a kernel fails to build (rc $rc)" test "$rc" -ne 0
if grep -q "^upstream,off,bench-nop,1,1,[^,]*,ok," "$d/cells.csv" 2>/dev/null; then
	ok "the kernel that built is still measured"
else
	tail -15 "$tmp/log"
	not_ok "the kernel that built is still measured"
fi
check "no cells for the kernel that failed to build" bash -c "! ls '$d/cells/$v'.* 2>/dev/null | grep -q ."
check "the failure names the kernel and its build log" grep -q "kernel $v failed to build (rc [0-9]*, log $d/raw/build-$v.log)" "$tmp/log"
check "the build log holds the failing patch's name" grep -q '0001-bad.patch does not apply' "$d/raw/build-$v.log"
# (2: its timed boot and its attribution boot, both boots of the one plan)
check "the run says how many boots were not run and how to resume" grep -q "2 boots not run: kernel(s) $v failed to build; .*--resume broken" "$tmp/log"
