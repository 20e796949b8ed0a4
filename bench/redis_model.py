#!/usr/bin/env python3
"""The Redis model (`symbiosis mrc --algo redis`) against a real
redis-server 7.0: for each workload, each maxmemory-samples K and each
size, the same cache-aside requests are replayed into a fresh server and
given to the model at the times the server saw them.

    .venv/bin/python bench/redis_model.py --json out/redis-model.json --plot out/redis-model.png
    .venv/bin/python bench/redis_model.py --report out/redis-model*.json --plot out/all.png

Sizes are shares of the working set's memory (what the server's used_memory
grows by to hold every key), from 5% to 90%. The model is run in objects
(holding the keys the server held at the end) and in bytes (maxmemory less
the empty server's used_memory); KRR and the textbook K-LRU simulator run
beside it in objects, for comparison. The target: within 0.01 of the
server's miss ratio at every size, for K in {1, 3, 5, 10, 16}: in objects
and in bytes where every value has one size, in bytes where sizes vary
(the keys a server holds then move with the sizes of the last ones
written, so no one count of objects is its size). `--report` reads the
runs' JSON and prints the result page's tables and counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Dict, List

try:
    import numpy as np
    from symbiosis import _native
    from symbiosis.redis_check import (Requests, check, data_bytes, empty_server_bytes, hotspot,
                                       klru_miss_ratio, miss_ratio_at, variable_sizes, zipfian,
                                       zipfian_with_scans)
except ImportError:
    sys.exit("redis_model.py: the symbiosis package is not importable; run it with the project's "
             ".venv/bin/python (scripts/setup.sh makes it)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARES = [0.05, 0.1, 0.25, 0.5, 0.75, 0.9]
SAMPLES = [1, 3, 5, 10, 16]
# What --report reads of each run.
REPORT_FIELDS = {"workload", "samples", "share", "sizes_vary", "real", "model_objects",
                 "model_bytes", "krr"}
ORACLE = np.dtype([("time", "<u4"), ("key", "<u8"), ("size", "<u4"), ("next", "<i8")])


def cloudphysics(requests: int) -> Requests:
    """The CloudPhysics block trace's first requests: block ids as keys, its
    sizes as values."""
    for path in (os.path.join(ROOT, "..", "shared", "traces", "cloudPhysicsIO.oracleGeneral.bin"),
                 os.path.join(ROOT, "tests", "data", "cloudPhysicsIO.oracleGeneral.bin")):
        if os.path.isfile(path):
            records = np.fromfile(path, dtype=ORACLE, count=requests)
            sizes = np.clip(records["size"], 1, 1 << 20).astype(np.uint32)
            return Requests("CloudPhysics", records["key"].astype(np.uint64), sizes)
    raise _native.InputError("the CloudPhysics trace is in neither ../shared/traces nor "
                             "tests/data")


def workloads(requests: int, keys: int, value_bytes: int) -> List[Requests]:
    return [zipfian(0.9, keys, requests, value_bytes, seed=1),
            zipfian(0.7, keys, requests, value_bytes, seed=2),
            hotspot(0.1, 0.9, keys, requests, value_bytes, seed=3),
            zipfian_with_scans(0.9, keys, requests, 20_000, 4_000, value_bytes, seed=4),
            variable_sizes(zipfian(0.9, keys, requests, seed=5), value_bytes // 5,
                           2 * value_bytes, seed=5),
            cloudphysics(requests)]


def others(requests: Requests, keys_held: int, samples: int) -> Dict[str, float]:
    """KRR and the K-LRU simulator (with Redis's pool) at the keys held."""
    return {"krr": miss_ratio_at(requests, keys_held, "krr", k=samples),
            "klru_pool": klru_miss_ratio(requests, keys_held, samples)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--requests", type=int, default=200_000, help="requests a run (default: 200000)")
    p.add_argument("--keys", type=int, default=20_000, help="keys of the synthetic workloads")
    p.add_argument("--value-bytes", type=int, default=1000,
                   help="their values' size (default: 1000; the server's client buffers, "
                        "tens of KB, must be small beside the keys' memory)")
    p.add_argument("--workloads", default="",
                   help="comma-separated indices of the workloads to run (default: all)")
    p.add_argument("--samples", default=",".join(map(str, SAMPLES)), help="K values")
    p.add_argument("--shares", default=",".join(map(str, SHARES)), help="shares of the working set")
    p.add_argument("--json", help="write every run as JSON")
    p.add_argument("--plot", default=None, help="a PNG of the errors")
    p.add_argument("--report", nargs="+", metavar="JSON",
                   help="run nothing: print the tables and counts of these runs' JSON "
                        "(and --plot them)")
    args = p.parse_args()
    if args.report:
        rows = []
        for path in args.report:
            try:
                with open(path) as f:
                    runs = json.load(f)["runs"]
                for r in runs:
                    missing = sorted(REPORT_FIELDS - set(r))
                    if missing:
                        raise ValueError(f"a run lacks {', '.join(missing)}")
            except (OSError, ValueError, KeyError, TypeError) as e:
                p.error(f"cannot read runs from {path}: {e}; give JSON that --json wrote")
            rows += runs
        if not rows:
            p.error("the JSON given holds no runs; give JSON that --json wrote")
        print(report(rows))
        if args.plot:
            plot(rows, args.plot)
        return 0
    if not args.json:
        p.error("--json FILE is needed to record the runs (or --report FILES to read them)")
    samples = [int(k) for k in args.samples.split(",")]
    shares = [float(s) for s in args.shares.split(",")]
    base = empty_server_bytes()
    rows = []
    chosen = workloads(args.requests, args.keys, args.value_bytes)
    if args.workloads:
        chosen = [chosen[int(i)] for i in args.workloads.split(",")]
    for w in chosen:
        total = data_bytes(w)
        for k in samples:
            for share in shares:
                t0 = time.monotonic()
                c = check(w, base + int(share * total), k)
                row = dict(c.to_json(), share=share, sizes_vary=bool(np.ptp(w.sizes) > 0),
                           **others(w, c.keys_held, k))
                rows.append(row)
                print(f"{w.name:34s} K={k:2d} share={share:4.2f} keys={c.keys_held:6d} "
                      f"real={c.real:.4f} model={c.model_objects:.4f}/{c.model_bytes:.4f} "
                      f"krr={row['krr']:.4f} klru={row['klru_pool']:.4f} "
                      f"({c.requests_per_second:,.0f} req/s, {time.monotonic() - t0:.0f} s)",
                      flush=True)
                with open(args.json, "w") as f:
                    json.dump({"base_bytes": base, "runs": rows}, f, indent=1)
    print(f"largest error of the model: {max(judged_error(r) for r in rows):.4f} (target 0.01)")
    if args.plot:
        plot(rows, args.plot)
    return 0


def judged_error(row: dict) -> float:
    """The model's error by the target: in bytes, and in objects too where
    every value has one size."""
    error = abs(row["model_bytes"] - row["real"])
    if not row["sizes_vary"]:
        error = max(error, abs(row["model_objects"] - row["real"]))
    return error


def report(rows: List[dict]) -> str:
    """Per workload a table (a row per K, a column per size: the server's
    miss ratio; the model's error in objects / in bytes; KRR's), then the
    counts within the target."""
    out = []
    names = list(dict.fromkeys(r["workload"] for r in rows))
    shares = sorted({r["share"] for r in rows})
    for name in names:
        mine = [r for r in rows if r["workload"] == name]
        vary = mine[0]["sizes_vary"]
        out.append(f"\n**{name}**" + (" (sizes vary: judged in bytes)" if vary else "") + "\n")
        out.append("| K | " + " | ".join(f"{s:.0%}" for s in shares)
                   + " | largest model error | largest KRR error |")
        out.append("|---|" + "---|" * (len(shares) + 2))
        for k in sorted({r["samples"] for r in mine}):
            cells, model, krr = [], 0.0, 0.0
            for share in shares:
                r = next((r for r in mine if r["samples"] == k and r["share"] == share), None)
                if r is None:
                    cells.append("-")
                    continue
                model = max(model, judged_error(r))
                krr = max(krr, abs(r["krr"] - r["real"]))
                cells.append(f"{r['real']:.3f}: {r['model_objects'] - r['real']:+.3f} / "
                             f"{r['model_bytes'] - r['real']:+.3f}; {r['krr'] - r['real']:+.3f}")
            out.append(f"| {k} | " + " | ".join(cells) + f" | {model:.3f} | {krr:.3f} |")
    n = len(rows)
    fixed = [r for r in rows if not r["sizes_vary"]]
    out.append("")
    out.append(f"The model within 0.01: {sum(judged_error(r) <= 0.01 for r in rows)} of {n} cells "
               f"(in bytes {sum(abs(r['model_bytes'] - r['real']) <= 0.01 for r in rows)} of {n}; "
               f"in objects, one value size, "
               f"{sum(abs(r['model_objects'] - r['real']) <= 0.01 for r in fixed)} of {len(fixed)}); "
               f"largest error {max(judged_error(r) for r in rows):.4f}. "
               f"KRR within 0.01: {sum(abs(r['krr'] - r['real']) <= 0.01 for r in rows)} of {n}.")
    return "\n".join(out)


def plot(rows: List[dict], path: str) -> None:
    """One panel per workload: the model's error (bytes) at each size, a
    line per K, and KRR's beside it (dotted, same colour); the band is the
    target's +-0.01."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = sorted({r["workload"] for r in rows})
    ks = sorted({r["samples"] for r in rows})
    cols = min(3, len(names))
    nrows = -(-len(names) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.3 * nrows), sharey=True,
                             squeeze=False)
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(ks)))
    for ax, name in zip(axes.flat, names):
        for k, colour in zip(ks, colours):
            mine = sorted((r for r in rows if r["workload"] == name and r["samples"] == k),
                          key=lambda r: r["share"])
            xs = [r["share"] for r in mine]
            ax.plot(xs, [r["model_bytes"] - r["real"] for r in mine], "o-", ms=3,
                    color=colour, label=f"model, K={k}")
            ax.plot(xs, [r["krr"] - r["real"] for r in mine], ":", color=colour,
                    label=f"KRR, K={k}")
        ax.axhspan(-0.01, 0.01, color="green", alpha=0.12)
        ax.axhline(0, color="black", lw=0.5)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("maxmemory / working set")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("predicted - real miss ratio")
    axes.flat[0].legend(fontsize=6, ncol=2)
    fig.suptitle("The Redis model (solid) and KRR (dotted) against real redis-server 7.0; "
                 "green: within 0.01", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
