#!/usr/bin/env bash
# Sets up and starts the course's JupyterHub on this machine (make hub
# ROSTER=roster.csv): installs Debian's jupyterhub and its proxy
# (scripts/install-hub.sh) and the GoNB kernel (scripts/install-gonb.sh),
# then runs cmd/hub's setup (an account per roster row, the students' copy
# in each home, the kernel for every user, per-user limits) and start.
# Run as root (or through sudo) in the instructor's copy. HUB_FLAGS are
# passed to hub setup, e.g. HUB_FLAGS="-port 8000 -mem 3GiB -cpus 1".
#
#   scripts/hub.sh ROSTER        set up (again) and (re)start
#   scripts/hub.sh --stop        stop the hub and every student's server
set -euo pipefail
cd "$(dirname "$0")/.."

as_root=()
if [[ $(id -u) -ne 0 ]]; then
	as_root=(sudo --preserve-env=PATH,GOPATH,GOCACHE,GOMODCACHE,GOPROXY,GOFLAGS,GOTOOLCHAIN)
fi
bin="$(go env GOPATH)/bin"
mkdir -p build
go build -o build/hub ./cmd/hub

if [[ "${1:-}" == "--stop" ]]; then
	exec "${as_root[@]}" build/hub stop
fi
roster="${1:?usage: scripts/hub.sh ROSTER | --stop}"
scripts/install-hub.sh
scripts/install-gonb.sh
# shellcheck disable=SC2086
"${as_root[@]}" env PATH="$bin:$PATH" GOPATH="$(go env GOPATH)" build/hub setup -roster "$roster" ${HUB_FLAGS:-}
# restart: a new setup takes effect; the students' servers keep running.
"${as_root[@]}" build/hub restart
