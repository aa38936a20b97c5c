#!/usr/bin/env python3
"""ab_knob.py -- one library, two settings of one of its test knobs, in one process: bench_py.py's
torch rows at one size, alternating the settings round by round so that both see the same
machine.

    PYTHONPATH=<the built package> python3 bench/python/ab_knob.py KNOB A,B [--log2 24]
        [--rounds 6] [--runs 9]

KNOB is an environment variable the CUDA backend reads when it makes a context (for example
GPUSORT_TEST_RADIX_HIST_ZERO); the package's contexts are freed (gpusort._core.trim(True))
before each round, so each round's context reads its setting. Each round times torch.sort(x,
stable=True) and gpusort.sort(x, return_indices=True) as bench_py.py does (CUDA events around
the call, median of --runs after a warm-up call), for torch int32 (randint over the whole range)
and float32 (rand); results are checked against torch.sort once per setting. Prints one line
per round and row, then each setting's median of the rounds.
"""
import argparse, os, statistics
import torch
import gpusort
from gpusort import _core
from bench_py import median_events, torch_sort_matches   # bench_py.py, beside this file


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("knob")
    ap.add_argument("values")
    ap.add_argument("--log2", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    n = 1 << a.log2
    data = {"int32": torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32),
            "float32": torch.rand(n, device="cuda", dtype=torch.float32)}
    values = a.values.split(",")
    res = {(v, t): [] for v in values for t in data}
    checked = set()
    print(f"# {torch.cuda.get_device_name()}, {a.knob} in {values}, 2^{a.log2}, "
          f"{a.rounds} rounds, median of {a.runs} per round", flush=True)
    for r in range(a.rounds):
        for v in (values if r % 2 == 0 else values[::-1]):
            os.environ[a.knob] = v
            _core.trim(True)
            for typ, x in data.items():
                if v not in checked and not torch_sort_matches(torch, x):
                    print(f"MISMATCH: {a.knob}={v} {typ}")
                peer = median_events(torch, lambda: torch.sort(x, stable=True), a.runs)
                ours = median_events(torch, lambda: gpusort.sort(x, return_indices=True), a.runs)
                res[(v, typ)].append((peer, ours))
                print(f"round {r} {a.knob}={v} {typ:8s} torch {peer * 1e3:7.1f} us  gpusort "
                      f"{ours * 1e3:7.1f} us  {peer / ours:.3f}x", flush=True)
            checked.add(v)
    for (v, typ), rows in res.items():
        ours = statistics.median(o for _, o in rows)
        ratio = statistics.median(p / o for p, o in rows)
        print(f"{a.knob}={v} {typ:8s} gpusort median {ours * 1e3:7.1f} us, speedup median "
              f"{ratio:.3f}x over {len(rows)} rounds")


if __name__ == "__main__":
    main()
