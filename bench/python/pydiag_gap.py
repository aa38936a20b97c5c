#!/usr/bin/env python3
"""pydiag_gap.py -- where the GPU idles before gpusort.sort(x, return_indices=True) starts its work
(torch int32, 2^24 keys by default). For each variant of the call (the package's whole call, the C
call alone with buffers made beforehand, the C call after each of the fast path's steps) it prints
the host time with the GPU idle and with it busy, and the GPU time between two CUDA events around
the call with the GPU idle before it and with it busy (the difference is the idle time the host
causes: the "gap"). Usage: python3 bench/python/pydiag_gap.py [LOG2N] [--no-keep] (--no-keep:
the package makes a new scratch tensor per call instead of keeping one)."""
import statistics, sys, time
import numpy as np, torch, gpusort
from gpusort import _core
pos = [a for a in sys.argv[1:] if not a.startswith("--")]
n = 1 << (int(pos[0]) if pos else 24)
if "--no-keep" in sys.argv:
    gpusort._KEEP_SCRATCH = 0
x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
ko = torch.empty_like(x); io = torch.empty(n, dtype=torch.int64, device="cuda")
kt = gpusort._check_dtype(np.dtype(np.int32)); it = gpusort._U64; b = gpusort._BACKENDS["cuda"]
st = torch.cuda.current_stream().cuda_stream or gpusort._CUDA_STREAM_LEGACY
Q = _core.FLAG_QUERY_SCRATCH
def args(k, i):
    return (kt, it, x.data_ptr(), 0, n, k.data_ptr(), i.data_ptr(), 0, 0)
nbytes = _core.sort_pairs(b, 0, st, 0, 0, *args(ko, io), Q)
ws = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
def call(k=ko, i=io, w=ws):
    _core.sort_pairs(b, 0, st, w.data_ptr(), nbytes, *args(k, i), 0)
def v_alloc_out():
    call(torch.empty_like(x), torch.empty_like(x, dtype=torch.int64))
def v_query():
    _core.sort_pairs(b, 0, st, 0, 0, *args(ko, io), Q); call()
def v_scratch():
    call(w=x.new_empty(nbytes, dtype=torch.uint8))
def v_cache_alloc():
    p = torch.cuda.caching_allocator_alloc(nbytes, 0, torch.cuda.current_stream())
    _core.sort_pairs(b, 0, st, p, nbytes, *args(ko, io), 0)
    torch.cuda.caching_allocator_delete(p)
rows = [
    ("gpusort.sort(x, return_indices=True)", lambda: gpusort.sort(x, return_indices=True)),
    ("torch.sort(x, stable=True)", lambda: torch.sort(x, stable=True)),
    ("C call (buffers made before)", call),
    ("2 x empty_like + C call", v_alloc_out),
    ("query + C call", v_query),
    ("new_empty(scratch) + C call", v_scratch),
    ("caching_allocator_alloc + C call", v_cache_alloc),
    ("empty_like x2 alone", lambda: (torch.empty_like(x), torch.empty_like(x, dtype=torch.int64))),
    ("query alone", lambda: _core.sort_pairs(b, 0, st, 0, 0, *args(ko, io), Q)),
]
def host(fn, busy, runs=100):
    fn(); torch.cuda.synchronize(); t = []
    for i in range(runs):
        if busy:
            if i % 10 == 0:
                torch.cuda.synchronize(); torch.cuda._sleep(100000000)
        else:
            torch.cuda.synchronize()
        t0 = time.perf_counter(); fn(); t.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(t)
def ev(fn, pre, runs=40):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True); t = []
    for _ in range(runs):
        if pre: torch.cuda._sleep(pre)
        s.record(); fn(); e.record(); e.synchronize(); t.append(s.elapsed_time(e) * 1000)
    return statistics.median(t)
print(f"n = {n}; host us (GPU idle / busy), events us (idle before / busy before), gap us")
for name, fn in rows:
    hi, hb = host(fn, False), host(fn, True)
    a, bz = ev(fn, 0), ev(fn, 4000000)
    print(f"{name:40s} host {hi:7.1f} / {hb:7.1f}   events {a:8.1f} / {bz:8.1f}   gap {a - bz:6.1f}", flush=True)
