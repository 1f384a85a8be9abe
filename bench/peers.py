#!/usr/bin/env python3
"""The lab's 3D seven-point sweep as a Python user would write it, timed on the GPU.

Runs the same fp32 sweep (the boundary left untouched, the lab's coefficient
mapping: c1/c2 for x-1/x+1, c3/c4 for y-1/y+1, c5/c6 for z-1/z+1) in

  * PyTorch eager, with slicing;
  * torch.compile of the same function;
  * JAX jit, written functionally with .at[].set();

and a device-to-device copy (torch's copy_) in the same process; with
-sharded, also the sweep split over several GPUs as a JAX user would write
it: shard_map over z, one halo plane each way by ppermute, the time steps
in one jitted fori_loop, timed with a device-synchronised loop and
reported as interior point updates per second. Each is
checked against a float64 reference on fresh random inputs, then timed:
PyTorch with CUDA events around each call, JAX (whose stream torch's events
cannot see) with a device-synchronised loop, block_until_ready after each
batch. Bandwidth counts 8 bytes per interior point ((N-2)^3: one read, one
write) for a sweep and 8 bytes per point of N^3 for a copy, as
`stencil bench` does, and "pct_copy" is a sweep's bandwidth over the copy's.

Usage (on a machine with a GPU, torch and jax):

    python3 bench/peers.py -n 512,1024 -reps 50 -out figures/data/peers_h200.json
    python3 bench/peers.py -n 512,1024 -sharded 1,2,4 -sharded-only -out peers_sharded.json
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import time

# JAX takes 75 % of the GPU's memory at start unless told otherwise, which
# would leave torch short at N = 1024.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import torch  # noqa: E402

# The lab's DistinctCoeffs: seven distinct values, so a swapped pair shows.
COEFFS = (0.5, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29)


def sweep_torch(out, x, c):
    c0, c1, c2, c3, c4, c5, c6 = c
    out[1:-1, 1:-1, 1:-1] = (c0 * x[1:-1, 1:-1, 1:-1]
                             + c1 * x[1:-1, 1:-1, :-2] + c2 * x[1:-1, 1:-1, 2:]
                             + c3 * x[1:-1, :-2, 1:-1] + c4 * x[1:-1, 2:, 1:-1]
                             + c5 * x[:-2, 1:-1, 1:-1] + c6 * x[2:, 1:-1, 1:-1])
    return out


def time_events(fn, reps, warmup):
    """Median and min of reps calls of fn, each between two CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), times


def time_synced(fn, reps, warmup, batch=5):
    """Median and min per call over batches of calls, synchronised at both ends."""
    for _ in range(warmup):
        fn().block_until_ready()
    times = []
    for _ in range(max(reps // batch, 3)):
        t0 = time.perf_counter()
        r = None
        for _ in range(batch):
            r = fn()
        r.block_until_ready()
        times.append((time.perf_counter() - t0) * 1e3 / batch)
    return statistics.median(times), min(times), times


def record(name, how, n, ms, mn, times, nbytes, copy_gbps, err):
    gbps = nbytes / (ms * 1e-3) / 1e9
    return {
        "name": name, "timed_with": how, "n": n, "bytes": nbytes,
        "median_ms": ms, "min_ms": mn, "gbps": gbps,
        "pct_copy": 100 * gbps / copy_gbps if copy_gbps else None,
        "max_abs_err": err, "times_ms": times,
    }


def run_n(n, reps, warmup, dev, log):
    g = torch.Generator(device=dev).manual_seed(1000 + n)
    x = torch.rand((n, n, n), generator=g, device=dev, dtype=torch.float32) * 2 - 1
    interior = (n - 2) ** 3
    ref = x.double()
    ref = sweep_torch(ref.clone(), ref, COEFFS)

    def err_of(out):
        if torch.isnan(out).any():
            return float("nan")
        return float((out.double() - ref).abs().max())

    res = {"n": n}
    # The copy: the same buffers, torch's device-to-device copy_.
    dst = torch.empty_like(x)
    ms, mn, ts = time_events(lambda: dst.copy_(x), reps, warmup)
    copy_gbps = 8 * n ** 3 / (ms * 1e-3) / 1e9
    res["copy"] = {"name": "copy_", "n": n, "bytes": 8 * n ** 3, "median_ms": ms, "min_ms": mn,
                   "gbps": copy_gbps, "times_ms": ts}
    log(f"N={n} copy_ {ms:.4f} ms {copy_gbps:.1f} GB/s")
    peers = []

    out = torch.full_like(x, float("nan"))
    out.copy_(x)  # the boundary, which the sweep leaves untouched
    sweep_torch(out, x, COEFFS)
    err = err_of(out)
    ms, mn, ts = time_events(lambda: sweep_torch(out, x, COEFFS), reps, warmup)
    peers.append(record("pytorch_eager", "cuda events", n, ms, mn, ts, 8 * interior, copy_gbps, err))
    log(f"N={n} eager {ms:.4f} ms err {err:.2e}")

    try:
        compiled = torch.compile(sweep_torch, fullgraph=True)
        out2 = x.clone()
        compiled(out2, x, COEFFS)
        err = err_of(out2)
        ms, mn, ts = time_events(lambda: compiled(out2, x, COEFFS), reps, warmup)
        peers.append(record("torch_compile", "cuda events", n, ms, mn, ts, 8 * interior, copy_gbps, err))
        log(f"N={n} torch.compile {ms:.4f} ms err {err:.2e}")
    except Exception as e:  # record the failure, keep the others
        log(f"N={n} torch.compile failed: {e!r}")
        peers.append({"name": "torch_compile", "n": n, "error": repr(e)})

    # Give JAX the memory torch no longer needs (its caching allocator keeps
    # freed blocks): at N = 1024 XLA asks for about 28 GiB at once.
    del dst, out
    if "out2" in locals():
        del out2
    torch.cuda.empty_cache()

    try:
        import jax
        import jax.numpy as jnp

        def sweep_jax(x):
            c0, c1, c2, c3, c4, c5, c6 = COEFFS
            v = (c0 * x[1:-1, 1:-1, 1:-1]
                 + c1 * x[1:-1, 1:-1, :-2] + c2 * x[1:-1, 1:-1, 2:]
                 + c3 * x[1:-1, :-2, 1:-1] + c4 * x[1:-1, 2:, 1:-1]
                 + c5 * x[:-2, 1:-1, 1:-1] + c6 * x[2:, 1:-1, 1:-1])
            return x.at[1:-1, 1:-1, 1:-1].set(v)

        jx = jnp.asarray(x.cpu().numpy())
        fj = jax.jit(sweep_jax)
        jout = fj(jx).block_until_ready()
        err = err_of(torch.from_numpy(jax.device_get(jout).copy()).to(dev))
        ms, mn, ts = time_synced(lambda: fj(jx), reps, warmup)
        peers.append(record("jax_jit", "host clock, synchronised batches of 5", n, ms, mn, ts,
                            8 * interior, copy_gbps, err))
        log(f"N={n} jax.jit {ms:.4f} ms err {err:.2e}")
        jcopy = jax.jit(lambda a: a + 0)  # a copy through XLA, timed the same way, for reference
        ms, mn, ts = time_synced(lambda: jcopy(jx), reps, warmup)
        res["jax_copy"] = {"name": "jax copy (a + 0)", "n": n, "bytes": 8 * n ** 3, "median_ms": ms,
                           "min_ms": mn, "gbps": 8 * n ** 3 / (ms * 1e-3) / 1e9, "times_ms": ts}
        del jx, jout
    except Exception as e:
        log(f"N={n} jax failed: {e!r}")
        peers.append({"name": "jax_jit", "n": n, "error": repr(e)})
    res["peers"] = peers
    return res


def sweep_sharded(n, g, steps, devices):
    """A jitted function of steps sweeps of the N^3 grid split in z over g
    devices, and the sharding of its input."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    try:
        from jax import shard_map
    except ImportError:  # older JAX
        from jax.experimental.shard_map import shard_map
    import numpy as np

    mesh = Mesh(np.array(devices[:g]), ("z",))
    local = n // g
    c0, c1, c2, c3, c4, c5, c6 = COEFFS

    def step(xl):
        # Halo planes: the last plane goes up, the first down; the ends of
        # the chain receive zeros, which only touch the fixed boundary.
        if g == 1:
            from_below = from_above = jnp.zeros_like(xl[:1])
        else:
            from_below = jax.lax.ppermute(xl[-1:], "z", [(i, i + 1) for i in range(g - 1)])
            from_above = jax.lax.ppermute(xl[:1], "z", [(i + 1, i) for i in range(g - 1)])
        e = jnp.concatenate([from_below, xl, from_above], axis=0)
        v = (c0 * e[1:-1, 1:-1, 1:-1]
             + c1 * e[1:-1, 1:-1, :-2] + c2 * e[1:-1, 1:-1, 2:]
             + c3 * e[1:-1, :-2, 1:-1] + c4 * e[1:-1, 2:, 1:-1]
             + c5 * e[:-2, 1:-1, 1:-1] + c6 * e[2:, 1:-1, 1:-1])
        new = xl.at[:, 1:-1, 1:-1].set(v)
        gz = jax.lax.axis_index("z") * local + jnp.arange(local)
        edge = (gz == 0) | (gz == n - 1)  # the global boundary planes stay
        return jnp.where(edge[:, None, None], xl, new)

    def run(xl):
        return jax.lax.fori_loop(0, steps, lambda i, a: step(a), xl)

    f = jax.jit(shard_map(run, mesh=mesh, in_specs=P("z"), out_specs=P("z")))
    return f, NamedSharding(mesh, P("z"))


def run_sharded(n, gs, steps, reps, warmup, log):
    """The sharded JAX sweep at each device count of gs: points per second
    and the efficiency against one device, each result compared with the
    one-device result."""
    import jax
    import numpy as np

    devices = jax.devices()
    x0 = np.random.default_rng(1000 + n).random((n, n, n), dtype=np.float32) * 2 - 1
    rows, ref, base = [], None, None
    for g in gs:
        if g > len(devices) or n % g:
            log(f"N={n} jax sharded over {g}: skipped ({len(devices)} devices, N % G = {n % g})")
            continue
        try:
            f, sharding = sweep_sharded(n, g, steps, devices)
            x = jax.device_put(x0, sharding)
            out = f(x).block_until_ready()
            got = np.asarray(jax.device_get(out))
            if ref is None:
                ref = got
            err = float(np.abs(got.astype(np.float64) - ref).max())
            ms, mn, ts = time_synced(lambda: f(x), reps, warmup, batch=1)
            pts = (n - 2) ** 3 * steps / (ms * 1e-3)
            if g == gs[0]:
                base = ms
            eff = base / (g * ms) if base else None
            rows.append({"name": "jax_sharded", "n": n, "gpus": g, "steps": steps, "median_ms": ms,
                         "min_ms": mn, "ms_per_step": ms / steps, "gpts": pts / 1e9, "efficiency": eff,
                         "max_abs_diff_vs_first": err, "times_ms": ts,
                         "timed_with": "host clock around block_until_ready, one call of all steps"})
            log(f"N={n} jax sharded over {g}: {ms / steps:.4f} ms/step {pts / 1e9:.1f} Gpt/s"
                f" eff {100 * eff:.1f}% diff {err:.1e}" if eff else f"N={n} jax sharded over {g}: {ms:.3f} ms")
            del x, out
        except Exception as e:
            log(f"N={n} jax sharded over {g} failed: {e!r}")
            rows.append({"name": "jax_sharded", "n": n, "gpus": g, "error": repr(e)})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", default="512", help="grid sides, comma-separated")
    ap.add_argument("-reps", type=int, default=50)
    ap.add_argument("-warmup", type=int, default=5)
    ap.add_argument("-out", default="", help="JSON file to write")
    ap.add_argument("-sharded", default="", help="device counts of the sharded JAX sweep, e.g. 1,2,4")
    ap.add_argument("-steps", type=int, default=20, help="time steps of one sharded run")
    ap.add_argument("-sharded-only", action="store_true", help="run the sharded sweep only")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("peers.py: no CUDA device visible to torch", file=sys.stderr)
        return 2
    dev = torch.device("cuda")

    def log(s):
        print(s, flush=True)

    versions = {"torch": torch.__version__, "python": sys.version.split()[0]}
    try:
        import jax
        versions["jax"] = jax.__version__
    except Exception:
        pass
    doc = {
        "device": torch.cuda.get_device_name(dev),
        "versions": versions,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python3 bench/peers.py " + " ".join(sys.argv[1:]),
        "coeffs": COEFFS, "reps": args.reps, "warmup": args.warmup,
        "bytes_per_point": 8,
        "runs": [] if args.sharded_only else
        [run_n(int(s), args.reps, args.warmup, dev, log) for s in args.n.split(",") if s],
    }
    if args.sharded:
        gs = [int(g) for g in args.sharded.split(",") if g]
        torch.cuda.empty_cache()
        doc["sharded"] = [r for s in args.n.split(",") if s
                          for r in run_sharded(int(s), gs, args.steps, args.reps, args.warmup, log)]
        doc["devices"] = torch.cuda.device_count()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
    print(f"{'peer':16} {'N':>5} {'ms':>9} {'GB/s':>8} {'% copy':>7} {'max err':>9}")
    for r in doc["runs"]:
        print(f"{'copy_':16} {r['n']:5d} {r['copy']['median_ms']:9.4f} {r['copy']['gbps']:8.1f} {100.0:7.1f}")
        for p in r["peers"]:
            if "error" in p:
                print(f"{p['name']:16} {r['n']:5d}   failed: {p['error'][:60]}")
                continue
            print(f"{p['name']:16} {r['n']:5d} {p['median_ms']:9.4f} {p['gbps']:8.1f} {p['pct_copy']:7.1f} {p['max_abs_err']:9.2e}")
    if doc.get("sharded"):
        print(f"{'sharded':16} {'N':>5} {'GPUs':>4} {'ms/step':>9} {'Gpt/s':>8} {'eff %':>7} {'diff':>9}")
        for p in doc["sharded"]:
            if "error" in p:
                print(f"{p['name']:16} {p['n']:5d} {p['gpus']:4d}   failed: {p['error'][:60]}")
                continue
            print(f"{p['name']:16} {p['n']:5d} {p['gpus']:4d} {p['ms_per_step']:9.4f} {p['gpts']:8.1f}"
                  f" {100 * (p['efficiency'] or 0):7.1f} {p['max_abs_diff_vs_first']:9.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
