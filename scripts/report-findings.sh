#!/bin/bash
# report-findings.sh: the report's "Findings" section (markdown on stdout):
# the runtime-disable BUG of upstream 6.1 and 6.12 with the commands that
# reproduce it, the recorded console excerpts (tests/data/consoles/
# runtime-disable-*.log, captured from real boots by tests/62-runtime-disable.sh
# runs), and the fix variant. Called by scripts/report.sh.
set -euo pipefail
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

fixdir=$(variants_dir)/upstream-fix
# (a lab without upstream-fix, e.g. the tests' fake variants dir, has no series: no patch)
patch=$(series_patches "$fixdir/series" 2>/dev/null | head -1 || true)
subject=""
[[ -n $patch && -f $fixdir/$patch ]] && subject=$(awk '/^Subject: / { sub(/^Subject: \[PATCH\] /, ""); s = $0; on = 1; next } on && /^[ \t]/ { s = s $0; next } { on = 0 } END { print s }' "$fixdir/$patch")

cat <<'EOT'
## Findings

### Upstream io_uring audit: kernel BUG when audit is disabled at runtime with an io_uring rule loaded

On the merged design (Debian linux-source-6.1, 6.1.192, and linux-source-6.12, 6.12.118, as is),
an io_uring-list rule plus `auditctl -e 0` makes every io-wq worker that runs an audited opcode
hit `BUG()` in `audit_log_exit()`: `audit_uring_entry()` is gated on `audit_enabled`,
`audit_uring_exit()` is not, a fresh io-wq worker's audit context is non-dummy and
`AUDIT_CTX_UNUSED`, `audit_filter_uring()` matches the rule, and `audit_log_exit()` has no case
for an unused context. The submitter then waits forever for its completions. Whether an
unprivileged user's io-wq OPENAT sets it off once root has loaded the rule and disabled audit is
not yet shown: the phase's uid 1000 part is skipped while the initramfs gives that user no shell.
The RFC as posted (variant rfc) hits the same BUG: its exit body tests neither `audit_enabled`
nor the context type. The static-key design survives (its audited path runs the exit only after
an entry that ran); rfc-placement, nohooks and noaudit survive too (tests/62-runtime-disable.sh).

Reproduce in a lab guest (as root; `uring-rule` is the lab's loader for the io_uring filter list,
audit 3.1's `auditctl -a always,io_uring -S all -k bug` does the same):

```
uring-rule add -k bug all                    # io_uring-list rule matching every opcode
auditctl -e 0                                # audit disabled at runtime, rule still loaded
uring-bench -m openclose -n 100 -i 0 -A      # OPENAT/CLOSE forced to io-wq (IOSQE_ASYNC)
```

or from the host, one boot per variant (guest/scripts/disable-bug.sh; `panic_on_oops` makes the
BUG end the boot at once):

```
guest/boot.sh --script disable-bug --out /tmp/db upstream idle       # 6.1
guest/boot.sh --script disable-bug --out /tmp/db612 upstream-6-12 idle
bash tests/62-runtime-disable.sh            # every variant, with the expected outcome of each
```
EOT
for f in "$LAB_ROOT"/tests/data/consoles/runtime-disable-*.log; do
	[[ -f $f ]] || continue
	b=${f##*/runtime-disable-}
	echo
	echo "Console of the \`${b%.log}\` boot (recorded, tcg-icount):"
	echo
	echo '```'
	grep -v '^#' "$f"
	echo '```'
done
echo
if [[ -n $subject ]]; then
	echo "**Fix:** variant \`upstream-fix\`, \`kernel/variants/upstream-fix/$patch\`: \`$subject\`"
	echo "(Fixes: 5bd2182d58e9). \`__audit_uring_exit()\` returns early for an \`AUDIT_CTX_UNUSED\` context, as"
	echo "its dummy branch already does; with it the phase passes (root phase: 200 ops, clean console; tcg-icount, 2026-12-03)."
else
	echo "**Fix:** none in this tree (kernel/variants/upstream-fix is missing)."
fi
echo
