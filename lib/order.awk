# Canonical display orders of states and workloads, shared by scripts/report/plots.sh
# and scripts/report/report.sh (prepended to their awk programs).
# off, idle, watch, syscall-N by N, uring-miss, uring-hit, smack, then the rest as seen
function state_rank(s,   r) {
	if (s == "off") return 0
	if (s == "idle") return 1
	if (s == "watch") return 1.5
	if (s ~ /^syscall-[0-9]+$/) { r = s; sub(/^syscall-/, "", r); return 2 + r / 1e9 }
	if (s == "uring-miss") return 3
	if (s == "uring-hit") return 4
	if (s == "smack") return 5
	if (!(s in seen_rank)) seen_rank[s] = 10 + (++nseen_rank)
	return seen_rank[s]
}
function workload_rank(w,   i, n, a) {
	n = split("randread-qd128 randread-qd1 randread-polled randread-sqpoll bench-nop bench-read bench-openclose bench-personality bench-nop-async", a, " ")
	for (i = 1; i <= n; i++) if (a[i] == w) return i
	if (!(w in seen_wrank)) seen_wrank[w] = 100 + (++nseen_wrank)
	return seen_wrank[w]
}
