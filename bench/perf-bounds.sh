#!/bin/bash
# perf-bounds.sh: what bounds the temporal step and the single sweep, on a
# GPU machine (about 5 minutes):
#
#   ncu    Nsight Compute (--clock-control none, one launch each, every
#          metric to one CSV): the temporal step (its registered default at
#          each k: march 1 up to k = 4, march 2 above; march 2 at every k
#          when docs/bounds_*.json were recorded) at k = 2, 4 and 8 and the
#          float4 copy at N = 512; fast (the
#          registered default and FAST_BY=2) and the copy at N = 1024; fast
#          and the copy at N = 2048. Issue slots, achieved occupancy and its
#          limits, stall reasons per issued instruction, shared-memory
#          wavefronts, DRAM bytes, the L2 hit rate, waves per multiprocessor.
#   sweep  stencil bench -n 512 -steps 24 (every output checked whole
#          against lab.Advance): fast and the temporal step beside the
#          tiles, depths, chunks and marches around its default;
#   fastby stencil bench -steps 1 at N = 1024 and 2048: fast's default
#          beside FAST_BY = 1, 2 and 8 rows a block (8 is refused at 2048:
#          its ring does not fit);
#   chunks stencil bench -steps 24 at N = 512 (checked) and 1024: the
#          temporal step's default beside other planes per block (TB_CZ).
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/f/stencil ./cmd/stencil
# Run on the GPU machine, from the repository root:
#   bench/perf-bounds.sh OUTDIR
# PARTS="ncu sweep fastby chunks" chooses the parts. OUTDIR gets device.txt,
# ncu.csv, ncu.log, sweep512.json, fastby.json (one per N, joined), chunks.json,
# bench.log and summary.txt, printed last.
set -u
out=${1:?usage: bench/perf-bounds.sh OUTDIR}
bin=${BIN:-build/f}
parts=${PARTS:-ncu sweep fastby}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$out/device.txt" 2>&1
: >"$out/summary.txt"
: >"$out/bench.log"
note() { echo "$*" >>"$out/summary.txt"; }
has() { [[ " $parts " == *" $1 "* ]]; }
table() { sed -n '/^kernel /,/^GB\/s count/p' "$1" | cut -c1-130 >>"$out/summary.txt"; cat "$1" >>"$out/bench.log"; rm -f "$1"; }

if has ncu; then
  met=smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  for s in barrier short_scoreboard long_scoreboard mio_throttle math_pipe_throttle wait not_selected selected lg_throttle membar; do
    met=$met,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
  done
  met=$met,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  met=$met,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  met=$met,lts__t_sector_hit_rate.pct,launch__waves_per_multiprocessor,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
  met=$met,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers
  met=$met,launch__occupancy_limit_shared_mem,launch__occupancy_limit_blocks,launch__occupancy_limit_warps,sm__maximum_warps_per_active_cycle_pct
  met=$met,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,smsp__sass_inst_executed_op_shared_ld.sum
  met=$met,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_global_ld.sum
  first=1
  : >"$out/ncu.csv"
  : >"$out/ncu.log"
  prof() { # prof LABEL KERNEL_REGEX N BENCH_ARGS...
    local label=$1 re=$2 n=$3
    shift 3
    timeout 90 ncu --clock-control none --csv --page raw --metrics "$met" -k "regex:$re" --launch-count 1 \
      "$bin/stencil" bench -n "$n" -reps 1 -warmup 0 -check=false "$@" >"$out/ncu.tmp" 2>>"$out/ncu.log"
    local rc=$?
    # The CSV starts at the header line ("ID",...); keep one header.
    if [ $first = 1 ]; then
      grep -m1 '^"ID"' "$out/ncu.tmp" | sed 's/^/"label",/' >>"$out/ncu.csv"
      first=0
    fi
    grep -A1000 -m1 '^"ID"' "$out/ncu.tmp" | tail -n +2 | grep '^"' | grep -v '^"",' | sed "s/^/\"$label\",/" >>"$out/ncu.csv"
    note "ncu $label rc=$rc rows=$(grep -A1000 -m1 '^"ID"' "$out/ncu.tmp" | tail -n +2 | grep '^"' | grep -vc '^"",')"
    grep -v '^"' "$out/ncu.tmp" | tail -3 >>"$out/ncu.log"
    rm -f "$out/ncu.tmp"
  }
  for k in 2 4 8; do
    prof "temporal_k${k}_n512" '^temporal$' 512 -steps 8 -kernels "" -variant "temporal:tile=$k"
  done
  prof copy_n512 '^copy_float4$' 512 -steps 8 -kernels "" -variant "temporal:tile=4"
  prof fast_n1024 '^fast' 1024 -kernels fast
  prof fast_by2_n1024 '^fast' 1024 -kernels "" -variant fast:FAST_BY=2
  prof copy_n1024 '^copy_float4$' 1024 -kernels fast
  prof fast_n2048 '^fast' 2048 -kernels fast
  prof copy_n2048 '^copy_float4$' 2048 -kernels fast
fi

if has sweep; then
  tv=()
  for x in "tile=4,TB_BY=28" "tile=4,TB_BY=40,TB_MINB=1" "tile=4,TB_BY=48,TB_MINB=1" "tile=4,TB_BY=64,TB_MINB=1" \
    "tile=4,TB_BX=128,TB_BY=16" "tile=4,TB_BX=128,TB_BY=24,TB_MINB=1" "tile=4,TB_BX=32,TB_BY=32,TB_MINB=4" \
    "tile=4,TB_STREAM=1" "tile=4,TB_L2PF=2" "tile=4,TB_MINB=1" "tile=3" "tile=6" \
    "tile=4,TB_CZ=170" "tile=4,TB_CZ=255" "tile=4,TB_CZ=510" "tile=4,TB_V=1,TB_BY=36" "tile=4,TB_V=0"; do
    tv+=(-variant "temporal:$x")
  done
  timeout 240 "$bin/stencil" bench -n 512 -steps 24 -reps 10 -warmup 2 -kernels fast,temporal "${tv[@]}" \
    -json "$out/sweep512.json" >"$out/b.tmp" 2>&1
  note "== sweep N=512, 24 steps, whole output checked: rc=$? $(grep -c 'Check:' "$out/b.tmp") checked"
  grep -i 'wrong\|error' "$out/b.tmp" | head -3 >>"$out/summary.txt"
  table "$out/b.tmp"
fi

if has fastby; then
  for n in 1024 2048; do
    reps=20
    [ "$n" = 2048 ] && reps=6
    timeout 150 "$bin/stencil" bench -n "$n" -steps 1 -reps "$reps" -warmup 1 -kernels fast \
      -variant fast:FAST_BY=1 -variant fast:FAST_BY=2 $([ "$n" = 1024 ] && echo -variant fast:FAST_BY=8) -json "$out/fastby$n.json" >"$out/b.tmp" 2>&1
    note "== fast rows a block, N=$n: rc=$?"
    table "$out/b.tmp"
  done
  python3 -c 'import json,sys; json.dump([json.load(open(f)) for f in sys.argv[2:]], open(sys.argv[1],"w"))' \
    "$out/fastby.json" "$out/fastby1024.json" "$out/fastby2048.json" 2>>"$out/summary.txt" && rm -f "$out"/fastby1024.json "$out"/fastby2048.json
fi

if has chunks; then
  for n in 512 1024; do
    tv=()
    cz="32 42 51 64 73 102 128"
    chk=-check
    [ "$n" = 1024 ] && cz="64 93 113 128 205 256" && chk=-check=false
    for c in $cz; do tv+=(-variant "temporal:tile=4,TB_CZ=$c"); done
    timeout 200 "$bin/stencil" bench -n "$n" -steps 24 -reps 6 -warmup 1 "$chk" -kernels fast,temporal "${tv[@]}" \
      -json "$out/chunks$n.json" >"$out/b.tmp" 2>&1
    note "== temporal planes per block, N=$n: rc=$? $(grep -c 'Check:' "$out/b.tmp") checked"
    table "$out/b.tmp"
  done
  python3 -c 'import json,sys; json.dump([json.load(open(f)) for f in sys.argv[2:]], open(sys.argv[1],"w"))' \
    "$out/chunks.json" "$out/chunks512.json" "$out/chunks1024.json" 2>>"$out/summary.txt" && rm -f "$out"/chunks512.json "$out"/chunks1024.json
fi

cat "$out/summary.txt"
