#!/bin/bash
# perf-final.sh: the registered choices of fast and temporal against the
# old defaults and a few neighbours on a GPU machine, each N one process
# beside the float4 copy and the interior copy, then compute-sanitizer on
# the temporal tests and one Nsight Compute pass of each temporal march
# (about 7 minutes in all).
#
#   1. fast, one sweep, at N = 512, 1024 and 2048 in one process: the
#      registered choice (rows, warps and planes per block chosen per
#      grid), the old default (FAST_BY=4,FAST_WX=8, the chunk filling the
#      GPU in whole waves) and neighbours; three planes of each output
#      checked;
#   2. temporal, 8 time steps a run, at N = 512 (the whole output checked
#      against lab.Advance) and 1024: fast, the registered temporal step,
#      the old default (march 0, TB_V=0) and neighbours;
#   3. compute-sanitizer memcheck, racecheck and synccheck on
#      TestGPUTemporal at N = 67 and 68 for k = 1, 2, 4 (every march);
#   4. ncu (--clock-control none) of one pass of the registered temporal
#      step and of march 0 at N = 512: issue slots, warp states, occupancy,
#      barriers.
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/f/stencil ./cmd/stencil
#   CGO_ENABLED=1 go test -c -o build/f/gpu.test ./gpu
# Run on the GPU machine, from the repository root:
#   bench/perf-final.sh OUTDIR
# PARTS="fast temporal sanitizer ncu" chooses the parts; logs and JSON go
# to OUTDIR, and the tables are printed last.
set -u
out=${1:?usage: bench/perf-final.sh OUTDIR}
bin=${BIN:-build/f}
parts=${PARTS:-fast temporal sanitizer ncu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$out/device.txt" 2>&1
: >"$out/summary.txt"
note() { echo "$*" | tee -a "$out/summary.txt"; }

# The old default and the neighbours of the registered fast choice, the
# same at every N.
fastv=(FAST_BY=4,FAST_WX=8 FAST_BY=4,FAST_WX=16 FAST_BY=2,FAST_WX=8 FAST_BY=2,FAST_WX=16 FAST_BY=3,FAST_WX=16 tile=64 tile=128)
# The temporal variants beside the registered step.
temporal=("tile=4,TB_V=0" "tile=2" "tile=3" "tile=8" "tile=4,TB_V=1" "tile=4,TB_V=2")

if [[ " $parts " == *" fast "* ]]; then
  vs=()
  for x in "${fastv[@]}"; do vs+=(-variant "fast:$x"); done
  timeout 200 "$bin/stencil" bench -n 512,1024,2048 -steps 1 -reps 12 -warmup 2 -kernels fast "${vs[@]}" \
    -json "$out/fast.json" >"$out/fast.log" 2>&1
  note "fast 512,1024,2048 rc=$?"
fi

if [[ " $parts " == *" temporal "* ]]; then
  tv=()
  for x in "${temporal[@]}"; do tv+=(-variant "temporal:$x"); done
  timeout 90 "$bin/stencil" bench -n 512 -steps 24 -reps 10 -warmup 2 -kernels fast,temporal "${tv[@]}" \
    -json "$out/temporal512.json" >"$out/temporal512.log" 2>&1
  note "temporal 512 rc=$?"
  timeout 80 "$bin/stencil" bench -n 1024 -steps 24 -reps 5 -warmup 1 -check=false -kernels fast,temporal "${tv[@]}" \
    -json "$out/temporal1024.json" >"$out/temporal1024.log" 2>&1
  note "temporal 1024 rc=$?"
fi

if [[ " $parts " == *" sanitizer "* ]]; then
  for tool in memcheck synccheck racecheck; do
    STENCIL_TEST_N=67,68 STENCIL_TEST_K=1,2,4 timeout 70 compute-sanitizer --tool "$tool" \
      "$bin/gpu.test" -test.run TestGPUTemporal >"$out/sanitizer-$tool.log" 2>&1
    note "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1) pass=$(grep -c -- '--- PASS' "$out/sanitizer-$tool.log")"
  done
fi

if [[ " $parts " == *" ncu "* ]]; then
  met=smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
  met=$met,smsp__inst_executed.sum,sm__sass_inst_executed_op_shared_ld.sum,sm__sass_inst_executed_op_shared_st.sum
  met=$met,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
  met=$met,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
  met=$met,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active
  met=$met,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  met=$met,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  sec="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
  for v in "" ",TB_V=0"; do
    echo "=== temporal k=4 n=512 ${v#,}" >>"$out/ncu.txt"
    timeout 70 ncu --clock-control none $sec --metrics "$met" -k regex:temporal --launch-skip 2 --launch-count 1 \
      "$bin/stencil" bench -n 512 -steps 8 -reps 1 -warmup 1 -check=false -kernels "" -variant "temporal:tile=4$v" >>"$out/ncu.txt" 2>&1
    note "ncu temporal${v} rc=$?"
  done
fi

for f in fast temporal512 temporal1024; do
  [ -f "$out/$f.log" ] || continue
  echo "== $f"
  sed -n '/^kernel /,$p' "$out/$f.log" | cut -c1-120
  grep -i 'error\|wrong\|stencil bench:' "$out/$f.log" | grep -v '^bench: N=' | head -5 || true
done
[ -f "$out/ncu.txt" ] && grep -E "^===|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Issue Slots|issue_active|warps_active|inst_executed.sum|stalled|pipe_|wavefronts|Compute \(SM\)|DRAM Through|Block Limit" "$out/ncu.txt" | head -80
cat "$out/summary.txt"
