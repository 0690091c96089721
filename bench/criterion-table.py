#!/usr/bin/env python3
"""Prints the README's performance tables from criterion's results (target/criterion).

Run after `cargo bench`:  python3 bench/criterion-table.py [target/criterion]
Medians only; "per entity" divides by the forest's entity count (criterion's throughput).
"""

import json
import sys
from pathlib import Path

FORESTS = ["wide", "deep", "chain", "forest", "humanoids"]
CASES = [
    "from_source",
    "recompute_all_worlds",
    "all_locals_changed",
    "one_percent_locals",
    "one_percent_reparent",
    "nothing_changed",
]


def load(root):
    out = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        out[meta["full_id"]] = (est["median"]["point_estimate"], meta.get("throughput") or {})
    return out


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.1f} ns"


def fmt_per(ns):
    return f"{ns:.3g} ns" if ns >= 0.01 else f"{ns * 1000:.2g} ps"


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    results = load(root)
    print("| forest | entities | " + " | ".join(CASES) + " | 1% / full | 1% / all changed |")
    print("|---|---:|" + "---:|" * (len(CASES) + 2))
    for forest in FORESTS:
        row = [forest]
        cells = {}
        count = None
        for case in CASES:
            got = results.get(f"propagation/{forest}/{case}")
            if got is None:
                cells[case] = None
                continue
            median, throughput = got
            count = throughput.get("Elements", count)
            cells[case] = median
        if count is None:
            continue
        row.append(f"{count:,}")
        for case in CASES:
            m = cells[case]
            row.append("—" if m is None else f"{fmt_ns(m)} ({fmt_per(m / count)}/entity)")
        one, full, every = (
            cells["one_percent_locals"],
            cells["recompute_all_worlds"],
            cells["all_locals_changed"],
        )
        row.append(f"{100 * one / full:.0f}%" if one and full else "—")
        row.append(f"{100 * one / every:.1f}%" if one and every else "—")
        print("| " + " | ".join(row) + " |")
    print()
    print("| benchmark | median | per item | throughput |")
    print("|---|---:|---:|---:|")
    for full_id in sorted(results):
        if not full_id.startswith("crdt/"):
            continue
        median, throughput = results[full_id]
        if "Elements" in throughput:
            n = throughput["Elements"]
            print(f"| {full_id} | {fmt_ns(median)} | {median / n:.1f} ns/message | "
                  f"{n / median * 1e3:.2f} M messages/s |")
        elif "Bytes" in throughput:
            n = throughput["Bytes"]
            print(f"| {full_id} | {fmt_ns(median)} | {median / n * 1e3:.0f} ps/byte | "
                  f"{n / median:.2f} GB/s |")


if __name__ == "__main__":
    main()
