#!/bin/bash
# peers-gpu.sh: EBISU (Zhang et al., ICS'23; the artifact vendored under
# bench/peers/ebisu) beside the lab's fast and temporal steps on one GPU,
# every run gated on the lab's CPU reference, in one command a card:
#
#   1. builds EBISU's 3d7pt (and 3d13pt) for sm_90 in its A100 setting and
#      in Hopper settings of depth, tile and items per thread
#      (bench/peers/build-ebisu.sh);
#   2. writes one input a grid and the lab's reference of it, lab.Advance
#      with EBISU's coefficients (ebisucheck ref), while it builds;
#   3. stencil bench -kernels fast,temporal at N = 512 and 1024 over 8
#      and 24 time steps, each output checked whole against lab.Advance;
#   4. each EBISU setting at N = 512 and 1024 over 8 and 24 steps (where
#      its depth divides the steps and its grid fits the card), with the
#      artifact's L2 window and with a persisting L2 set-aside, its output
#      gated by ebisucheck cmp;
#   5. ebisucheck report: OUTDIR/peers_CARD.json with the device's name.
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/peers/stencil ./cmd/stencil
#   CGO_ENABLED=0 go build -o build/peers/ebisucheck ./bench/peers/ebisucheck
# Run on the GPU machine (nvcc, g++, patch), from the repository root:
#   bench/peers-gpu.sh OUTDIR
# BIN names the binaries' folder (build/peers), PEERS_SRC the folder of
# ebisu/ and its patch (bench/peers), WORK a scratch folder with room for
# six N³ grids of the largest N (4 GiB each at N = 1024), CARD the file's
# suffix (h200). RUNS replaces the list of EBISU runs ("variant stencil N
# steps l2" a line). OUTDIR gets peers_CARD.json, summary.txt and
# logs.tar.gz (builds, runs, lab bench), and as they are written lab8.json,
# lab24.json and runs.jsonl, so that a run cut short still returns them.
set -u
out=${1:?usage: bench/peers-gpu.sh OUTDIR}
bin=${BIN:-build/peers}
src=${PEERS_SRC:-$(cd "$(dirname "$0")" && pwd)/peers}
card=${CARD:-h200}
work=${WORK:-/tmp/peers-work}
commit=dd3d84471cb64f504ad3019e29def10a3434599d
mkdir -p "$out" "$work" "$work/logs"
out=$(cd "$out" && pwd)
logs=$work/logs
sum=$out/summary.txt
: >"$sum"
note() { echo "$*" | tee -a "$sum"; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$logs/device.txt" 2>&1
note "$(tail -1 "$logs/device.txt")"
t0=$(date +%s)

# 2. inputs and references (CPU), beside the build.
(
  "$bin/ebisucheck" ref -n 512 -steps 8,24 -dir "$work" &&
    "$bin/ebisucheck" ref -n 512 -steps 8 -stencil 13 -dir "$work" &&
    "$bin/ebisucheck" ref -n 1024 -steps 8,24 -dir "$work"
) >"$logs/ref.log" 2>&1 &
refpid=$!

# 1. EBISU's builds (CPU).
"$src/build-ebisu.sh" "$work/ebisu" "$src" >"$logs/build.log" 2>&1 &
buildpid=$!

# 3. the lab (GPU), while those run on the CPU.
for s in 8 24; do
  timeout 200 "$bin/stencil" bench -n 512,1024 -steps $s -reps 10 -warmup 2 -kernels fast,temporal \
    -json "$work/lab$s.json" >"$logs/lab$s.log" 2>&1
  note "lab bench steps=$s rc=$? $(grep -c 'wrong' "$logs/lab$s.log") wrong"
  cp "$work/lab$s.json" "$out/" 2>/dev/null
done
wait $buildpid
cat "$logs/build.log" >>"$sum"
wait $refpid
note "references rc=$? $(grep -h 'ebisucheck ref' "$logs/ref.log" | tr '\n' ';')"
note "setup done after $(($(date +%s) - t0)) s"

# 4. EBISU's runs (GPU). l2: artifact (its 30 MB window, no set-aside) or
# persist (the largest set-aside and window the card allows).
RUNS=${RUNS:-"
a100 3d7pt 512 8 artifact
a100 3d7pt 512 24 artifact
a100 3d7pt 512 8 persist
a100 3d7pt 512 24 persist
t4 3d7pt 512 8 artifact
t4 3d7pt 512 24 artifact
t12 3d7pt 512 24 artifact
t4 3d13pt 512 8 artifact
a100 3d7pt 1024 8 artifact
t2 3d7pt 1024 8 artifact
t2 3d7pt 1024 24 artifact
t2 3d7pt 1024 24 persist
x64i16t2 3d7pt 1024 8 artifact
x64i16t2 3d7pt 1024 24 artifact
"}
: >"$work/runs.jsonl"
while read -r v st n s l2; do
  [ -z "$v" ] && continue
  exe=$work/ebisu/$st-$v/ebisu
  log=$logs/run-$st-$v-$n-$s-$l2.log
  rm -f "$work/got.f32"
  l2env=()
  [ "$l2" = persist ] && l2env=(EBISU_L2_SETASIDE_MB=100000 EBISU_L2_WINDOW_MB=100000)
  reps=10 warm=2
  [ "$n" -ge 1024 ] && reps=5 warm=1
  if [ -x "$exe" ]; then
    env "${l2env[@]}" EBISU_INPUT="$work/in_$n.f32" EBISU_DUMP="$work/got.f32" EBISU_REPS=$reps EBISU_WARMUP=$warm \
      timeout 60 "$exe" $n $n $n --fp32 --iter=$s >"$log" 2>&1
    echo "rc=$?" >>"$log"
  else
    echo "not built" >"$log"
  fi
  k=${st#3d}
  k=${k%pt}
  "$bin/ebisucheck" cmp -stencil "$k" -n "$n" -steps "$s" -ref "$work/ref${k}_${n}_$s.f32" -got "$work/got.f32" \
    -log "$log" -variant "$v" -l2 "$l2" -o "$work/runs.jsonl" 2>&1 | tee -a "$sum"
  cp "$work/runs.jsonl" "$out/"
done <<<"$RUNS"
rm -f "$work/got.f32"

# EBISU's own check at 24 steps, the A100 setting, as the artifact runs it.
if [ -z "${SKIP_OWN_CHECK:-}" ] && [ -x "$work/ebisu/3d7pt-a100/ebisu" ]; then
  timeout 90 "$work/ebisu/3d7pt-a100/ebisu" 512 512 512 --fp32 --iter=24 --check >"$logs/own-check-512-24.log" 2>&1
  note "EBISU's own check, a100, N=512, 24 steps: rc=$? $(grep -h 'Max Error\|RMS' "$logs/own-check-512-24.log" | tr '\n' ' ')"
fi

# 5. the card's file.
cp "$work"/lab*.json "$work/runs.jsonl" "$logs/"
"$bin/ebisucheck" report -lab "$work/lab8.json,$work/lab24.json" -runs "$work/runs.jsonl" -commit "$commit" \
  -o "$out/peers_$card.json" 2>&1 | tee -a "$sum"
tar -C "$work" -czf "$out/logs.tar.gz" logs ebisu/patch.log $(cd "$work" && ls ebisu/*/build.log 2>/dev/null)
note "done after $(($(date +%s) - t0)) s"
