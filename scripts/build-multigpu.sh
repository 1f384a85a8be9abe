#!/bin/bash
# Builds what scripts/multigpu-gpu.sh runs on the multi-GPU machine (which
# has no Go) into build/mg: the stencil command and the gpu package's
# tests and gpu/multi's, with cgo (the CUDA driver, NVRTC and NCCL are opened at run
# time), and copies of the script and bench/peers.py.
set -eu
B=${B:-build/mg}
mkdir -p "$B"
CGO_ENABLED=1 go build -o "$B/stencil" ./cmd/stencil
CGO_ENABLED=1 go test -c -o "$B/gpu.test" ./gpu
CGO_ENABLED=1 go test -c -o "$B/multi.test" ./gpu/multi
cp scripts/multigpu-gpu.sh bench/peers.py "$B/"
git rev-parse HEAD > "$B/commit.txt"
git status --short -- gpu cuda lab cmd bench scripts >> "$B/commit.txt"
echo "built $B: $(ls "$B" | tr '\n' ' ')"
