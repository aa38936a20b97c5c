#!/usr/bin/env python3
"""pydiag.py -- where a Python call's time goes, 2^24 int32 on the current CUDA device:

    PYTHONPATH=<the built package> python3 bench/python/pydiag.py

For cupy.sort, torch.sort(stable=True) and gpusort.sort on the same arrays: the GPU time between
CUDA events around the call (as bench_py.py times it), the same with the GPU kept busy before
the call (a 2M-cycle torch.cuda._sleep: the host's part then hides behind it, so the difference
is GPU time lost waiting for the host), the host time of one call with the GPU busy (a call
that waits for the stream shows the sleep), and cProfile of 100 gpusort calls.
"""
import cProfile, io, pstats, statistics, time
import cupy, torch, gpusort

n = 1 << 24
x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
c = cupy.from_dlpack(x)
out = cupy.empty_like(c)

def ev(fn, runs=15, pre=0):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = []
    for _ in range(runs):
        if pre: torch.cuda._sleep(pre)
        s.record(); fn(); e.record(); e.synchronize(); t.append(s.elapsed_time(e))
    return statistics.median(t)

def host(fn, runs=15):
    fn(); torch.cuda.synchronize(); t = []
    for _ in range(runs):
        torch.cuda._sleep(4000000)
        t0 = time.perf_counter(); fn(); t.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
    return statistics.median(t)


rows = [("cupy.sort", lambda: cupy.sort(c)),
        ("gpusort.sort(cupy)", lambda: gpusort.sort(c)),
        ("gpusort.sort(cupy, out=)", lambda: gpusort.sort(c, out=out)),
        ("torch.sort stable", lambda: torch.sort(x, stable=True)),
        ("gpusort.sort(torch, idx)", lambda: gpusort.sort(x, return_indices=True))]
for name, fn in rows:
    print(f"{name:28s} events {ev(fn):.4f} ms  events-busy {ev(fn, pre=2000000):.4f} ms  host {host(fn):7.1f} us", flush=True)
for name, fn in rows[1:3] + rows[4:]:
    pr = cProfile.Profile(); fn(); torch.cuda.synchronize()
    pr.enable()
    for _ in range(100):
        torch.cuda._sleep(4000000); fn(); torch.cuda.synchronize()
    pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
    print("==", name); print(s.getvalue())
