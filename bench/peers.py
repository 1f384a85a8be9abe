#!/usr/bin/env python3
"""peers.py: the 3D seven-point sweep as a Python user would write it, on the GPU.

The same sweep as the lab's steps (fp32, random inputs in [-1, 1), seven
distinct coefficients, the boundary left untouched), in

  - PyTorch eager: slicing, one expression;
  - torch.compile of the same function (one fused Triton kernel);
  - JAX jit of the same expression with .at[].set;

each timed on the device against a copy of the whole grid in the same
process (torch: CUDA events around each call; JAX: a loop of calls with
block_until_ready, since JAX has no events, divided by the calls). The
bandwidth counts 8 bytes per interior point, as stencil bench does, and the
copy 8 bytes per point. Each result is checked against a float64 sweep.

Run on a GPU machine with torch and jax (e.g. /opt/torch/.venv/bin/python):

    python3 bench/peers.py --n 512,1024 --out figures/data

It writes peers_<gpu>.json (e.g. peers_h200.json) into --out.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time

COEFFS = [0.5, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29]  # lab.DistinctCoeffs: c0 centre, c1/c2 x∓1, c3/c4 y∓1, c5/c6 z∓1


def interior_expr(a, c):
    """The seven-point update of the interior of a (z, y, x), any array library."""
    return (c[0] * a[1:-1, 1:-1, 1:-1]
            + c[1] * a[1:-1, 1:-1, :-2] + c[2] * a[1:-1, 1:-1, 2:]
            + c[3] * a[1:-1, :-2, 1:-1] + c[4] * a[1:-1, 2:, 1:-1]
            + c[5] * a[:-2, 1:-1, 1:-1] + c[6] * a[2:, 1:-1, 1:-1])


def torch_events(torch, fn, warmup, reps):
    """Times fn() with CUDA events, one pair per call; returns the ms of each call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def jax_loop(fn, warmup, reps, rounds=5):
    """Times fn() (which returns a jax array) in rounds of reps calls, each round
    ended by block_until_ready; returns the ms per call of each round."""
    for _ in range(warmup):
        fn().block_until_ready()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = None
        for _ in range(reps):
            out = fn()
        out.block_until_ready()
        times.append((time.perf_counter() - t0) * 1e3 / reps)
    return times


def summary(times):
    return {"median_ms": statistics.median(times), "min_ms": min(times), "times_ms": times}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default="512", help="grid sides, comma-separated")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--out", default=os.path.join("figures", "data"), help="folder for peers_<gpu>.json")
    ap.add_argument("--skip", default="", help="implementations to leave out: eager,compile,jax")
    args = ap.parse_args()
    skip = set(s for s in args.skip.split(",") if s)

    import torch

    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)
    rep = {
        "command": "python3 bench/peers.py " + " ".join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": name,
        "torch": torch.__version__,
        "coeffs": COEFFS,
        "bytes_per_point": 8,
        "reps": args.reps,
        "warmup": args.warmup,
        "copies": [],
        "results": [],
    }
    try:
        import jax
        import jax.numpy as jnp

        rep["jax"] = jax.__version__
    except Exception as e:  # noqa: BLE001 - report and go on without JAX
        print(f"peers: no JAX: {e}", file=sys.stderr)
        jax = None
        skip.add("jax")

    c = COEFFS
    for n in [int(s) for s in args.n.split(",")]:
        interior = (n - 2) ** 3
        gen = torch.Generator(device=dev).manual_seed(1000 + n)
        src = torch.rand((n, n, n), device=dev, dtype=torch.float32, generator=gen) * 2 - 1
        dst = src.clone()
        ref = src.double()
        ref[1:-1, 1:-1, 1:-1] = interior_expr(src.double(), c)
        ref = ref.float()

        def record(impl, times, out, note=""):
            gbps = 8 * interior / (statistics.median(times) * 1e6)
            r = {"impl": impl, "n": n, **summary(times), "gbps": gbps, "note": note}
            r["pct_copy"] = 100 * gbps / copy_gbps
            if out is not None:
                err = (out.float() - ref).abs()
                r["max_abs_err"] = float(err.max())
                r["boundary_ok"] = bool(torch.equal(out[0], src[0]) and torch.equal(out[-1], src[-1])
                                        and torch.equal(out[:, 0], src[:, 0]) and torch.equal(out[:, :, -1], src[:, :, -1]))
            rep["results"].append(r)
            print(f"N={n:5d} {impl:16s} {r['median_ms']:9.4f} ms {gbps:8.1f} GB/s {r['pct_copy']:6.1f} % of copy"
                  f"  max err {r.get('max_abs_err', float('nan')):.2g}", flush=True)

        # The yardstick: a copy of the whole grid, 8 bytes per point.
        t = torch_events(torch, lambda: dst.copy_(src), args.warmup, args.reps)
        copy_gbps = 8 * n ** 3 / (statistics.median(t) * 1e6)
        rep["copies"].append({"impl": "torch copy_", "n": n, **summary(t), "gbps": copy_gbps})
        print(f"N={n:5d} {'torch copy_':16s} {statistics.median(t):9.4f} ms {copy_gbps:8.1f} GB/s", flush=True)

        def eager():
            dst[1:-1, 1:-1, 1:-1] = interior_expr(src, c)

        if "eager" not in skip:
            dst.copy_(src)
            t = torch_events(torch, eager, args.warmup, args.reps)
            record("torch eager", t, dst, "slicing, one expression, assigned into the interior")

        if "compile" not in skip:
            def step(a, out):
                out[1:-1, 1:-1, 1:-1] = interior_expr(a, c)
                return out

            try:
                t0 = time.perf_counter()
                compiled = torch.compile(step)
                dst.copy_(src)
                compiled(src, dst)
                torch.cuda.synchronize()
                ctime = time.perf_counter() - t0
                t = torch_events(torch, lambda: compiled(src, dst), args.warmup, args.reps)
                record("torch.compile", t, dst, f"default mode, first call {ctime:.1f} s")
            except Exception as e:  # noqa: BLE001
                print(f"peers: torch.compile failed: {e}", file=sys.stderr)

        if "jax" not in skip:
            ja = jnp.asarray(src.cpu().numpy())
            jcopy = jax.jit(lambda a: a + 0.0)

            @jax.jit
            def jstep(a):
                return a.at[1:-1, 1:-1, 1:-1].set(interior_expr(a, c))

            t = jax_loop(lambda: jcopy(ja), args.warmup, args.reps)
            jcopy_gbps = 8 * n ** 3 / (statistics.median(t) * 1e6)
            rep["copies"].append({"impl": "jax copy (a + 0)", "n": n, **summary(t), "gbps": jcopy_gbps})
            print(f"N={n:5d} {'jax copy':16s} {statistics.median(t):9.4f} ms {jcopy_gbps:8.1f} GB/s", flush=True)
            t = jax_loop(lambda: jstep(ja), args.warmup, args.reps)
            out = torch.from_numpy(jax.device_get(jstep(ja)).copy()).to(dev)
            record("jax jit", t, out, "a.at[interior].set(expr), a new array each call; timed by a synchronised loop")
        del src, dst, ref
        torch.cuda.empty_cache()

    gpu = re.sub(r"[^a-z0-9]+", "", name.lower().replace("nvidia", "").split()[0] if name.split() else "gpu")
    m = re.search(r"(h100|h200|a100|b200|gh200)", name.lower())
    if m:
        gpu = m.group(1)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"peers_{gpu}.json")
    with open(path, "w") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    print(f"peers: wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
