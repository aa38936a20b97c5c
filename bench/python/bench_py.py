#!/usr/bin/env python3
"""bench_py.py -- the Python binding against the frameworks' own sorts, on the same data.

    python3 bench/python/bench_py.py [--runs 9] [--sizes 24,28] [--csv FILE] [--numpy-log2 28]

Rows (issue 16's targets):
  torch   gpusort.sort(x, return_indices=True) vs torch.sort(x, stable=True): values and int64
          indices, int32 / float32 / int64 at 2^24 and 2^28               (target >= 1.5x)
  cupy    gpusort.sort(x) vs cupy.sort(x): a sorted copy, same types and sizes (>= 1.25x)
  small   2^10 int32, CuPy: gpusort.sort vs cupy.sort, whole calls      (gpusort within 1.5x)
  small-t 2^10 int32, torch: gpusort.sort(x, return_indices=True) vs torch.sort(x, stable=True),
          whole calls: the torch path's per-call cost                    (gpusort within 1.5x)
  numpy   2^28 uint32 numpy array: gpusort.sort (to the GPU and back) vs numpy.sort (default
          kind), copies included                                            (>= 10x)
Timing: one warm-up call, then the median of --runs calls. Device rows: CUDA events around the
call alone, on the current stream (gpusort runs on it), inputs uniform random on the device.
The small row times 200 calls back to back and synchronises once (the per-call cost a Python
loop sees). The numpy row times with time.perf_counter (both calls complete before returning).
Results are checked once per row (gpusort equals the peer). Prints one line per row and a
summary of each target; --csv writes peer,type,log2n,peer_ms,gpusort_ms,speedup.
"""
import argparse
import statistics
import sys
import time

import numpy as np

import gpusort


def median_events(torch, fn, runs):
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = []
    for _ in range(runs):
        s.record()
        fn()
        e.record()
        e.synchronize()
        t.append(s.elapsed_time(e))
    return statistics.median(t)


def torch_sort_matches(torch, x):
    """gpusort.sort(x, return_indices=True) equals torch.sort(x, stable=True), bit for bit."""
    gv, gi = gpusort.sort(x, return_indices=True)
    tv, ti = torch.sort(x, stable=True)
    return torch.equal(gv, tv) and torch.equal(gi, ti)


def median_wall(fn, runs, sync=lambda: None):
    fn()
    sync()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        sync()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--sizes", default="24,28")
    ap.add_argument("--numpy-log2", type=int, default=28)
    ap.add_argument("--csv")
    a = ap.parse_args()
    import cupy
    import torch
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return 77
    print(f"# device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cupy {cupy.__version__}, numpy {np.__version__}, gpusort {gpusort.__version__}, "
          f"backends {gpusort.backends()}, runs {a.runs} (median)")
    rows = []
    tdt = {"int32": torch.int32, "float32": torch.float32, "int64": torch.int64}

    def row(peer, typ, log2n, peer_ms, ours_ms, target):
        sp = peer_ms / ours_ms
        rows.append((peer, typ, log2n, peer_ms, ours_ms, sp, target))
        n = 1 << log2n
        print(f"{peer:6s} {typ:8s} 2^{log2n:<2d} peer {peer_ms:9.3f} ms  gpusort {ours_ms:9.3f} ms"
              f"  speedup {sp:5.2f}x  (gpusort {n / ours_ms / 1e6:6.2f} Gkeys/s)"
              f"  {'ok' if sp >= target else 'SHORT'} of {target}x", flush=True)

    for log2n in [int(s) for s in a.sizes.split(",")]:
        n = 1 << log2n
        for typ, dt in tdt.items():
            if dt.is_floating_point:
                x = torch.rand(n, device="cuda", dtype=dt)
            else:
                x = torch.randint(torch.iinfo(dt).min, torch.iinfo(dt).max, (n,), device="cuda",
                                  dtype=dt)
            if not torch_sort_matches(torch, x):
                print(f"MISMATCH: torch {typ} 2^{log2n}: gpusort differs from torch.sort")
            peer = median_events(torch, lambda: torch.sort(x, stable=True), a.runs)
            ours = median_events(torch, lambda: gpusort.sort(x, return_indices=True), a.runs)
            row("torch", typ, log2n, peer, ours, 1.5)
            c = cupy.from_dlpack(x)
            if not bool((gpusort.sort(c) == cupy.sort(c)).all()):
                print(f"MISMATCH: cupy {typ} 2^{log2n}: gpusort differs from cupy.sort")
            peer = median_events(torch, lambda: cupy.sort(c), a.runs)
            ours = median_events(torch, lambda: gpusort.sort(c), a.runs)
            row("cupy", typ, log2n, peer, ours, 1.25)
            del x, c
            torch.cuda.empty_cache()
            cupy.get_default_memory_pool().free_all_blocks()

    # Call overhead: 2^10 keys, 200 calls back to back, one synchronisation.
    c = cupy.random.randint(-(1 << 30), 1 << 30, 1 << 10, dtype=cupy.int32)
    if not bool((gpusort.sort(c) == cupy.sort(c)).all()):
        print("MISMATCH: cupy int32 2^10")
    sync = cupy.cuda.get_current_stream().synchronize

    def loop(fn):
        def f():
            for _ in range(200):
                fn(c)
        return f
    peer = median_wall(loop(cupy.sort), a.runs, sync) / 200
    ours = median_wall(loop(gpusort.sort), a.runs, sync) / 200
    row("small", "int32", 10, peer, ours, 1 / 1.5)

    # The same for torch with indices (three tensors a call: values, indices, scratch).
    t = torch.from_dlpack(c)
    if not torch_sort_matches(torch, t):
        print("MISMATCH: torch int32 2^10")
    tsync = torch.cuda.synchronize

    def tloop(fn):
        def f():
            for _ in range(200):
                fn()
        return f
    peer = median_wall(tloop(lambda: torch.sort(t, stable=True)), a.runs, tsync) / 200
    ours = median_wall(tloop(lambda: gpusort.sort(t, return_indices=True)), a.runs, tsync) / 200
    row("small-t", "int32", 10, peer, ours, 1 / 1.5)

    # numpy: host memory, sorted on the GPU by the library's AUTO (copies included).
    n = 1 << a.numpy_log2
    h = np.random.default_rng(1).integers(0, 1 << 32, n, dtype=np.uint32)
    if not np.array_equal(gpusort.sort(h), np.sort(h)):
        print("MISMATCH: numpy uint32")
    ours = median_wall(lambda: gpusort.sort(h), a.runs)
    peer = median_wall(lambda: np.sort(h), a.runs)
    row("numpy", "uint32", a.numpy_log2, peer, ours, 10)

    short = [r for r in rows if r[5] < r[6]]
    print(f"# {len(rows) - len(short)} of {len(rows)} rows meet their target"
          + ("" if not short else "; short: " + ", ".join(f"{r[0]} {r[1]} 2^{r[2]} ({r[5]:.2f}x)"
                                                           for r in short)))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("peer,type,log2n,peer_ms,gpusort_ms,speedup,target\n")
            for r in rows:
                f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.4f},{r[4]:.4f},{r[5]:.3f},{r[6]:.3f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
