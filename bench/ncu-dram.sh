#!/bin/bash
# ncu-dram.sh: DRAM bytes per point of each 3D step on the GPU, measured by
# Nsight Compute: one pass (stencil run -reps 1) of each step at N = 512,
# with dram__bytes_read.sum, dram__bytes_write.sum and gpu__time_duration.sum
# at the GPU's own clocks (--clock-control none). The temporally blocked step
# is measured at k = 1, 2, 4 and 8 (one pass advances k time steps).
#
# Calibration: the basic kernel moves 553.75 MB read + 519.83 MB written at
# N = 512, 8.0 B per interior point.
#
# Build on a machine with Go:  CGO_ENABLED=1 go build -o build/temporal/stencil ./cmd/stencil
# Run on the GPU machine:      bench/ncu-dram.sh OUTDIR [N]
# It writes OUTDIR/ncu_dram.json (copy it to figures/data/ncu_dram_<gpu>.json).
set -u
out=${1:?usage: bench/ncu-dram.sh OUTDIR [N]}
n=${2:-512}
bin=${BIN:-build/temporal}/stencil
mkdir -p "$out"
runs=(basic: tiled: coarsened: register_tiled: fast: temporal:1 temporal:2 temporal:4 temporal:8)
for r in "${runs[@]}"; do
  k=${r%%:*}
  tile=${r#*:}
  args=(run -backend gpu -kernel "$k" -n "$n" -reps 1)
  label=$k
  if [ -n "$tile" ]; then
    args+=(-tile "$tile")
    label="$k:$tile"
  fi
  ncu --clock-control none --print-units base --csv \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    "$bin" "${args[@]}" >"$out/ncu-$label.csv" 2>"$out/ncu-$label.err"
  echo "ncu $label rc=$?"
done
python3 - "$out" "$n" "${runs[@]}" <<'EOF'
import csv, io, json, sys, datetime
out, n, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
interior = (n - 2) ** 3
res = []
for r in runs:
    step, _, tile = r.partition(":")
    label = step + (":" + tile if tile else "")
    text = open(f"{out}/ncu-{label}.csv").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        res.append({"kernel": step, "label": label, "error": "no ncu rows"})
        continue
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    m = {}
    names = set()
    for row in rows:
        names.add(row.get("Kernel Name", ""))
        v = float(row["Metric Value"].replace(",", ""))
        m[row["Metric Name"]] = m.get(row["Metric Name"], 0) + v
    steps = int(tile) if tile else 1
    rd, wr = m.get("dram__bytes_read.sum", 0), m.get("dram__bytes_write.sum", 0)
    res.append({"kernel": step, "label": label, "time_steps": steps, "entries": sorted(names), "launches": len(rows) // 3,
                "read_bytes": rd, "write_bytes": wr, "time_ns": m.get("gpu__time_duration.sum", 0),
                "bytes_per_point": (rd + wr) / interior, "bytes_per_point_step": (rd + wr) / interior / steps})
    print(f"{label:16s} read {rd/1e6:9.2f} MB  write {wr/1e6:9.2f} MB  {(rd+wr)/interior:6.3f} B/pt  {(rd+wr)/interior/steps:6.3f} B/pt/step")
json.dump({"command": "bench/ncu-dram.sh", "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "n": n, "interior_points": interior, "metrics": ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"],
           "clock_control": "none", "results": res}, open(f"{out}/ncu_dram.json", "w"), indent=1)
print(f"wrote {out}/ncu_dram.json")
EOF
