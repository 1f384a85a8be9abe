#!/usr/bin/env bash
# Installs what the course's JupyterHub needs from Debian's packages:
# jupyterhub (3.0.0 in Debian 12, with PAM through python3-pamela) and its
# proxy, node-configurable-http-proxy, besides the notebook server
# (scripts/install-jupyter.sh --notebook). Does nothing when they are
# installed; waits for another apt's lock (scripts/install-apt.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-jupyter.sh --notebook

packages=(jupyterhub node-configurable-http-proxy python3-pamela)
missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -eq 0 && -x /usr/bin/jupyterhub && -x /usr/bin/configurable-http-proxy ]]; then
	exit 0
fi
if [[ ${#missing[@]} -eq 0 ]]; then
	missing=("${packages[@]}")
fi
if ! command -v apt-get >/dev/null; then
	echo "install-hub: apt-get not found; install ${missing[*]} with your system's package manager" >&2
	exit 1
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null; then
		echo "install-hub: need root or sudo to install ${missing[*]}" >&2
		exit 1
	fi
	as_root=(sudo)
fi
echo "install-hub: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
source scripts/install-apt.sh
apt_get install-hub update -qq
apt_get install-hub install -y -qq --no-install-recommends "${missing[@]}"
test -x /usr/bin/jupyterhub && test -x /usr/bin/configurable-http-proxy
