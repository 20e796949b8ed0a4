#!/usr/bin/env python3
"""Times lru_miss_ratio against libCacheSim's LRU on the same trace.

Generates (once) a scrambled zipfian oracleGeneral trace, 10M requests over
1M objects, theta 0.99; then runs both simulators alternately, PAIRS times,
on an object-count LRU of the same size; checks that both report the same
miss ratio; prints a markdown table with medians and the per-pair speedup.
Both timings include reading the trace: lru_miss_ratio is timed as a whole
process from outside, libCacheSim from opening the reader to the result.

  python3 bench/compare_libcachesim.py --tool build/lru_miss_ratio
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

RECORD = np.dtype([("time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"),
                   ("next_access_vtime", "<i8")])  # packed: 24 bytes


def write_zipf_trace(path, requests, objects, theta, seed):
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, objects + 1, dtype=np.float64) ** theta
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    ranks = np.minimum(np.searchsorted(cdf, rng.random(requests)), objects - 1)
    ids = rng.permutation(objects).astype(np.uint64)[ranks] + 1  # scrambled
    # next_access_vtime: 1-based position of the next request for the same
    # object, -1 if none (libCacheSim's convention).
    order = np.argsort(ids, kind="stable")
    next_access = np.full(requests, -1, dtype=np.int64)
    same = ids[order[1:]] == ids[order[:-1]]
    next_access[order[:-1][same]] = order[1:][same] + 1
    records = np.empty(requests, dtype=RECORD)
    records["time"] = np.arange(requests, dtype=np.uint32)
    records["obj_id"] = ids
    records["obj_size"] = 4096
    records["next_access_vtime"] = next_access
    records.tofile(path)


def run_ours(tool, trace, size):
    start = time.perf_counter()
    out = subprocess.run([tool, "--trace", trace, "--size", str(size)],
                         check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - start
    fields = dict(line.split(": ", 1) for line in out.splitlines())
    return seconds, float(fields["miss_ratio"])


def run_libcachesim(trace, size):
    import libcachesim as lcs
    start = time.perf_counter()
    reader = lcs.TraceReader(trace, lcs.TraceType.ORACLE_GENERAL_TRACE,
                             lcs.ReaderInitParam(ignore_obj_size=True))
    miss_ratio = lcs.LRU(cache_size=size).process_trace(reader)[0]
    return time.perf_counter() - start, miss_ratio


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default=os.path.join(root, "build", "native", "lru_miss_ratio"))
    parser.add_argument("--trace", default="/tmp/symbiosis_zipf_10M.oracleGeneral")
    parser.add_argument("--size", type=int, default=100000, help="objects")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=10_000_000)
    parser.add_argument("--objects", type=int, default=1_000_000)
    args = parser.parse_args()

    if not os.path.exists(args.tool):
        sys.exit(f"{args.tool} not found; build it or pass --tool")
    if not os.path.exists(args.trace):
        print(f"generating {args.trace} ...", file=sys.stderr)
        write_zipf_trace(args.trace, args.requests, args.objects, 0.99, 42)

    requests = os.path.getsize(args.trace) // RECORD.itemsize
    ours, theirs, ratios = [], [], []
    miss_ratios = set()
    for _ in range(args.pairs):
        our_seconds, our_miss = run_ours(args.tool, args.trace, args.size)
        lcs_seconds, lcs_miss = run_libcachesim(args.trace, args.size)
        if abs(our_miss - lcs_miss) > 1e-6:
            sys.exit(f"miss ratios differ: lru_miss_ratio {our_miss:.6f}, "
                     f"libCacheSim {lcs_miss:.6f}")
        miss_ratios.add(round(our_miss, 6))
        ours.append(our_seconds)
        theirs.append(lcs_seconds)
        ratios.append(lcs_seconds / our_seconds)

    def mreq(seconds):
        return requests / seconds / 1e6

    print(f"Trace: {args.trace}, {requests} requests; object-count LRU of "
          f"{args.size} objects; miss ratio {sorted(miss_ratios)[0]:.6f} "
          f"(identical in both); {args.pairs} alternating pairs, reading included.\n")
    print("| pair | lru_miss_ratio s | libCacheSim s | speedup |")
    print("|---|---|---|---|")
    for i, (a, b, r) in enumerate(zip(ours, theirs, ratios), 1):
        print(f"| {i} | {a:.3f} | {b:.3f} | {r:.2f}x |")
    print(f"| median | {statistics.median(ours):.3f} "
          f"({mreq(statistics.median(ours)):.1f} Mreq/s) | "
          f"{statistics.median(theirs):.3f} "
          f"({mreq(statistics.median(theirs)):.1f} Mreq/s) | "
          f"{statistics.median(ratios):.2f}x |")


if __name__ == "__main__":
    main()
