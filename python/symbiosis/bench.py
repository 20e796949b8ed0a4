"""`symbiosis bench leveldb|rocksdb|wiredtiger`: run an engine under a memory budget
with static splits and with Symbiosis, side by side, and report throughput,
latency and the Controller's decisions.

The work is done by the engine's native driver, ``leveldb_bench``,
``rocksdb_bench`` or ``wiredtiger_bench`` (tools/, the shared part in
tools/driver/), one process per configuration; this module loads the DB once per data size,
runs the configurations in turn (or, with --side-by-side, each static
configuration at the same time as a Symbiosis run), shows progress, and
writes the table, the JSON and the plots.
"""

from __future__ import annotations

import ctypes.util
import json
import math
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Set, Tuple

from symbiosis._native import InputError
from symbiosis.cli import BENCH_BUDGETS
from symbiosis.units import parse_seconds

MIB = 1 << 20


ENGINES = ("leveldb", "rocksdb", "wiredtiger")


def driver_path(engine: str = "leveldb") -> str:
    """The engine's driver, <engine>_bench: $SYMBIOSIS_<ENGINE>_BENCH, the
    copy installed with the package, or the CMake build tree's."""
    binary = f"{engine}_bench"
    variable = f"SYMBIOSIS_{engine.upper()}_BENCH"
    override = os.environ.get(variable)
    candidates = [override] if override else []
    here = Path(__file__).resolve().parent
    candidates += [str(here / "bin" / binary), str(Path.cwd() / "build" / "native" / binary)]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise InputError(f"the {engine} driver {binary} is not built; run scripts/setup.sh "
                     f"(or set {variable} to its path)")


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


# The driver exits with these only after printing its one-line error (1: the
# run failed, 2: bad input), which then is the whole report.
DRIVER_ERROR_STATUSES = (1, 2)


def ensure_db(db_dir: str, data_bytes: int, value_bytes: int, alpha: float,
              log: Callable[[str], None], engine: str = "leveldb") -> str:
    """The engine's benchmark DB for this layout, loaded on first use and kept."""
    name = f"{engine}-{data_bytes // MIB}MiB-v{value_bytes}-a{alpha:g}"
    path = os.path.join(db_dir, name)
    if os.path.exists(os.path.join(path, "symbiosis-bench.json")):
        return path
    os.makedirs(db_dir, exist_ok=True)
    shutil.rmtree(path, ignore_errors=True)
    log(f"loading {path} ({data_bytes // MIB} MiB, alpha {alpha:g}) ...")
    result = subprocess.run([driver_path(engine), "load", "--db", path, "--data-size", str(data_bytes),
                             "--value-size", str(value_bytes), "--alpha", str(alpha)],
                            stdout=subprocess.PIPE, text=True)
    if result.returncode in DRIVER_ERROR_STATUSES:
        raise SystemExit(result.returncode)  # the driver has printed its one-line error
    if result.returncode != 0:
        raise InputError(f"loading {path} failed (exit status {result.returncode})")
    return path


def run_config(db: str, name: str, args: Dict[str, str], show_progress: bool,
               cpus: Optional[Set[int]] = None, engine: str = "leveldb",
               preload: Optional[str] = None) -> dict:
    """Runs one configuration, on the CPUs `cpus` if given, with the library
    `preload` preloaded if given; returns {summary, timeline}."""
    command = [driver_path(engine), "run", "--db", db, "--config", name]
    if cpus:  # taskset, not preexec_fn: the pairs are started from two threads
        command = ["taskset", "--cpu-list", ",".join(map(str, sorted(cpus)))] + command
    if preload:
        command = ["env", f"LD_PRELOAD={preload}"] + command
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
    if summary is None and status in DRIVER_ERROR_STATUSES:
        raise SystemExit(status)  # the driver has printed its one-line error
    if summary is None or status not in (0, 1):
        raise InputError(f"configuration {name} failed (exit status {status})")
    return {"summary": summary, "timeline": timeline}


def run_setup(db: str, configs: List[str], driver_args: Dict[str, str], show_progress: bool,
              log: Callable[[str], None], engine: str = "leveldb",
              preload: Optional[str] = None) -> dict:
    """Every configuration on one DB and workload."""
    results = {}
    for name in configs:
        log(f"  {name} ...")
        results[name] = run_config(db, name, driver_args, show_progress, engine=engine,
                                   preload=preload)
    return results


# Side by side. On a shared machine two runs of one configuration a minute
# apart differ by up to 1.6x (bench/leveldb.md), which hides a 5% criterion.
# Running Symbiosis and a static configuration at the same time, on two
# copies of the DB, makes the machine's noise hit both; each run is pinned to
# its own CPU so that neither takes the other's CPU time when that one waits
# for the device (unpinned, the faster of the two would also run faster than
# alone, which exaggerates the ratio). The CPUs are not alike: on the
# benchmark machine the disk's interrupts all land on CPU 1, and in an
# I/O-bound cell a run there is 12% slower than the same configuration on
# CPU 0 beside it (bench/leveldb.md section 6). So each static configuration
# is paired --repeats times (default 2), the two runs and the two DB copies
# swapping places every time, and its ratio is the geometric mean over its
# pairs: with an even count the CPU's share cancels.
def copy_db(db: str, copies: Tuple[str, str], log: Callable[[str], None]) -> None:
    """Two copies of `db`, synced to the device."""
    size = sum(f.stat().st_size for f in Path(db).rglob("*") if f.is_file())
    free = shutil.disk_usage(os.path.dirname(db)).free
    if free < 2 * size + (64 << 20):
        raise InputError(f"--side-by-side needs two copies of {db} ({2 * size // MIB} MiB) but "
                         f"{os.path.dirname(db)} has {free // MIB} MiB free; free space or "
                         "give another --db-dir")
    for copy in copies:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(db, copy, symlinks=True)
    os.sync()  # no writeback of the copies during the first pair
    log(f"  copied {db} twice ({size // MIB} MiB each)")


def pair_cpus() -> Tuple[Optional[Set[int]], Optional[Set[int]]]:
    """Half of this process's CPUs for each run of a pair, or no pinning on a
    single CPU or without taskset."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or shutil.which("taskset") is None:
        return None, None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:2 * half])


@contextmanager
def side_by_side(db: str, log: Callable[[str], None]) -> Iterator[Tuple[Tuple[str, str], tuple,
                                                                         ThreadPoolExecutor]]:
    """(the two copies of `db`, their CPU sets, a pool of two) for runs at
    the same time; the copies are removed on the way out."""
    cpu_sets = pair_cpus()
    if cpu_sets[0] is None:
        log("  one CPU or no taskset: the runs of a pair share the CPUs (not pinned)")
    copies = (db + ".side-a", db + ".side-b")
    try:
        copy_db(db, copies, log)
        with ThreadPoolExecutor(max_workers=2) as pool:
            yield copies, cpu_sets, pool
    finally:
        for copy in copies:
            shutil.rmtree(copy, ignore_errors=True)


def run_pairs(db: str, configs: List[str], driver_args: Dict[str, str], show_progress: bool,
              log: Callable[[str], None], repeats: int = 2, engine: str = "leveldb",
              preload: Optional[str] = None) -> dict:
    """Each static configuration `repeats` times at the same time as a
    Symbiosis run, on alternating CPUs. Returns {results, pairs}: pairs one
    per run pair, {static, repeat, static_cpus, static_run, symbiosis};
    results as run_setup's, with each configuration's run of median
    throughput standing for it (Symbiosis's over all its runs)."""
    statics = [c for c in configs if c != "symbiosis"]
    pairs: List[dict] = []
    with side_by_side(db, log) as (copies, cpu_sets, pool):
        for name in statics:
            for k in range(repeats):
                log(f"  {name} and symbiosis, side by side"
                    + (f" ({k + 1} of {repeats})" if repeats > 1 else "") + " ...")
                s, y = (0, 1) if len(pairs) % 2 == 0 else (1, 0)
                static_run = pool.submit(run_config, copies[s], name, driver_args, False,
                                         cpu_sets[s], engine, preload)
                sym_run = pool.submit(run_config, copies[y], "symbiosis", driver_args,
                                      show_progress, cpu_sets[y], engine, preload)
                pairs.append({"static": name, "repeat": k,
                              "static_cpus": sorted(cpu_sets[s]) if cpu_sets[s] else None,
                              "static_run": static_run.result(), "symbiosis": sym_run.result()})
    results: Dict[str, dict] = {}
    for name in statics:
        results[name] = _median_run([p["static_run"] for p in pairs if p["static"] == name])
    results["symbiosis"] = _median_run([p["symbiosis"] for p in pairs])
    return {"results": results, "pairs": pairs}


# The budgets compared. Which of the engine's compressed cache and the page
# cache serves a workload better below the same M is a question of two runs
# of one configuration, one in each budget; run apart, they compare the
# machine's moments more than the budgets (bench/rocksdb.md section 3). Run
# at the same time, as run_pairs runs its pairs: two copies of the DB, one
# CPU each, the CPUs swapped at every repeat.
def run_budget_pairs(db: str, configs: List[str], driver_args: Dict[str, str],
                     budgets: Tuple[str, str], show_progress: bool,
                     log: Callable[[str], None], repeats: int = 2,
                     engine: str = "leveldb", preload: Optional[str] = None) -> dict:
    """Each configuration `repeats` times under both `budgets` at once.
    Returns {results, budget_pairs}: budget_pairs one per run pair, {config,
    repeat, cpus: {budget: cpus}, runs: {budget: run}}; results keyed
    "<config>@<budget>", each the run of median throughput."""
    pairs: List[dict] = []
    with side_by_side(db, log) as (copies, cpu_sets, pool):
        for name in configs:
            for k in range(repeats):
                log(f"  {name} under the {budgets[0]} and the {budgets[1]} budget, side by "
                    f"side ({k + 1} of {repeats}) ...")
                order = (0, 1) if len(pairs) % 2 == 0 else (1, 0)
                runs, cpus = {}, {}
                for budget, side in zip(budgets, order):
                    flags = dict(driver_args, budget=budget)
                    runs[budget] = pool.submit(run_config, copies[side], name, flags,
                                               show_progress and side == 0,
                                               cpu_sets[side], engine, preload)
                    cpus[budget] = sorted(cpu_sets[side]) if cpu_sets[side] else None
                pairs.append({"config": name, "repeat": k, "cpus": cpus,
                              "runs": {b: r.result() for b, r in runs.items()}})
    results: Dict[str, dict] = {}
    for name in configs:
        for budget in budgets:
            results[f"{name}@{budget}"] = _median_run(
                [p["runs"][budget] for p in pairs if p["config"] == name])
    return {"results": results, "budget_pairs": pairs, "budgets": list(budgets)}


def budget_pair_ratio(pair: dict, budgets: List[str]) -> float:
    """The second budget's throughput over the first's, in one pair."""
    first = pair["runs"][budgets[0]]["summary"]["throughput_ops"]
    second = pair["runs"][budgets[1]]["summary"]["throughput_ops"]
    return second / first if first else 0.0


def budget_ratios(cell: dict) -> Dict[str, float]:
    """Per configuration, the geometric mean of its pairs' ratios (second
    budget over first; 0 if a first-budget run did no work)."""
    by_config: Dict[str, List[float]] = {}
    for pair in cell["budget_pairs"]:
        by_config.setdefault(pair["config"], []).append(budget_pair_ratio(pair, cell["budgets"]))
    return {name: geometric_mean(rs) for name, rs in by_config.items()}


def format_budget_pairs(cell: dict) -> str:
    """One row per pair, then each configuration's geometric mean."""
    a, b = cell["budgets"]
    rows = [("config", f"{a} CPUs", f"{a} ops/s", f"{b} ops/s", f"{b}/{a}", f"M_a {a}",
             f"M_a {b}", f"H_a,H_k {a}", f"H_a,H_k {b}")]
    for pair in cell["budget_pairs"]:
        x, y = pair["runs"][a]["summary"], pair["runs"][b]["summary"]
        cpus = ",".join(map(str, pair["cpus"][a])) if pair["cpus"][a] else "-"
        rows.append((pair["config"], cpus, f"{x['throughput_ops']:.0f}",
                     f"{y['throughput_ops']:.0f}", f"{budget_pair_ratio(pair, [a, b]):.2f}x",
                     f"{x['final_ma_bytes'] / MIB:.0f} MiB", f"{y['final_ma_bytes'] / MIB:.0f} MiB",
                     f"{x['hit_app']:.2f},{x['hit_kernel']:.2f}",
                     f"{y['hit_app']:.2f},{y['hit_kernel']:.2f}"))
    lines = _aligned(rows)
    lines.append(f"geometric mean of {b}/{a} per configuration: " + ", ".join(
        f"{name} {r:.3f}x" for name, r in budget_ratios(cell).items()))
    return "\n".join(lines)


# The grid asks for steady-state throughput, and a fixed warm-up cannot know
# when a run gets there: with trials of at least 5 s a round can outlast a
# 40 s warm-up (bench/leveldb.md section 17), and the measured part then
# charges the round's last trials to the steady state. So each pair is also
# measured after Stable: over the intervals after its Symbiosis run last
# left Stable, both runs over the same span of time, where at least
# MIN_STABLE_S of warm intervals remain (five of the grid's 2 s intervals,
# so that a ratio is not one interval's).
MIN_STABLE_S = 10.0


def timeline_intervals(run: dict) -> List[dict]:
    """A run's per-interval records (its timeline may hold others)."""
    return [e for e in run.get("timeline", []) if e.get("type", "interval") == "interval"]


def stable_start(timeline: List[dict]) -> Optional[float]:
    """The time (s) from which a Symbiosis run's warm intervals are all
    Stable, or None if fewer than MIN_STABLE_S of them are."""
    first = max((i + 1 for i, e in enumerate(timeline) if e.get("state") != "stable"), default=0)
    first = max(first, next((i for i, e in enumerate(timeline) if e.get("warm")), len(timeline)))
    if first >= len(timeline):
        return None
    start = timeline[first - 1]["t"] if first > 0 else 0.0
    return start if timeline[-1]["t"] - start >= MIN_STABLE_S else None


def throughput_since(timeline: List[dict], start: float) -> Optional[float]:
    """ops/s over the intervals that begin at `start` (to within half an
    interval: the runs of a pair tick apart) or later; None if none does."""
    begins = [0.0] + [e["t"] for e in timeline[:-1]]
    half = min((e["t"] - b for e, b in zip(timeline, begins)), default=0.0) / 2
    chosen = [(b, e) for b, e in zip(begins, timeline) if b >= start - half]
    if not chosen or timeline[-1]["t"] <= chosen[0][0]:
        return None
    return sum(e["ops"] for _, e in chosen) / (timeline[-1]["t"] - chosen[0][0])


def stable_pair_ratio(pair: dict) -> Optional[Tuple[float, float]]:
    """(Symbiosis's throughput over the static run's after Stable, the time
    the window starts), or None where the pair has no such window."""
    timeline = timeline_intervals(pair["symbiosis"])
    start = stable_start(timeline)
    if start is None:
        return None
    sym = throughput_since(timeline, start)
    static = throughput_since(timeline_intervals(pair["static_run"]), start)
    if not sym or not static:
        return None
    return sym / static, start


def _median_run(runs: List[dict]) -> dict:
    ordered = sorted(runs, key=lambda r: r["summary"]["throughput_ops"])
    return ordered[(len(ordered) - 1) // 2]


def pair_ratio(pair: dict) -> float:
    """Symbiosis's throughput over the static run's, in one pair."""
    static = pair["static_run"]["summary"]["throughput_ops"]
    return pair["symbiosis"]["summary"]["throughput_ops"] / static if static else 0.0


def pair_ratios(cell: dict, after_stable: bool = False) -> Dict[str, float]:
    """Per static configuration, the geometric mean of its pairs' ratios
    (0 if a static run did no work); `after_stable`: each pair's after
    Stable where it has one."""
    by_static: Dict[str, List[float]] = {}
    for pair in cell["pairs"]:
        stable = stable_pair_ratio(pair) if after_stable else None
        by_static.setdefault(pair["static"], []).append(
            stable[0] if stable else pair_ratio(pair))
    return {name: geometric_mean(rs) for name, rs in by_static.items()}


def geometric_mean(ratios: List[float]) -> float:
    """Of ratios (one cell of 4x does not dominate it as it does an
    arithmetic mean); 0 if any ratio is 0 (a run that did no work)."""
    if min(ratios) <= 0:
        return 0.0
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def format_pairs(cell: dict) -> str:
    """One row per pair, then each static configuration's geometric mean
    when it was paired more than once."""
    rows = [("pair", "static CPUs", "static ops/s", "symbiosis ops/s", "ratio",
             "after Stable (from)", "Symbiosis M_a", "H_a", "H_k")]
    for pair in cell["pairs"]:
        s, y = pair["static_run"]["summary"], pair["symbiosis"]["summary"]
        cpus = ",".join(map(str, pair["static_cpus"])) if pair.get("static_cpus") else "-"
        stable = stable_pair_ratio(pair)
        rows.append((pair["static"], cpus, f"{s['throughput_ops']:.0f}",
                     f"{y['throughput_ops']:.0f}", f"{pair_ratio(pair):.2f}x",
                     f"{stable[0]:.2f}x ({stable[1]:.0f} s)" if stable else "-",
                     f"{y['final_ma_bytes'] / MIB:.0f} MiB", f"{y['hit_app']:.3f}",
                     f"{y['hit_kernel']:.3f}"))
    lines = _aligned(rows)
    ratios = pair_ratios(cell)
    if len(cell["pairs"]) > len(ratios):
        stable = pair_ratios(cell, after_stable=True)
        lines.append("geometric mean per configuration (after Stable): " + ", ".join(
            f"{name} {r:.3f}x ({stable[name]:.3f}x)" for name, r in ratios.items()))
    return "\n".join(lines)


def format_table(results: Dict[str, dict]) -> str:
    rows = [("config", "final M_a", "ops/s", "mean us", "p99 us", "H_a", "H_k")]
    for name, r in results.items():
        s = r["summary"]
        rows.append((name, f"{s['final_ma_bytes'] / MIB:.0f} MiB", f"{s['throughput_ops']:.0f}",
                     f"{s['mean_us']:.1f}", f"{s['p99_us']:.1f}", f"{s['hit_app']:.3f}",
                     f"{s['hit_kernel']:.3f}"))
    return "\n".join(_aligned(rows))


def _aligned(rows: List[Tuple[str, ...]]) -> List[str]:
    """Text columns: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
            for row in rows]


def grid_verdicts(cells: List[dict]) -> List[dict]:
    """Symbiosis against the static configurations of each cell: the better
    of static-default and static-max, the best static configuration run (the
    oracle when the sweep ran) and the worse baseline. Cells without
    symbiosis or without both baselines are left out. Side-by-side cells
    compare within each pair: Symbiosis against the better baseline is the
    smaller of its two pair ratios."""
    out = []
    for cell in cells:
        if "pairs" in cell:
            verdict = _pair_verdict(cell)
            if verdict:
                out.append(verdict)
            continue
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


def held_out_oracle(cell: dict) -> Optional[float]:
    """Symbiosis over the oracle, the oracle chosen without the pairs it is
    measured on: for each repeat, the static configuration whose pairs in
    the other repeats have the lowest ratio, measured in this repeat's
    pair (the geometric mean of its pairs there, if several); the geometric
    mean over repeats. None unless every static configuration ran in every
    repeat and there are at least two of each.

    The lowest of several noisy ratios (vs_oracle) reads low: with static
    sizes a few percent apart and pairs that swing by more, the least of
    them is mostly the luckiest static run. Chosen and measured apart, the
    ratio is unbiased for the size chosen; that size may be a little worse
    than the best, so this reads high by as much. The true ratio lies
    between the two."""
    pairs_by_repeat: Dict[int, Dict[str, List[float]]] = {}
    for pair in cell["pairs"]:
        pairs_by_repeat.setdefault(pair["repeat"], {}).setdefault(pair["static"], []).append(
            pair_ratio(pair))
    by_repeat = {k: {name: geometric_mean(rs) for name, rs in r.items()}
                 for k, r in pairs_by_repeat.items()}
    statics = {pair["static"] for pair in cell["pairs"]}
    if len(by_repeat) < 2 or len(statics) < 2 or any(set(r) != statics for r in by_repeat.values()):
        return None
    measured = []
    for k, here in by_repeat.items():
        others = [r for j, r in by_repeat.items() if j != k]
        chosen = min(sorted(statics), key=lambda n: geometric_mean([r[n] for r in others]))
        measured.append(here[chosen])
    return geometric_mean(measured)


def _pair_verdict(cell: dict) -> Optional[dict]:
    ratios = pair_ratios(cell)
    if "static-default" not in ratios or "static-max" not in ratios:
        return None
    oracle = min(ratios, key=lambda n: ratios[n])
    stable = pair_ratios(cell, after_stable=True)
    sym = cell["results"]["symbiosis"]["summary"]
    return {"workload": cell["workload"], "ratio": cell["ratio"],
            "symbiosis_ops": sym["throughput_ops"], "symbiosis_ma_bytes": sym["final_ma_bytes"],
            "vs_better_baseline": min(ratios["static-default"], ratios["static-max"]),
            "vs_worse_baseline": max(ratios["static-default"], ratios["static-max"]),
            "oracle": oracle, "vs_oracle": ratios[oracle],
            "vs_oracle_after_stable": min(stable.values()),
            "pairs_after_stable": sum(stable_pair_ratio(p) is not None for p in cell["pairs"]),
            "vs_oracle_held_out": held_out_oracle(cell), "side_by_side": True,
            "symbiosis_ma_by_pair": {p["static"]: p["symbiosis"]["summary"]["final_ma_bytes"]
                                     for p in cell["pairs"]}}  # the last pair of each


def format_verdicts(verdicts: List[dict]) -> str:
    """The grid's verdict table and its summary lines."""
    held_out = [v["vs_oracle_held_out"] for v in verdicts
                if v.get("vs_oracle_held_out") is not None]
    # After Stable only where some pair has such a window; a pair without one
    # counts at its warm-part ratio.
    stable = ([v["vs_oracle_after_stable"] for v in verdicts if "vs_oracle_after_stable" in v]
              if any(v.get("pairs_after_stable") for v in verdicts) else [])
    rows = [("workload", "M/D_u", "Symbiosis M_a", "ops/s", "/better base", "/oracle", "oracle")
            + (("/oracle held out",) if held_out else ())
            + (("/oracle after Stable",) if stable else ()) + ("/worse base",)]
    for v in verdicts:
        h = v.get("vs_oracle_held_out")
        rows.append((v["workload"], f"{v['ratio']:.2f}", f"{v['symbiosis_ma_bytes'] / MIB:.0f} MiB",
                     f"{v['symbiosis_ops']:.0f}", f"{v['vs_better_baseline']:.2f}x",
                     f"{v['vs_oracle']:.2f}x", v["oracle"])
                    + ((f"{h:.2f}x" if h is not None else "-",) if held_out else ())
                    + ((f"{v['vs_oracle_after_stable']:.2f}x"
                        if "vs_oracle_after_stable" in v else "-",) if stable else ())
                    + (f"{v['vs_worse_baseline']:.2f}x",))
    lines = _aligned(rows)
    n = len(verdicts)
    if n:
        base_ok = sum(v["vs_better_baseline"] >= 0.95 for v in verdicts)
        oracle_ok = sum(v["vs_oracle"] >= 0.95 for v in verdicts)
        gain = sum(v["vs_worse_baseline"] for v in verdicts) / n
        top = max(v["vs_worse_baseline"] for v in verdicts)
        notes = ([f"the oracle held out: {sum(h >= 0.95 for h in held_out)}/{len(held_out)}"]
                 if held_out else [])
        if stable:
            notes.append(f"after Stable: {sum(r >= 0.95 for r in stable)}/{len(stable)}")
        held = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f">= 0.95x the better baseline in {base_ok}/{n} cells; >= 0.95x the best "
                     f"static run in {oracle_ok}/{n}{held}; mean gain over the worse baseline "
                     f"{gain:.2f}x (up to {top:.2f}x)")
    return "\n".join(lines)


def compared_budgets(args) -> Optional[Tuple[str, str]]:
    """The two budgets --compare-budgets runs (the engine's two; the flag
    exists only for engines with two), the second's throughput over the
    first's; None without it."""
    if not getattr(args, "compare_budgets", False):
        return None
    if args.side_by_side:
        raise InputError("--compare-budgets already runs its pairs side by side; drop "
                         "--side-by-side")
    if getattr(args, "allow_fallback", False):
        raise InputError("--compare-budgets with --allow-fallback could compare a budget with "
                         "itself; drop --allow-fallback (the kernel budget needs a memory "
                         "cgroup: run as root or in a delegated cgroup)")
    first, second = BENCH_BUDGETS[args.engine]
    return first, second


def cmd_bench(args) -> int:
    """`symbiosis bench <engine>`."""
    engine = args.engine
    log: Callable[[str], None] = (lambda m: None) if args.quiet else (
        lambda m: print(m, file=sys.stderr, flush=True))
    configs = expand_configs(args.configs)
    if args.side_by_side and ("symbiosis" not in configs or len(configs) < 2):
        raise InputError("--side-by-side runs Symbiosis beside each static configuration; "
                         "give --configs symbiosis and at least one static-...")
    budgets = compared_budgets(args)
    if args.repeats is not None and not (args.side_by_side or budgets):
        raise InputError("--repeats counts the pairs of --side-by-side or --compare-budgets; "
                         "add one of them or drop --repeats")
    repeats = args.repeats or 2
    memory = int(args.memory * args.scale)
    workloads = [w for w in args.workloads.split(",") if w] if args.workloads else [args.workload]
    ratios = [float(r) for r in args.ratios.split(",")] if args.ratios else [None]
    for r in ratios:
        if r is not None and not 0 < r <= 4:
            raise InputError(f"--ratios: {r} is not a ratio M/D_u in (0, 4]")
    driver_args = run_flags(args, memory)
    check_warmup(driver_args)
    preload = allocator_library(args.allocator)
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
            db = ensure_db(args.db_dir, data, args.value_size, args.alpha, log, engine)
            one = dict(driver_args)
            if phases:
                one["phases"] = phases
            else:
                one["workload"] = workload
            log(f"{phases or workload}: D_u = {data // MIB} MiB, M = {memory // MIB} MiB "
                + (f"(the {budgets[0]} and {budgets[1]} budgets)" if budgets
                   else f"({args.budget} budget)"))
            cell = {"workload": phases or workload, "data_bytes": data, "ratio": memory / data}
            if budgets:
                cell.update(run_budget_pairs(db, configs, one, budgets, show_progress, log,
                                             repeats, engine, preload))
            elif args.side_by_side:
                cell.update(run_pairs(db, configs, one, show_progress, log, repeats, engine,
                                      preload))
            else:
                cell["results"] = run_setup(db, configs, one, show_progress, log, engine,
                                            preload)
            cells.append(cell)
            if not args.quiet:
                print(f"\n{phases or workload}, M/D_u = {memory / data:.2f}")
                print(format_budget_pairs(cell) if budgets else
                      format_pairs(cell) if args.side_by_side else format_table(cell["results"]))
    output = make_output(cells, memory, args)
    verdicts = grid_verdicts(cells)
    if verdicts:
        output["verdicts"] = verdicts
        if not args.quiet and len(cells) > 1:
            how = " run side by side" if args.side_by_side else ""
            print(f"\nSymbiosis against the static configurations{how} (throughput ratios):")
            print(format_verdicts(verdicts))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(output, f, indent=1)
    if args.plot:
        from symbiosis import plots
        if budgets:
            plots.plot_bench_budgets(output, args.plot)
        elif len(cells) == 1:
            plots.plot_bench_timeline(output, args.plot)
        elif args.side_by_side:
            plots.plot_bench_pairs(output, args.plot)
        else:
            plots.plot_bench_grid(output, args.plot)
        if not args.quiet:
            print(f"plot written to {args.plot}")
    return 0


# RocksDB's own builds link jemalloc; Debian's use the C library's malloc.
# Where a hit costs microseconds, where the engine's objects sit in the heap
# shows in the throughput, and a resize moves them (bench/rocksdb.md
# section 20). So the allocator is a choice, made for every run alike.
def allocator_library(allocator: str) -> Optional[str]:
    """The library to preload for --allocator (system or jemalloc, as the
    parser allows): None for the system's malloc."""
    if allocator == "system":
        return None
    library = ctypes.util.find_library("jemalloc")
    if library is None:
        raise InputError("--allocator jemalloc: libjemalloc is not installed; install Debian's "
                         "libjemalloc2 (scripts/setup.sh does) or use --allocator system")
    return library


def run_flags(args, memory: int) -> Dict[str, str]:
    """The driver's `run` flags shared by every configuration. Phases that all
    give a count of operations run to their end unless --duration is given."""
    flags: Dict[str, str] = {
        "memory": str(memory), "threads": str(args.threads), "interval": args.interval,
        "warmup": args.warmup, "budget": args.budget,
        "device-latency": getattr(args, "device_latency", "0us"),
        "overwrite": str(args.overwrite), "seed": str(args.seed),
        "reserve": str(args.reserve)}
    phases_counted = bool(args.phases) and all(
        "*" in part for part in args.phases.split(";") if part.strip())
    if args.ops:
        flags["ops"] = str(args.ops)
    elif args.duration or not phases_counted:
        flags["duration"] = args.duration or "60s"
    if getattr(args, "allow_fallback", False):
        flags["allow-fallback"] = True
    if args.app_cache_overhead is not None:
        flags["app-cache-overhead"] = str(args.app_cache_overhead)
    return flags


def check_warmup(flags: Dict[str, str]) -> None:
    """--duration counts the warm-up: one that is not shorter would leave
    nothing to measure (the driver would then report the whole run)."""
    if "duration" not in flags:
        return
    warmup = parse_seconds(flags["warmup"], "--warmup")
    duration = parse_seconds(flags["duration"], "--duration")
    if warmup >= duration:
        raise InputError(f"--warmup {flags['warmup']} is not shorter than --duration "
                         f"{flags['duration']}, which includes it: nothing would be measured; "
                         f"give e.g. --duration {warmup + duration:g}s to measure "
                         f"{duration:g}s after the warm-up")


def _stable_fields(pair: dict) -> dict:
    """A pair's ratio after Stable and where that window starts, for the
    JSON (null where the pair has none)."""
    stable = stable_pair_ratio(pair)
    return {"ratio_after_stable": stable[0] if stable else None,
            "stable_from_s": stable[1] if stable else None}


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
    def cell_of(c: dict) -> dict:
        out = {"workload": c["workload"], "data_bytes": c["data_bytes"], "ratio": c["ratio"],
               "configs": configs_of(c)}
        if "pairs" in c:
            ratios = pair_ratios(c)
            out["pairs"] = [
                {"static": name, "ratio": ratio,
                 "runs": [{"repeat": p["repeat"], "static_cpus": p["static_cpus"],
                           "ratio": pair_ratio(p), **_stable_fields(p),
                           "static": configs_of({"results": {name: p["static_run"]}})[0],
                           "symbiosis": configs_of({"results": {"symbiosis": p["symbiosis"]}})[0]}
                          for p in c["pairs"] if p["static"] == name]}
                for name, ratio in ratios.items()]
        if "budget_pairs" in c:
            a, b = c["budgets"]
            ratios = budget_ratios(c)
            out["budgets"] = c["budgets"]
            out["budget_pairs"] = [
                {"config": name, "ratio": ratio,
                 "runs": [{"repeat": p["repeat"], "cpus": p["cpus"],
                           "ratio": budget_pair_ratio(p, c["budgets"]),
                           a: configs_of({"results": {name: p["runs"][a]}})[0],
                           b: configs_of({"results": {name: p["runs"][b]}})[0]}
                          for p in c["budget_pairs"] if p["config"] == name]}
                for name, ratio in ratios.items()]
        return out
    budgets = cells[0].get("budgets")
    return {"engine": args.engine, "memory_bytes": memory,
            "budget": list(budgets) if budgets else args.budget, "allocator": args.allocator,
            "side_by_side": bool(args.side_by_side),
            "repeats": (args.repeats or 2) if args.side_by_side or budgets else 1,
            "configs": configs_of(cells[0]),
            "cells": [cell_of(c) for c in cells]}
