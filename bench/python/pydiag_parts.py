#!/usr/bin/env python3
"""pydiag_parts.py -- the host time of gpusort.sort(x, return_indices=True) on a torch int32 tensor of
2^24 keys, piece by piece (_import, the output allocations, the scratch query and buffer, the C call)
with the GPU kept busy so that no call blocks, and the GPU idle time the host causes (CUDA events
around the call with and without a busy GPU before it). Usage: python3 bench/python/pydiag_parts.py
(bench/results/python-2026-11-29-call4-pydiag2.txt)."""
import statistics, time
import numpy as np, torch, gpusort
from gpusort import _core
n = 1 << 24
x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
ko = torch.empty_like(x); io = torch.empty(n, dtype=torch.int64, device="cuda")
kt = gpusort._check_dtype(np.dtype(np.int32)); it = gpusort._U64; b = gpusort._BACKENDS["cuda"]
# torch's default stream is 0, which _core reads as "the context's own stream" (synchronous
# calls): pass the legacy stream's handle, as the package does.
st = torch.cuda.current_stream().cuda_stream or gpusort._CUDA_STREAM_LEGACY
Q = _core.FLAG_QUERY_SCRATCH
nbytes = _core.sort_pairs(b, 0, st, 0, 0, kt, it, x.data_ptr(), 0, n, ko.data_ptr(), io.data_ptr(), 0, 0, Q)
ws = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
def host(fn, runs=200):
    fn(); torch.cuda.synchronize(); t = []
    for i in range(runs):
        if i % 20 == 0:
            torch.cuda.synchronize(); torch.cuda._sleep(200000000)
        t0 = time.perf_counter(); fn(); t.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(t)
def ev(fn, runs=30, pre=0):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True); t = []
    for _ in range(runs):
        if pre: torch.cuda._sleep(pre)
        s.record(); fn(); e.record(); e.synchronize(); t.append(s.elapsed_time(e))
    return statistics.median(t)
rows = [
 ("gpusort.sort(x, return_indices=True)", lambda: gpusort.sort(x, return_indices=True)),
 ("torch.sort(x, stable=True)", lambda: torch.sort(x, stable=True)),
 ("_import(x)", lambda: gpusort._import(x)),
 ("2 x torch.empty (outputs)", lambda: (torch.empty(n, dtype=torch.int32, device="cuda"), torch.empty(n, dtype=torch.int64, device="cuda"))),
 ("_core.sort_pairs query", lambda: _core.sort_pairs(b, 0, st, 0, 0, kt, it, x.data_ptr(), 0, n, ko.data_ptr(), io.data_ptr(), 0, 0, Q)),
 ("torch.empty(scratch)", lambda: torch.empty(nbytes, dtype=torch.uint8, device="cuda")),
 ("_core.sort_pairs call", lambda: _core.sort_pairs(b, 0, st, ws.data_ptr(), nbytes, kt, it, x.data_ptr(), 0, n, ko.data_ptr(), io.data_ptr(), 0, 0, 0)),
 ("_core.sort_pairs call, no stream/ws", lambda: _core.sort_pairs(b, 0, 0, 0, 0, kt, it, x.data_ptr(), 0, n, ko.data_ptr(), io.data_ptr(), 0, 0, 0)),
 ("_torch_stream", lambda: gpusort._torch_stream(torch, 0)),
]
for name, fn in rows:
    print(f"{name:40s} host {host(fn):8.1f} us", flush=True)
for name, fn in rows[:2] + rows[6:7]:
    a, bz = ev(fn), ev(fn, pre=4000000)
    print(f"{name:40s} events {a:.4f} ms  busy-before {bz:.4f} ms  gap {1000*(a-bz):.1f} us", flush=True)
