#!/bin/bash
# The CUDA exercises on the GPU machine: run from the repository root.
# Build here first (Go, cgo):
#   CGO_ENABLED=1 go build -tags hidden -o $B/grade ./cmd/grade
#   CGO_ENABLED=1 go test -c -o $B/gpu.test ./gpu
#   CGO_ENABLED=1 go test -tags hidden -c -o $B/cudacheck.test ./exercises/cudacheck
#   STENCILLAB_CUDA_FIXTURES=$PWD/$B/fixtures go test -tags hidden -count=1 ./exercises/cudacheck -run TestFixtures
#   STENCILLAB_CUDA_ATTACKS=$PWD/$B/attacks go test -count=1 ./exercises/grader -run TestCUDAAttackFixtures
# and, where the GPU machine has no bubblewrap, Debian's, unpacked:
#   (cd $B && apt-get download bubblewrap && dpkg -x bubblewrap_*.deb bwrap)
# Writes everything into $OUT. No Go needed: $B/grade is prebuilt
# (with -tags hidden, CGO_ENABLED=1), and so is $B/gpu.test; the fixtures are
# in $B/fixtures (see exercises/cudacheck/fixtures_test.go), the attacks in
# $B/attacks (exercises/grader/cuda_attack_test.go). Every CUDA child runs in the
# sandbox: the bwrap on the PATH, or $B/bwrap's (STENCILLAB_BWRAP).
set -u
B=${B:-build/cuda-exercises}
G=$B/grade
grade() { "$G" $GRADE_FLAGS "$@"; }
OUT=${OUT:-/tmp/cuda-exercises-out}
mkdir -p "$OUT"
if ! command -v bwrap >/dev/null && [ -x "$B/bwrap/usr/bin/bwrap" ]; then
	export STENCILLAB_BWRAP=$PWD/$B/bwrap/usr/bin/bwrap
fi
echo "bwrap: ${STENCILLAB_BWRAP:-$(command -v bwrap)}" > "$OUT/sandbox.txt"
# GRADE_FLAGS are added to every grade command (e.g. -unsafe-no-sandbox
# where the machine has no bubblewrap at all; said in sandbox.txt).
GRADE_FLAGS=${GRADE_FLAGS:-}
echo "grade flags: ${GRADE_FLAGS:-none}" >> "$OUT/sandbox.txt"
"${STENCILLAB_BWRAP:-bwrap}" --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent \
	--uid 65534 --gid 65534 --clearenv /bin/sh -c 'echo "sandbox ok: uid $(id -u)"' >> "$OUT/sandbox.txt" 2>&1
# STEPS picks the groups to run (default all): ptx ref seeds method fault class sanitize attacks
want() { [[ ${STEPS:-all} == all || " ${STEPS} " == *" $1 "* ]]; }
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
if want gputest && [ -x "$B/gpu.test" ]; then
	(cd gpu && ../$B/gpu.test -test.run 'TestGPUCompileSource|TestStepGeometry' -test.v) > "$OUT/gpu-test.out" 2>&1
	echo "gpu-test rc=$?" >> "$OUT/steps.txt"
fi
# 0b. what NVRTC makes of every fixture (PTX), for the PTX reader's tests
if want ptx && [ -x "$B/cudacheck.test" ]; then
	mkdir -p "$OUT/ptx"
	STENCILLAB_CUDA_FIXTURES=$PWD/$B/fixtures STENCILLAB_PTX_OUT=$OUT/ptx "$B/cudacheck.test" -test.run TestDumpPTX -test.v > "$OUT/ptx-dump.txt" 2>&1
	echo "ptx rc=$?" >> "$OUT/steps.txt"
	(cd "$OUT" && tar czf ptx.tgz ptx && rm -rf ptx)
fi
# 1. the reference solutions, hidden checks included: full marks expected
want ref && step ref grade -json -v -timeout 120s -submission $B/fixtures/ref 20 21 22 23 24 25
# 2. each seed-style mistake of 24 alone: loses the check named for it
#    (zloop: every-plane, halo: every-column, swap: one-axis, barrier:
#    barriers, index: index-64bit), and only that one among the checks of
#    symptoms
want seeds && for s in zloop halo swap barrier index; do
	step seed-$s grade -json -timeout 120s -submission $B/fixtures/seed-$s 24
done
# 2b. the method check: each fixture (plain kernels, shared memory for
#    show, one column, zeros on half the planes) graded on its exercise;
#    method.txt says whether each scored as its expect.json asks
want method && for d in "$B"/fixtures/method-*/; do
	name=$(basename "$d")
	ex=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['exercise'])" "$d/expect.json")
	step "$name" grade -json -timeout 120s -submission "$d" "$ex"
done
# 3. a faulting kernel (20), then the next exercise (21) graded normally;
#    the same with a hanging kernel (killed at -timeout); a compile error
want fault && step fault grade -json -timeout 60s -submission $B/fixtures/fault 20 21
want fault && step hang grade -json -timeout 20s -submission $B/fixtures/hang 20 21
want fault && step compile grade -json -timeout 60s -submission $B/fixtures/compile 20
# 4. a class of five: gradebook + leaderboard.md
want class && step class grade -allow-in-repo -class $B/fixtures/class -out "$OUT/class" -timeout 60s -j 2 20 25
# 5. compute-sanitizer memcheck and racecheck (last: the slowest): the
#    references of 20, 21 pass both; a read past the end (20) loses
#    memcheck, the tiled kernel without its barrier (21) loses racecheck
#    The sanitizer watches a replay of the graded run's requests: a read
#    past the end on every grid but those it used to watch (evade) loses
#    memcheck; a kernel that reads the clock loses both points.
want sanitize && step sanitize-ref grade -json -timeout 40s -sanitize -submission $B/fixtures/ref 20 21
want sanitize && step sanitize-bad grade -json -timeout 40s -sanitize -submission $B/fixtures/sanitize 20 21
want sanitize && step sanitize-evade grade -json -timeout 40s -sanitize -submission $B/fixtures/sanitize-evade 20
want sanitize && step sanitize-clock grade -json -timeout 40s -sanitize -submission $B/fixtures/sanitize-clock 20
# 6. the attacks (exercises/grader/testdata/attacks/cuda_*): each scores 0 on what
#    it attacks, with its reason; the correct exercise beside it keeps its
#    full marks (graded beside the attacks that reach the GPU; beside those
#    refused before compiling, by go test on the CPU machine)
want attacks && for d in "$B"/attacks/*/; do
	name=$(basename "$d")
	ex=$(python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print(a['exercise'], a['correct'] if a['where'] == 'gpu' else '')" "$d/attack.json")
	step "attack-$name" grade -json -timeout 60s -submission "$d" $ex
done
want attacks && python3 - "$OUT" "$B/attacks" <<'PY' > "$OUT/attacks.txt" 2>&1
import json, sys, os, re
out, adir = sys.argv[1], sys.argv[2]
ok_all = True
for name in sorted(os.listdir(adir)):
    a = json.load(open(os.path.join(adir, name, "attack.json")))
    p = os.path.join(out, "attack-" + name + ".out")
    try:
        rep = json.load(open(p))
    except Exception as e:
        print(f"FAIL {name}: no JSON ({e})"); ok_all = False; continue
    ex = {e["id"]: e for e in rep["exercises"]}
    r = ex[a["exercise"]]
    c = ex.get(a["correct"], {"points": 1, "max_points": 1, "status": "graded"})
    text = (r.get("message") or "") + "\n" + "\n".join(ch.get("message") or "" for ch in r["checks"])
    m = r.get("metrics") or {}
    if a["expect"] == "zero":
        good = r["points"] == 0
    elif a["expect"] == "no_speed":
        speed = [ch for ch in r["checks"] if ch["id"] == "performance" or ch["id"].startswith("speed-")]
        good = all(not ch["passed"] for ch in speed) and m.get("correct", 0) != 1 and "pct_copy" not in m
    else:
        chk = [ch for ch in r["checks"] if ch["id"] == a["check"]]
        good = r["status"] != "graded" or (chk and not chk[0]["passed"])
    why = a["why"] == "" or a["why"] in text
    # PATH= as a variable of its own, not the tail of LD_LIBRARY_PATH=
    clean = all(s not in text for s in ["root:x", "BEGIN SOLUTION", "/work/", "/home/"]) and not re.search(r"(?<![A-Za-z_])PATH=", text)
    full = c["points"] == c["max_points"] and c["status"] == "graded"
    okk = good and why and clean and full
    ok_all &= okk
    print(f"{'ok  ' if okk else 'FAIL'} {name}: {a['exercise']} {r['points']}/{r['max_points']} [{r['status']}]"
          f" correct={m.get('correct')} pct={m.get('pct_copy')}; {a['correct']} {c['points']}/{c['max_points']}"
          f"{'' if why else ' (reason missing)'}{'' if clean else ' (LEAK)'}")
    if not okk or a["where"] == "gpu":
        print("     ", text.strip().replace("\n", " | ")[:400])
print("ALL ATTACKS HELD" if ok_all else "SOME ATTACKS WON")
PY
python3 - "$OUT" <<'PY' > "$OUT/summary.txt" 2>&1
import json, sys, os
out = sys.argv[1]
for name in ["ref", "seed-zloop", "seed-halo", "seed-swap", "seed-barrier", "seed-index", "fault", "hang", "compile", "sanitize-ref", "sanitize-bad", "sanitize-evade", "sanitize-clock"]:
    p = os.path.join(out, name + ".out")
    try:
        rep = json.load(open(p))
    except Exception as e:
        print(f"== {name}: no JSON ({e})"); continue
    print(f"== {name}: {rep['points']}/{rep['max_points']} seed {rep['seed']}")
    for e in rep["exercises"]:
        m = e.get("metrics") or {}
        print(f"  {e['id']} {e['points']}/{e['max_points']} [{e['status']}] {m.get('seconds', 0):.1f}s"
              + (f" pct_copy={m['pct_copy']:.1f} ms={m['ms']:.3f} grid={m.get('timed_nz',0):.0f}x{m.get('timed_ny',0):.0f}x{m.get('timed_nx',0):.0f}" if 'pct_copy' in m else ""))
        if e.get("message"):
            print("    message:", e["message"][:600])
        for c in e["checks"]:
            t = m.get("seconds:" + c["id"])
            ts = f"{t:.2f}s" if t is not None else "-"
            print(f"    {'ok  ' if c['passed'] else 'FAIL'} {c['id']} {c['points']}/{c['max_points']} {ts} {'' if c['passed'] else c['message'][:500]}")
PY
# The seeds: each loses the check named for it and keeps the other checks
# of symptoms (values and performance judge the whole sweep).
python3 - "$OUT" <<'PY' > "$OUT/seeds.txt" 2>&1
import json, sys, os
out = sys.argv[1]
named = {"zloop": "every-plane", "halo": "every-column", "swap": "one-axis", "barrier": "barriers", "index": "index-64bit"}
# the z loop that closes early leaves no point with both z neighbours
# written: the barriers check has nothing to judge and scores nothing
also = {"zloop": {"barriers"}}
symptoms = set(named.values())
ok_all = True
for seed, check in named.items():
    try:
        rep = json.load(open(os.path.join(out, "seed-" + seed + ".out")))
    except Exception as e:
        print(f"FAIL {seed}: no JSON ({e})"); ok_all = False; continue
    e = rep["exercises"][0]
    lost = [c["id"] for c in e["checks"] if not c["passed"]]
    good = e["status"] == "graded" and check in lost and not (set(lost) & symptoms - {check} - also.get(seed, set()))
    ok_all &= good
    msg = [c["message"] for c in e["checks"] if c["id"] == check]
    print(f"{'ok  ' if good else 'FAIL'} {seed}: lost {lost}; {check}: {(msg[0] if msg else e.get('message', ''))[:400]}")
print("EACH SEED LOSES ITS CHECK" if ok_all else "SOME SEED DOES NOT LOSE ITS CHECK ALONE")
PY
# The method fixtures: each scores as its expect.json asks; the references
# score full marks (method check included); the sanitizer's evasions lose.
python3 - "$OUT" "$B/fixtures" <<'PY' > "$OUT/method.txt" 2>&1
import json, sys, os
out, fdir = sys.argv[1], sys.argv[2]
ok_all = True
def load(name):
    try:
        return json.load(open(os.path.join(out, name + ".out")))
    except Exception as e:
        return None
correctness = {"values", "small", "tiles", "hidden-values", "every-plane", "every-column", "one-axis", "barriers", "index-64bit", "memcheck", "racecheck"}
rep = load("ref")
if rep:
    for e in rep["exercises"]:
        good = e["points"] == e["max_points"] and e["status"] == "graded"
        ok_all &= good
        m = e.get("metrics") or {}
        print(f"{'ok  ' if good else 'FAIL'} ref {e['id']}: {e['points']}/{e['max_points']}"
              f" loads/output={m.get('global_loads_per_output', 0):.2f} (technique {m.get('technique_loads_per_output', 0):.2f})"
              f" shared/output={m.get('shared_loads_per_output', 0):.2f} barriers/thread={m.get('barriers_per_thread', 0):.1f}"
              f" regs={m.get('registers', 0):.0f} shared={m.get('static_shared_bytes', 0):.0f} B pct_copy={m.get('pct_copy', 0):.1f}")
else:
    print("FAIL ref: no JSON"); ok_all = False
for name in sorted(os.listdir(fdir)):
    if not name.startswith("method-"):
        continue
    x = json.load(open(os.path.join(fdir, name, "expect.json")))
    rep = load(name)
    if not rep:
        print(f"FAIL {name}: no JSON"); ok_all = False; continue
    e = rep["exercises"][0]
    chk = {c["id"]: c for c in e["checks"]}
    meth = chk.get("method")
    msg = (meth or {}).get("message", "") or ""
    pts, mx = e["points"], e["max_points"]
    if x["expect"] == "correct-only":
        corr = [c for c in e["checks"] if c["id"] in correctness]
        good = e["status"] == "graded" and all(c["passed"] for c in corr) and pts == sum(c["points"] for c in corr) and 2 * pts <= mx and meth is not None and not meth["passed"]
    elif x["expect"] == "tenth":
        good = 10 * pts <= mx
    else:
        good = meth is not None and not meth["passed"]
    named = x["names"] == "" or x["names"] in msg
    good = good and named
    ok_all &= good
    m = e.get("metrics") or {}
    print(f"{'ok  ' if good else 'FAIL'} {name}: {e['id']} {pts}/{mx} [{e['status']}] expect {x['expect']}"
          f" loads/output={m.get('global_loads_per_output', -1):.2f} shared/output={m.get('shared_loads_per_output', -1):.2f}"
          f"{'' if named else ' (message does not name: ' + x['names'] + ')'}")
    if meth:
        print("      method:", msg.replace("\n", " | ")[:700])
for name, check in [("sanitize-evade", "memcheck"), ("sanitize-clock", "memcheck"), ("sanitize-clock", "racecheck"), ("sanitize-bad", "memcheck"), ("sanitize-bad", "racecheck")]:
    rep = load(name)
    if not rep:
        continue
    e = rep["exercises"][0] if check == "memcheck" or name == "sanitize-clock" else rep["exercises"][1]
    c = [c for c in e["checks"] if c["id"] == check]
    good = bool(c) and not c[0]["passed"]
    ok_all &= good
    print(f"{'ok  ' if good else 'FAIL'} {name} {e['id']} loses {check}: {(c[0]['message'] if c else 'no check')[:300]}")
for name in ["sanitize-ref"]:
    rep = load(name)
    if rep:
        for e in rep["exercises"]:
            good = e["points"] == e["max_points"]
            ok_all &= good
            print(f"{'ok  ' if good else 'FAIL'} {name} {e['id']}: {e['points']}/{e['max_points']}")
print("EVERY METHOD FIXTURE SCORES AS EXPECTED" if ok_all else "SOME METHOD FIXTURE DOES NOT SCORE AS EXPECTED")
PY
# The reference kernels' shares of the copy, as the record the thresholds
# come from (exercises/cudacheck/cuda13_record.json).
python3 - "$OUT" <<'PY' > "$OUT/cuda13_record.json" 2>&1
import json, sys, os, subprocess, datetime
out = sys.argv[1]
rep = json.load(open(os.path.join(out, "ref.out")))
names = {"20_cuda_basic": "basic", "21_cuda_tiled": "tiled", "22_cuda_coarsened": "coarsened", "23_cuda_register_tiled": "register_tiled"}
card = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()[0]
res = []
for e in rep["exercises"]:
    m = e.get("metrics") or {}
    if e["id"] in names and "pct_copy" in m:
        res.append({"kernel": names[e["id"]], "pct_copy": round(m["pct_copy"], 1), "ms": round(m["ms"], 4),
                    "grid": f"{m['timed_nz']:.0f}x{m['timed_ny']:.0f}x{m['timed_nx']:.0f}"})
print(json.dumps({"card": card, "command": "scripts/cuda-exercises-gpu.sh (grade -json -submission fixtures/ref 20 21 22 23: each reference's pct_copy)",
                  "date": datetime.date.today().isoformat(), "n": 512, "results": res}, indent=2))
PY
# The raw outputs in one archive (fewer files to bring back).
(cd "$OUT" && tar czf raw.tgz --remove-files *.out *.err steps.txt 2>/dev/null)
tar xzf "$OUT/raw.tgz" -O steps.txt 2>/dev/null
cat "$OUT/summary.txt" "$OUT/seeds.txt" "$OUT/method.txt" "$OUT/attacks.txt" "$OUT/sandbox.txt" "$OUT/cuda13_record.json" 2>/dev/null
cat "$OUT/class/leaderboard.md" 2>/dev/null
