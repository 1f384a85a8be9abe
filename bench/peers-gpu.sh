#!/bin/bash
# peers-gpu.sh: EBISU (Zhang et al., ICS'23; the artifact vendored under
# bench/peers/ebisu) beside the lab's steps on one GPU, every run gated on
# the lab's CPU reference, in one command a card that fits ten minutes:
#
#   1. builds EBISU's 3d7pt and 3d13pt for sm_90 in its A100 setting and in
#      Hopper settings of depth, tile and items per thread
#      (bench/peers/build-ebisu.sh), on the CPU at low priority;
#   2. writes one input a grid and the lab's references of it (ebisucheck
#      ref: lab.Advance and lab.Advance13 with EBISU's coefficients), on the
#      CPU at low priority, beside the build;
#   3. meanwhile on the GPU: stencil bench -kernels
#      fast,temporal,star13,temporal13 at N = 512 and 1024 over STEPS time
#      steps, each output checked whole against lab.Advance or
#      lab.Advance13;
#   4. each EBISU run at N = 512 and 1024 over STEPS steps (where its depth
#      divides the steps and its grid fits the card), with the artifact's
#      L2 window or a persisting L2 set-aside, its output gated by
#      ebisucheck cmp; runs that would start after DEADLINE seconds are
#      skipped and named in the summary;
#   5. ebisucheck report: OUTDIR/peers_CARD.json, rewritten after the lab's
#      bench and after every EBISU run, so that a run cut short still
#      returns what it measured.
#
# Build on a machine with Go, from the repository root:
#   CGO_ENABLED=1 go build -o build/peers/stencil ./cmd/stencil
#   CGO_ENABLED=0 go build -o build/peers/ebisucheck ./bench/peers/ebisucheck
# Run on the GPU machine (nvcc, g++, patch), from the repository root:
#   bench/peers-gpu.sh OUTDIR
# BIN names the binaries' folder (build/peers), PEERS_SRC the folder of
# ebisu/ and its patch (bench/peers), WORK a scratch folder with room for
# seven N³ grids of the largest N (4 GiB each at N = 1024), CARD the
# file's suffix (h200), STEPS the time steps of every run (24), DEADLINE
# the seconds after which no EBISU run starts (500). RUNS replaces the
# list of EBISU runs ("variant stencil N l2" a line). OUTDIR gets
# peers_CARD.json, summary.txt (with the seconds each phase ended at),
# lab.json, runs.jsonl and logs/ (device, builds, references, runs).
set -u
out=${1:?usage: bench/peers-gpu.sh OUTDIR}
bin=${BIN:-build/peers}
src=${PEERS_SRC:-$(cd "$(dirname "$0")" && pwd)/peers}
card=${CARD:-h200}
work=${WORK:-/tmp/peers-work}
steps=${STEPS:-24}
deadline=${DEADLINE:-500}
commit=dd3d84471cb64f504ad3019e29def10a3434599d
mkdir -p "$out/logs" "$work"
out=$(cd "$out" && pwd)
logs=$out/logs
sum=$out/summary.txt
: >"$sum"
t0=$(date +%s)
note() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$sum"; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv >"$logs/device.txt" 2>&1
note "$(tail -1 "$logs/device.txt")"
: >"$work/runs.jsonl"
report() {
  "$bin/ebisucheck" report -lab "$work/lab.json" -runs "$work/runs.jsonl" -commit "$commit" \
    -command "STEPS=$steps bench/peers-gpu.sh OUTDIR" -o "$out/peers_$card.json" >"$logs/report.log" 2>&1
  cp "$work/runs.jsonl" "$out/"
}

# 1, 2. EBISU's builds and the references, on the CPU at low priority.
nice -n 19 "$src/build-ebisu.sh" "$work/ebisu" "$src" >"$logs/build.log" 2>&1 &
buildpid=$!
ref() { nice -n 19 "$bin/ebisucheck" ref -n "$1" -stencil "$2" -steps "$steps" -dir "$work" "${@:3}" >"$logs/ref$2_$1.log" 2>&1; }
(ref 512 7 && ref 512 13) &
ref512=$!
# The 1024 references share in_1024.f32: the seven-point one writes it,
# the thirteen-point one (same seed, same input) runs beside it.
ref 1024 7 &
ref1024a=$!
ref 1024 13 -input=false &
ref1024b=$!

# 3. the lab, on the GPU, while those run.
timeout 300 "$bin/stencil" bench -n 512,1024 -steps "$steps" -reps 10 -warmup 2 \
  -kernels fast,temporal,star13,temporal13 -json "$work/lab.json" >"$logs/lab.log" 2>&1
note "lab bench steps=$steps rc=$? $(grep -ci 'wrong\|mismatch\|error' "$logs/lab.log") lines naming an error"
cp "$work/lab.json" "$out/" 2>/dev/null
report

# 4. EBISU's runs. l2: artifact (its 30 MB window, no set-aside) or
# persist (the largest set-aside and window the card allows).
RUNS=${RUNS:-"
a100 3d7pt 512 artifact
t12 3d7pt 512 artifact
t4 3d13pt 512 artifact
t2 3d7pt 1024 artifact
x64i16t2 3d7pt 1024 artifact
t1 3d13pt 1024 artifact
t6 3d7pt 512 artifact
t6 3d13pt 512 artifact
t3 3d13pt 512 artifact
x64i32t2 3d7pt 1024 artifact
x64i16t1 3d13pt 1024 artifact
a100 3d7pt 512 persist
a100 3d7pt 1024 artifact
t2 3d7pt 1024 persist
"}
wait $buildpid
note "builds done: $(grep -c 'rc=0' "$logs/build.log") of $(grep -c '^build ' "$logs/build.log") built"
cat "$logs/build.log" >>"$sum"
for b in "$work"/ebisu/*/build.log; do
  [ -f "$b" ] && cp "$b" "$logs/build-$(basename "$(dirname "$b")").log"
done
wait $ref512
note "N=512 references rc=$?"
waited1024=
while read -r v st n l2; do
  [ -z "$v" ] && continue
  if [ "$n" -ge 1024 ] && [ -z "$waited1024" ]; then
    wait $ref1024a
    a=$?
    wait $ref1024b
    note "N=1024 references rc=$a,$?"
    waited1024=1
  fi
  if [ $(($(date +%s) - t0)) -gt "$deadline" ]; then
    note "skipped (past ${deadline} s): $v $st N=$n $l2"
    continue
  fi
  exe=$work/ebisu/$st-$v/ebisu
  log=$logs/run-$st-$v-$n-$steps-$l2.log
  rm -f "$work/got.f32"
  l2env=()
  [ "$l2" = persist ] && l2env=(EBISU_L2_SETASIDE_MB=100000 EBISU_L2_WINDOW_MB=100000)
  reps=10 warm=2
  [ "$n" -ge 1024 ] && reps=5 warm=1
  if [ -x "$exe" ]; then
    env "${l2env[@]}" EBISU_INPUT="$work/in_$n.f32" EBISU_DUMP="$work/got.f32" EBISU_REPS=$reps EBISU_WARMUP=$warm \
      timeout 60 "$exe" $n $n $n --fp32 --iter="$steps" >"$log" 2>&1
    echo "rc=$?" >>"$log"
  else
    echo "not built" >"$log"
  fi
  k=${st#3d}
  k=${k%pt}
  note "$("$bin/ebisucheck" cmp -stencil "$k" -n "$n" -steps "$steps" -ref "$work/ref${k}_${n}_$steps.f32" -got "$work/got.f32" \
    -log "$log" -variant "$v" -l2 "$l2" -o "$work/runs.jsonl" 2>&1)"
  report
done <<<"$RUNS"
rm -f "$work/got.f32"
wait

# 5. the card's file, once more, and its table.
report
cat "$logs/report.log" | tee -a "$sum"
note "done"
