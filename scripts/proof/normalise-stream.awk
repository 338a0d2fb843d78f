#!/usr/bin/awk -f
# normalise-stream.awk: a raw audit-sink stream ("S SCENARIO type=N msg=...")
# made diffable. Timestamps:serials become E1, E2... in order of first
# appearance; pid/ppid values become P1, P2... (the audit daemon's pid in
# "op=set audit_pid=" records D1, D2...); ses/auid/uid-like ids stay
# (they are fixed in the guest) except ses, which becomes S1...; inode=N
# becomes I1...; proctitle hex stays. Consecutive identical events collapse
# into one line with a count, so time-based scenarios stay comparable.
# Output: one line per event: "SCENARIO xCOUNT rec | rec | ...".
function norm(s,    out, m, k, v, key) {
	out = ""
	while (match(s, /(^| )(pid|ppid|ses|inode|pid_ns)=[0-9]+/)) {
		m = substr(s, RSTART, RLENGTH)
		k = m; sub(/^ /, "", k); v = k; sub(/=.*/, "", k); sub(/^[^=]*=/, "", v)
		key = (k == "ppid" ? "pid" : k) SUBSEP v
		if (!(key in ids)) ids[key] = ++nid[k == "ppid" ? "pid" : k]
		out = out substr(s, 1, RSTART - 1) (RSTART > 1 || substr(m, 1, 1) == " " ? " " : "") k "=" toupper(substr(k, 1, 1)) ids[key]
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
# the audit daemon's pid in a CONFIG_CHANGE "op=set audit_pid=N old=M"
# record is a pid too (the sink's, set at each scenario start and cleared at
# its end): D1, D2... in order of appearance (0, no daemon, stays 0). Which pid the
# sink gets depends on how many tasks earlier scenarios forked (io-wq
# workers, kworkers), which a kernel may vary (6.12).
function normdaemon(s,    out, m, k, v, key) {
	if (s !~ /(^| )op=set audit_pid=/) return s
	out = ""
	while (match(s, /(^| )(audit_pid|old)=[1-9][0-9]*/)) {
		m = substr(s, RSTART, RLENGTH)
		k = m; sub(/^ /, "", k); v = k; sub(/=.*/, "", k); sub(/^[^=]*=/, "", v)
		key = "daemon" SUBSEP v
		if (!(key in ids)) ids[key] = ++nid["daemon"]
		out = out substr(s, 1, RSTART - 1) (substr(m, 1, 1) == " " ? " " : "") k "=D" ids[key]
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
function flush() {
	if (cur == "") return
	line = scen " " cur
	if (line == last) { cnt++; return }
	if (last != "") print "x" cnt " " last
	last = line; cnt = 1
}
$1 == "S" {
	if ($2 != scen) { flush(); if (last != "") print "x" cnt " " last; last = ""; cur = ""; scen = $2 }
	rec = $0; sub(/^S [^ ]+ /, "", rec)
	if (!match(rec, /msg=audit\([0-9.]+:[0-9]+\): ?/)) next
	ev = substr(rec, RSTART + 10, RLENGTH - 10); sub(/\).*/, "", ev)
	body = substr(rec, 1, RSTART - 1) substr(rec, RSTART + RLENGTH)
	body = norm(normdaemon(body))
	gsub(/ a[0-3]=[0-9a-f]+/, "", body)  # syscall args: stack/heap addresses
	gsub(/ +$/, "", body)
	if (ev != curev) { flush(); cur = ""; curev = ev }
	cur = cur (cur == "" ? "" : " | ") body
}
END { flush(); if (last != "") print "x" cnt " " last }
