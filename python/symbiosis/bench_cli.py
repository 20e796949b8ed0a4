"""`symbiosis bench <engine>`: the command line of the engine benchmarks.

Everything a benchmark needs is checked before its first DB is loaded: the
flags, the workload specs and phases against the data size of each cell,
M against the engine's minimum (asked of its driver), the output paths and
--db-dir. Then each cell's DB is taken from the store of kept DBs
(kept_db.py), every configuration runs on its own copy of it (bench.py),
and the table, the JSON and the plot are written. A configuration with a
failed request is marked FAILED in the table and the JSON, and the command
ends with one line that gives the count and the first error, exit status 1.
"""

from __future__ import annotations

import argparse
import ctypes.util
import json
import functools
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from symbiosis import _native
from symbiosis import converters as cv
from symbiosis.bench import (driver_path, failed, format_budget_pairs, format_pairs,
                             format_table, format_verdicts, grid_verdicts, make_output,
                             run_budget_pairs, run_pairs, run_setup)
from symbiosis.bench_redis import add_redis_bench_parser
from symbiosis.engines import ENGINES
from symbiosis.errors import CommandFailed, InputError
from symbiosis.kept_db import KeptDbs, LoadFailed, LoadSpec, check_db_dir, size_text
from symbiosis.outputs import OutputFiles, json_writer
from symbiosis.units import format_bytes, parse_seconds

# --ratios: M/D_u up to 4 (D_u a quarter of M).
MAX_RATIO = 4.0
# --value-size: the drivers' largest (tools/driver/requests.h, kMaxValueBytes).
MAX_VALUE_BYTES = 1 << 20

BENCH_CONFIGS = """\
  static-default   M_a = the engine's default: 8 MiB (LevelDB, RocksDB),
                   M/4 (WiredTiger, the paper's 256 MB of 1 GB)
  static-max       M_a = M
  static-<i>       M_a = i*M/8 (sweep: i = 1..7 with the two above; the
                   best of them is the oracle)
  symbiosis        the Controller splits M online"""

# RocksDB's flash tier (docs/flash-tier.md): the configurations that name
# one, <base>+flash-<opts>, and what "--configs flash" runs.
FLASH_OPTS = ("none", "bypass", "insertion", "drop", "all")
FLASH_CONFIGS = ["static-max", "static-max+flash-none", "static-max+flash-bypass",
                 "static-max+flash-insertion", "static-max+flash-drop", "static-max+flash-all",
                 "symbiosis+flash-all"]
FLASH_CONFIGS_HELP = """RocksDB's flash tier (engine budget, --flash-size): <config>+flash-<opts> runs
<config> with a flash tier below the DRAM caches, <opts> one of none (the plain
tier: every eviction stored, passive eviction), bypass, insertion, drop, all;
--configs flash runs static-max with no tier, with the plain tier, with each
optimization alone and with all three, and Symbiosis with all three."""


BENCH_DESCRIPTIONS = {name: f"{e.loads}\n\n{BENCH_CONFIGS}\n\n{e.budgets_text}"
                      for name, e in ENGINES.items()}
BENCH_DESCRIPTIONS["rocksdb"] += "\n\n" + FLASH_CONFIGS_HELP

BENCH_EPILOG = """\
examples:
  symbiosis bench {engine} --workload hotspot20 --duration 60s --plot lat.png
  symbiosis bench {engine} --phases "hotspot20@{{M}}*6M;hotspot20@{{2M}}*6M" \\
      --configs static-default,symbiosis --data-size 512MiB
  symbiosis bench {engine} --workloads uniform,zipfian,hotspot20 \\
      --ratios 0.2,0.4,0.6,0.8,1.0 --configs all --json grid.json --plot grid.png
  symbiosis bench {engine} --workloads hotspot20 --ratios 0.6,1.0 --configs all \\
      --side-by-side --plot pairs.png     # each static run at the same time as Symbiosis,
                                          # twice, on swapped CPUs (--repeats)

{{M}} and {{2M}} in --phases stand for the budget and twice it. JSON: configs:
[{{name, failed, final_ma_bytes, throughput_ops, mean_us, p99_us, timeline,
...}}], and cells: one per (workload, D_u) in grid runs.

Every run works on its own copy of the kept DB, which is checked against
its manifest when reused (and loaded again if it does not match). A run in
which any request failed (an engine error, a missing key, a wrong value) is
marked FAILED with no throughput; the command then ends with one line that
gives the count and the first error, and exit status 1."""

# Per engine (engines.py): the budgets (the first is the default),
# Options::kernel_app_cache_overhead, and the malloc every run gets unless
# --allocator says otherwise, with why.
BENCH_BUDGETS = {name: e.budgets for name, e in ENGINES.items()}
BENCH_APP_CACHE_OVERHEAD = {name: e.app_cache_overhead for name, e in ENGINES.items()}
BENCH_ALLOCATOR = {name: e.allocator for name, e in ENGINES.items()}
ALLOCATOR_HELP = {name: e.allocator_help for name, e in ENGINES.items()}


def _add_bench_args(p: argparse.ArgumentParser, engine: str) -> None:
    p.add_argument("--memory", type=cv.size("--memory"), default=256 << 20,
                   help="M, the caches' budget (default: 256MiB)")
    p.add_argument("--data-size", type=cv.size("--data-size"), default=0,
                   help="uncompressed data size D_u (default: 2M, twice the budget)")
    p.add_argument("--scale", type=cv.fraction("--scale", True, False), default=1.0,
                   help="multiply M and D_u by this, to fit the paper's ratios on a small "
                        "machine or to run faster (default: 1)")
    p.add_argument("--workload", default="hotspot20",
                   help="workload spec: uniform, zipfian, hotspot20, readscan, mixgraph, ... "
                        "(default: hotspot20)")
    p.add_argument("--phases", default=None,
                   help='phases "spec@size*ops;..." instead of --workload')
    p.add_argument("--workloads", type=cv.words("--workloads", "uniform,zipfian"), default=None,
                   help="grid: comma-separated workload specs")
    p.add_argument("--ratios", type=cv.numbers_in("--ratios", 0, MAX_RATIO, "0.2,0.6,1.0"),
                   default=None,
                   help=f"grid: comma-separated M/D_u values in (0, {MAX_RATIO:g}]")
    p.add_argument("--configs", default="static-default,static-max,symbiosis",
                   help="configurations, or 'sweep' or 'all' (default: %(default)s)")
    p.add_argument("--duration", type=cv.seconds("--duration", positive=True), default=None,
                   help="run time per configuration, --warmup included (default: 60s, or "
                        "until every phase of --phases has run its count of operations)")
    p.add_argument("--ops", type=cv.count("--ops"), default=0,
                   help="operations per configuration instead of --duration")
    p.add_argument("--warmup", type=cv.seconds("--warmup"), default="10s",
                   help="leading part of --duration left out of the summary (default: 10s)")
    p.add_argument("--interval", type=cv.seconds("--interval", positive=True), default="1s",
                   help="timeline interval (default: 1s)")
    p.add_argument("--threads", type=cv.positive_int("--threads", 256), default=4,
                   help="reader threads (default: 4)")
    p.add_argument("--overwrite", type=cv.fraction("--overwrite", False, False), default=0.0,
                   help="fraction of operations that overwrite a key (default: 0)")
    p.add_argument("--alpha", type=cv.fraction("--alpha", True, False), default=0.5,
                   help="target compression ratio of the values with snappy (default: 0.5)")
    p.add_argument("--value-size", type=cv.positive_int("--value-size", MAX_VALUE_BYTES),
                   default=1000,
                   help="value bytes (default: 1000)")
    e = ENGINES[engine]
    budgets = e.budgets
    p.add_argument("--budget", choices=e.budgets, default=e.budgets[0], help=e.budget_help)
    if e.fallback_budget:
        p.add_argument("--allow-fallback", action="store_true",
                       help=f"use the {e.fallback_budget} budget when no cgroup can be made")
    if "emulated" in e.budgets:
        p.add_argument("--device-latency", type=cv.seconds("--device-latency"), default="0us",
                       help="emulated budget: latency added to each device read, e.g. 70us")
    if engine == "rocksdb":
        _add_flash_args(p)
    p.add_argument("--app-cache-overhead", type=cv.number_in("--app-cache-overhead", -1, 1, True, True, example="0.25"), default=None,
                   help="kernel budget: the share of an application-cache growth that "
                        "Symbiosis expects to come out of the page cache on top of the growth "
                        "itself, in (-1, 1); negative where the cache fills less than its "
                        "capacity (default: %s)" % BENCH_APP_CACHE_OVERHEAD[engine])
    p.add_argument("--side-by-side", action="store_true",
                   help="run each static configuration at the same time as a Symbiosis run, "
                        "on two copies of the DB, one CPU each, and compare within each pair: "
                        "on a shared machine the way to see a 5%% difference")
    if len(budgets) == 2:
        first, second = budgets
        p.add_argument("--compare-budgets", action="store_true",
                       help=f"run each configuration under the {first} and the {second} "
                            "budget at the same time, on two copies of the DB, one CPU each, "
                            "--repeats times with the CPUs swapped, and report the "
                            f"{second} run's throughput over the {first} run's: which budget "
                            "serves this workload better below the same M (--budget is "
                            "then not used)")
    p.add_argument("--repeats", type=cv.positive_int("--repeats", 64), default=None,
                   help="--side-by-side or --compare-budgets: pairs per configuration, the "
                        "two runs swapping CPUs every time; its ratio is their geometric mean. Keep it "
                        "even: the CPUs are not alike (one takes the disk's interrupts) "
                        "(default: 2)")
    p.add_argument("--reserve", type=cv.size("--reserve"), default=None,
                   help="kernel budget: the cgroup holds M + this, for the engine's memory "
                        "outside its caches (heap, memtables, index blocks, the cache's own "
                        "allocator overhead); what that leaves unused, the page cache gets "
                        "beside M - M_a (default: 32MiB + M/8, with --overwrite 48MiB + M/6, "
                        "docs/decisions/bench-reserve.md)")
    p.add_argument("--allocator", choices=("system", "jemalloc"), default=BENCH_ALLOCATOR[engine],
                   help="the malloc of every run: the system's (glibc) or jemalloc, "
                        f"preloaded (Debian's libjemalloc2), {ALLOCATOR_HELP[engine]}. "
                        "It moves where the engine's blocks sit in memory, which shows where "
                        "hits are cheap and after a resize (default: %(default)s)")
    p.add_argument("--db-dir", default="/var/tmp/symbiosis-bench",
                   help="where loaded DBs are kept, each checked against its manifest when "
                        "reused; runs work on copies of them (default: %(default)s)")
    p.add_argument("--seed", type=cv.seed, default=1, help="random seed (default: 1)")
    p.add_argument("--json", default=None, help="write the results as JSON")
    p.add_argument("--plot", type=cv.plot_path, default=None,
                   help="write a PNG: the timeline, or the grid for grid runs")
    p.add_argument("--quiet", action="store_true", help="no table, no progress")


def _add_flash_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--flash-size", type=cv.size("--flash-size"), default=None,
                   help="the flash tier's size for +flash configurations, e.g. 1GiB "
                        "(engine budget)")
    p.add_argument("--flash-path", default=None,
                   help="the flash tier's file or directory (default: a file in each run's DB "
                        "directory)")
    p.add_argument("--flash-region", type=cv.size("--flash-region"), default=None,
                   help="the flash tier's unit of writes and eviction (default: 1MiB)")
    p.add_argument("--flash-sync", action="store_true",
                   help="the flash tier writes on the inserting thread (default: a queue)")
    p.add_argument("--slow-storage", default=None,
                   help="emulated storage under the tables for every configuration: hdd, "
                        "network, none, or MEDIAN[/P99] like 2ms/8ms (engine budget; "
                        "default: none)")


def add_bench_parser(sub: argparse._SubParsersAction) -> None:
    """Adds `symbiosis bench <engine>` to the CLI's subcommands."""
    bench = sub.add_parser(
        "bench", help="run a real engine under a memory budget: static splits vs Symbiosis",
        description="Benchmarks of real storage engines under one memory budget M.")
    engines = bench.add_subparsers(dest="engine", metavar="engine", parser_class=cv.Parser)
    for engine, e in ENGINES.items():
        one = engines.add_parser(
            engine, help=f"Debian's {e.title} with static cache sizes and with Symbiosis",
            description=BENCH_DESCRIPTIONS[engine], epilog=BENCH_EPILOG.format(engine=engine),
            formatter_class=argparse.RawDescriptionHelpFormatter)
        _add_bench_args(one, engine)
        one.set_defaults(func=cmd_bench)
    add_redis_bench_parser(engines)
    bench.set_defaults(func=lambda args: bench.error(
        "give an engine: " + ", ".join(ENGINES) + ", or redis"))


@dataclass
class CellPlan:
    """One (workload, data size) of a benchmark."""

    workload: str        # a workload spec, or the phases with {M} and {2M} filled in
    phases: bool
    data_bytes: int


@dataclass
class BenchPlan:
    """A benchmark whose every input has been checked."""

    engine: str
    configs: List[str]
    memory: int
    budgets: Optional[Tuple[str, str]]
    repeats: int
    driver_args: Dict[str, str]
    preload: Optional[str]
    cells: List[CellPlan]
    outputs: OutputFiles


def driver_limits(engine: str) -> dict:
    """The engine driver's limits (`<engine>_bench limits`)."""
    driver = driver_path(engine)
    result = subprocess.run([driver, "limits"], capture_output=True, text=True)
    if result.returncode != 0:
        raise CommandFailed(f"{driver} limits failed (exit status {result.returncode}): "
                            f"{result.stderr.strip()[:200]}; rebuild it with scripts/setup.sh")
    return json.loads(result.stdout)


def plan_bench(args: argparse.Namespace) -> BenchPlan:
    """Checks every input of `symbiosis bench` and returns the plan; raises
    InputError (one line) on the first bad one. Loads nothing, runs nothing."""
    engine = args.engine
    configs = expand_configs(args.configs, flash=engine == "rocksdb")
    check_flash(args, configs)
    if args.side_by_side and ("symbiosis" not in configs or len(configs) < 2):
        raise InputError("--side-by-side runs Symbiosis beside each static configuration; "
                         "give --configs symbiosis and at least one static-...")
    budgets = compared_budgets(args)
    if args.repeats is not None and not (args.side_by_side or budgets):
        raise InputError("--repeats counts the pairs of --side-by-side or --compare-budgets; "
                         "add one of them or drop --repeats")
    if args.phases is not None and args.workloads:
        raise InputError("--phases replaces the workload of every cell; drop --workloads (or "
                         "--phases)")
    if args.phases is not None and not args.phases.strip():
        raise InputError('--phases is empty; give e.g. "hotspot20@{M}*5M;hotspot20@{2M}*5M"')
    limits = driver_limits(engine)
    memory = int(args.memory * args.scale)
    if memory < limits["min_memory_bytes"]:
        scaled = f" (--memory times --scale {args.scale:g})" if args.scale != 1 else ""
        raise InputError(f"--memory: M = {format_bytes(memory)}{scaled} is below the minimum "
                         f"of {format_bytes(limits['min_memory_bytes'])} for {engine}; raise it")
    entry = limits["key_bytes"] + args.value_size
    cells = []
    for workload in args.workloads or [args.workload]:
        for ratio in args.ratios or [None]:
            if ratio is not None:
                data = int(memory / ratio)
            elif args.data_size:
                data = int(args.data_size * args.scale)
            else:
                data = 2 * memory
            keys = data // entry
            if keys == 0:
                raise InputError(f"D_u = {format_bytes(data)} holds no entry of {entry} bytes "
                                 "(key and value); give a larger --data-size")
            if args.phases:
                text = args.phases.replace("{M}", size_text(memory)).replace(
                    "{2M}", size_text(2 * memory))
                for phase in _native.parse_phases(text):
                    _native.check_workload(phase["spec"], keys, entry)
                cells.append(CellPlan(text, True, data))
            else:
                _native.check_workload(workload, keys, entry)
                cells.append(CellPlan(workload, False, data))
    driver_args = run_flags(args, memory)
    check_warmup(driver_args)
    preload = allocator_library(args.allocator)
    outputs = OutputFiles({"--json": args.json, "--plot": args.plot})
    check_db_dir(args.db_dir)
    return BenchPlan(engine=engine, configs=configs, memory=memory, budgets=budgets,
                     repeats=args.repeats or 2, driver_args=driver_args, preload=preload,
                     cells=cells, outputs=outputs)


def cmd_bench(args: argparse.Namespace) -> int:
    """`symbiosis bench <engine>`."""
    plan = plan_bench(args)
    engine, memory, budgets = plan.engine, plan.memory, plan.budgets
    log: Callable[[str], None] = (lambda m: None) if args.quiet else (
        lambda m: print(m, file=sys.stderr, flush=True))
    show_progress = not args.quiet and sys.stderr.isatty()
    cells = []
    note = lambda m: print(f"symbiosis bench {engine}: note: {m}", file=sys.stderr, flush=True)
    with KeptDbs(args.db_dir, engine, driver_path(engine), log, note) as store:
        for cell_plan in plan.cells:
            try:
                db = store.ensure(LoadSpec(engine, cell_plan.data_bytes, args.value_size,
                                           args.alpha))
            except LoadFailed as e:
                raise SystemExit(e.status)  # the driver has printed its one-line error
            one = dict(plan.driver_args)
            one["phases" if cell_plan.phases else "workload"] = cell_plan.workload
            data = cell_plan.data_bytes
            log(f"{cell_plan.workload}: D_u = {format_bytes(data)}, M = {format_bytes(memory)} "
                + (f"(the {budgets[0]} and {budgets[1]} budgets)" if budgets
                   else f"({args.budget} budget)"))
            cell = {"workload": cell_plan.workload, "data_bytes": data, "ratio": memory / data}
            pair_copies = functools.partial(store.pair_copies, db)
            if budgets:
                cell.update(run_budget_pairs(pair_copies, plan.configs, one, budgets,
                                             show_progress, log, plan.repeats, engine,
                                             plan.preload))
            elif args.side_by_side:
                cell.update(run_pairs(pair_copies, plan.configs, one, show_progress, log,
                                      plan.repeats, engine, plan.preload))
            else:
                cell["results"] = run_setup(db, plan.configs, one, show_progress, log, engine,
                                            plan.preload, working_copy=store.working_copy)
            cells.append(cell)
            if not args.quiet:
                print(f"\n{cell_plan.workload}, M/D_u = {memory / data:.2f}")
                print(format_budget_pairs(cell) if budgets else
                      format_pairs(cell) if args.side_by_side else format_table(cell["results"]))
    output = make_output(cells, memory, args)
    verdicts = grid_verdicts(cells)
    if verdicts:
        output["verdicts"] = verdicts
    plan.outputs.write({"--json": json_writer(output),
                        "--plot": lambda path: _plot(output, cells, budgets, args, path)})
    if verdicts and not args.quiet and len(cells) > 1:
        how = " run side by side" if args.side_by_side else ""
        print(f"\nSymbiosis against the static configurations{how} (throughput ratios):")
        print(format_verdicts(verdicts))
    if args.plot and not args.quiet:
        print(f"plot written to {args.plot}")
    failures = [(cell["workload"], run) for cell in cells for run in _runs(cell) if failed(run)]
    if failures:
        workload, first = failures[0]
        runs = sum(1 for cell in cells for _ in _runs(cell))
        where = f"{first['summary']['name']} in {workload}"
        raise CommandFailed(
            (f"{where} failed" if len(failures) == 1 else
             f"{len(failures)} of {runs} runs failed, the first {where}")
            + f": {first['error']}" + (f"; every run is in {args.json}" if args.json else ""))
    return 0


def _runs(cell: dict) -> List[dict]:
    """Every run of a cell."""
    if "pairs" in cell:
        return [run for p in cell["pairs"] for run in (p["static_run"], p["symbiosis"])]
    if "budget_pairs" in cell:
        return [run for p in cell["budget_pairs"] for run in p["runs"].values()]
    return list(cell["results"].values())


def _plot(output: dict, cells: List[dict], budgets, args: argparse.Namespace, path: str) -> None:
    from symbiosis import plots
    if budgets:
        plots.plot_bench_budgets(output, path)
    elif len(cells) == 1:
        plots.plot_bench_timeline(output, path)
    elif args.side_by_side:
        plots.plot_bench_pairs(output, path)
    else:
        plots.plot_bench_grid(output, path)


def expand_configs(text: str, flash: bool = False) -> List[str]:
    """'static-default,static-max,symbiosis', 'sweep' (static-1..7 plus the two
    baselines) or 'all' (sweep and symbiosis); with `flash` (RocksDB) also
    <config>+flash-<opts> and 'flash' (FLASH_CONFIGS)."""
    names: List[str] = []
    for word in [w.strip() for w in text.split(",") if w.strip()]:
        base, _, opts = word.partition("+flash-")
        if word == "sweep":
            names += ["static-default"] + [f"static-{i}" for i in range(1, 8)] + ["static-max"]
        elif word == "all":
            names += expand_configs("sweep") + ["symbiosis"]
        elif word == "flash" and flash:
            names += FLASH_CONFIGS
        elif (base in ("symbiosis", "static-default", "static-max") or re.fullmatch(
                r"static-[0-8]", base)) and (not opts or (flash and opts in FLASH_OPTS)) and (
                    word == base or opts):
            names.append(word)
        elif opts or "+" in word:
            raise InputError(f"--configs: '{word}' is not a configuration; a flash tier is "
                             + (f"<config>+flash-<opts>, <opts> one of {', '.join(FLASH_OPTS)}"
                                if flash else "RocksDB's only"))
        else:
            raise InputError(f"--configs: '{word}' is not a configuration; use symbiosis, "
                             "static-default, static-max, static-0 .. static-8, sweep or all"
                             + (", flash or <config>+flash-<opts>" if flash else ""))
    unique = list(dict.fromkeys(names))
    if not unique:
        raise InputError("--configs is empty; give e.g. static-default,static-max,symbiosis")
    return unique



def check_flash(args, configs: List[str]) -> None:
    """A +flash configuration needs --flash-size and the engine budget; the
    other flash flags need a +flash configuration."""
    flashed = [c for c in configs if "+flash-" in c]
    if not flashed:
        given = [f for f in ("flash_size", "flash_path", "flash_region", "flash_sync")
                 if getattr(args, f, None)]
        if given:
            raise InputError(f"--{given[0].replace('_', '-')} needs a configuration with a "
                             "flash tier: add e.g. --configs flash or static-max+flash-all")
        return
    if args.flash_size is None:
        raise InputError(f"--configs {flashed[0]} has a flash tier: give its size, e.g. "
                         "--flash-size 1GiB")
    if args.budget != "engine":
        raise InputError("the flash tier needs the engine budget (direct reads); drop --budget "
                         f"{args.budget}")
    if getattr(args, "compare_budgets", False):
        raise InputError("--compare-budgets runs the kernel budget, which has no flash tier; "
                         "drop it")


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


# RocksDB's own builds link jemalloc; Debian's use the C library's malloc.
# Where a hit costs microseconds, where the engine's objects sit in the heap
# shows in the throughput, and a resize moves them
# (docs/decisions/allocators.md). So the allocator is a choice, made for
# every run alike.
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


def default_reserve(memory: int, writes: bool) -> int:
    """The kernel budget's room beside M for the engine's memory outside its
    caches: a fixed part (table handles, threads; memtables where the
    workload writes) and a part that grows with the cache an engine may be
    given, up to M (allocator headers and per-entry metadata; dirty pages a
    WiredTiger cache holds beyond its size where it writes):
    docs/decisions/bench-reserve.md. Whole MiB, rounded up."""
    reserve = (48 << 20) + memory // 6 if writes else (32 << 20) + memory // 8
    return -(-reserve // (1 << 20)) << 20


def run_flags(args, memory: int) -> Dict[str, str]:
    """The driver's `run` flags shared by every configuration. Phases that all
    give a count of operations run to their end unless --duration is given."""
    flags: Dict[str, str] = {
        "memory": str(memory), "threads": str(args.threads), "interval": args.interval,
        "warmup": args.warmup, "budget": args.budget,
        "device-latency": getattr(args, "device_latency", "0us"),
        "overwrite": str(args.overwrite), "seed": str(args.seed),
        "reserve": str(args.reserve if args.reserve is not None
                       else default_reserve(memory, args.overwrite > 0))}
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
    # RocksDB: slow storage for every configuration; the flash flags only
    # for those with a tier (bench.run_config).
    if getattr(args, "slow_storage", None):
        flags["slow-storage"] = args.slow_storage
    if getattr(args, "flash_size", None):
        flags["flash-size"] = str(args.flash_size)
        if args.flash_path:
            flags["flash-path"] = args.flash_path
        if args.flash_region:
            flags["flash-region"] = str(args.flash_region)
        if args.flash_sync:
            flags["flash-sync"] = True
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


