#!/usr/bin/env bash
# ncu-banks.sh: the GPU's count of shared-memory bank conflicts for the
# transposing kernel of exercises/10_warps (bench/banks.cu) at several
# tiles T and row lengths P, real conflicts included, written as one JSON
# file that exercises/checks compares with the simulator.
#
# Usage (on the GPU machine, from the repository root; needs nvcc, ncu and
# python3):
#
#   bench/ncu-banks.sh OUT.json
set -euo pipefail

out=${1:?usage: bench/ncu-banks.sh OUT.json}
ncu=${NCU:-ncu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nvcc -O2 -arch=sm_90 -o "$tmp/banks" bench/banks.cu
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
"$ncu" --clock-control none --metrics "$metrics" -k regex:^transpose_tile\$ -o "$tmp/banks" "$tmp/banks" >"$tmp/stdout.txt"
"$ncu" -i "$tmp/banks.ncu-rep" --csv --page details --print-units base >"$tmp/banks.csv"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
version=$("$ncu" --version 2>/dev/null | tail -n 1 || true)

python3 - "$out" "$device" "$version" "$tmp/banks.csv" "$tmp/stdout.txt" <<'PY'
import csv, datetime, json, re, sys

out, device, version, table, stdout = sys.argv[1:6]
configs = [tuple(map(int, m)) for m in re.findall(r"T = (\d+), P = (\d+)", open(stdout).read())]
rows = [line for line in open(table) if line.startswith('"')]
by_id = {}
for r in csv.DictReader(rows):
    if r.get("Kernel Name", "").split("(")[0] != "transpose_tile":
        continue
    by_id.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
ids = sorted(by_id)
if len(ids) != len(configs):
    sys.exit(f"ncu-banks: {len(ids)} profiles for {len(configs)} launches")
runs = [{"t": t, "p": p, "n": 256, "metrics": by_id[i]} for (t, p), i in zip(configs, ids)]
json.dump({
    "device": device,
    "ncu": version,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "command": "ncu --clock-control none --metrics METRICS -k regex:^transpose_tile$ banks",
    "runs": runs,
}, open(out, "w"), indent=1)
print(f"ncu-banks: {len(runs)} launches written to {out}", file=sys.stderr)
PY
