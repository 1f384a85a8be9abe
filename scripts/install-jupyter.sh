#!/usr/bin/env bash
# Installs Jupyter from Debian's packages: what a headless notebook run
# needs, and with --notebook also the interactive server. Does nothing when
# every package is already installed.
set -euo pipefail

packages=(jupyter-nbconvert jupyter-client python3-nbclient python3-ipykernel)
if [[ "${1:-}" == "--notebook" ]]; then
	packages+=(jupyter-notebook)
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
reinstall=()
if [[ ${#missing[@]} -eq 0 ]]; then
	if [[ -x /usr/bin/jupyter ]]; then
		exit 0
	fi
	# Every package is installed but /usr/bin/jupyter is gone: installing
	# them again would do nothing; jupyter-core, which ships it, must be
	# reinstalled.
	missing=(jupyter-core)
	reinstall=(--reinstall)
fi

if ! command -v apt-get >/dev/null; then
	echo "install-jupyter: apt-get not found; install ${missing[*]} with your system's package manager" >&2
	exit 1
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
	if ! command -v sudo >/dev/null; then
		echo "install-jupyter: need root or sudo to install ${missing[*]}" >&2
		exit 1
	fi
	as_root=(sudo)
fi

echo "install-jupyter: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
source "$(dirname "$0")/install-apt.sh"
apt_get install-jupyter update -qq
apt_get install-jupyter install -y -qq --no-install-recommends "${reinstall[@]}" "${missing[@]}"
test -x /usr/bin/jupyter
