#!/usr/bin/env python3
"""skew.py -- gpusort.sort(x, return_indices=True) of 2^24 torch.rand float32 keys against the
same bits sorted as int32 and against uniform int32 keys (torch.randint): whether the float rows'
extra time comes from the data (torch.rand's top radix digit falls in a few buckets) or from the
float key. CUDA events, median of 15 after a warm-up. Usage: python3 bench/python/skew.py"""
import statistics
import torch, gpusort
n = 1 << 24
def med(fn, runs=15):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True); t = []
    for _ in range(runs):
        s.record(); fn(); e.record(); e.synchronize(); t.append(s.elapsed_time(e) * 1000)
    return statistics.median(t)
f = torch.rand(n, device="cuda")
fi = f.view(torch.int32)
u = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
for name, x in [("rand float32", f), ("rand bits as int32", fi), ("randint int32", u),
                ("randn float32", torch.randn(n, device="cuda"))]:
    g = med(lambda: gpusort.sort(x, return_indices=True))
    t = med(lambda: torch.sort(x, stable=True))
    print(f"{name:22s} gpusort {g:7.1f} us  torch.sort {t:7.1f} us  {t / g:5.2f}x", flush=True)
