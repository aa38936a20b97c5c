#!/usr/bin/env python3
"""plot.py -- draw the README's benchmark plots from the committed result files.

    python3 bench/plot.py [--out DIR] [FILE ...]

With no FILE it reads the current results that bench/results/README.md names (DEFAULT_INPUTS
below); give FILEs to plot a new run instead (e.g. the CSVs that scripts/gpu_check.sh bench
writes under $OUT). Each file is recognised by its first line, so any mix works:

    bench_cuda --csv       suite,op,type,dist,n,ours_ms,cub_ms,...  (radix, reduce, host rows)
    bench_cuda --suite seeds --csv, or its printed output (.log)
                           suite,case,n,ours_ms,... rows; the "cross" rows time every CUDA
                           algorithm (rank, bitonic, merge, radix, auto) at n = 2^5 .. 2^22
    bench_cpu --csv        keys,n,threads,algorithm,gpusort_ms,std_sort_ms,gnu_parallel_ms,...
                           (bench_cpu writes no header: gpu_check.sh adds this one)
    gpu_check.sh peers     peer,op,type,n,ms (torch.sort, cupy.sort timed on the same GPU)

PNGs are written to DIR (default bench/results/plots/), one per figure that the inputs hold
data for; a figure without data is skipped with a note:

    radix-vs-n.png         CUDA sort throughput (keys/s) against n: gpusort, CUB, Thrust and
                           torch / cupy where present; one panel per key type and mode
    radix-2p28.png         the same at 2^28 (64-bit pairs 2^27), every key type: bars
    reduce-vs-n.png        reduce sum throughput against n: gpusort vs CUB (+ result copy)
    cuda-algorithms-vs-n.png  every CUDA algorithm against n (the crossovers AUTO is built from)
    cpu-vs-n.png           the CPU backend against std::sort and __gnu_parallel::sort (bars
                           when the inputs hold one size, lines when they hold several)

Throughput is n / time (keys per second, pairs count one key), so the curves of one panel
compare like with like; the time of every contender comes from the same process and data.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
DEFAULT_INPUTS = [
    "cuda-2026-11-24-house.csv",    # bench_cuda radix (2^16..2^30, --sweep 2^16..2^28), reduce, host
    "auto-2026-11-24-cross2.log",   # bench_cuda --suite seeds --only cross (AUTO's table)
    "cpu-2026-11-22b.csv",          # bench_cpu --only-headline (2 cores)
]

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot.py needs matplotlib: pip install matplotlib  (or apt-get install python3-matplotlib)")

# bench_cuda's time columns, by contender.
CUDA_COLUMNS = (("gpusort", "ours_ms"), ("CUB", "cub_ms"), ("Thrust", "thrust_ms"))

# One colour and marker per contender, the same in every figure.
STYLE = {
    "gpusort": ("tab:blue", "o"), "CUB": ("tab:orange", "s"), "Thrust": ("tab:green", "^"),
    "torch.sort": ("tab:red", "v"), "cupy.sort": ("tab:purple", "D"),
    "std::sort": ("tab:gray", "s"), "__gnu_parallel::sort": ("tab:brown", "^"),
    "gnu_parallel::sort": ("tab:brown", "^"),  # matplotlib hides labels that start with "_"
    "rank": ("tab:purple", "D"), "bitonic": ("tab:green", "^"), "merge": ("tab:orange", "s"),
    "radix": ("tab:red", "v"), "auto": ("tab:blue", "o"),
}


def log2_label(n):
    k = math.log2(n)
    return "2^%d" % k if k == int(k) else "%d" % n


# ---- reading ----

def read_rows(path):
    """Returns (kind, rows) for one result file; kind None when the format is unknown."""
    with open(path, newline="") as f:
        text = f.read()
    first = text.split("\n", 1)[0]
    if first.startswith("suite,op,type,dist,n,ours_ms,cub_ms"):
        return "cuda", list(csv.DictReader(text.splitlines()))
    if first.startswith("suite,case,n,ours_ms"):
        return "seeds", list(csv.DictReader(text.splitlines()))
    if first.startswith("keys,n,threads,algorithm,gpusort_ms"):
        return "cpu", list(csv.DictReader(text.splitlines()))
    if first.startswith("peer,op,type,n,ms"):
        return "peers", list(csv.DictReader(text.splitlines()))
    # bench_cuda --suite seeds printed output: "suite case... n ours_ms Gkeys/s peer peer_ms ratio"
    rows = []
    for line in text.splitlines():
        t = line.split()
        if len(t) >= 8 and t[0] in ("cross", "bitonic", "merge", "rank", "segmented", "table"):
            try:
                rows.append({"suite": t[0], "case": " ".join(t[1:-6]), "n": int(t[-6]),
                             "ours_ms": float(t[-5]), "peer": t[-3], "peer_ms": float(t[-2])})
            except ValueError:
                pass
    return ("seeds", rows) if rows else (None, [])


def ms(x):
    v = float(x)
    return v if v > 0 else None


# ---- figures ----

def rates(r, columns):
    """{name: keys/s} of one row, for the contenders whose time column holds a time."""
    n = int(r["n"])
    return {name: n / (ms(r[col]) * 1e-3) for name, col in columns if ms(r[col])}


def lines_panel(ax, series, title, ylabel="keys/s"):
    """series: {name: {n: keys_per_s}}; one line per contender, x = n on a log2 axis."""
    for name, pts in series.items():
        if not pts:
            continue
        xs = sorted(pts)
        color, marker = STYLE.get(name, (None, "o"))
        ax.plot(xs, [pts[x] for x in xs], marker=marker, color=color, label=name, ms=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("n")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def grid(count, cols):
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows), squeeze=False)
    flat = [a for r in axes for a in r]
    for a in flat[count:]:
        a.set_visible(False)
    return fig, flat


def save(fig, out, title):
    fig.suptitle(title, fontsize=10)
    # leave about 0.4 inch at the top for the title, whatever the figure's height
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def mode_label(op, typ, short=False):
    """bench_cuda's op column ("keys", "pairs/u32", "argsort/u32") in words."""
    if op == "keys":
        return typ if short else "%s keys" % typ
    if op.startswith("pairs"):
        return ("%s/%s pairs" if short else "%s keys + %s values") % (typ, op.split("/")[1])
    return ("argsort %s" if short else "argsort of %s keys") % typ


def fig_radix_vs_n(cuda, peers, device, out):
    """Sorts of uniform random keys on device data, gpusort (AUTO) against CUB and Thrust from
    the same bench_cuda rows, torch/cupy from the peers file."""
    panels = defaultdict(lambda: defaultdict(dict))    # (op, type) -> name -> {n: keys/s}
    for r in cuda:
        if r["suite"] != "radix" or r["dist"] != "uniform" or r["check"] != "ok":
            continue
        for name, v in rates(r, CUDA_COLUMNS).items():
            panels[(r["op"], r["type"])][name][int(r["n"])] = v
    for r in peers:
        key = (r["op"], r["type"])
        if key in panels and ms(r["ms"]):
            panels[key][r["peer"]][int(r["n"])] = int(r["n"]) / (float(r["ms"]) * 1e-3)
    # Panels with a size sweep (more than two sizes), in a fixed order.
    order = ["keys", "pairs/u32", "pairs/u64", "argsort/u32"]
    keys = sorted((k for k in panels if len(panels[k]["gpusort"]) > 2),
                  key=lambda k: (order.index(k[0]) if k[0] in order else 9, k[1]))
    if not keys:
        return "no radix rows at more than two sizes"
    fig, axes = grid(len(keys), 2)
    for ax, (op, typ) in zip(axes, keys):
        lines_panel(ax, panels[(op, typ)], mode_label(op, typ))
    save(fig, out, "CUDA sort throughput against n, uniform random keys, device data (%s); "
         "gpusort: AUTO (the algorithm it ran is the CSV's last column)" % device)
    return None


def fig_radix_2p28(cuda, device, out):
    rows = [r for r in cuda if r["suite"] == "radix" and r["dist"] == "uniform"
            and int(r["n"]) >= 1 << 27 and int(r["n"]) <= 1 << 28 and r["check"] == "ok"]
    if not rows:
        return "no radix rows at 2^27-2^28"
    seen, unique = set(), []   # a sweep repeats the headline rows: keep each (op, type) once
    for r in rows:
        if (r["op"], r["type"]) not in seen:
            seen.add((r["op"], r["type"]))
            unique.append(r)
    rows = unique
    labels, bars = [], defaultdict(list)
    for r in rows:
        n = int(r["n"])
        label = mode_label(r["op"], r["type"], short=True)
        labels.append(label + ("" if n == 1 << 28 else "\n(%s)" % log2_label(n)))
        v = rates(r, CUDA_COLUMNS)
        for name, _ in CUDA_COLUMNS:
            bars[name].append(v.get(name, 0) / 1e9)
    fig, ax = plt.subplots(figsize=(max(8, 1.05 * len(labels)), 4.6))
    width = 0.8 / len(bars)
    for i, (name, vals) in enumerate(bars.items()):
        xs = [j + (i - (len(bars) - 1) / 2) * width for j in range(len(labels))]
        ax.bar(xs, vals, width, label=name, color=STYLE[name][0])
    for j, r in enumerate(rows):
        ax.annotate("%.2fx" % float(r["ratio_cub"]), (j, bars["gpusort"][j]), ha="center",
                    va="bottom", fontsize=7, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("Gkeys/s")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "CUDA radix sort at 2^28, uniform random keys, device data (%s); "
         "labels: CUB time / gpusort time" % device)
    return None


def fig_reduce_vs_n(cuda, device, out):
    panels = defaultdict(lambda: defaultdict(dict))
    for r in cuda:
        if r["suite"] != "reduce" or r["check"] != "ok":
            continue
        for name, v in rates(r, CUDA_COLUMNS[:2]).items():
            panels[r["type"]][name][int(r["n"])] = v
    if not panels:
        return "no reduce rows"
    types = [t for t in ("u32", "i32", "f32", "u64", "i64", "f64") if t in panels]
    fig, axes = grid(len(types), 3)
    for ax, t in zip(axes, types):
        lines_panel(ax, panels[t], "sum of %s" % t, "elements/s")
    save(fig, out, "CUDA reduce (sum) against n, device data (%s); CUB timed with the copy of its "
         "result to the host, as gpusort_reduce returns it" % device)
    return None


def fig_algorithms(seeds, out):
    """The "cross" rows: case "u32 keys rank 2^5" (or "keys rank 2^5" in older runs)."""
    panels = defaultdict(lambda: defaultdict(dict))
    for r in seeds:
        if r["suite"] != "cross":
            continue
        t = r["case"].split()
        if len(t) < 3:
            continue
        typ, mode, alg = (t[0], t[1], t[2]) if len(t) >= 4 else ("u32", t[0], t[1])
        n, o = int(r["n"]), float(r["ours_ms"])
        if o > 0:
            panels[(typ, mode)][alg][n] = n / (o * 1e-3)
    if not panels:
        return "no crossover rows"
    keys = sorted(panels, key=lambda k: (k[1], k[0]))
    fig, axes = grid(len(keys), 4)
    for ax, (typ, mode) in zip(axes, keys):
        series = panels[(typ, mode)]
        ordered = {a: series[a] for a in ("rank", "bitonic", "merge", "radix", "auto") if a in series}
        lines_panel(ax, ordered, "%s %s" % (typ, "keys + u32 values" if mode == "pairs" else "keys"))
    save(fig, out, "Every CUDA algorithm against n (device data; AUTO picks from these)")
    return None


def fig_cpu(cpu, out):
    rows = [r for r in cpu if r.get("check", "ok") == "ok"]
    if not rows:
        return "no bench_cpu rows"
    contenders = (("gpusort", "gpusort_ms"), ("std::sort", "std_sort_ms"),
                  ("__gnu_parallel::sort", "gnu_parallel_ms"))
    by_key = defaultdict(list)                          # key type -> its rows
    for r in rows:
        by_key[r["keys"]].append(r)
    threads = sorted({r["threads"] for r in rows})
    if len({int(r["n"]) for r in rows}) > 2:
        fig, axes = grid(len(by_key), 2)
        for ax, (k, krows) in zip(axes, sorted(by_key.items())):
            series = {name.strip("_"): {int(r["n"]): int(r["n"]) / (ms(r[col]) * 1e-3)
                                        for r in krows if ms(r[col])} for name, col in contenders}
            lines_panel(ax, series, "%s keys" % k)
    else:
        # One size: a bar per contender (the mean of the runs, the line on it spanning their
        # range) and above each peer the same-run ratios peer time / gpusort time.
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        ticks = []
        for j, (k, krows) in enumerate(sorted(by_key.items())):
            for i, (name, col) in enumerate(contenders):
                timed = [r for r in krows if ms(r[col])]
                if not timed:
                    continue
                vals = [int(r["n"]) / (ms(r[col]) * 1e-3) / 1e6 for r in timed]
                mean = sum(vals) / len(vals)
                x = j * 4 + i
                ax.bar(x, mean, 0.8, color=STYLE[name][0], label=name.strip("_") if j == 0 else None,
                       yerr=[[mean - min(vals)], [max(vals) - mean]], capsize=4)
                if name != "gpusort":
                    q = [ms(r[col]) / ms(r["gpusort_ms"]) for r in timed]
                    text = "%.1fx" % q[0] if max(q) - min(q) < 0.05 else "%.1f-%.1fx" % (min(q), max(q))
                    ax.annotate(text, (x, max(vals)), ha="center", va="bottom", fontsize=8,
                                xytext=(0, 3), textcoords="offset points")
            ticks.append((j * 4 + 1, "%s, n = %s, %d runs" % (k, log2_label(int(krows[0]["n"])),
                                                            len(krows))))
        ax.set_xticks([x for x, _ in ticks])
        ax.set_xticklabels([l for _, l in ticks])
        ax.set_ylabel("Mkeys/s")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, out, "CPU backend (radix) against std::sort (1 thread) and __gnu_parallel::sort, "
         "%s threads" % "/".join(threads))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="result files (default: the current committed ones)")
    ap.add_argument("--out", default=os.path.join(RESULTS, "plots"), help="folder for the PNGs")
    ap.add_argument("--device", default="NVIDIA H200", help="GPU named in the titles when the "
                    "inputs do not say (CSV rows carry no device name)")
    args = ap.parse_args()
    files = args.files or [os.path.join(RESULTS, f) for f in DEFAULT_INPUTS]
    data = defaultdict(list)
    for path in files:
        if not os.path.exists(path):
            print("plot.py: %s: missing, skipped" % path)
            continue
        kind, rows = read_rows(path)
        if kind is None:
            print("plot.py: %s: not a format plot.py knows, skipped" % path)
            continue
        data[kind] += rows
        print("plot.py: %s: %d %s rows" % (path, len(rows), kind))
    os.makedirs(args.out, exist_ok=True)
    figures = [
        ("radix-vs-n.png", lambda o: fig_radix_vs_n(data["cuda"], data["peers"], args.device, o)),
        ("radix-2p28.png", lambda o: fig_radix_2p28(data["cuda"], args.device, o)),
        ("reduce-vs-n.png", lambda o: fig_reduce_vs_n(data["cuda"], args.device, o)),
        ("cuda-algorithms-vs-n.png", lambda o: fig_algorithms(data["seeds"], o)),
        ("cpu-vs-n.png", lambda o: fig_cpu(data["cpu"], o)),
    ]
    wrote = 0
    for name, draw in figures:
        out = os.path.join(args.out, name)
        why = draw(out)
        if why:
            print("plot.py: %s: not drawn (%s)" % (name, why))
        else:
            print("plot.py: wrote %s" % out)
            wrote += 1
    return 0 if wrote else 1


if __name__ == "__main__":
    sys.exit(main())
