#!/usr/bin/env python3
"""model.py -- a scale-out model of gpusort_mpi_sort: time per phase on P nodes (one GPU each)
from measured single-node rates, for 2 to 1024 nodes over 400 Gb/s links.

    python3 bench/mpi/model.py [--keys-per-node 2^30] [--key-bytes 4] [--merge gpu|cpu]
                               [--cpu-merge-ns 1.0] [--link-gbps 400] [--efficiency 0.75]

Phases and the formula of each (n = keys per node, K = key bytes, P = nodes):
  local sort   n / R_sort                       R_sort: the H200 radix sort of device data
  staging      2 * n * K / B_pcie               sorted run down to pinned host memory, the
                                                result back up (device data; Debian's MPI is
                                                not CUDA-aware). 0 with --cuda-aware
  splitters    2K * t_allreduce(15 (P + 1))     the exact selection: one allreduce of 15
               + 2 * t_allreduce(P + 1)         counts per boundary per 4-bit digit, then the
                                                tie split (an allreduce and an exscan)
               t_allreduce(m) = 2 log2(P) alpha + 2 m 8 / B_link  (recursive doubling)
  exchange     (P - 1) / P * n * K / (eff * B_link) + (P - 1) * alpha_msg
                                                every node sends and receives (P-1)/P of its
                                                keys once; full bisection assumed (fat tree)
  merge        cpu: n * t_merge (ns per key on the node's cores, loser tree over P runs,
                    log2(P) matches per key: scaled by log2(P)/2 from the 4-run measurement)
               gpu: n / R_sort (re-sorting the received runs on the GPU, which is stable and
                    gives the same result; NOT what the library does today)
Assumptions (each a flag): R_sort = 51.5 Gkeys/s (u32, 2^28, device data, H200:
bench/results/device-final-2026-11-24.md); B_pcie = 54 GB/s per direction (1 GiB pinned
copy in 19.4-19.9 ms: bench/results/host-pipeline-2026-11-24.md); link 400 Gb/s = 50 GB/s
per direction per node, all-to-all efficiency 0.75 (assumed: typical of large alltoallv on
fat-tree InfiniBand); alpha = 2 us per allreduce hop, alpha_msg = 1 us per peer message;
CPU merge 1.0 ns per key (assumed for 16 cores; measure with bench_mpi's merge column).
Not modelled: contention beyond the efficiency factor, stragglers, the local sort's
dependence on n (the 2^28 rate is used for every n), memory limits (2^30 u32 keys need
~12 GiB per GPU with the scratch).

Published figures for comparison (printed at the end):
  HykSort (Sundar, Malhotra, Biros, ICS 2013): 8 trillion 32-bit keys in 37 s on 262,144 CPU
    cores of Titan (Cray XK7), 0.9 TB/s -- a CPU sort; its GPU-cluster successors report no
    comparable single number.
  RMG sort (Ilic, Tolovski, Rabl, BTW 2023): up to 8 GPUs in one node over NVLink/NVSwitch,
    one all-to-all P2P swap like ours; up to 20x a parallel CPU sort, 1.3x / 1.8x the
    merge-based multi-GPU sorts (2.7x / 9.2x without the CPU-GPU transfers). Within a node
    its exchange runs at NVSwitch speed (~300 GB/s per direction per A100), ~6x our link.
"""
import argparse
import math


def count(s):
    if "^" in s:
        b, e = s.split("^")
        return int(b) ** int(e)
    return int(float(s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys-per-node", default="2^30", type=count)
    ap.add_argument("--key-bytes", default=4, type=int)
    ap.add_argument("--sort-gkeys", default=51.5, type=float, help="local sort, Gkeys/s")
    ap.add_argument("--pcie-gbs", default=54.0, type=float)
    ap.add_argument("--link-gbps", default=400.0, type=float)
    ap.add_argument("--efficiency", default=0.75, type=float)
    ap.add_argument("--alpha-us", default=2.0, type=float)
    ap.add_argument("--alpha-msg-us", default=1.0, type=float)
    ap.add_argument("--merge", choices=["cpu", "gpu"], default="gpu")
    ap.add_argument("--cpu-merge-ns", default=1.0, type=float)
    ap.add_argument("--cuda-aware", action="store_true")
    a = ap.parse_args()

    n, K = a.keys_per_node, a.key_bytes
    link = a.link_gbps / 8 * 1e9                      # bytes/s per direction
    t_sort = n / (a.sort_gkeys * 1e9)
    t_stage = 0.0 if a.cuda_aware else 2 * n * K / (a.pcie_gbs * 1e9)
    print(f"# {n} keys of {K} bytes per node ({n * K / 2**30:.1f} GiB), link {a.link_gbps:g} "
          f"Gb/s x {a.efficiency}, merge on the {a.merge.upper()}")
    print("nodes,total_keys,local_sort_s,staging_s,splitters_s,exchange_s,merge_s,total_s,"
          "gkeys_s,tb_s")
    for lp in range(1, 11):
        P = 2 ** lp
        def t_ar(m):
            return 2 * lp * a.alpha_us * 1e-6 + 2 * m * 8 / link
        t_split = 2 * K * t_ar(15 * (P + 1)) + 2 * t_ar(P + 1)
        t_x = (P - 1) / P * n * K / (a.efficiency * link) + (P - 1) * a.alpha_msg_us * 1e-6
        if a.merge == "gpu":
            t_m = n / (a.sort_gkeys * 1e9)
        else:
            t_m = n * a.cpu_merge_ns * 1e-9 * max(1.0, math.log2(P) / 2)
        total = t_sort + t_stage + t_split + t_x + t_m
        N = n * P
        print(f"{P},{N},{t_sort:.4f},{t_stage:.4f},{t_split:.5f},{t_x:.4f},{t_m:.4f},"
              f"{total:.4f},{N / total / 1e9:.1f},{N * K / total / 1e12:.3f}")
    print("# HykSort (ICS 2013): 8e12 u32 keys, 37 s, 262,144 Titan CPU cores: 0.216 Tkeys/s, "
          "0.9 TB/s")
    print("# RMG sort (BTW 2023): <= 8 GPUs over NVLink/NVSwitch; relative figures only "
          "(20x a parallel CPU sort; 1.3x/1.8x merge-based multi-GPU sorts)")


if __name__ == "__main__":
    main()
