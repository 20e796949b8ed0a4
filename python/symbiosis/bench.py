"""`symbiosis bench leveldb`: run LevelDB under a memory budget with static
splits and with Symbiosis, side by side, and report throughput, latency and
the Controller's decisions.

The work is done by the native driver ``leveldb_bench`` (tools/leveldb_bench.cc),
one process per configuration; this module loads the DB once per data size,
runs the configurations in turn, shows progress, and writes the table, the
JSON and the plots.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional

from symbiosis._native import InputError

MIB = 1 << 20


def driver_path() -> str:
    """The leveldb_bench binary: $SYMBIOSIS_LEVELDB_BENCH, the copy installed
    with the package, or the CMake build tree's."""
    override = os.environ.get("SYMBIOSIS_LEVELDB_BENCH")
    candidates = [override] if override else []
    here = Path(__file__).resolve().parent
    candidates += [str(here / "bin" / "leveldb_bench"),
                   str(Path.cwd() / "build" / "native" / "leveldb_bench")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise InputError("the LevelDB driver leveldb_bench is not built; run scripts/setup.sh "
                     "(or set SYMBIOSIS_LEVELDB_BENCH to its path)")


def expand_configs(text: str) -> List[str]:
    """'static-default,static-max,symbiosis', 'sweep' (static-1..7 plus the two
    baselines) or 'all' (sweep and symbiosis)."""
    names: List[str] = []
    for word in [w.strip() for w in text.split(",") if w.strip()]:
        if word == "sweep":
            names += ["static-default"] + [f"static-{i}" for i in range(1, 8)] + ["static-max"]
        elif word == "all":
            names += expand_configs("sweep") + ["symbiosis"]
        elif word in ("symbiosis", "static-default", "static-max") or (
                word.startswith("static-") and word[7:].isdigit() and 0 <= int(word[7:]) <= 8):
            names.append(word)
        else:
            raise InputError(f"--configs: '{word}' is not a configuration; use symbiosis, "
                             "static-default, static-max, static-0 .. static-8, sweep or all")
    unique = list(dict.fromkeys(names))
    if not unique:
        raise InputError("--configs is empty; give e.g. static-default,static-max,symbiosis")
    return unique


def ensure_db(db_dir: str, data_bytes: int, value_bytes: int, alpha: float,
              log: Callable[[str], None]) -> str:
    """The benchmark DB for this layout, loaded on first use and kept."""
    name = f"leveldb-{data_bytes // MIB}MiB-v{value_bytes}-a{alpha:g}"
    path = os.path.join(db_dir, name)
    if os.path.exists(os.path.join(path, "symbiosis-bench.json")):
        return path
    os.makedirs(db_dir, exist_ok=True)
    shutil.rmtree(path, ignore_errors=True)
    log(f"loading {path} ({data_bytes // MIB} MiB, alpha {alpha:g}) ...")
    result = subprocess.run([driver_path(), "load", "--db", path, "--data-size", str(data_bytes),
                             "--value-size", str(value_bytes), "--alpha", str(alpha)],
                            stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise InputError(f"loading {path} failed (see the message above)")
    return path


def run_config(db: str, name: str, args: Dict[str, str], show_progress: bool) -> dict:
    """Runs one configuration; returns {summary, timeline}."""
    command = [driver_path(), "run", "--db", db, "--config", name]
    for flag, value in args.items():
        if value is True:
            command.append(f"--{flag}")
        elif value is not None:
            command += [f"--{flag}", str(value)]
    if show_progress:
        command.append("--progress")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    timeline: List[dict] = []
    summary: Optional[dict] = None
    assert process.stdout is not None
    for line in process.stdout:
        record = json.loads(line)
        if record["type"] == "interval":
            timeline.append(record)
        elif record["type"] == "summary":
            summary = record
    status = process.wait()
    if status == 130:
        raise KeyboardInterrupt
    if status == 2:  # bad input: the driver has printed its one-line error
        raise SystemExit(2)
    if summary is None or status not in (0, 1):
        raise InputError(f"configuration {name} failed (exit status {status}; see above)")
    return {"summary": summary, "timeline": timeline}


def run_setup(db: str, configs: List[str], driver_args: Dict[str, str], show_progress: bool,
              log: Callable[[str], None]) -> dict:
    """Every configuration on one DB and workload."""
    results = {}
    for name in configs:
        log(f"  {name} ...")
        results[name] = run_config(db, name, driver_args, show_progress)
    return results


def format_table(results: Dict[str, dict]) -> str:
    rows = [("config", "final M_a", "ops/s", "mean us", "p99 us", "H_a", "H_k")]
    for name, r in results.items():
        s = r["summary"]
        rows.append((name, f"{s['final_ma_bytes'] / MIB:.0f} MiB", f"{s['throughput_ops']:.0f}",
                     f"{s['mean_us']:.1f}", f"{s['p99_us']:.1f}", f"{s['hit_app']:.3f}",
                     f"{s['hit_kernel']:.3f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))) for row in rows)


def grid_verdicts(cells: List[dict]) -> List[dict]:
    """Symbiosis against the static configurations of each cell: the better
    of static-default and static-max, the best static configuration run (the
    oracle when the sweep ran) and the worse baseline. Cells without
    symbiosis or without both baselines are left out."""
    out = []
    for cell in cells:
        tput = {name: r["summary"]["throughput_ops"] for name, r in cell["results"].items()}
        if "symbiosis" not in tput or "static-default" not in tput or "static-max" not in tput:
            continue
        statics = {n: t for n, t in tput.items() if n.startswith("static-")}
        oracle = max(statics, key=lambda n: statics[n])
        better = max(tput["static-default"], tput["static-max"])
        worse = min(tput["static-default"], tput["static-max"])
        sym = tput["symbiosis"]
        out.append({"workload": cell["workload"], "ratio": cell["ratio"],
                    "symbiosis_ops": sym,
                    "symbiosis_ma_bytes": cell["results"]["symbiosis"]["summary"]["final_ma_bytes"],
                    "vs_better_baseline": sym / better if better else 0.0,
                    "vs_worse_baseline": sym / worse if worse else 0.0,
                    "oracle": oracle, "vs_oracle": sym / statics[oracle] if statics[oracle] else 0.0})
    return out


def format_verdicts(verdicts: List[dict]) -> str:
    """The grid's verdict table and its summary lines."""
    rows = [("workload", "M/D_u", "Symbiosis M_a", "ops/s", "/better base", "/oracle", "oracle",
             "/worse base")]
    for v in verdicts:
        rows.append((v["workload"], f"{v['ratio']:.2f}", f"{v['symbiosis_ma_bytes'] / MIB:.0f} MiB",
                     f"{v['symbiosis_ops']:.0f}", f"{v['vs_better_baseline']:.2f}x",
                     f"{v['vs_oracle']:.2f}x", v["oracle"], f"{v['vs_worse_baseline']:.2f}x"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in rows]
    n = len(verdicts)
    if n:
        base_ok = sum(v["vs_better_baseline"] >= 0.95 for v in verdicts)
        oracle_ok = sum(v["vs_oracle"] >= 0.95 for v in verdicts)
        gain = sum(v["vs_worse_baseline"] for v in verdicts) / n
        top = max(v["vs_worse_baseline"] for v in verdicts)
        lines.append(f">= 0.95x the better baseline in {base_ok}/{n} cells; >= 0.95x the best "
                     f"static run in {oracle_ok}/{n}; mean gain over the worse baseline "
                     f"{gain:.2f}x (up to {top:.2f}x)")
    return "\n".join(lines)


def cmd_bench_leveldb(args) -> int:
    """`symbiosis bench leveldb`."""
    log: Callable[[str], None] = (lambda m: None) if args.quiet else (
        lambda m: print(m, file=sys.stderr, flush=True))
    configs = expand_configs(args.configs)
    memory = int(args.memory * args.scale)
    workloads = [w for w in args.workloads.split(",") if w] if args.workloads else [args.workload]
    ratios = [float(r) for r in args.ratios.split(",")] if args.ratios else [None]
    for r in ratios:
        if r is not None and not 0 < r <= 4:
            raise InputError(f"--ratios: {r} is not a ratio M/D_u in (0, 4]")
    driver_args: Dict[str, str] = {
        "memory": str(memory), "threads": str(args.threads), "interval": args.interval,
        "warmup": args.warmup, "budget": args.budget, "device-latency": args.device_latency,
        "overwrite": str(args.overwrite), "seed": str(args.seed)}
    if args.ops:
        driver_args["ops"] = str(args.ops)
    else:
        driver_args["duration"] = args.duration
    if args.allow_fallback:
        driver_args["allow-fallback"] = True
    if args.app_cache_overhead is not None:
        driver_args["app-cache-overhead"] = str(args.app_cache_overhead)
    show_progress = not args.quiet and sys.stderr.isatty()
    cells = []
    for workload in workloads:
        for ratio in ratios:
            if ratio is not None:
                data = int(memory / ratio)
            elif args.data_size:
                data = int(args.data_size * args.scale)
            else:
                data = 2 * memory
            phases = args.phases.replace("{M}", _size_text(memory)).replace(
                "{2M}", _size_text(2 * memory)) if args.phases else None
            db = ensure_db(args.db_dir, data, args.value_size, args.alpha, log)
            one = dict(driver_args)
            if phases:
                one["phases"] = phases
            else:
                one["workload"] = workload
            log(f"{phases or workload}: D_u = {data // MIB} MiB, M = {memory // MIB} MiB "
                f"({args.budget} budget)")
            results = run_setup(db, configs, one, show_progress, log)
            cells.append({"workload": phases or workload, "data_bytes": data,
                          "ratio": memory / data, "results": results})
            if not args.quiet:
                print(f"\n{phases or workload}, M/D_u = {memory / data:.2f}")
                print(format_table(results))
    output = make_output(cells, memory, args)
    verdicts = grid_verdicts(cells)
    if verdicts:
        output["verdicts"] = verdicts
        if not args.quiet and len(cells) > 1:
            print("\nSymbiosis against the static configurations (throughput ratios):")
            print(format_verdicts(verdicts))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
    if args.plot:
        from symbiosis import plots
        if len(cells) == 1:
            plots.plot_bench_timeline(output, args.plot)
        else:
            plots.plot_bench_grid(output, args.plot)
        if not args.quiet:
            print(f"plot written to {args.plot}")
    return 0


def _size_text(n: int) -> str:
    """A size for a phase spec that people can read: 256MiB, not 268435456B."""
    for unit, size in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


def make_output(cells: List[dict], memory: int, args) -> dict:
    """The JSON schema shared by the engine drivers: one cell per (workload,
    data size); the first cell's configs also at the top level."""
    def configs_of(cell: dict) -> List[dict]:
        out = []
        for name, r in cell["results"].items():
            s = r["summary"]
            out.append({"name": name, "final_ma_bytes": s["final_ma_bytes"],
                        "throughput_ops": s["throughput_ops"], "mean_us": s["mean_us"],
                        "p95_us": s["p95_us"], "p99_us": s["p99_us"], "hit_app": s["hit_app"],
                        "hit_kernel": s["hit_kernel"], "summary": s, "timeline": r["timeline"]})
        return out
    return {"engine": "leveldb", "memory_bytes": memory, "budget": args.budget,
            "configs": configs_of(cells[0]),
            "cells": [{"workload": c["workload"], "data_bytes": c["data_bytes"],
                       "ratio": c["ratio"], "configs": configs_of(c)} for c in cells]}
