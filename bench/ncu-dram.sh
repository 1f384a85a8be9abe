#!/usr/bin/env bash
# DRAM traffic of each 3D kernel, measured by Nsight Compute on the GPU.
#
#   bench/ncu-dram.sh STENCIL_BINARY OUT.json [N] [extra stencil bench flags...]
#
# Runs `stencil bench` once per kernel (one launch each, no warm-up, no check)
# under ncu with the clocks left alone, reads dram__bytes_read.sum,
# dram__bytes_write.sum and gpu__time_duration.sum of every stencil and copy
# launch, and writes them with bytes per interior point to OUT.json. The
# basic kernel at N = 512 calibrates the method: it should move 8 B per
# interior point (one read, one write), the caches doing all its tiling.
set -euo pipefail
bin=${1:?stencil binary}
out=${2:?output JSON}
n=${3:-512}
shift $(( $# < 3 ? $# : 3 ))
kernels='^(copy_float4|copy_interior4|copy_interior1|basic|tiled|coarsened|register_tiled|fast4|fast1|temporal[a-z0-9_]*)$'
csv=$(mktemp)
ncu --clock-control none --print-units base --csv \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    -k "regex:$kernels" \
    "$bin" bench -n "$n" -reps 1 -warmup 0 -check=false \
    -kernels basic,tiled,coarsened,register_tiled,fast -variant basic:block=32x8x1 "$@" >"$csv"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 - "$csv" "$out" "$n" "$*" "$device" <<'PY'
import csv, json, sys, datetime, collections
path, out, n, extra, device = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = open(path).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.DictReader([l for l in lines[start:] if l.startswith('"')]))
launches = collections.OrderedDict()
for r in rows:
    key = r["ID"]
    l = launches.setdefault(key, {"kernel": r["Kernel Name"].split("(")[0].strip(),
                                  "grid": r.get("Grid Size", ""), "block": r.get("Block Size", "")})
    l[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
interior = (n - 2) ** 3
res = []
for l in launches.values():
    rd, wr = l["dram__bytes_read.sum"], l["dram__bytes_write.sum"]
    pts = n ** 3 if l["kernel"] == "copy_float4" else interior
    res.append({"kernel": l["kernel"], "grid": l["grid"], "block": l["block"],
                "dram_read_bytes": rd, "dram_write_bytes": wr,
                "time_ns": l["gpu__time_duration.sum"], "points": pts,
                "read_bytes_per_point": rd / pts, "write_bytes_per_point": wr / pts})
doc = {"device": device, "n": n, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "command": f"bench/ncu-dram.sh stencil OUT {n} {extra}".strip(),
       "metrics": ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"],
       "note": "one launch per kernel, ncu --clock-control none; points are interior points (N-2)^3, N^3 for copy_float4",
       "launches": res}
json.dump(doc, open(out, "w"), indent=1)
print(f"{'kernel':16} {'block':>12} {'read MB':>9} {'write MB':>9} {'B/pt':>6} {'us':>8}")
for r in res:
    print(f"{r['kernel']:16} {r['block']:>12} {r['dram_read_bytes']/1e6:9.2f} {r['dram_write_bytes']/1e6:9.2f} "
          f"{r['read_bytes_per_point']+r['write_bytes_per_point']:6.2f} {r['time_ns']/1e3:8.1f}")
PY
