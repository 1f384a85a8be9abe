#!/bin/bash
# The CUDA exercises on the GPU machine: run from the repository root.
# Build here first (Go, cgo):
#   CGO_ENABLED=1 go build -tags hidden -o $B/grade ./cmd/grade
#   CGO_ENABLED=1 go test -c -o $B/gpu.test ./gpu
#   STENCILLAB_CUDA_FIXTURES=$PWD/$B/fixtures go test -count=1 ./exercises/cudacheck -run TestFixtures
# Writes everything into $OUT. No Go needed: $B/grade is prebuilt
# (with -tags hidden, CGO_ENABLED=1), and so is $B/gpu.test; the fixtures are
# in $B/fixtures (see exercises/cudacheck/fixtures_test.go).
set -u
B=${B:-build/cuda-exercises}
G=$B/grade
OUT=${OUT:-/tmp/cuda-exercises-out}
mkdir -p "$OUT"
nvidia-smi -L > "$OUT/device.txt" 2>&1
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv >> "$OUT/device.txt" 2>&1
which compute-sanitizer >> "$OUT/device.txt" 2>&1
# the fixtures graded, to compare with the ones built (sha256sum -c)
(cd "$B/fixtures" && find . -name '*.cu' | sort | xargs sha256sum) > "$OUT/fixtures.sha256" 2>&1
step() {
	local name=$1; shift
	local s; s=$(date +%s.%N)
	"$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
	local rc=$?
	echo "$name rc=$rc $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s" >> "$OUT/steps.txt"; tail -1 "$OUT/steps.txt"
}
# 0. the gpu package's test of CompileSource (a source from text)
(cd gpu && ../$B/gpu.test -test.run 'TestGPUCompileSource|TestStepGeometry' -test.v) > "$OUT/gpu-test.out" 2>&1
echo "gpu-test rc=$?" >> "$OUT/steps.txt"
# 1. the reference solutions, hidden checks included: full marks expected
step ref $G -json -v -timeout 120s -submission $B/fixtures/ref 20 21 22 23 24 25
# 2. each seed mistake alone: loses the check named for it
for s in c3c4 zloop index; do
	step seed-$s $G -json -timeout 120s -submission $B/fixtures/seed-$s 24
done
# 3. a faulting kernel (20), then the next exercise (21) graded normally;
#    the same with a hanging kernel (killed at -timeout); a compile error
step fault $G -json -timeout 60s -submission $B/fixtures/fault 20 21
step hang $G -json -timeout 20s -submission $B/fixtures/hang 20 21
step compile $G -json -timeout 60s -submission $B/fixtures/compile 20
# 4. a class of five: gradebook + leaderboard.md
step class $G -class $B/fixtures/class -out "$OUT/class" -timeout 60s -j 2 20 25
# 5. compute-sanitizer memcheck and racecheck (last: the slowest): the
#    references of 20, 21 pass both; a read past the end (20) loses
#    memcheck, the tiled kernel without its barrier (21) loses racecheck
step sanitize-ref $G -json -timeout 40s -sanitize -submission $B/fixtures/ref 20 21
step sanitize-bad $G -json -timeout 40s -sanitize -submission $B/fixtures/sanitize 20 21
python3 - "$OUT" <<'PY' > "$OUT/summary.txt" 2>&1
import json, sys, os
out = sys.argv[1]
for name in ["ref", "seed-c3c4", "seed-zloop", "seed-index", "fault", "hang", "compile", "sanitize-ref", "sanitize-bad"]:
    p = os.path.join(out, name + ".out")
    try:
        rep = json.load(open(p))
    except Exception as e:
        print(f"== {name}: no JSON ({e})"); continue
    print(f"== {name}: {rep['points']}/{rep['max_points']} seed {rep['seed']}")
    for e in rep["exercises"]:
        m = e.get("metrics") or {}
        print(f"  {e['id']} {e['points']}/{e['max_points']} [{e['status']}] {m.get('seconds', 0):.1f}s"
              + (f" pct_copy={m['pct_copy']:.1f} ms={m['ms']:.3f}" if 'pct_copy' in m else ""))
        if e.get("message"):
            print("    message:", e["message"][:600])
        for c in e["checks"]:
            t = m.get("seconds:" + c["id"])
            ts = f"{t:.2f}s" if t is not None else "-"
            print(f"    {'ok  ' if c['passed'] else 'FAIL'} {c['id']} {c['points']}/{c['max_points']} {ts} {'' if c['passed'] else c['message'][:500]}")
PY
cat "$OUT/steps.txt" "$OUT/summary.txt"
cat "$OUT/class/leaderboard.md" 2>/dev/null
