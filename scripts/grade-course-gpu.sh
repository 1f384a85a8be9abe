#!/bin/bash
# The GPU half of a course on a GPU machine without Go: run from the
# repository root, after scripts/build-course-gpu.sh built $B elsewhere:
#   B=build/course OUT=/some/folder scripts/grade-course-gpu.sh
# (a) the bundle grades the class of five (exercises 20 to 25) in one run,
#     then again as two shards merged with `grade merge`: the merged
#     gradebook.csv must equal the single run's (same seed);
# (b) the 40 synthetic hand-ins with -gpus 0, then with -gpus all (same
#     seed): the wall time of each, the speed-up, and the two gradebooks
#     compared check by check, the timed checks (performance, speed-*)
#     aside.
# Everything is written into $OUT, in a few files: summary.txt (the
# device, the comparisons, the table), log.txt (every command's output),
# gradebooks.tgz (the gradebooks written). Every command runs under
# `timeout`; the whole fits about 8 minutes on four H100s.
set -u
B=${B:-build/course}
OUT=${OUT:-/tmp/grade-course-out}
B=$(cd "$B" && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
G=$B/bundle/grade
SEED=${SEED:-20261126}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
SUM=$OUT/summary.txt
LOG=$OUT/log.txt
: > "$SUM"
: > "$LOG"
if ! command -v bwrap >/dev/null && [ -x "$B/bwrap/usr/bin/bwrap" ]; then
	export STENCILLAB_BWRAP=$B/bwrap/usr/bin/bwrap
fi
{
	echo "== device"
	nvidia-smi -L 2>&1
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
	echo "bwrap: ${STENCILLAB_BWRAP:-$(command -v bwrap)}"
	"${STENCILLAB_BWRAP:-bwrap}" --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent \
		--uid 65534 --gid 65534 --clearenv /bin/sh -c 'echo "sandbox ok: uid $(id -u)"' 2>&1
	echo "cpus: $(nproc)"
} >> "$SUM"

# step NAME SECONDS CMD...: runs CMD under timeout in the bundle's folder
# (at most SECONDS, and no later than BUDGET seconds after the start), its
# output into the log, and notes its status and wall time.
BUDGET=${BUDGET:-560}
START=$(date +%s)
step() {
	local name=$1 limit=$2
	shift 2
	local left=$((BUDGET - ($(date +%s) - START)))
	[ "$left" -lt "$limit" ] && limit=$left
	WALL=0
	if [ "$limit" -lt 10 ]; then
		echo "$name skipped: out of time" | tee -a "$SUM" >> "$LOG"
		return 1
	fi
	echo "== $name (timeout ${limit}s): $*" >> "$LOG"
	local s e rc
	s=$(date +%s.%N)
	(cd "$B/bundle" && timeout "$limit" "$@") >> "$LOG" 2>&1
	rc=$?
	e=$(date +%s.%N)
	WALL=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", e - s }')
	echo "$name rc=$rc wall=${WALL}s" | tee -a "$SUM" >> "$LOG"
	return $rc
}

# (a) The class of five, in one run and in two shards merged.
FIVE="20 21 22 23 24 25"
step five 120 "$G" -C . -allow-in-repo -class "$B/class5" -out "$W/five" -seed "$SEED" -gpus all $FIVE
step five-part0 120 "$G" -C . -allow-in-repo -class "$B/class5" -out "$W/part0" -seed "$SEED" -gpus all -shard 0/2 $FIVE
step five-part1 120 "$G" -C . -allow-in-repo -class "$B/class5" -out "$W/part1" -seed "$SEED" -gpus all -shard 1/2 $FIVE
step five-merge 30 "$G" merge -out "$W/merged" "$W/part0" "$W/part1"
echo "== (a) the class of five: the merged gradebook.csv against the single run's" >> "$SUM"
if cmp -s "$W/five/gradebook.csv" "$W/merged/gradebook.csv"; then
	echo "five merged vs single: EQUAL" >> "$SUM"
else
	echo "five merged vs single: DIFFER" >> "$SUM"
	diff "$W/five/gradebook.csv" "$W/merged/gradebook.csv" >> "$SUM" 2>&1
fi
cat "$W/five/gradebook.csv" >> "$SUM" 2>&1

# (b) The 40 hand-ins on one GPU, then on all of them.
FORTY="20 25"
step forty-gpus0 300 "$G" -C . -allow-in-repo -class "$B/class40" -out "$W/gpus0" -seed "$SEED" -gpus 0 $FORTY
W0=$WALL
step forty-gpusall 200 "$G" -C . -allow-in-repo -class "$B/class40" -out "$W/gpusall" -seed "$SEED" -gpus all $FORTY
WA=$WALL
# The devices of -gpus all, as the grader reported them.
NDEV=$(grep -o 'graded on [0-9]* GPU' "$LOG" | tail -1 | awk '{print $3}')
NDEV=${NDEV:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}

python3 - "$W/gpus0" "$W/gpusall" "$W/five" "$W/merged" >> "$SUM" 2>&1 <<'PY'
import json, sys, csv
def book(d):
    return json.load(open(d + "/gradebook.json"))
def timed(cid):
    return cid == "performance" or cid.startswith("speed-")
def outcomes(b, skip_timed):
    out = {}
    for sid, s in b["students"].items():
        for ex, c in (s.get("cells") or {}).items():
            r = c.get("result") or {}
            checks = tuple(sorted((ch["id"], ch["passed"], ch["points"]) for ch in r.get("checks") or [] if not (skip_timed and timed(ch["id"]))))
            out[(sid, ex)] = (c.get("state"), r.get("status"), checks)
    return out
for name, a, b in [("(b) the 40 hand-ins, -gpus 0 against -gpus all", sys.argv[1], sys.argv[2]),
                   ("(a) the class of five, single run against the merged shards", sys.argv[3], sys.argv[4])]:
    print("==", name, "(timed checks excluded: performance, speed-*; columns whose points may differ: 20_cuda_basic to 25_cuda_challenge, total)")
    try:
        ba, bb = book(a), book(b)
    except Exception as e:
        print("  no gradebook:", e); continue
    x, y = outcomes(ba, True), outcomes(bb, True)
    diff = [k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)]
    print("  cells:", len(x), "compared;", "EQUAL" if not diff else "DIFFER: %d" % len(diff))
    for k in diff[:10]:
        print("   ", k, x.get(k), "|", y.get(k))
    fx, fy = outcomes(ba, False), outcomes(bb, False)
    print("  cells whose timed checks differ:", sum(1 for k in fx if fx.get(k) != fy.get(k)))
    st = {}
    for (sid, ex), v in x.items():
        st[(ex, v[1])] = st.get((ex, v[1]), 0) + 1
    print("  statuses:", ", ".join("%s %s: %d" % (e, s, n) for (e, s), n in sorted(st.items(), key=str)))
PY

{
	echo "== (b) the 40 hand-ins (exercises $FORTY), seed $SEED"
	printf '%-12s %8s %8s\n' devices "wall s" speed-up
	awk -v w0="$W0" -v wa="$WA" -v n="$NDEV" 'BEGIN {
		printf "%-12s %8.1f %8.2f\n", "1 (-gpus 0)", w0, 1
		if (wa > 0) printf "%-12s %8.1f %8.2f\n", n " (all)", wa, w0 / wa
	}'
} >> "$SUM"
(cd "$W" && tar czf "$OUT/gradebooks.tgz" five part0 part1 merged gpus0 gpusall 2>/dev/null)
cat "$SUM"
