# shellcheck shell=bash
# Two SSH "hosts" on loopback for the scale-out tests (tests/65-hosts.sh):
# sshd from openssh-server's .deb (unpacked by setup.sh --host-debs sshd,
# never installed, so no sshd.service), copied into a temp dir and started
# twice on 127.0.0.1 with its own host keys, each admitting one throwaway
# user (created here, with a home and cache of its own under the temp dir)
# who logs in with a key made for the test. hosts_up starts them and writes
# $HT/hosts (sshlogin lines); hosts_down (on EXIT) stops what hosts_up
# started, by pid, and removes the users, the privsep user and /run/sshd if
# it made them. Needs root (useradd); callers skip without it.
# Sourced after tests/lib.sh.

HT="" hosts_pids=() hosts_users=() hosts_made_sshd_user=0 hosts_made_run_sshd=0

# free_port: a TCP port nothing on 127.0.0.1 listens on
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# hosts_up N: start N loopback sshd hosts; host i's user is $HT/user$i
hosts_up() {
	local n=$1 i root u port home
	HT=$(mktemp -d)
	chmod 755 "$HT"
	trap hosts_down EXIT
	root=$("$LAB_ROOT/scripts/run/setup.sh" --host-debs sshd) || return 1
	mkdir -p "$HT/sbin"
	cp "$root/usr/sbin/sshd" "$HT/sbin/sshd"
	# sshd's privilege separation wants its user and an empty root-owned dir
	if ! getent passwd sshd >/dev/null; then
		useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd && hosts_made_sshd_user=1
	fi
	if [[ ! -d /run/sshd ]]; then mkdir -m 755 /run/sshd && hosts_made_run_sshd=1; fi
	ssh-keygen -q -t ed25519 -N '' -C lab-test -f "$HT/id"
	: >"$HT/known_hosts"
	: >"$HT/hosts"
	printf 'Host *\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  ConnectTimeout 10\n' \
		"$HT/id" "$HT/known_hosts" >"$HT/ssh_config"
	for ((i = 1; i <= n; i++)); do
		u=labw$i-$$
		home=$HT/home/$u
		mkdir -p "$HT/home"
		# '*': no password, and not locked (sshd refuses locked accounts without PAM)
		useradd -M -d "$home" -s /bin/bash -p '*' "$u" || return 1
		hosts_users+=("$u")
		mkdir -p "$home/.ssh" "$home/bin"
		cp "$HT/id.pub" "$home/.ssh/authorized_keys"
		# the user's PATH puts ~/bin first: the tests put wrappers there
		echo "PATH=$home/bin:/usr/local/bin:/usr/bin:/bin" >"$home/.ssh/environment"
		chown -R "$u:" "$home"
		chmod 700 "$home/.ssh"
		ssh-keygen -q -t ed25519 -N '' -C "host$i" -f "$HT/hostkey$i"
		port=$(free_port) || return 1
		cat >"$HT/sshd$i.conf" <<-CONF
			ListenAddress 127.0.0.1
			Port $port
			HostKey $HT/hostkey$i
			PidFile $HT/sshd$i.pid
			AllowUsers $u
			AuthorizedKeysFile .ssh/authorized_keys
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			UsePAM no
			PermitUserEnvironment PATH
			MaxStartups 50
			MaxSessions 50
			LogLevel ERROR
		CONF
		LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu "$HT/sbin/sshd" -D -f "$HT/sshd$i.conf" -E "$HT/sshd$i.log" &
		hosts_pids+=($!)
		echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$HT/hostkey$i.pub")" >>"$HT/known_hosts"
		echo "1/ssh -F $HT/ssh_config -p $port $u@127.0.0.1" >>"$HT/hosts"
		echo "$u" >"$HT/user$i"
	done
	# up when a login works
	for ((i = 1; i <= n; i++)); do
		local tries=0
		until host_run "$i" true 2>/dev/null; do
			tries=$((tries + 1))
			((tries < 50)) || { echo "# sshd $i did not come up:"; sed 's/^/#   /' "$HT/sshd$i.log"; return 1; }
			sleep 0.1
		done
	done
}

# host_run I CMD...: run CMD as host I's user over its ssh (CMD is one remote shell line)
host_run() {
	local l
	l=$(sed -n "$1p" "$HT/hosts")
	ssh -F "$HT/ssh_config" -o BatchMode=yes -p "$(awk '{ print $5 }' <<<"$l")" "$(cat "$HT/user$1")@127.0.0.1" "${@:2}"
}

hosts_down() {
	[[ -n ${LAB_TEST_KEEP:-} ]] && { echo "# kept $HT"; return 0; }
	local p u left
	for p in "${hosts_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${hosts_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for u in "${hosts_users[@]}"; do
		# whatever the throwaway user still runs was started by this test
		left=$(pgrep -u "$u" || true)
		for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
		userdel "$u" 2>/dev/null || true
	done
	((hosts_made_sshd_user)) && userdel sshd 2>/dev/null
	((hosts_made_run_sshd)) && rmdir /run/sshd 2>/dev/null
	[[ -n $HT ]] && rm -rf "$HT"
	return 0
}
