#!/bin/bash
# The split over several GPUs on the 4-GPU machine: run from the repository
# root after scripts/build-multigpu.sh (no Go needed here):
#
#   B=build/mg OUT=/some/dir bash build/mg/multigpu-gpu.sh
#
# STEPS picks the groups (default all; all of them take about 9 minutes on
# 4 × H100, so two calls fit the 10-minute limit better):
#   STEPS="tests halo mpirun sanitize"   then   STEPS="scaling bench large jax"
# tests:    the gpu package's split tests (bit for bit against one GPU)
# halo:     the halo exchange against the message size, NCCL beside a peer copy
# mpirun:   mpirun -np 4, one rank per process, equal to one GPU bit for bit
# sanitize: compute-sanitizer memcheck, racecheck and synccheck on the 2-GPU path
# scaling:  strong (N = 512, 1024), weak (512²×512·G), temporal deep halos
#           (N = 1024) and the overlap variants, from one process
# bench:    stencil bench -gpus 1,2,4: strong, weak, temporal, copy (bench.json)
# large:    N = 2048, 8 steps on 2 GPUs, checked against the CPU on the cones of
#           four planes (TestMultiLarge)
# jax:      bench/peers.py's sharded JAX sweep at G = 1, 2, 4
#
# On a machine of 2 GPUs every group runs what fits: the 4-GPU rows and
# tests are skipped, each with a line that says so.
#
# Everything goes into $OUT, bundled into few files: steps.txt (each
# group's exit status and time), logs.txt (every log), scaling.json,
# halo.json, peers.json, summary.txt (the short table printed last).
set -u
export NCCL_NVLS_ENABLE=0
B=${B:-build/mg}
OUT=${OUT:-/tmp/multigpu-out}
BA=$(cd "$B" && pwd)
S=$BA/stencil
T=$BA/multi.test
TG=$BA/gpu.test
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
PY=${PY:-/opt/torch/.venv/bin/python}
want() { [[ ${STEPS:-all} == all || " ${STEPS} " == *" $1 "* ]]; }
LOGS=$OUT/logs.txt
: > "$OUT/steps.txt"
# step NAME TIMEOUT CMD...: runs with a timeout, its output appended to logs.txt.
step() {
	local name=$1 limit=$2; shift 2
	local s; s=$(date +%s.%N)
	{ echo; echo "=== $name: $*"; } >> "$LOGS"
	timeout -k 10 "$limit" "$@" >> "$LOGS" 2>&1
	local rc=$?
	echo "$name rc=$rc $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s" >> "$OUT/steps.txt"
	tail -1 "$OUT/steps.txt"
}
{
	cat "$BA/commit.txt" 2>/dev/null
	nvidia-smi -L
	nvidia-smi topo -m
	nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv
	echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
	ls -l /lib/x86_64-linux-gnu/libnccl.so* 2>&1
	which mpirun compute-sanitizer 2>&1
} > "$OUT/device.txt" 2>&1
NG=$(nvidia-smi -L | grep -c '^GPU')
ALL=$(seq -s, 0 $((NG - 1)))
# The gpu tests run in the package's folder (they read ../cuda).
cd gpu 2>/dev/null || true

want tests && step tests 240 "$T" -test.run 'TestMultiEqualsOneGPU|TestMultiPencils|TestMultiOneDevice|TestNCCL' -test.v
want tests && step tests-gpu 120 "$TG" -test.run 'TestStreamLaunch|TestNoMulticast|TestSymbolTables' -test.v
want halo && STENCIL_HALO_JSON=$OUT/halo.json step halo 90 "$T" -test.run TestHaloBandwidth -test.v
if want mpirun; then
	step mpirun-test 150 mpirun -np "$NG" --allow-run-as-root -x NCCL_NVLS_ENABLE=0 -x PATH -x LD_LIBRARY_PATH \
		"$T" -test.run TestMultiProcess -test.v
	if "$S" run -h 2>&1 | grep -q -- '-gpus'; then
		step mpirun-stencil 120 mpirun -np "$NG" --allow-run-as-root -x NCCL_NVLS_ENABLE=0 \
			"$S" run -backend gpu -gpus "$ALL" -kernel fast -n 258 -steps 6 -reps 2 -check
	fi
fi
if want sanitize; then
	# NCCL probes the driver and its kernels' images at start and meets
	# "peer access already enabled": API results it handles itself, which
	# memcheck would count as errors; --report-api-errors no counts the
	# device's memory errors only.
	for tool in memcheck racecheck synccheck; do
		CUDA_VISIBLE_DEVICES=0,1 STENCIL_TEST_N=1 STENCIL_MULTI_STEPS=fast,temporal step "sanitize-$tool" 240 \
			compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 3 "$T" -test.run 'TestMultiEqualsOneGPU' -test.v
	done
fi
want scaling && STENCIL_SCALING_JSON=$OUT/scaling.json step scaling 400 "$T" -test.run TestMultiScaling -test.v
if want bench && "$S" bench -h 2>&1 | grep -q -- '-gpus'; then
	G124=$(python3 -c "print(','.join(str(g) for g in (1, 2, 4) if g <= $NG))")
	step bench-strong 240 "$S" bench -gpus "$G124" -kernels fast -n 512,1024 -steps 20 -reps 10 -json "$OUT/bench-strong.json"
	step bench-weak 180 "$S" bench -gpus "$G124" -weak -kernels fast -n 512 -steps 20 -reps 10 -json "$OUT/bench-weak.json"
	step bench-temporal 180 "$S" bench -gpus "$G124" -kernels temporal -n 1024 -steps 20 -reps 10 -json "$OUT/bench-temporal.json"
	step bench-copy 240 "$S" bench -gpus "$G124" -overlap copy -kernels fast -n 512,1024 -steps 20 -reps 10 -json "$OUT/bench-copy.json"
	# One file back for the four.
	python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
docs = {}
for k in ("strong", "weak", "temporal", "copy"):
    p = os.path.join(out, f"bench-{k}.json")
    if os.path.exists(p):
        docs[k] = json.load(open(p))
        os.remove(p)
json.dump(docs, open(os.path.join(out, "bench.json"), "w"), indent=1)
PY
fi
if want large; then
	CUDA_VISIBLE_DEVICES=0,1 STENCIL_TEST_LARGE=1 step large 300 "$T" -test.run TestMultiLarge -test.v
	# Not `stencil run -n 2048 -check`: its float64 check of 2048³ × 8 steps on
	# the CPU ran past 7 minutes (2026-11-26); the test checks cones instead.
fi
want jax && step jax 300 "$PY" "$BA/peers.py" -n 512,1024 -sharded 1,2,4 -sharded-only -reps 10 -steps 20 -out "$OUT/peers.json"
cd - >/dev/null 2>&1 || true

# The short table, last.
python3 - "$OUT" <<'PY' > "$OUT/summary.txt" 2>&1
import json, os, sys
out = sys.argv[1]
print(open(os.path.join(out, "steps.txt")).read().strip())
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception:
        return None
s = load("scaling.json")
if s:
    print(f"\nsplit runs (NCCL {s.get('nccl')}):")
    print(f"{'kind':8} {'step':8} {'grid':>14} {'G':>2} {'overlap':7} {'ms/step':>8} {'Gpt/s':>7} {'eff':>6} {'comp':>6} {'exch':>6}")
    for r in s["rows"]:
        print(f"{r['kind']:8} {r['step']:8} {r['nz']:>4}x{r['ny']}x{r['nx']:<4} {r['gpus']:2d} {r['overlap']:7} "
              f"{r['ms_per_step']:8.4f} {r['gpts']:7.1f} {100*r['efficiency']:5.1f}% {r['compute_ms']:6.3f} {r['exchange_ms']:6.3f}")
h = load("halo.json")
if h:
    print(f"\nhalo exchange each way ({h['device']}):")
    for r in h["exchanges"]:
        print(f"{r['Bytes']:>10} B  NCCL {r['NCCLMicros']:8.1f} us {r['NCCLGBs']:6.1f} GB/s   peer {r['PeerMicros']:8.1f} us {r['PeerGBs']:6.1f} GB/s")
p = load("peers.json")
if p and p.get("sharded"):
    print("\nJAX sharded:")
    for r in p["sharded"]:
        if "error" in r:
            print(f"N={r['n']} G={r['gpus']} failed")
            continue
        print(f"N={r['n']:5d} G={r['gpus']} {r['ms_per_step']:.4f} ms/step {r['gpts']:7.1f} Gpt/s eff {100*(r['efficiency'] or 0):5.1f}%")
    if s:
        for n in (512, 1024):
            for g in (4, 2):
                lab = [r for r in s["rows"] if r["kind"] == "strong" and r["nz"] == n and r["gpus"] == g]
                jx = [r for r in p["sharded"] if r.get("n") == n and r.get("gpus") == g and "gpts" in r]
                if lab and jx:
                    print(f"N={n}: the lab at {g} GPUs is {lab[0]['gpts'] / jx[0]['gpts']:.2f}x JAX's points per second")
                    break
PY
cat "$OUT/summary.txt"
