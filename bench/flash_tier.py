#!/usr/bin/env python3
"""The flash tier's benchmark (docs/flash-tier.md): RocksDB on emulated
slow storage with a flash tier below its DRAM caches, each configuration
run at the same time as the plain flash tier (SAS-Cache's baseline).

    .venv/bin/python bench/flash_tier.py run OUT      # OUT/cell-*.json, resumable
    .venv/bin/python bench/flash_tier.py report OUT   # OUT/report.md, OUT/report.png

A cell is a workload on a storage preset: read-random-write-random 90/10
(uniform reads, a tenth of the requests overwrite) and mixgraph with 14%
writes (db_bench's mix), on `network` and `hdd` (docs/flash-tier.md, "Slow
storage"). M = --memory-mib of DRAM, a flash tier of --flash-ratio
times M, D_u = --data-ratio times M. The configurations are `symbiosis
bench rocksdb --configs flash`'s: static-max (block cache = M) with no
tier, with the plain tier, with each optimization alone and with all
three, and Symbiosis splitting DRAM with all three. Each but the plain
tier runs --repeats times beside a plain-tier run, one CPU each, the
CPUs swapped at every repeat, on two fresh copies of the DB; ratios are
over the plain run beside (geometric means over the repeats). All three
with synchronous inserts run likewise beside all three with the queue.
Each run's measure starts after --warmup.

The report gives per cell and configuration: throughput, mean and p99
latency over the plain tier's, the overall hit ratio (requests' blocks
served by any cache), the flash hit ratio (flash hits over the lookups
that read flash), flash bytes written over the plain tier's, and IBOR
(invalid entries over entries held) at its highest after the warm-up;
with the targets: +30% throughput, +30% flash hit ratio, -20% flash
bytes, IBOR under 5% at all times, and never slower than no tier.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Dict, List, Optional, Tuple

try:
    from symbiosis.bench import driver_path, run_config, side_by_side
    from symbiosis.bench_cli import FLASH_CONFIGS
    from symbiosis.kept_db import KeptDbs, LoadFailed, LoadSpec
except ImportError:
    sys.exit("flash_tier.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

PLAIN = "static-max+flash-none"
ALL = "static-max+flash-all"
NO_TIER = "static-max"
CELLS = [  # name, workload, overwrite share, storage
    ("rrwr-network", "uniform", 0.1, "network"),
    ("mixgraph-network", "mixgraph", 0.14, "network"),
    ("rrwr-hdd", "uniform", 0.1, "hdd"),
    ("mixgraph-hdd", "mixgraph", 0.14, "hdd"),
]
MIB = 1 << 20


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cell_path(folder: str, name: str) -> str:
    return os.path.join(folder, f"cell-{name}.json")


def driver_args(args: argparse.Namespace, overwrite: float, storage: str,
                workload: str) -> Dict[str, object]:
    memory = args.memory_mib * MIB
    return {"memory": str(memory), "threads": str(args.threads), "interval": "2s",
            "warmup": args.warmup, "duration": args.duration, "budget": "engine",
            "overwrite": str(overwrite), "seed": "1", "reserve": str(64 * MIB),
            "workload": workload, "slow-storage": storage,
            "flash-size": str(int(args.flash_ratio * memory))}


def run(folder: str, args: argparse.Namespace) -> None:
    """Runs every cell not yet run; a cell's JSON is written when it is whole."""
    os.makedirs(folder, exist_ok=True)
    cells = [c for c in CELLS if not args.cells or c[0] in args.cells.split(",")]
    memory = args.memory_mib * MIB
    with KeptDbs(args.db_dir, "rocksdb", driver_path("rocksdb"), log,
                 lambda m: log(f"note: {m}")) as store:
        for name, workload, overwrite, storage in cells:
            if os.path.exists(cell_path(folder, name)):
                log(f"{name}: done before")
                continue
            try:
                db = store.ensure(LoadSpec("rocksdb", int(args.data_ratio * memory), 1000, 0.5))
            except LoadFailed as e:
                sys.exit(e.status)
            flags = driver_args(args, overwrite, storage, workload)
            pairs: List[dict] = []
            # (configuration, its partner, the configuration's own flags)
            plan = [(c, PLAIN, {}) for c in FLASH_CONFIGS if c != PLAIN]
            plan.append((ALL, ALL, {"flash-sync": True}))  # a synchronous insert's cost
            with side_by_side(log) as (cpu_sets, pool):
                for config, partner, own in plan:
                    label = config + (" (sync)" if own else "")
                    for k in range(args.repeats):
                        log(f"{name}: {label} beside {partner} ({k + 1} of {args.repeats}) ...")
                        a, b = (0, 1) if len(pairs) % 2 == 0 else (1, 0)
                        with store.pair_copies(db) as copies:
                            one = pool.submit(run_config, copies[0], config, dict(flags, **own),
                                              False, cpu_sets[a], "rocksdb")
                            other = pool.submit(run_config, copies[1], partner, flags, False,
                                                cpu_sets[b], "rocksdb")
                            pairs.append({"config": label, "partner": partner, "repeat": k,
                                          "cpus": sorted(cpu_sets[a]) if cpu_sets[a] else None,
                                          "run": one.result(), "plain": other.result()})
            cell = {"name": name, "workload": workload, "overwrite": overwrite,
                    "storage": storage, "memory_bytes": memory,
                    "flash_bytes": int(args.flash_ratio * memory),
                    "data_bytes": int(args.data_ratio * memory), "warmup": args.warmup,
                    "duration": args.duration, "threads": args.threads, "pairs": pairs}
            with open(cell_path(folder, name) + ".partial", "w") as out:
                json.dump(cell, out)
            os.replace(cell_path(folder, name) + ".partial", cell_path(folder, name))


def seconds(text: str) -> float:
    units = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0}
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * units[unit]
    return float(text)


def counters_between(run: dict, start_s: float) -> Tuple[dict, dict]:
    """The engine counters at the first interval at or after `start_s`
    (the measure's start) and at the last."""
    timeline = [i for i in run["timeline"] if "engine_counters" in i]
    if not timeline:
        return {}, {}
    first = next((i for i in timeline if i["t"] >= start_s), timeline[-1])
    return first["engine_counters"], timeline[-1]["engine_counters"]


def metrics(run: dict, warmup_s: float) -> Optional[dict]:
    """A run's measure after the warm-up; None for a failed run."""
    if run.get("failed"):
        return None
    s = run["summary"]
    begin, end = counters_between(run, warmup_s)
    d = {k: end.get(k, 0) - begin.get(k, 0) for k in end}
    m = {"ops": s["throughput_ops"], "mean_us": s["mean_us"], "p99_us": s["p99_us"]}
    lookups = d.get("lookups", 0)
    if lookups:  # served by a cache: all but the reads that went to storage
        storage = d["reads"] - d["second_tier_hits"] - d.get("flash_hits", 0)
        m["overall_hit"] = 1 - storage / lookups
    else:  # no tier: the driver's two ratios
        m["overall_hit"] = s["hit_app"] + (1 - s["hit_app"]) * s["hit_second_tier"]
    if d.get("flash_lookups"):
        m["flash_hit"] = d["flash_hits"] / d["flash_lookups"]
    if "flash_bytes_written" in end:
        m["flash_bytes"] = end["flash_bytes_written"]
        ibor = [i["engine_counters"]["flash_invalid_entries"] /
                max(1, i["engine_counters"]["flash_entries"])
                for i in run["timeline"] if "engine_counters" in i and i["t"] >= warmup_s]
        m["ibor_max"] = max(ibor) if ibor else 0.0
        m["bypassed"] = d.get("flash_bypassed_absent", 0) + d.get("flash_bypassed_slow", 0)
        m["queue_full"] = d.get("flash_inserts_queue_full", 0)
        if d.get("flash_inserts"):
            m["insert_us"] = d["flash_insert_ns"] / d["flash_inserts"] / 1000
    return m


def geo(xs: List[float]) -> Optional[float]:
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def cell_rows(cell: dict) -> List[dict]:
    """Per configuration: its ratios over the plain tier beside it and its
    own measures (medians over its repeats)."""
    warmup = seconds(cell["warmup"])
    rows = []
    cell = dict(cell, pairs=[p for p in cell["pairs"] if p.get("partner", PLAIN) == PLAIN])
    plain_runs = [metrics(p["plain"], warmup) for p in cell["pairs"]]
    plain_ok = [m for m in plain_runs if m]
    for config in dict.fromkeys(p["config"] for p in cell["pairs"]):
        pairs = [p for p in cell["pairs"] if p["config"] == config]
        ms = [(metrics(p["run"], warmup), metrics(p["plain"], warmup)) for p in pairs]
        ok = [(m, b) for m, b in ms if m and b]
        row = {"config": config, "failed": len(ok) < len(ms)}

        def ratio(key: str) -> Optional[float]:
            return geo([m[key] / b[key] for m, b in ok if m.get(key) and b.get(key)])

        row["ops_ratio"] = ratio("ops")
        row["mean_ratio"] = ratio("mean_us")
        row["p99_ratio"] = ratio("p99_us")
        row["flash_hit_ratio"] = ratio("flash_hit")
        row["flash_bytes_ratio"] = ratio("flash_bytes")
        for key in ("ops", "mean_us", "p99_us", "overall_hit", "flash_hit", "ibor_max",
                    "insert_us"):
            values = sorted(m[key] for m, _ in ok if m.get(key) is not None)
            row[key] = values[(len(values) - 1) // 2] if values else None
        rows.append(row)
    if plain_ok:
        row = {"config": PLAIN + " (beside each)", "failed": len(plain_ok) < len(plain_runs)}
        for key in ("ops", "mean_us", "p99_us", "overall_hit", "flash_hit", "ibor_max"):
            values = sorted(m[key] for m in plain_ok if m.get(key) is not None)
            row[key] = values[(len(values) - 1) // 2] if values else None
        rows.insert(0, row)
    return rows


def fmt(x: Optional[float], pattern: str) -> str:
    return "-" if x is None else pattern.format(x)


def report(folder: str) -> None:
    cells = []
    for name, *_ in CELLS:
        if os.path.exists(cell_path(folder, name)):
            with open(cell_path(folder, name)) as f:
                cells.append(json.load(f))
    if not cells:
        sys.exit(f"flash_tier.py: no cell in {folder}; run `flash_tier.py run {folder}` first")
    lines = []
    for cell in cells:
        lines += [f"### {cell['name']}: {cell['workload']}, {cell['overwrite']:.0%} writes, "
                  f"{cell['storage']} storage",
                  "",
                  f"M = {cell['memory_bytes'] // MIB} MiB of DRAM, flash "
                  f"{cell['flash_bytes'] // MIB} MiB, D_u = {cell['data_bytes'] // MIB} MiB, "
                  f"{cell['threads']} threads, {cell['duration']} runs measured after "
                  f"{cell['warmup']}.",
                  "",
                  "| configuration | ops/s | vs plain | mean vs plain | p99 vs plain | "
                  "overall hit | flash hit | flash hit vs plain | flash writes vs plain | "
                  "IBOR max |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in cell_rows(cell):
            lines.append(
                f"| {r['config']}{' (FAILED runs)' if r['failed'] else ''} "
                f"| {fmt(r['ops'], '{:,.0f}')} | {fmt(r.get('ops_ratio'), '{:.2f}x')} "
                f"| {fmt(r.get('mean_ratio'), '{:.2f}x')} | {fmt(r.get('p99_ratio'), '{:.2f}x')} "
                f"| {fmt(r['overall_hit'], '{:.3f}')} | {fmt(r['flash_hit'], '{:.3f}')} "
                f"| {fmt(r.get('flash_hit_ratio'), '{:.2f}x')} "
                f"| {fmt(r.get('flash_bytes_ratio'), '{:.2f}x')} "
                f"| {fmt(r['ibor_max'], '{:.3f}')} |")
        lines.append("")
    lines += targets(cells) + [""] + sync_inserts(cells)
    with open(os.path.join(folder, "report.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(folder, cells)


def targets(cells: List[dict]) -> List[str]:
    """The issue's targets, all three optimizations against the plain tier."""
    out = ["| cell | throughput (>= 1.30x) | flash hit ratio (>= 1.30x) | flash writes "
           "(<= 0.80x) | IBOR max (< 0.05) | vs no tier (>= 1.00x) |",
           "|---|---|---|---|---|---|"]
    for cell in cells:
        rows = {r["config"]: r for r in cell_rows(cell)}
        sas = rows.get("static-max+flash-all", {})
        none = rows.get(NO_TIER, {})
        vs_none = (sas["ops_ratio"] / none["ops_ratio"]
                   if sas.get("ops_ratio") and none.get("ops_ratio") else None)
        out.append(f"| {cell['name']} | {fmt(sas.get('ops_ratio'), '{:.2f}x')} "
                   f"| {fmt(sas.get('flash_hit_ratio'), '{:.2f}x')} "
                   f"| {fmt(sas.get('flash_bytes_ratio'), '{:.2f}x')} "
                   f"| {fmt(sas.get('ibor_max'), '{:.3f}')} | {fmt(vs_none, '{:.2f}x')} |")
    return out + ["", "vs no tier: all three's throughput ratio over the plain tier divided by "
                  "no tier's (both measured beside a plain tier)."]


def sync_inserts(cells: List[dict]) -> List[str]:
    """All three with synchronous inserts beside all three with the queue:
    the inserting threads' time per block offered, and throughput."""
    out = ["| cell | insert time per block, queue | synchronous | throughput, sync over queue |",
           "|---|---|---|---|"]
    for cell in cells:
        warmup = seconds(cell["warmup"])
        ms = [(metrics(p["run"], warmup), metrics(p["plain"], warmup))
              for p in cell["pairs"] if p.get("partner") == ALL]
        ok = [(m, b) for m, b in ms if m and b]
        if not ok:
            continue
        sync = sorted(m["insert_us"] for m, _ in ok if m.get("insert_us") is not None)
        queue = sorted(b["insert_us"] for _, b in ok if b.get("insert_us") is not None)
        mid = lambda xs: xs[(len(xs) - 1) // 2] if xs else None
        out.append(f"| {cell['name']} | {fmt(mid(queue), '{:.1f} us')} "
                   f"| {fmt(mid(sync), '{:.1f} us')} "
                   f"| {fmt(geo([m['ops'] / b['ops'] for m, b in ok]), '{:.2f}x')} |")
    return out


def plot(folder: str, cells: List[dict]) -> None:
    """Per cell: throughput over the plain tier per configuration, and IBOR
    over time of the plain tier and of all three optimizations."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(cells), figsize=(4.5 * len(cells), 7), squeeze=False)
    for i, cell in enumerate(cells):
        rows = [r for r in cell_rows(cell) if r.get("ops_ratio")]
        ax = axes[0][i]
        ax.barh([r["config"].replace("static-max", "max") for r in rows],
                [r["ops_ratio"] for r in rows], color="tab:blue")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"{cell['name']}\nthroughput over the plain tier beside")
        ax.invert_yaxis()
        ax = axes[1][i]
        for config, color in ((PLAIN, "tab:red"), ("static-max+flash-all", "tab:green")):
            pair = next((p for p in cell["pairs"] if p["config"] == "static-max+flash-all"), None)
            if pair is None:
                continue
            run = pair["plain"] if config == PLAIN else pair["run"]
            points = [(t["t"], t["engine_counters"]["flash_invalid_entries"] /
                       max(1, t["engine_counters"]["flash_entries"]))
                      for t in run["timeline"] if "engine_counters" in t]
            ax.plot([p[0] for p in points], [p[1] for p in points], color=color,
                    label="plain tier" if config == PLAIN else "all three")
        ax.axhline(0.05, color="grey", linestyle=":", linewidth=0.8)
        ax.set_xlabel("seconds")
        ax.set_ylabel("IBOR (invalid entries / entries)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "report.png"), dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the cells not yet run")
    r.add_argument("folder")
    r.add_argument("--cells", default=None, help="a comma list of cell names (default: all)")
    r.add_argument("--memory-mib", type=int, default=64, help="M in MiB (default 64)")
    r.add_argument("--flash-ratio", type=float, default=4.0,
                   help="flash over M (default 4: the tier holds 40%% of D_u, so room counts)")
    r.add_argument("--data-ratio", type=float, default=10.0, help="D_u over M (default 10)")
    r.add_argument("--duration", default="180s", help="each run, warm-up included")
    r.add_argument("--warmup", default="60s", help="left out of the measure")
    r.add_argument("--threads", type=int, default=8)
    r.add_argument("--repeats", type=int, default=2, help="pairs per configuration (even)")
    r.add_argument("--db-dir", default="/var/tmp/symbiosis-bench")
    p = sub.add_parser("report", help="report.md and report.png from the cells run")
    p.add_argument("folder")
    args = parser.parse_args()
    if args.command == "run":
        if args.repeats < 2 or args.repeats % 2:
            parser.error(f"--repeats {args.repeats}: give an even count, at least 2 (the CPUs "
                         "are swapped at each repeat)")
        if args.memory_mib < 48 or args.flash_ratio <= 0 or args.data_ratio <= 0:
            parser.error("--memory-mib must be at least 48 and the ratios above 0")
        run(args.folder, args)
    else:
        report(args.folder)


if __name__ == "__main__":
    main()
