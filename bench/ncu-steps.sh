#!/usr/bin/env bash
# Where the time goes in the lab's time-stepped kernels, by Nsight Compute.
#
#   bench/ncu-steps.sh STENCIL_BINARY OUT.json N STEPS KERNEL...
#
# For each KERNEL (a stencil bench step: fast, temporal, star13,
# temporal13; its CUDA entry is fast4 for fast, else its name) runs
# `stencil bench -n N -steps STEPS -reps 1 -warmup 0 -check=false` under
# ncu with the clocks left alone, profiles one launch of the step after
# the first three, and writes its metrics to OUT.json: time, DRAM and L2
# bytes, DRAM and SM throughput, achieved occupancy, issue activity and
# the warp-stall breakdown (cycles a warp spends stalled on each reason
# per instruction issued), the ones the docs cite also under short names
# (dram_pct, sm_pct, occupancy_pct, issue_pct, stalls). Each launch of a temporal step advances k time
# steps: time_ns_per_step divides by them.
set -uo pipefail
bin=${1:?stencil binary}
out=${2:?output JSON}
n=${3:?N}
steps=${4:?time steps}
shift 4
core=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
stalls=""
for r in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle wait not_selected selected no_instruction dispatch_stall; do
  stalls="$stalls,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
tmp=$(mktemp -d)
for k in "$@"; do
  entry=$k
  [ "$k" = fast ] && entry=fast4
  for metrics in "$core$stalls" "$core"; do
    if ncu --clock-control none --print-units base --csv --metrics "$metrics" -k "regex:^${entry}\$" --launch-skip 3 -c 1 \
      "$bin" bench -n "$n" -steps "$steps" -reps 1 -warmup 0 -check=false -kernels "$k" >"$tmp/$k.csv" 2>"$tmp/$k.err"; then
      break
    fi
    echo "ncu $k with $(echo "$metrics" | tr ',' '\n' | wc -l) metrics failed: $(tail -2 "$tmp/$k.err")" >&2
  done
  "$bin" bench -n "$n" -steps "$steps" -reps 1 -warmup 0 -check=false -kernels "$k" -json "$tmp/$k.json" >/dev/null 2>&1
done
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 - "$tmp" "$out" "$n" "$steps" "$device" "$@" <<'PY'
import csv, json, sys, datetime, os
tmp, out, n, steps, device = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
res = []
for k in sys.argv[6:]:
    lines = open(os.path.join(tmp, k + ".csv")).read().splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith('"ID"')]
    if not head:
        res.append({"kernel": k, "error": open(os.path.join(tmp, k + ".err")).read()[-500:]})
        continue
    rows = list(csv.DictReader([l for l in lines[head[0]:] if l.startswith('"')]))
    m = {"kernel": k, "entry": rows[0]["Kernel Name"].split("(")[0].strip(),
         "grid": rows[0].get("Grid Size", ""), "block": rows[0].get("Block Size", "")}
    for r in rows:
        try:
            m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            m[r["Metric Name"]] = r["Metric Value"]
    k_per = 1
    try:
        run = json.load(open(os.path.join(tmp, k + ".json")))["results"][0]
        m["defines"] = run.get("defines")
        for d in run.get("defines") or []:
            if d.startswith(("TB_K=", "T13_K=")):
                k_per = int(d.split("=")[1])
    except Exception as e:
        m["defines_error"] = str(e)
    m["steps_per_launch"] = k_per
    interior = (n - 2) ** 3
    t = m.get("gpu__time_duration.sum", 0)
    m["time_ns_per_step"] = t / k_per
    m["dram_bytes_per_point_step"] = (m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)) / interior / k_per
    m["l2_bytes_per_point_step"] = m.get("lts__t_bytes.sum", 0) / interior / k_per
    m["dram_pct"] = m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", 0)
    m["sm_pct"] = m.get("sm__throughput.avg.pct_of_peak_sustained_elapsed", 0)
    m["occupancy_pct"] = m.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0)
    m["issue_pct"] = m.get("smsp__issue_active.avg.pct_of_peak_sustained_active", 0)
    m["stalls"] = {kk.split("stalled_")[1].split("_per_issue")[0]: v for kk, v in m.items() if "stalled_" in kk}
    res.append(m)
doc = {"device": device, "n": n, "steps": steps,
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "command": f"bench/ncu-steps.sh stencil OUT {n} {steps} " + " ".join(sys.argv[6:]),
       "note": "one launch a kernel (the fourth), ncu --clock-control none; per point and step: over the (N-2)^3 interior points and the launch's time steps",
       "launches": res}
json.dump(doc, open(out, "w"), indent=1, sort_keys=True)
for m in res:
    if "error" in m:
        print(m["kernel"], "error", m["error"]); continue
    top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:4]
    print(f"{m['kernel']:11} {m['time_ns_per_step']/1e3:8.1f} us/step  DRAM {m['dram_bytes_per_point_step']:5.2f} B/pt·step  "
          f"L2 {m['l2_bytes_per_point_step']:5.2f}  dram% {m.get('dram__throughput.avg.pct_of_peak_sustained_elapsed',0):5.1f}  "
          f"sm% {m.get('sm__throughput.avg.pct_of_peak_sustained_elapsed',0):5.1f}  occ% {m.get('sm__warps_active.avg.pct_of_peak_sustained_active',0):5.1f}  "
          f"issue% {m.get('smsp__issue_active.avg.pct_of_peak_sustained_active',0):5.1f}  stalls " + " ".join(f"{a}={b:.1f}" for a, b in top))
PY
rm -rf "$tmp"
