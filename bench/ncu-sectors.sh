#!/usr/bin/env bash
# ncu-sectors.sh: the GPU's own counts of global-memory sectors and
# requests and of shared-memory bank conflicts, for the chapter's kernels
# on the launches the simulator counts (lab/sim's warp counters), written
# as one JSON file that lab/sim_ncu_test.go compares with the simulator.
#
# Usage (on the GPU machine, from the repository root):
#
#   bench/ncu-sectors.sh STENCIL_BINARY OUT.json
#
# STENCIL_BINARY is `stencil` built with cgo (CGO_ENABLED=1 go build -o
# build/stencil ./cmd/stencil). Each launch is one `stencil run -backend
# gpu -reps 1` under ncu, profiling the first launch of the step's kernel
# only, with the clocks left alone (--clock-control none). Every N and
# every launch runs once: 2 sizes × 5 launches, about 5 s each.
set -euo pipefail

bin=${1:?usage: bench/ncu-sectors.sh STENCIL_BINARY OUT.json}
out=${2:?usage: bench/ncu-sectors.sh STENCIL_BINARY OUT.json}
ncu=${NCU:-ncu}
sizes=${SIZES:-"67 130"}

# The counters compared with the simulator, then ones that help explain a
# difference (instructions executed, shared wavefronts); a metric the
# device does not know is left out rather than failing the run.
wanted=(
	l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
	l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
	l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
	l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
	l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
	l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
	l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
	l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
	smsp__sass_inst_executed_op_shared_ld.sum
	smsp__sass_inst_executed_op_shared_st.sum
	smsp__sass_inst_executed_op_global_ld.sum
	smsp__sass_inst_executed_op_global_st.sum
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

metrics=()
if "$ncu" --query-metrics >"$tmp/avail.txt" 2>/dev/null; then
	for m in "${wanted[@]}"; do
		if grep -q "^[[:space:]]*${m%.sum}[[:space:]]" "$tmp/avail.txt"; then
			metrics+=("$m")
		else
			echo "ncu-sectors: $m is not a metric of this device; left out" >&2
		fi
	done
fi
if [ ${#metrics[@]} -lt 6 ]; then
	# The list's format was not understood: ask for all of them.
	metrics=("${wanted[@]}")
fi
list=$(IFS=,; echo "${metrics[*]}")

# Each launch: kernel name, block (empty: the step's own), log file.
launches=("basic 8x8x8" "basic 32x8x1" "tiled" "coarsened" "register_tiled")
runs=()
for n in $sizes; do
	for l in "${launches[@]}"; do
		read -r kernel block <<<"$l"
		args=(run -backend gpu -kernel "$kernel" -n "$n" -reps 1)
		if [ -n "${block:-}" ]; then
			args+=(-block "$block")
		fi
		name="$tmp/${kernel}_${block:-default}_$n"
		log="$name.csv"
		echo "ncu-sectors: $kernel ${block:-} N=$n" >&2
		"$ncu" --clock-control none --metrics "$list" -k "regex:^${kernel}\$" -c 1 \
			-o "$name" "$bin" "${args[@]}" >"$name.stdout"
		"$ncu" -i "$name.ncu-rep" --csv --page details --print-units base >"$log"
		runs+=("$kernel|${block:-}|$n|$log|$bin ${args[*]}")
	done
done

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
version=$("$ncu" --version 2>/dev/null | tail -n 1 || true)

python3 - "$out" "$device" "$version" "$list" "${runs[@]}" <<'EOF'
import csv, datetime, json, sys

out, device, version, metrics = sys.argv[1:5]
records = []
for spec in sys.argv[5:]:
    kernel, block, n, log, command = spec.split("|", 4)
    with open(log) as f:
        rows = [line for line in f if line.startswith('"')]
    table = list(csv.DictReader(rows))
    found = [r for r in table if r.get("Kernel Name", "").split("(")[0] == kernel]
    if not found:
        sys.exit(f"ncu-sectors: no profile of kernel {kernel} in {log}")
    values = {}
    for r in found:
        v = r["Metric Value"].replace(",", "")
        try:
            values[r["Metric Name"]] = float(v)
        except ValueError:
            values[r["Metric Name"]] = None
    first = found[0]
    records.append({
        "kernel": kernel,
        "block": block,
        "n": int(n),
        "ncu_block": first.get("Block Size", ""),
        "ncu_grid": first.get("Grid Size", ""),
        "command": "ncu --clock-control none --metrics METRICS -k regex:^%s$ -c 1 %s" % (kernel, command),
        "metrics": values,
    })
json.dump({
    "device": device,
    "ncu": version,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "metrics": metrics.split(","),
    "runs": records,
}, open(out, "w"), indent=1)
print(f"ncu-sectors: {len(records)} launches written to {out}", file=sys.stderr)
EOF
