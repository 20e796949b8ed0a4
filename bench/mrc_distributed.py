#!/usr/bin/env python3
"""The distributed curves' benchmark (docs/mrc-distributed.md).

    .venv/bin/python bench/mrc_distributed.py gen OUT.bin --requests 100M --keys 10M
    .venv/bin/python bench/mrc_distributed.py accuracy OUT.bin --json acc.json
    .venv/bin/python bench/mrc_distributed.py throughput OUT.bin --workers 1,2 --json tp.json
    .venv/bin/python bench/mrc_distributed.py gen BIG.bin.zst --requests 1G --keys 50M
    .venv/bin/python bench/mrc_distributed.py billion BIG.bin.zst --json big.json
    .venv/bin/python bench/mrc_distributed.py report acc.json tp.json big.json

`gen` writes a synthetic oracleGeneral trace: zipfian (theta 0.9) ranks over
--keys keys, scrambled by a hash, sizes 512 B-8 KiB by key, a million
requests a second; zstd-compressed (by the zstd tool, two threads) when
the name ends in .zst. `accuracy` compares on the trace: the distributed
exact LRU (two workers) with the single-process exact LRU, the distributed
SHARDS with the single-process SHARDS at the same rate and seed, and the
distributed KRR with the single-process K-LRU simulator. `throughput`
times exact LRU and SHARDS with 1, 2, ... local workers, with the pass and
the merge apart, and projects to more machines. `billion` runs the 1G
trace end to end on two workers and reports each worker's peak RSS.
Run nothing beside it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from typing import Dict, List, Optional

try:
    import numpy as np

    from symbiosis import _native
    from symbiosis.mrc import mean_absolute_error, miss_ratio_curve
    from symbiosis.units import parse_count
except ImportError:
    sys.exit("mrc_distributed.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

ORACLE = np.dtype([("time", "<u4"), ("key", "<u8"), ("size", "<u4"), ("next", "<i8")])
BLOCK = 10_000_000


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def mix64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xff51afd7ed558ccd)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xc4ceb9fe1a85ec53)
    x ^= x >> np.uint64(33)
    return x


def gen(path: str, requests: int, keys: int, theta: float, seed: int) -> None:
    ranks = np.arange(1, keys + 1, dtype=np.float64)
    cdf = np.cumsum(ranks ** -theta)
    cdf /= cdf[-1]
    del ranks
    rng = np.random.default_rng(seed)
    compressed = path.endswith(".zst")
    sink = (subprocess.Popen(["zstd", "-q", "-T2", "-3", "-f", "-o", path], stdin=subprocess.PIPE)
            if compressed else None)
    out = sink.stdin if sink else open(path, "wb")
    start = time.monotonic()
    for first in range(0, requests, BLOCK):
        n = min(BLOCK, requests - first)
        rank = np.searchsorted(cdf, rng.random(n)).astype(np.uint64)
        records = np.empty(n, dtype=ORACLE)
        records["key"] = mix64(rank + np.uint64(seed << 40))
        records["size"] = (512 + mix64(records["key"]) % np.uint64(7680)).astype(np.uint32)
        records["time"] = (np.arange(first, first + n) // 1_000_000).astype(np.uint32)
        records["next"] = -1
        out.write(records.tobytes())
        if first // BLOCK % 10 == 0:
            done = first + n
            log(f"gen: {done:,} of {requests:,} requests "
                f"({done / (time.monotonic() - start) / 1e6:.1f} M/s)")
    out.close()
    if sink and sink.wait() != 0:
        sys.exit("gen: zstd failed")
    log(f"gen: {path}, {os.path.getsize(path):,} bytes")


def timed(**kwargs) -> tuple:
    start = time.monotonic()
    curve = miss_ratio_curve(**kwargs)
    return curve, time.monotonic() - start


def accuracy(trace: str, points: int, shards_rate: float, seed: int) -> Dict:
    out: Dict = {"trace": trace, "points": points, "seed": seed}
    log("accuracy: exact LRU in one process")
    one, t_one = timed(trace=trace, points=points)
    log(f"  {t_one:.0f} s; distributed exact LRU, 2 workers")
    two, t_two = timed(trace=trace, points=points, workers=2)
    out["lru"] = {"mae": mean_absolute_error(two, one), "one_s": t_one, "distributed_s": t_two,
                  "sizes": [int(s) for s in one.sizes], "one": list(map(float, one.miss_ratios)),
                  "distributed": list(map(float, two.miss_ratios))}
    log(f"  MAE {out['lru']['mae']:.4f}; SHARDS R={shards_rate} in one process")
    sizes = list(one.sizes)
    s_one, t1 = timed(trace=trace, algo="shards", rate=shards_rate, min_keys=0, sizes=sizes,
                      seed=seed)
    s_two, t2 = timed(trace=trace, algo="shards", rate=shards_rate, min_keys=0, sizes=sizes,
                      seed=seed, workers=2)
    out["shards"] = {"rate": shards_rate, "mae_between": mean_absolute_error(s_two, s_one),
                     "mae_one_vs_exact": mean_absolute_error(s_one, one),
                     "mae_distributed_vs_exact": mean_absolute_error(s_two, one),
                     "one_s": t1, "distributed_s": t2}
    log(f"  SHARDS: between {out['shards']['mae_between']:.4f}; KRR (2 workers) and the "
        "K-LRU simulator (one process)")
    k_sizes = sizes[:: max(1, len(sizes) // 10)]
    sim, t1 = timed(trace=trace, algo="klru-sim", sizes=k_sizes, seed=seed)
    krr, t2 = timed(trace=trace, algo="krr", sizes=k_sizes, seed=seed, workers=2)
    out["krr"] = {"mae_vs_klru_sim": mean_absolute_error(krr, sim), "sim_s": t1,
                  "distributed_s": t2, "sizes": [int(s) for s in k_sizes]}
    log(f"  KRR vs K-LRU simulator: {out['krr']['mae_vs_klru_sim']:.4f}")
    return out


def options_of(algo: str) -> Dict:
    """The builder's options of the timed runs: SHARDS at R = 0.001, no floor."""
    from symbiosis.mrc_distributed import partition_options
    return partition_options(algo, rate=0.001 if algo == "shards" else None)


def throughput(trace: str, workers: List[int], algos: List[str]) -> Dict:
    from symbiosis.mrc_distributed import distributed_curve
    import distributed
    requests = os.path.getsize(trace) // 24
    rows = []
    for algo in algos:
        for n in workers:
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               silence_logs=logging.ERROR)
            client = distributed.Client(cluster)
            try:
                r = distributed_curve([trace], trace_format="oracleGeneral", columns="",
                                      ops="reads,writes", options=options_of(algo), sizes=[],
                                      points=40, client=client)
            finally:
                client.close()
                cluster.close()
            rows.append({"algorithm": algo, "workers": n, "requests": requests,
                         "pass_s": r.pass_seconds[0], "merge_s": r.merge_seconds,
                         "rate": requests / r.pass_seconds[0]})
            log(f"throughput: {algo}, {n} workers: {rows[-1]['rate'] / 1e6:.2f} M requests/s, "
                f"merge {r.merge_seconds:.2f} s")
    return {"trace": trace, "rows": rows}


def billion(trace: str, algo: str) -> Dict:
    from symbiosis.mrc_distributed import distributed_curve
    import distributed
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    try:
        r = distributed_curve([trace], trace_format="oracleGeneral", columns="",
                              ops="reads,writes", options=options_of(algo), sizes=[], points=40,
                              client=client, progress=sys.stderr.isatty())
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    finally:
        client.close()
        cluster.close()
    client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"trace": trace, "compressed_bytes": os.path.getsize(trace), "algorithm": algo,
            "requests": r.curve["requests"], "seconds": r.seconds, "pass_s": r.pass_seconds,
            "merge_s": r.merge_seconds, "worker_peak_rss": sorted(peaks.values()),
            "client_peak_rss": client_peak, "builders_bytes": r.memory_bytes,
            "working_set": r.working_set, "sizes": r.curve["sizes"],
            "miss_ratios": r.curve["miss_ratios"]}


def report(files: List[str]) -> None:
    for path in files:
        with open(path) as f:
            d = json.load(f)
        if "lru" in d:
            print(f"| exact LRU, 2 workers vs 1 process | MAE {d['lru']['mae']:.4f} | "
                  f"{d['lru']['one_s']:.0f} s vs {d['lru']['distributed_s']:.0f} s |")
            print(f"| SHARDS R={d['shards']['rate']:g}, 2 workers vs 1 process | MAE "
                  f"{d['shards']['mae_between']:.4f} (each vs exact: "
                  f"{d['shards']['mae_one_vs_exact']:.4f}, "
                  f"{d['shards']['mae_distributed_vs_exact']:.4f}) | |")
            print(f"| KRR K=5, 2 workers vs K-LRU simulator | MAE "
                  f"{d['krr']['mae_vs_klru_sim']:.4f} | |")
        elif "rows" in d:
            for r in d["rows"]:
                print(f"| {r['algorithm']} | {r['workers']} | {r['rate'] / 1e6:.2f} M/s | "
                      f"{r['merge_s']:.2f} s |")
        else:
            print(f"| {d['requests']:,} requests ({d['compressed_bytes'] / 1e9:.1f} GB zstd) | "
                  f"{d['seconds']:.0f} s | workers' peak RSS "
                  f"{', '.join(f'{p / 2**20:.0f} MiB' for p in d['worker_peak_rss'])} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--requests", default="100M")
    g.add_argument("--keys", default="10M")
    g.add_argument("--theta", type=float, default=0.9)
    g.add_argument("--seed", type=int, default=1)
    a = sub.add_parser("accuracy")
    a.add_argument("trace")
    a.add_argument("--points", type=int, default=40)
    a.add_argument("--shards-rate", type=float, default=0.001)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--json", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("trace")
    t.add_argument("--workers", default="1,2")
    t.add_argument("--algos", default="lru,shards")
    t.add_argument("--json", required=True)
    b = sub.add_parser("billion")
    b.add_argument("trace")
    b.add_argument("--algo", default="lru")
    b.add_argument("--json", required=True)
    r = sub.add_parser("report")
    r.add_argument("files", nargs="+")
    args = p.parse_args()
    try:
        if args.command == "gen":
            gen(args.out, parse_count(args.requests, "--requests"),
                parse_count(args.keys, "--keys"), args.theta, args.seed)
            return
        if args.command == "report":
            report(args.files)
            return
        if args.command == "accuracy":
            result = accuracy(args.trace, args.points, args.shards_rate, args.seed)
        elif args.command == "throughput":
            result = throughput(args.trace, [int(w) for w in args.workers.split(",")],
                                args.algos.split(","))
        else:
            result = billion(args.trace, args.algo)
    except _native.InputError as e:
        sys.exit(f"mrc_distributed.py: {e}")
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    log(f"wrote {args.json}")


if __name__ == "__main__":
    main()
