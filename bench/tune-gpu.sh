#!/bin/bash
# tune-gpu.sh: the timed choice of the tuned steps on a GPU machine, in one
# go: stencil bench at N = 512 and 1024 over 24 steps with fast and temporal
# at their timed choice (-tune fresh) beside their registered defaults named
# explicitly, temporal13 likewise at N = 512, then the GPU tests at
# STENCIL_TEST_N (default 67,130) with the choice off.
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/tune/stencil ./cmd/stencil
#   CGO_ENABLED=1 go test -c -o build/tune/gpu.test ./gpu
# Run on the GPU machine, from the repository root:
#   BIN=build/tune bench/tune-gpu.sh OUTDIR
# Writes tune_CARD.json, tune13_CARD.json, the cached choices (OUTDIR/cache)
# and the logs to OUTDIR.
set -u
out=${1:?usage: bench/tune-gpu.sh OUTDIR}
bin=${BIN:-build/tune}
mkdir -p "$out"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/NVIDIA //; s/ .*//' | tr 'A-Z' 'a-z')
export STENCIL_TUNE_DIR="$out/cache"

echo "== bench fast, temporal" | tee "$out/summary.txt"
timeout ${BENCH_S:-330} "$bin/stencil" bench -n 512,1024 -steps 24 -reps ${REPS:-30} -kernels fast,temporal \
  -variant fast:FAST_MODE=3 -variant temporal:tile=4 -tune fresh -json "$out/tune_${card}.json" \
  >"$out/bench.log" 2>&1
echo "bench rc=$?" | tee -a "$out/summary.txt"
grep 'timed choice:' "$out/bench.log" | tee -a "$out/summary.txt"

echo "== bench temporal13" | tee -a "$out/summary.txt"
timeout ${BENCH13_S:-90} "$bin/stencil" bench -n 512 -steps 24 -reps ${REPS:-30} -kernels temporal13 \
  -variant temporal13:T13_MINB=1 -tune fresh -json "$out/tune13_${card}.json" >"$out/bench13.log" 2>&1
echo "bench13 rc=$?" | tee -a "$out/summary.txt"
grep 'timed choice:' "$out/bench13.log" | tee -a "$out/summary.txt"

echo "== tests" | tee -a "$out/summary.txt"
STENCIL_TUNE=off STENCIL_TEST_N=${STENCIL_TEST_N:-67,130} timeout ${TESTS_S:-150} "$bin/gpu.test" -test.run GPU -test.v \
  >"$out/tests.log" 2>&1
echo "tests rc=$? pass=$(grep -c -- '--- PASS' "$out/tests.log") fail=$(grep -c -- '--- FAIL' "$out/tests.log") skip=$(grep -c -- '--- SKIP' "$out/tests.log")" | tee -a "$out/summary.txt"
grep -- '--- FAIL' "$out/tests.log" | head -20 | tee -a "$out/summary.txt"
tail -40 "$out/bench.log"
tail -12 "$out/bench13.log"
