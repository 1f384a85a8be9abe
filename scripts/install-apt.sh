#!/usr/bin/env bash
# Sourced by the install scripts: apt_get, which runs apt-get and waits
# for the apt/dpkg lock when another apt or dpkg holds it (an unattended
# upgrade, another terminal) instead of failing at once. It waits up to
# APT_LOCK_WAIT seconds (default 600), saying so, then gives up naming the
# limit. The caller sets as_root (empty, or sudo).
#
#   source scripts/install-apt.sh
#   apt_get install-x update -qq

APT_LOCK_WAIT=${APT_LOCK_WAIT:-600}

# apt_held reports whether apt-get's standard error, in the file $1, says
# that another process holds one of its locks.
apt_held() {
	grep -qE 'Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock (the )?(administration )?directory|is another process using it|Waiting for cache lock' "$1"
}

# apt_get WHO ARGS...: runs apt-get ARGS as root (through as_root), its
# standard output discarded, retrying while another apt or dpkg holds the
# lock; WHO names the script in its messages.
apt_get() {
	local who=$1
	shift
	local err rc start=$SECONDS said=-1
	err="$(mktemp)"
	while :; do
		rc=0
		# DPkg::Lock::Timeout makes apt itself wait for dpkg's lock; the
		# loop also covers the lists lock of apt-get update.
		"${as_root[@]}" apt-get -o DPkg::Lock::Timeout=30 "$@" >/dev/null 2>"$err" || rc=$?
		if [[ $rc -ne 0 ]] && apt_held "$err"; then
			local waited=$((SECONDS - start))
			if ((waited >= APT_LOCK_WAIT)); then
				cat "$err" >&2
				echo "$who: another apt or dpkg still holds the lock after ${waited} s (APT_LOCK_WAIT=${APT_LOCK_WAIT} s); run again when it has finished" >&2
				rm -f "$err"
				return "$rc"
			fi
			if ((said < 0 || waited - said >= 30)); then
				echo "$who: another apt or dpkg is running (an update in the background?): waiting for its lock, ${waited} s so far, up to ${APT_LOCK_WAIT} s"
				said=$waited
			fi
			sleep 5
			continue
		fi
		cat "$err" >&2
		rm -f "$err"
		return "$rc"
	done
}
