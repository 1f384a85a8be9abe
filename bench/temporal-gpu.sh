#!/bin/bash
# temporal-gpu.sh: the temporally blocked step on a GPU machine, in one go:
# its correctness tests, stencil bench at N = 512 and 1024 beside the
# float4 copy, the interior copy and fast, then compute-sanitizer on the
# tests at N = 67 and 68 for k = 1, 2, 4 (about 4 minutes in all).
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/temporal/stencil ./cmd/stencil
#   CGO_ENABLED=1 go test -c -o build/temporal/gpu.test ./gpu
# Run on the GPU machine, from the repository root:
#   bench/temporal-gpu.sh OUTDIR
# Logs and bench JSON go to OUTDIR; the bench tables are printed last.
# SANITIZERS="memcheck" limits the compute-sanitizer tools run.
set -u
out=${1:?usage: bench/temporal-gpu.sh OUTDIR}
bin=${BIN:-build/temporal}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv >"$out/device.txt" 2>&1

echo "== tests" | tee "$out/summary.txt"
timeout 100 "$bin/gpu.test" -test.run 'TestGPUTemporal|TestGPUTimeLoop|TestTemporal|TestLaunchersMatch|TestChooseChunk' -test.v \
  >"$out/tests.log" 2>&1
echo "tests rc=$? pass=$(grep -c -- '--- PASS' "$out/tests.log") fail=$(grep -c -- '--- FAIL' "$out/tests.log")" | tee -a "$out/summary.txt"
grep -- '--- FAIL' "$out/tests.log" | head -20 | tee -a "$out/summary.txt"
grep -m3 'Error\|max |gpu' "$out/tests.log" | tee -a "$out/summary.txt"

variants=()
for k in 1 2 4 8; do variants+=(-variant "temporal:tile=$k"); done
variants+=(
  -variant "temporal:tile=4,TB_MINB=1"
  -variant "temporal:tile=4,TB_MINB=3"
  -variant "temporal:tile=4,TB_STREAM=1"
  -variant "temporal:tile=4,TB_BX=128,TB_BY=32"
  -variant "temporal:tile=8,TB_MINB=2"
  -variant "temporal:tile=2,TB_MINB=3"
)
"$bin/stencil" bench -n 512 -steps 8 -reps 15 -warmup 3 -kernels fast "${variants[@]}" \
  -json "$out/bench512.json" >"$out/bench512.log" 2>&1
echo "bench 512 rc=$?" | tee -a "$out/summary.txt"
"$bin/stencil" bench -n 1024 -steps 8 -reps 10 -warmup 2 -check=false -kernels fast "${variants[@]}" \
  -json "$out/bench1024.json" >"$out/bench1024.log" 2>&1
echo "bench 1024 rc=$?" | tee -a "$out/summary.txt"
declare -A limits=([memcheck]=40 [synccheck]=30 [racecheck]=30)
for tool in ${SANITIZERS:-memcheck synccheck racecheck}; do
  STENCIL_TEST_N=67,68 STENCIL_TEST_K=1,2,4 timeout "${limits[$tool]}" compute-sanitizer --tool "$tool" \
    "$bin/gpu.test" -test.run TestGPUTemporal >"$out/sanitizer-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done

for f in bench512 bench1024; do
  echo "== $f"
  sed -n '/^kernel /,$p' "$out/$f.log"
  tail -3 "$out/$f.log" | grep -i 'error\|wrong\|stencil bench' || true
done
cat "$out/summary.txt"
