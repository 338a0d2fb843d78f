# shellcheck shell=bash
# shellcheck disable=SC2154 # (the variables are plots.sh's, which sources this)
# plots-figures.sh: the figures of scripts/report/plots.sh, sourced by it (in
# a subshell, on a memo miss: plots.sh draw_set) after its helpers (draw,
# bars_csv, delta_csv, labels, variants_of, rows_of) and its variables
# (summary, workloads, stage, rules_wl, attribution, ...) are set; never run.

# device-time workloads: no figure (spin per op, not hooks)
devtime_wls=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["measure"] == "device-time" { print $c["workload"] }' "$summary" | sort -u)

for w in $workloads; do
	if grep -qxF -- "$w" <<<"$devtime_wls"; then
		log "plots: skip ops-per-variant-$w and overhead-$w: device-time workload, not a hook-cost measure"
		continue
	fi
	# --- ops/s per variant ---
	base=ops-per-variant-$w
	bars_csv "$w" ops_per_sec median_ops_per_sec ops_ci_lo ops_ci_hi >"$stage/$base.csv"
	if (($(rows_of "$stage/$base.csv") == 0)); then
		log "plots: skip $base: no variant has ok cells for $w"
		rm -f "$stage/$base.csv"
	else
		lbl=$(labels "$w")
		draw ops-per-variant "$base" "ops/s per variant, $w" \
			"variants='$(variants_of "$stage/$base.csv" variant)'; workload='$w'; $lbl"
	fi

	# --- Δ per op vs the baseline of each base tree, one shared axis, the A/A band ---
	base=overhead-$w
	delta_csv "$w" >"$stage/$base.csv"
	if (($(rows_of "$stage/$base.csv") == 0)); then
		log "plots: skip $base: no Δ values for $w (needs a baseline and another variant of its base with ok cells in the same state)"
		rm -f "$stage/$base.csv"
	else
		has_aa=$(awk -F, 'NR > 1 && $7 != "NaN" { print 1; exit }' "$stage/$base.csv")
		[[ -n $has_aa ]] || log "plots: $base: no A/A control for $w; drawn without the seed-noise band"
		lbl=$(labels "$w")
		draw overhead "$base" "Δ per op vs $baselines_label, $w (one axis)" \
			"variants='$(variants_of "$stage/$base.csv" variant)'; workload='$w'; has_aa=${has_aa:-0}; width=1200; height=640; $lbl"
	fi
done

# --- cost per op versus syscall rules, for one workload ---
# rules_csv WORKLOAD: variant,rules,state,ns_per_op,ci_lo,ci_hi for idle (0
# rules) and syscall-N (N rules), sorted by variant (as seen) then rules
rules_csv() {
	awk -F, -v wl="$1" "$awk_lib"'
		FNR == 1 { header("'"$sumcols"'"); next }
		{ check_row() }
		f("workload") != wl || f("median_ns_per_op") == "" { next }
		f("state") == "idle" || f("state") ~ /^syscall-[0-9]+$/ {
			v = f("variant"); r = f("state"); sub(/^syscall-/, "", r); if (r == "idle") r = 0
			if (!(v in vi)) vi[v] = nv++
			print vi[v], r + 0, v "," r + 0 "," f("state") "," f("median_ns_per_op") "," num(f("ns_ci_lo")) "," num(f("ns_ci_hi"))
		}
		END { if (bad) exit bad }' "$summary" | sort -k1,1n -k2,2n | cut -d' ' -f3-
}
has_syscall_n() { grep -q ',syscall-[0-9]*,' <<<"$1"; }
# openclose first: every design audits OPENAT/CLOSE, while upstream and
# static-key skip reads and NOPs (their lines would be flat)
candidates=${rules_wl:-bench-openclose $workloads}
rules_done=""
for w in $candidates; do
	rows=$(rules_csv "$w")
	has_syscall_n "$rows" || continue
	base=rules-scaling-$w
	{
		echo "variant,rules,state,ns_per_op,ci_lo,ci_hi"
		echo "$rows"
	} >"$stage/$base.csv"
	lbl=$(labels "$w" 1)
	draw rules-scaling "$base" "cost per op vs audit syscall rules, $w" \
		"variants='$(variants_of "$stage/$base.csv" variant)'; workload='$w'; $lbl"
	rules_done=$w
	break
done
if [[ -z $rules_done ]]; then
	if [[ -n $rules_wl ]]; then
		log "plots: skip rules-scaling: no syscall-N state with ok cells for $rules_wl"
	else
		log "plots: skip rules-scaling: no syscall-N state (syscall-1, syscall-10, ...) with ok cells in this run"
	fi
fi

# --- per design: Δ per skipped op against Δ per audited op, audit idle ---
base=skipped-audited
awk -F, "$awk_lib"'
	FNR == 1 { header("'"$sumcols delta_ns_per_op delta_ci_lo delta_ci_hi"'"); next }
	f("state") == "idle" && (f("workload") == "bench-nop" || f("workload") == "bench-openclose") && f("delta_ns_per_op") != "" {
		v = f("variant"); if (CR[v] ~ /^(baseline|seed-control|codegen-control|config-floor)$/) next
		if (!(v in seen)) { seen[v] = 1; order[n++] = v }
		w = f("workload") == "bench-nop" ? "s" : "a"
		d[v, w] = f("delta_ns_per_op") "," num(f("delta_ci_lo")) "," num(f("delta_ci_hi"))
	}
	END {
		if (bad) exit bad
		print "cluster,variant,skipped,skipped_lo,skipped_hi,audited,audited_lo,audited_hi"
		for (i = 0; i < n; i++) { v = order[i]; if ((v, "s") in d && (v, "a") in d) print k++ "," v "," d[v, "s"] "," d[v, "a"] }
	}' "$summary" >"$stage/$base.csv"
if (($(rows_of "$stage/$base.csv") == 0)); then
	log "plots: skip $base: no design with both bench-nop and bench-openclose deltas in state idle"
	rm -f "$stage/$base.csv"
else
	draw skipped-audited "$base" "Δ per skipped op (NOP) against Δ per audited op (OPENAT/CLOSE), audit idle" "$(labels bench-nop)"
fi

# --- share of the op's instructions in audit functions, from the plugin ---
# (not from ftrace: its times include ~147 instructions of its own per call)
attribution=$dir/attribution.csv
if [[ ! -f $attribution ]]; then
	log "plots: skip audit-share: results/$run has no attribution.csv (no attribution boots)"
else
	# shellcheck disable=SC2016 # awk source
	awk -F, -v outdir="$stage" "$awk_lib"'
		FNR == 1 { header("variant state workload symbol instructions_per_op"); next }
		{ check_row() }
		{
			k = f("variant") SUBSEP f("state") SUBSEP f("workload")
			if (!(k in seen)) { seen[k] = 1; keys[nk++] = k }
		}
		f("symbol") == "[total]" { tot[k] = f("instructions_per_op"); next }
		f("symbol") ~ /audit/ { aud[k] += f("instructions_per_op") }
		END {
			if (bad) exit bad
			for (i = 0; i < nk; i++) {
				k = keys[i]; split(k, p, SUBSEP); w = p[3]
				if (!(tot[k] > 0)) continue
				if (!(w in wseen)) { wseen[w] = 1; wl[nw++] = w }
				row[w, ++nrow[w]] = p[2] "," p[1] "," sprintf("%.3f,%.4f,%.4f", 100 * aud[k] / tot[k], aud[k], tot[k])
				if (!((w, p[2]) in sseen)) { sseen[w, p[2]] = 1; wst[w, nws[w]++] = p[2] }
			}
			for (a = 0; a < nw; a++) {
				w = wl[a]; nst = nws[w]
				delete st; delete pos
				for (b = 0; b < nst; b++) st[b] = wst[w, b]
				order_states()
				out = outdir "/audit-share-" w ".csv"
				print "cluster,state,variant,share_pct,audit_instructions_per_op,total_instructions_per_op" > out
				for (b = 1; b <= nrow[w]; b++) {
					split(row[w, b], q, ",")
					print pos[q[1]] "," row[w, b] > out
				}
				close(out)
			}
		}' "$attribution"
	shopt -s nullglob
	acsv=("$stage"/audit-share-*.csv)
	shopt -u nullglob
	((${#acsv[@]})) || log "plots: skip audit-share: attribution.csv has no [total] rows to divide by"
	for f in "${acsv[@]}"; do
		base=$(basename "$f" .csv)
		w=${base#audit-share-}
		draw audit-share "$base" "share of the op's instructions in audit functions, $w (plugin attribution)" \
			"variants='$(variants_of "$f" variant)'; workload='$w'"
	done
fi
