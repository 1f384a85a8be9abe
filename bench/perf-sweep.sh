#!/bin/bash
# perf-sweep.sh: the fast sweep's configurations and the temporal step's
# variants on a GPU machine, each N in one process beside the float4 copy
# and the interior copy (about 6 minutes in all).
#
#   1. fast, one sweep (-steps 1), at N = 512, 1024 and 2048: the registered
#      default beside rows per block (FAST_BY), warps per block (FAST_WX)
#      and planes per block (tile) around it (the run recorded in
#      docs/fast_sweep_h200_n*.json timed a per-grid rule, since withdrawn,
#      as "fast");
#   2. temporal at N = 512 (whole output checked against lab.Advance) and
#      1024, 24 time steps a run (so that k = 1, 2, 3, 4, 6 and 8 all fit),
#      beside fast: march 0 (TB_V=0, the two-plane march), march 1
#      (TB_V=1, three register slots, unrolled by three) and march 2
#      (TB_V=2, two, unrolled by two) at several k and tiles;
#   3. the temporal tests (TestGPUTemporal: every configuration of
#      gpu/temporal_test.go, marches 1 and 2 included, against lab.Advance),
#      then the sweeps' (TestGPUSevenPoint, TestGPUNonCubic, TestFast…).
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/f/stencil ./cmd/stencil
#   CGO_ENABLED=1 go test -c -o build/f/gpu.test ./gpu
# Run on the GPU machine, from the repository root:
#   bench/perf-sweep.sh OUTDIR
# PARTS="fast temporal tests" chooses the parts; logs and bench JSON go to
# OUTDIR, and the tables are printed last.
set -u
out=${1:?usage: bench/perf-sweep.sh OUTDIR}
bin=${BIN:-build/f}
parts=${PARTS:-fast temporal tests}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$out/device.txt" 2>&1
: >"$out/summary.txt"
note() { echo "$*" | tee -a "$out/summary.txt"; }

# fastVariants N: the configurations timed beside the registered default:
# the default spelled out (FAST_BY=4, FAST_WX=8, the chunk filling the GPU
# in whole waves), then rows, warps and planes per block around it.
fastVariants() {
  local v=(B4W8)
  case $1 in
  512)
    v+=(B4W16 B2W8 B3W8 B6W16 B8W16 B4W16:64 B4W16:85 B4W16:128 B4W16:255
      B4W8:64 B4W8:85 B4W8:255 B2W8:64 B2W8:128 B2W8:255 B4W12 B4W16,FAST_DEPTH=2 B4W16,FAST_PFD=1 :64 :85 :170)
    ;;
  1024)
    v+=(B4W16 B2W8 B3W8 B2W16 B1W8 B1W16
      B4W8:64 B4W8:103 B4W8:128 B4W8:256 B4W8:511
      B4W16:64 B4W16:103 B4W16:128 B4W16:256
      B2W8:64 B2W8:128 B2W8:205 B2W16:64 B2W16:128
      B3W16 B3W16:64 B1W8:128 B4W32:128 :64 :103 :205)
    ;;
  2048)
    v+=(B4W16 B4W32 B4W8:64 B4W8:128 B4W8:171
      B4W16:64 B4W16:128 B4W32:128
      B1W8 B1W8:128 B1W16:128 B1W16:64
      B2W8:128 B2W16:128 B3W16:128 :64 :228 :512)
    ;;
  esac
  local x spec
  for x in "${v[@]}"; do
    spec=${x%%:*}
    spec=${spec/B/FAST_BY=}
    spec=${spec/W/,FAST_WX=}
    [[ $x == *:* ]] && spec="$spec,tile=${x#*:}"
    spec=${spec#,}
    printf -- '-variant\nfast:%s\n' "$spec"
  done
}

if [[ " $parts " == *" fast "* ]]; then
  for n in 512 1024 2048; do
    reps=20 warm=3 lim=100
    [ "$n" = 2048 ] && reps=6 warm=1 lim=170
    mapfile -t vs < <(fastVariants "$n")
    timeout "$lim" "$bin/stencil" bench -n "$n" -steps 1 -reps "$reps" -warmup "$warm" -kernels fast "${vs[@]}" \
      -json "$out/fast$n.json" >"$out/fast$n.log" 2>&1
    note "fast $n rc=$?"
  done
fi

if [[ " $parts " == *" temporal "* ]]; then
  # Two processes a size, march 0 (v0) then marches 1 and 2 (v1), so that
  # a failure in one leaves the other's table.
  v0=(tile=1 tile=2 tile=3 tile=8 "tile=4,TB_MINB=1" "tile=4,TB_BY=64,TB_MINB=1" "tile=4,TB_BX=128,TB_BY=32,TB_MINB=1")
  v1=("tile=2,TB_V=1" "tile=3,TB_V=1" "tile=4,TB_V=1" "tile=6,TB_V=1" "tile=8,TB_V=1" "tile=4,TB_V=1,TB_BY=36"
    "tile=3,TB_V=1,TB_BY=40" "tile=4,TB_V=1,TB_STREAM=1" "tile=2,TB_V=2" "tile=3,TB_V=2" "tile=4,TB_V=2"
    "tile=4,TB_V=2,TB_MINB=1" "tile=8,TB_V=2")
  for m in 0 1; do
    tv=()
    if [ $m = 0 ]; then set -- "${v0[@]}"; else set -- "${v1[@]}"; fi
    for x in "$@"; do tv+=(-variant "temporal:$x"); done
    timeout 100 "$bin/stencil" bench -n 512 -steps 24 -reps 8 -warmup 2 -kernels fast,temporal "${tv[@]}" \
      -json "$out/temporal512v$m.json" >"$out/temporal512v$m.log" 2>&1
    note "temporal 512 march $m rc=$?"
    timeout 80 "$bin/stencil" bench -n 1024 -steps 24 -reps 4 -warmup 1 -check=false -kernels fast,temporal "${tv[@]}" \
      -json "$out/temporal1024v$m.json" >"$out/temporal1024v$m.log" 2>&1
    note "temporal 1024 march $m rc=$?"
  done
fi

if [[ " $parts " == *" tests "* ]]; then
  STENCIL_TEST_N=3,67,68,130 timeout 90 "$bin/gpu.test" -test.run 'TestGPUTemporal|TestTemporal|TestChooseChunk' -test.v >"$out/tests.log" 2>&1
  note "temporal tests rc=$? pass=$(grep -c -- '--- PASS' "$out/tests.log") fail=$(grep -c -- '--- FAIL' "$out/tests.log")"
  grep -- '--- FAIL' "$out/tests.log" | head -20 | tee -a "$out/summary.txt"
  timeout 90 "$bin/gpu.test" -test.run 'TestGPUSevenPoint|TestGPUNonCubic|TestFast' -test.v >"$out/tests-fast.log" 2>&1
  note "sweep tests rc=$? pass=$(grep -c -- '--- PASS' "$out/tests-fast.log") fail=$(grep -c -- '--- FAIL' "$out/tests-fast.log")"
  grep -- '--- FAIL' "$out/tests-fast.log" | head -20 | tee -a "$out/summary.txt"
fi

for f in fast512 fast1024 fast2048 temporal512v0 temporal512v1 temporal1024v0 temporal1024v1; do
  [ -f "$out/$f.log" ] || continue
  echo "== $f"
  sed -n '/^kernel /,$p' "$out/$f.log" | cut -c1-120
  grep -i 'error\|wrong\|stencil bench:' "$out/$f.log" | grep -v '^bench: N=' | head -5 || true
  grep -E 'Registers/Thread' "$out/$f.log" | sort | uniq -c | head -8
done
cat "$out/summary.txt"
