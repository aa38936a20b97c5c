#!/usr/bin/env python3
"""peers.py -- time the sorts of the Python GPU libraries, as peers for gpusort's plots.

    python3 bench/peers.py --csv FILE [--sizes 10,12,...] [--runs 7]

For each library present (torch: torch.sort, stable, which also returns the i64 indices;
cupy: cupy.sort, keys only) and each key type it sorts, uniform random keys of every size
2^k in --sizes, on the GPU: one warm-up, then the median of --runs calls timed with CUDA
events around the call alone, inputs rotating over copies (at least 256 MiB together, at most
32 copies) so that small sizes do not find their input in L2 -- the method of bench_cuda, so
the rows compare with its gpusort / CUB / Thrust rows of the same machine.

CSV columns: peer,op,type,n,ms,keys_per_s (op "keys", as bench_cuda's keys rows; bench/plot.py
draws these beside them). Exit 0 when something was timed, 77 when neither library (or no GPU)
is there.
"""
import argparse
import statistics
import sys

TYPES = ("u32", "i32", "f32", "u64", "i64", "f64")


def timer_torch(torch):
    def run(fn, runs):
        fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for r in range(runs):
            start.record()
            fn(r)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)
    return run


def bench_torch(sizes, runs, emit):
    import torch
    if not torch.cuda.is_available():
        return "torch: no CUDA device"
    dtypes = {"u32": getattr(torch, "uint32", None), "i32": torch.int32, "f32": torch.float32,
              "u64": getattr(torch, "uint64", None), "i64": torch.int64, "f64": torch.float64}
    time = timer_torch(torch)
    done = []
    for name in TYPES:
        dt = dtypes[name]
        if dt is None:
            continue
        for k in sizes:
            n = 1 << k
            size = torch.empty(0, dtype=dt).element_size()
            copies = max(2, min(32, (256 << 20) // (n * size)))
            try:
                if dt.is_floating_point:
                    xs = [torch.rand(n, device="cuda", dtype=dt) * 2 - 1 for _ in range(copies)]
                else:
                    xs = [torch.randint(0, 1 << 31, (n,), device="cuda", dtype=torch.int64).to(dt)
                          for _ in range(copies)]
                t = time(lambda r=0: torch.sort(xs[r % copies], stable=True), runs)
            except (RuntimeError, TypeError) as e:   # a dtype this torch cannot sort on the GPU
                print("torch: %s not timed: %s" % (name, str(e).splitlines()[0]))
                break
            finally:
                xs = None
            emit("torch.sort", name, n, t)
        else:
            done.append(name)
        torch.cuda.empty_cache()
    return "torch %s: %s" % (torch.__version__, " ".join(done) or "nothing")


def bench_cupy(sizes, runs, emit):
    import cupy
    dtypes = {"u32": cupy.uint32, "i32": cupy.int32, "f32": cupy.float32,
              "u64": cupy.uint64, "i64": cupy.int64, "f64": cupy.float64}
    done = []
    for name in TYPES:
        dt = dtypes[name]
        for k in sizes:
            n = 1 << k
            copies = max(2, min(32, (256 << 20) // (n * cupy.dtype(dt).itemsize)))
            xs = []
            for c in range(copies):
                if cupy.dtype(dt).kind == "f":
                    xs.append(cupy.random.uniform(-1, 1, n).astype(dt))
                else:
                    xs.append(cupy.random.randint(0, 1 << 31, n, dtype=cupy.int64).astype(dt))
            cupy.sort(xs[0])
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            times = []
            for r in range(runs):
                start.record()
                cupy.sort(xs[r % copies])
                end.record()
                end.synchronize()
                times.append(cupy.cuda.get_elapsed_time(start, end))
            del xs
            emit("cupy.sort", name, n, statistics.median(times))
        done.append(name)
        cupy.get_default_memory_pool().free_all_blocks()
    return "cupy %s: %s" % (cupy.__version__, " ".join(done))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", required=True, help="rows written here")
    ap.add_argument("--sizes", default="10,12,14,16,18,20,22,24,26,28", help="log2 sizes")
    ap.add_argument("--runs", type=int, default=7, help="timed calls per row (median)")
    args = ap.parse_args()
    sizes = [int(k) for k in args.sizes.split(",") if k]
    out = open(args.csv, "w")
    out.write("peer,op,type,n,ms,keys_per_s\n")
    rows = [0]

    def emit(peer, typ, n, ms):
        out.write("%s,keys,%s,%d,%.4f,%.1f\n" % (peer, typ, n, ms, n / (ms * 1e-3)))
        out.flush()
        print("%-10s %-4s 2^%-3d %9.4f ms %8.3f Gkeys/s" % (peer, typ, n.bit_length() - 1, ms,
                                                          n / (ms * 1e-3) / 1e9), flush=True)
        rows[0] += 1

    notes = []
    for lib, fn in (("torch", bench_torch), ("cupy", bench_cupy)):
        try:
            __import__(lib)
        except ImportError:
            notes.append("%s not installed" % lib)
            continue
        try:
            notes.append(fn(sizes, args.runs, emit))
        except Exception as e:  # one library failing leaves the other's rows
            notes.append("%s failed: %s" % (lib, str(e).splitlines()[0] if str(e) else type(e).__name__))
    print("peers: %d rows; %s" % (rows[0], "; ".join(notes)))
    return 0 if rows[0] else 77


if __name__ == "__main__":
    sys.exit(main())
