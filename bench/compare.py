#!/usr/bin/env python3
"""compare.py -- compare two benchmark CSVs of the same program row by row.

    python3 bench/compare.py OLD.csv NEW.csv [--tolerance 0.03] [--suite radix,reduce]

Rows are matched on the columns that name them (every column before the first timing column,
`ours_ms`). For each row it prints our time before and after and, where the peer was timed in
the same run, the ratio against the peer before and after. A row whose time got slower by more
than the tolerance (3% by default) is marked "SLOWER"; the exit status is 1 if any is, so that a
refactor cannot hide a regression (issue #12 asks that headline rows stay within 3%).

Why both columns: a run-to-run change of the machine moves ours and the peer's time together,
so the ratio against the peer (measured in the same process, on the same data) is the steadier
figure; our own time is what a refactor can break.
"""
import argparse
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "ours_ms" not in rows[0]:
        sys.exit(f"compare.py: {path}: no ours_ms column")
    cols = list(rows[0].keys())
    key_cols = cols[: cols.index("ours_ms")]
    return {tuple(r[c] for c in key_cols): r for r in rows}, key_cols


def ratio_col(row):
    for c in ("ratio_cub", "ratio"):
        if c in row and row[c] not in ("", "-"):
            return c
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--suite", help="comma-separated suites to compare (default: all)")
    a = ap.parse_args()
    old, key_cols = load(a.old)
    new, key_cols_new = load(a.new)
    if key_cols != key_cols_new:
        sys.exit(f"compare.py: the files name rows differently: {key_cols} vs {key_cols_new}")
    suites = set(a.suite.split(",")) if a.suite else None
    slower = 0
    matched = 0
    print(f"{'row':58} {'old ms':>10} {'new ms':>10} {'new/old':>8}  {'ratio old':>9} {'ratio new':>9}")
    for k, o in old.items():
        if suites and k[0] not in suites:
            continue
        n = new.get(k)
        if n is None:
            continue
        try:
            to, tn = float(o["ours_ms"]), float(n["ours_ms"])
        except ValueError:
            continue
        if to <= 0:
            continue
        matched += 1
        rc = ratio_col(o)
        ro = o.get(rc, "") if rc else ""
        rn = n.get(rc, "") if rc else ""
        change = tn / to
        flag = "  SLOWER" if change > 1 + a.tolerance else ""
        slower += bool(flag)
        print(f"{' '.join(k):58} {to:10.4f} {tn:10.4f} {change:8.3f}  {ro:>9} {rn:>9}{flag}")
    print(f"{matched} rows matched, {slower} slower than {1 + a.tolerance:.2f}x of the old time")
    return 1 if slower or not matched else 0


if __name__ == "__main__":
    sys.exit(main())
