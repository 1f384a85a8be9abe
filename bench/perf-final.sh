#!/bin/bash
# perf-final.sh: the registered temporal step (k = 4, march 1, TB_V=1,
# two blocks a multiprocessor) against march 2 (the default before it) and
# march 0 beside fast, its correctness and the sanitizers, on a GPU machine
# (about 6 minutes):
#
#   1. stencil bench -steps 24 at N = 512: fast, temporal (k = 4, march 1),
#      marches 2 and 0, every output checked whole against lab.Advance over
#      the 24 steps;
#   2. the GPU tests of the 3D steps at N = 3, 67, 68, 130: TestGPUTemporal
#      (every march), TestGPUSevenPoint, TestGPUNonCubic, TestFast…;
#   3. compute-sanitizer memcheck and synccheck on TestGPUTemporal at N = 67
#      and 68 for k = 1, 2, 4, and racecheck at N = 67 for k = 4;
#   4. stencil bench -steps 24 at N = 1024: fast, temporal and marches 2
#      and 0, checked whole against lab.Advance;
#   5. one Nsight Compute pass (--clock-control none) of the registered
#      temporal step at k = 4, N = 512.
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/f/stencil ./cmd/stencil
#   CGO_ENABLED=1 go test -c -o build/f/gpu.test ./gpu
# Run on the GPU machine, from the repository root:
#   bench/perf-final.sh OUTDIR
# PARTS="b512 tests sanitizer b1024 ncu" chooses the parts. OUTDIR gets
# seven files: device.txt, bench512.json, bench1024.json, bench.log,
# tests.log (tests and sanitizers), ncu.txt and summary.txt, printed last.
set -u
out=${1:?usage: bench/perf-final.sh OUTDIR}
bin=${BIN:-build/f}
parts=${PARTS:-b512 tests sanitizer b1024 ncu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$out/device.txt" 2>&1
: >"$out/summary.txt"
: >"$out/bench.log"
: >"$out/tests.log"
note() { echo "$*" >>"$out/summary.txt"; }
has() { [[ " $parts " == *" $1 "* ]]; }
table() { sed -n '/^kernel /,/^GB\/s count/p' "$out/bench.log.tmp" | cut -c1-118 >>"$out/summary.txt"; cat "$out/bench.log.tmp" >>"$out/bench.log"; rm -f "$out/bench.log.tmp"; }

if has b512; then
  tv=()
  for x in "tile=4,TB_V=2" "tile=4,TB_V=0"; do tv+=(-variant "temporal:$x"); done
  timeout 100 "$bin/stencil" bench -n 512 -steps 24 -reps 10 -warmup 2 -kernels fast,temporal "${tv[@]}" \
    -json "$out/bench512.json" >"$out/bench.log.tmp" 2>&1
  note "== bench N=512, 24 steps, whole output checked: rc=$? $(grep -c 'Check:' "$out/bench.log.tmp") checked"
  grep -i 'wrong\|error' "$out/bench.log.tmp" | head -3 >>"$out/summary.txt"
  table
fi

if has tests; then
  STENCIL_TEST_N=3,67,68,130 timeout 120 "$bin/gpu.test" -test.run 'TestGPUTemporal|TestTemporal|TestChooseChunk' -test.v >>"$out/tests.log" 2>&1
  note "== temporal tests rc=$? pass=$(grep -c -- '--- PASS' "$out/tests.log") fail=$(grep -c -- '--- FAIL' "$out/tests.log")"
  before=$(grep -c -- '--- PASS' "$out/tests.log")
  STENCIL_TEST_N=3,67,68,130 timeout 60 "$bin/gpu.test" -test.run 'TestGPUSevenPoint|TestGPUNonCubic|TestFast' -test.v >>"$out/tests.log" 2>&1
  note "== sweep tests rc=$? pass=$(($(grep -c -- '--- PASS' "$out/tests.log") - before)) fail=$(grep -c -- '--- FAIL' "$out/tests.log") (both)"
  grep -- '--- FAIL' "$out/tests.log" | head -10 >>"$out/summary.txt"
fi

if has sanitizer; then
  # racecheck is the slowest: the default k = 4 at N = 67 only.
  declare -A limits=([memcheck]=60 [synccheck]=50 [racecheck]=90)
  declare -A sizes=([memcheck]=67,68 [synccheck]=67,68 [racecheck]=67)
  declare -A ks=([memcheck]=1,2,4 [synccheck]=1,2,4 [racecheck]=4)
  for tool in memcheck synccheck racecheck; do
    echo "=== compute-sanitizer --tool $tool" >>"$out/tests.log"
    STENCIL_TEST_N=${sizes[$tool]} STENCIL_TEST_K=${ks[$tool]} timeout "${limits[$tool]}" compute-sanitizer --tool "$tool" \
      "$bin/gpu.test" -test.run TestGPUTemporal -test.v >"$out/san.tmp" 2>&1
    rc=$?
    note "== $tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san.tmp" | tail -1) pass=$(grep -c -- '--- PASS' "$out/san.tmp") fail=$(grep -c -- '--- FAIL' "$out/san.tmp")"
    grep -v -- '--- PASS\|=== RUN\|max |gpu' "$out/san.tmp" | tail -30 >>"$out/tests.log"
    rm -f "$out/san.tmp"
  done
fi

if has b1024; then
  timeout 110 "$bin/stencil" bench -n 1024 -steps 24 -reps 4 -warmup 1 -kernels fast,temporal -variant "temporal:tile=4,TB_V=2" -variant "temporal:tile=4,TB_V=0" \
    -json "$out/bench1024.json" >"$out/bench.log.tmp" 2>&1
  note "== bench N=1024, 24 steps, whole output checked: rc=$? $(grep -c 'Check:' "$out/bench.log.tmp") checked"
  grep -i 'wrong\|error' "$out/bench.log.tmp" | head -3 >>"$out/summary.txt"
  table
fi

if has ncu; then
  met=smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  met=$met,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
  met=$met,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  met=$met,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  timeout 60 ncu --clock-control none --section Occupancy --section LaunchStats --metrics "$met" -k regex:temporal \
    --launch-skip 2 --launch-count 1 "$bin/stencil" bench -n 512 -steps 8 -reps 1 -warmup 1 -check=false -kernels temporal >"$out/ncu.txt" 2>&1
  note "== ncu temporal k=4 N=512 rc=$?"
  grep -E "Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit (Reg|Shared)|issue_active|warps_active|inst_executed.sum|stalled|pipe_|wavefronts|dram__|gpu__time" "$out/ncu.txt" \
    | sed 's/  */ /g' >>"$out/summary.txt"
fi

cat "$out/summary.txt"
