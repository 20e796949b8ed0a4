#!/usr/bin/env python3
"""How long the Redis arbiter's decision takes, without servers: for each
tenant count, merge each tenant's curves over four K, split the budget
(`kredis.allocate`, on the arbiter's grid and floors) and choose each
tenant's K, as one round of `symbiosis redis-arbiter` does after reading
its servers.

    .venv/bin/python bench/kredis_decision.py --tenants 2,4,8,15,32 --json out/decision.json

The curves are synthetic (a power law with a cliff, 100 points, each K a
little apart): the program's work depends on the tenants and the grid's
cells, not on the curves' shape. Reading the servers is not timed here;
the arbiter's JSON log reports it per round (read_seconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Dict, List, Sequence, Tuple

try:
    import numpy as np
    from symbiosis.kredis import TenantCurve, allocate, choose_k, merge_over_k
    from symbiosis.redis_arbiter import default_floor, grid_granularity
except ImportError:
    sys.exit("kredis_decision.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

KS = (1, 5, 8, 16)


def tenant_curves(rng: np.random.Generator, working_set: int
                  ) -> Dict[int, Tuple[Sequence[int], Sequence[float]]]:
    sizes = np.linspace(working_set / 100, working_set, 100).astype(np.uint64)
    alpha = rng.uniform(0.3, 1.5)
    cliff = rng.uniform(0.2, 0.9) * working_set
    base = (1 + sizes / (0.05 * working_set)) ** -alpha
    base = np.where(sizes >= cliff, base * 0.5, base)
    return {k: (sizes, np.clip(base + rng.normal(0, 0.003, sizes.size), 0, 1)) for k in KS}


def one_decision(all_curves: List[Dict[int, Tuple[Sequence[int], Sequence[float]]]],
                 rates: Sequence[float], memory: int) -> List[int]:
    tenants = []
    for i, curves in enumerate(all_curves):
        sizes, miss = merge_over_k(curves)
        tenants.append(TenantCurve(f"t{i}", sizes, miss, rates[i], 1e-3))
    floors = [default_floor(memory, len(tenants))] * len(tenants)
    split = allocate(tenants, memory, grid_granularity(memory), floors)
    return [choose_k(c, s, present=5, margin=0.02) for c, s in zip(all_curves, split)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tenants", default="2,4,8,15,32",
                   help="comma-separated tenant counts (default: 2,4,8,15,32)")
    p.add_argument("--memory", type=int, default=4 << 30, help="the budget in bytes (default 4 GiB)")
    p.add_argument("--repeats", type=int, default=20, help="decisions timed per count")
    p.add_argument("--json", help="write the timings as JSON")
    args = p.parse_args()
    try:
        counts = [int(n) for n in args.tenants.split(",")]
    except ValueError:
        p.error(f"--tenants takes comma-separated counts, e.g. 2,4,15; got {args.tenants!r}")
    if not counts or min(counts) < 1 or args.repeats < 1 or args.memory < (1 << 20):
        p.error("--tenants counts and --repeats must be at least 1, --memory at least 1 MiB")
    rng = np.random.default_rng(1)
    results = []
    for n in counts:
        curves = [tenant_curves(rng, int(args.memory / n * rng.uniform(0.5, 3))) for _ in range(n)]
        rates = rng.uniform(1e3, 1e5, n)
        seconds = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            one_decision(curves, rates, args.memory)
            seconds.append(time.perf_counter() - start)
        row = {"tenants": n, "median_ms": 1e3 * statistics.median(seconds),
               "max_ms": 1e3 * max(seconds), "repeats": args.repeats,
               "cells": int(-(-args.memory // grid_granularity(args.memory)))}
        results.append(row)
        print(f"{n:3d} tenants: {row['median_ms']:7.1f} ms median, {row['max_ms']:7.1f} ms max "
              f"({row['cells']} cells, {args.repeats} decisions)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"memory": args.memory, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
