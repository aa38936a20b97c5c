#!/usr/bin/env python3
"""pytrace.py -- the timeline of one Python call on the GPU and on the host, from torch.profiler
(CUPTI): when each runtime call of the call was made, and when each kernel and memset ran, in
microseconds from the CUDA event recorded before the call (bench_py.py's start event).

    PYTHONPATH=<the built package> python3 bench/python/pytrace.py [LOG2N] [--json FILE]

Rows: gpusort.sort(x, return_indices=True) and torch.sort(x, stable=True), torch int32 keys
(torch.randint over the whole range), 2^24 by default. Five traced calls of each after a
warm-up; for each call the host calls (cudaLaunchKernel*, cudaMemsetAsync, cudaEventRecord)
and the GPU activities, in order, with start and duration. The first GPU activity's start is
the time the GPU waited for the host; the gaps between activities are waits between launches.
"""
import json, os, statistics, sys, tempfile
import torch
import gpusort

pos = [a for a in sys.argv[1:] if not a.startswith("--")]
n = 1 << (int(pos[0]) if pos else 24)
jpath = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
rows = [("gpusort.sort(x, return_indices=True)", lambda: gpusort.sort(x, return_indices=True)),
        ("torch.sort(x, stable=True)", lambda: torch.sort(x, stable=True))]
CALLS = 5

for name, fn in rows:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for i in range(CALLS):
            torch.cuda.synchronize()
            with torch.profiler.record_function(f"call{i}"):
                s.record()
                fn()
                e.record()
            e.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    if jpath:
        with open(f"{jpath}.{rows.index((name, fn))}.json", "w") as f:
            json.dump(ev, f)
    os.unlink(path)
    calls = sorted((x for x in ev if x.get("name", "").startswith("call") and x.get("ph") == "X"
                    and x.get("cat") == "user_annotation"), key=lambda x: x["ts"])
    rt = sorted((x for x in ev if x.get("cat") in ("cuda_runtime", "cuda_driver") and x.get("ph") == "X"),
                key=lambda x: x["ts"])
    gpu = sorted((x for x in ev if x.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")
                  and x.get("ph") == "X"), key=lambda x: x["ts"])
    print(f"== {name}, n = 2^{n.bit_length() - 1}", flush=True)
    firsts, totals, idles = [], [], []
    for c in calls:
        t0, t1 = c["ts"], c["ts"] + c["dur"]
        mine_rt = [r for r in rt if t0 <= r["ts"] <= t1]
        rec = [r for r in mine_rt if r["name"].startswith("cudaEventRecord")]
        base = rec[0]["ts"] if rec else t0
        end_host = rec[-1]["ts"] if len(rec) > 1 else t1
        # the GPU work of this call: the activities whose correlation id is one of its host calls
        corr = {r.get("args", {}).get("correlation") for r in mine_rt} - {None}
        mine_gpu = [g for g in gpu if g.get("args", {}).get("correlation") in corr]
        print(f"-- {c['name']}: host {c['dur']:.1f} us (record to record {end_host - base:.1f} us)")
        for r in mine_rt:
            print(f"   host {r['ts'] - base:8.1f} +{r['dur']:6.1f}  {r['name']}")
        prev_end = None
        idle = 0.0
        for g in mine_gpu:
            gap = 0.0 if prev_end is None else g["ts"] - prev_end
            if prev_end is not None and gap > 0:
                idle += gap
            nm = g["name"]
            nm = nm if len(nm) < 90 else nm[:87] + "..."
            print(f"   gpu  {g['ts'] - base:8.1f} +{g['dur']:7.1f}  (gap {gap:6.1f})  {nm}")
            prev_end = g["ts"] + g["dur"]
        if mine_gpu:
            firsts.append(mine_gpu[0]["ts"] - base)
            totals.append(prev_end - base)
            idles.append(idle)
    if firsts:
        print(f"median: first GPU activity at {statistics.median(firsts):.1f} us, last ends at "
              f"{statistics.median(totals):.1f} us, idle between activities {statistics.median(idles):.1f} us",
              flush=True)
