#!/bin/bash
# report-findings.sh: the report's "Findings" section (markdown on stdout):
# the runtime-disable BUG of upstream 6.1 and 6.12 with the commands that
# reproduce it, the recorded console excerpts (tests/data/consoles/
# runtime-disable-*.log, captured from real boots by tests/62-runtime-disable.sh
# runs), and the fix variant; the record-stream proof's verdicts per variant
# and scenario (RUN_DIR/streams.txt, the run's own proof boots, when given and
# there; else tests/data/streams/verdicts-tcg.txt, recorded from real
# tests/61-record-stream.sh boots); and which of the RFC's LSM parts 6.1 has
# and which the lab exercises. Called by scripts/report/report.sh [RUN_DIR].
set -euo pipefail
# shellcheck source=../../lib/common.sh
. "$(dirname "$0")/../../lib/common.sh"

# shellcheck source=../../lib/catalog.sh
. "$LAB_ROOT/lib/catalog.sh"
vdir=$(variants_dir)
# the recorded BUG of a base's reference (tests/data/consoles/
# runtime-disable-BASE.log): its kernel version and the BUG line
console_of() { echo "$LAB_ROOT/tests/data/consoles/runtime-disable-$1.log"; }
seen=() unseen=()
for b in $(known_bases); do
	ref=$(reference_on "$b")
	[[ -n $ref ]] || continue
	c=$(console_of "$b")
	if [[ -f $c ]] && bug=$(grep -m1 -o 'kernel BUG at [^!]*!' "$c"); then
		kver=$(sed -n '1s/.*(Linux \([^;)]*\).*/\1/p' "$c")
		seen+=("\`$ref\` on $b (Linux ${kver:-$b}): \`$bug\`")
	else
		unseen+=("\`$ref\` on $b")
	fi
done
# every variant's runtime-disable outcome, from its meta (tests/62 checks
# each); _cat_meta reads the loaded catalog without a fork
variants_load
outcome() {
	local b v o out=()
	for b in $(known_bases); do
		o=()
		for v in $(variants_on "$b" baseline codegen-control config-floor design proof-only); do
			_cat_meta "$v" runtime-disable
			[[ $REPLY != "$1" ]] || o+=("\`$v\`")
		done
		((${#o[@]} == 0)) || out+=("$b: $(printf '%s, ' "${o[@]}" | sed 's/, $//')")
	done
	join_semi "${out[@]}"
}
join_semi() { local IFS=';' s; s="$*"; echo "${s//;/; }"; }

echo "## Findings"
echo
echo "### Upstream io_uring audit: kernel BUG when audit is disabled at runtime with an io_uring rule loaded"
echo
echo "Seen in a lab guest (tests/62-runtime-disable.sh, tcg-icount) on each base's reference, the tree's"
echo "audit code as is: $(join_semi "${seen[@]}")${unseen[*]:+; not booted: ${unseen[*]}}."
cat <<'EOT'
An io_uring-list rule plus `auditctl -e 0` makes every io-wq worker that runs an audited opcode
hit `BUG()` in `audit_log_exit()`: `audit_uring_entry()` is gated on `audit_enabled`,
`audit_uring_exit()` is not, a fresh io-wq worker's audit context is non-dummy and
`AUDIT_CTX_UNUSED`, `audit_filter_uring()` matches the rule on the stale op 0 (the skipped entry
never set `ctx->uring_op`), and `audit_log_exit()` has no case for an unused context. So only a
rule whose op mask includes IORING_OP_NOP (such as `all`) fires: a rule for OPENAT alone does not
(phase disable-bug-opmask). And it is not only io-wq: a task forked after `auditctl -e 0` has the
same kind of context, and its own inline OPENAT/CLOSE BUG()s in the submitting task (phase
disable-bug-inline). The submitter then waits forever for its completions. Once root has
loaded such a rule and disabled audit, **any local user** sets it off: the first phase of
guest/scripts/disable-bug.sh runs as uid 1000 (`su lab`) and the BUG is in its `iou-wrk-*`.
EOT
echo
echo "Every variant's outcome (\`runtime-disable=\` in its meta; tests/62 boots each and fails on any"
echo "other): **BUG**: $(outcome bug). **Survives**: $(outcome survives)."
cat <<'EOT'

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
EOT
for b in $(known_bases); do
	ref=$(reference_on "$b")
	[[ -n $ref ]] || continue
	printf '%-76s # %s\n' "guest/boot.sh --script disable-bug --out /tmp/db-$b $ref idle" "$b: io-wq"
	printf '%-76s # %s\n' "guest/boot.sh --script disable-bug-inline --out /tmp/dbi-$b $ref idle" "$b: inline, no io-wq"
	printf '%-76s # %s\n' "guest/boot.sh --script disable-bug-opmask --out /tmp/dbo-$b $ref idle" "$b: OPENAT rule, no BUG"
done
printf '%-76s # %s\n' "bash tests/62-runtime-disable.sh" "every variant, with its expected outcome"
echo '```'
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
# the fix: the variants whose meta says fixes=runtime-disable, with their patch
fixes=0
for v in $(for b in $(known_bases); do variants_on "$b" design; done); do
	_cat_meta "$v" fixes
	[[ $REPLY == runtime-disable ]] || continue
	patch=$(series_patches "$vdir/$v/series" 2>/dev/null | head -1 || true)
	[[ -n $patch && -f $vdir/$v/$patch ]] || continue
	subject=$(awk '/^Subject: / { sub(/^Subject: \[PATCH[^]]*\] /, ""); s = $0; on = 1; next } on && /^[ \t]/ { s = s $0; next } { on = 0 } END { print s }' "$vdir/$v/$patch")
	fixed=$(sed -n 's/^Fixes: \([0-9a-f]*\).*/\1/p' "$vdir/$v/$patch" | head -1)
	_cat_meta "$v" runtime-disable
	rd=$REPLY
	((fixes++ > 0)) || echo "**Fix** (\`__audit_uring_exit()\` skips the filters for an \`AUDIT_CTX_UNUSED\` context and resets it, as \`__audit_syscall_exit()\` does):"
	echo "- $(variant_base "$v"): variant \`$v\`, \`kernel/variants/$v/$patch\`: \`$subject\`${fixed:+ (Fixes: $fixed)}; runtime-disable: $rd"
done
((fixes > 0)) || echo "**Fix:** none in this tree (no variant's meta says fixes=runtime-disable)."
echo

verdicts=$(run_streams "${1:-}")
if [[ -n $verdicts ]]; then
	echo "### Record streams: each design against its base's reference, record by record"
	echo
	echo "guest/scripts/stream-proof.sh captures every audit record (all types) per scenario;"
	echo "scripts/proof/stream-compare.sh normalises stamps, pids and inodes to their order and compares each"
	echo "variant's stream with its base tree's reference (the tree's audit code as is). \`same\`: identical; \`TYPE:+N\`: the type counts differ by"
	echo "exactly that; \`content\`: same counts, different records. Each verdict must equal the one written"
	echo "in the variant's README (stream-expect lines; **(unexpected)** marks one that does not). Source:"
	sed -n '1,2s/^# //p' "$verdicts" | tr '\n' ' '; echo
	echo
	awk '$1 == "stream" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		v = f["variant"]; s = f["scenario"]; if (!(v in seenv)) { seenv[v] = 1; vs[++nv] = v }
		if (!(s in seens)) { seens[s] = 1; ss[++ns] = s }; g[v, s] = f["got"] (f["ok"] == 1 ? "" : " **(unexpected)**") }
		END { printf "| variant |"; for (j = 1; j <= ns; j++) printf " %s |", ss[j]; print ""
			printf "|---|"; for (j = 1; j <= ns; j++) printf "---|"; print ""
			for (i = 1; i <= nv; i++) { printf "| %s |", vs[i]; for (j = 1; j <= ns; j++) printf " %s |", g[vs[i], ss[j]]; print "" } }' "$verdicts"
	echo
	echo "Identical to the reference in every scenario: $(awk '$1 == "stream" { split($2, kv, "="); v = kv[2]; if (!(v in seen)) { seen[v] = 1; o[++n] = v }; if ($0 !~ / got=same /) diff[v] = 1 }
		END { for (i = 1; i <= n; i++) if (!(o[i] in diff)) { printf "%s%s", sep, o[i]; sep = ", " }; if (!sep) printf "none" }' "$verdicts")."
	echo
	# why a stream differs: the reasons its README gives beside the expectation
	why=$(awk '$1 == "stream" && $0 !~ / got=same / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }; print f["variant"], f["scenario"], f["got"] }' "$verdicts" |
		while read -r v sc got; do
			r=$(sed -n "s/^stream-expect: $sc [^ ]*[[:space:]]*(\(.*\))[[:space:]]*\$/\1/p" "$(variants_dir)/$v/README" 2>/dev/null | head -1)
			[[ -z $r ]] || echo "- $v / $sc ($got): $r"
		done)
	if [[ -n $why ]]; then
		echo "Where a stream differs, the variant's README says why:"
		echo
		echo "$why"
		echo
	fi
	echo "Smack denials, every variant (the lsm scenarios, checked in the guest): $(awk '$1 == "lsm" { n++; if ($0 ~ / ok=1 /) k++ } END { printf "%d of %d as expected", k, n }' "$verdicts"):"
	echo "an OPENAT, by a task without CAP_MAC_OVERRIDE, of a file labelled for another subject fails with -EACCES inline, on"
	echo "io-wq and from an SQPOLL ring, each with a Smack AVC record stamped like upstream's; an"
	echo "unprivileged SQPOLL ring fails at io_uring_setup with -EPERM (security_uring_sqpoll); a"
	echo "personality used across Smack labels fails each sqe with -EPERM (security_uring_override_creds)."
	echo "Neither of those two hooks logs a record under Smack."
	echo
fi
cat <<'EOT'
### The RFC's LSM parts in the 6.1 tree

All five are in Debian's 6.1 as merged in 5.16: the secure anonymous inode (`anon_inode_getfile_secure()`,
used by `io_uring_get_file()`), the `security_uring_override_creds()` check on a registered
personality (`io_init_req()`), the `security_uring_sqpoll()` check (`io_sq_offload_create()`), and the
SELinux and Smack implementations (6.1 adds `uring_cmd`, which the RFC did not have). The lab builds
Smack only (state `smack`) and exercises its override_creds and sqpoll hooks and its file checks
inside io_uring ops; SELinux and the anonymous inode's labelling are built out of the lab kernel
and not exercised.
EOT
