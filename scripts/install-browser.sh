#!/usr/bin/env bash
# Installs what the browser test (make browser) needs: the interactive
# Jupyter server (scripts/install-jupyter.sh --notebook) and Debian's
# Chromium, which the test drives headless. Does nothing when both are
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-jupyter.sh --notebook

if dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed" && [[ -x /usr/bin/chromium ]]; then
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "install-browser: apt-get not found; install Chromium with your system's package manager" >&2
	exit 1
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null; then
		echo "install-browser: need root or sudo to install chromium" >&2
		exit 1
	fi
	as_root=(sudo)
fi
echo "install-browser: installing chromium"
export DEBIAN_FRONTEND=noninteractive
source scripts/install-apt.sh
apt_get install-browser update -qq
apt_get install-browser install -y -qq --no-install-recommends chromium
test -x /usr/bin/chromium
