#!/usr/bin/env python3
"""Times a 10-size LRU miss-ratio curve: `symbiosis mrc --algo lru` (one pass)
against libCacheSim's LRU run once per size, on the same trace.

Uses compare_libcachesim.py's trace (a scrambled zipfian oracleGeneral trace,
10M requests over 1M objects, theta 0.99; generated once). Each pair runs
`symbiosis mrc` as a whole process (interpreter start and trace reading
included) and then libCacheSim's Python package (libcachesim 0.3.5, the C
simulator) once per size, reader opening included; checks that the miss
ratios agree at every size, and prints a markdown table with the medians and
the per-pair speedup.

  .venv/bin/python bench/compare_mrc_libcachesim.py
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_libcachesim import RECORD, write_zipf_trace  # noqa: E402


def run_ours(trace, sizes):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "symbiosis", "mrc", "--trace", trace,
                        "--algo", "lru", "--sizes", ",".join(map(str, sizes)), "--quiet",
                        "--json", out.name], check=True)
        seconds = time.perf_counter() - start
        return seconds, json.load(open(out.name))["miss_ratios"]


def run_libcachesim(trace, sizes):
    import libcachesim as lcs
    start = time.perf_counter()
    ratios = []
    for size in sizes:
        reader = lcs.TraceReader(trace, lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 lcs.ReaderInitParam(ignore_obj_size=True))
        ratios.append(lcs.LRU(cache_size=size).process_trace(reader)[0])
    return time.perf_counter() - start, ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="/tmp/symbiosis_zipf_10M.oracleGeneral")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    if not os.path.exists(args.trace):
        print(f"generating {args.trace} ...", file=sys.stderr)
        write_zipf_trace(args.trace, 10_000_000, 1_000_000, 0.99, 42)
    requests = os.path.getsize(args.trace) // RECORD.itemsize
    sizes = [75_000 * i for i in range(1, 11)]  # the trace holds 780,050 objects
    ours, theirs, speedups = [], [], []
    for _ in range(args.pairs):
        a, our_ratios = run_ours(args.trace, sizes)
        b, their_ratios = run_libcachesim(args.trace, sizes)
        worst = max(abs(x - y) for x, y in zip(our_ratios, their_ratios))
        if worst > 1e-6:
            sys.exit(f"miss ratios differ by {worst:g}: {our_ratios} vs {their_ratios}")
        ours.append(a)
        theirs.append(b)
        speedups.append(b / a)
    print(f"Trace: {args.trace}, {requests} requests; object-count LRU at {len(sizes)} sizes "
          f"({sizes[0]:,} to {sizes[-1]:,} objects); miss ratios equal to 1e-6 at every size; "
          f"{args.pairs} alternating pairs, reading included.\n")
    print("| pair | symbiosis mrc (one pass) s | libCacheSim LRU x 10 s | speedup |")
    print("|---|---|---|---|")
    for i, (a, b, r) in enumerate(zip(ours, theirs, speedups), 1):
        print(f"| {i} | {a:.2f} | {b:.2f} | {r:.1f}x |")
    print(f"| median | {statistics.median(ours):.2f} | {statistics.median(theirs):.2f} | "
          f"{statistics.median(speedups):.1f}x |")


if __name__ == "__main__":
    main()
