"""Running the engine benchmarks behind `symbiosis bench <engine>`, and
reading their results: tables, pair ratios, the grid's verdicts, the JSON.

The work is done by the engine's native driver, ``leveldb_bench``,
``rocksdb_bench`` or ``wiredtiger_bench`` (tools/, the shared part in
tools/driver/), one process per configuration. This module runs the
configurations in turn, or each static configuration at the same time as a
Symbiosis run (side by side), or each configuration under two budgets at
once; it does not load or keep DBs (kept_db.py) nor parse the command line
(bench_cli.py).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import (Callable, ContextManager, Dict, Iterable, Iterator, List, Optional, Sequence,
                    Set, Tuple)

from symbiosis.engines import ENGINES as ENGINE_TABLE
from symbiosis.errors import InputError

MIB = 1 << 20


ENGINES = tuple(ENGINE_TABLE)  # engines.py


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


class _DriverStderr:
    """A driver's stderr passed through to ours as it comes (its progress
    line included), except its error lines ("<driver>: error: ..."), which
    are kept: the caller reports them, once."""

    def __init__(self, program: str):
        self.marker = f"{program}: error: "
        self.errors: List[str] = []
        self._line = ""          # the start of a line that may be an error line
        self._passing = False    # the current line is being passed through

    def feed(self, text: str) -> None:
        while text:
            end = text.find("\n")
            part, text = (text, "") if end < 0 else (text[:end + 1], text[end + 1:])
            if self._passing:
                sys.stderr.write(part)
            else:
                self._line += part
                complete = part.endswith("\n")
                if self._line.startswith(self.marker):
                    if complete:
                        self.errors.append(self._line[len(self.marker):].strip())
                        self._line = ""
                    continue
                if not complete and self.marker.startswith(self._line):
                    continue  # may yet become an error line
                sys.stderr.write(self._line)
                self._line = ""
                self._passing = not complete
            if part.endswith("\n"):
                self._passing = False
        sys.stderr.flush()

    def close(self) -> None:
        if self._line.startswith(self.marker):
            self.errors.append(self._line[len(self.marker):].strip())
        elif self._line:
            sys.stderr.write(self._line)
        self._line = ""


def failed(run: dict) -> bool:
    """Whether a run failed: some request of it failed (run_config)."""
    return bool(run.get("failed"))


def run_config(db: str, name: str, args: Dict[str, str], show_progress: bool,
               cpus: Optional[Set[int]] = None, engine: str = "leveldb",
               preload: Optional[str] = None) -> dict:
    """Runs one configuration on the DB `db` (the run may change it), on
    the CPUs `cpus` if given, with the library `preload` preloaded if
    given. Returns {summary, timeline, failed, error}: a run with a failed
    request is failed, its error the driver's line (the count and the
    first error), and its summary has no throughput; so is a run whose
    driver ended without a result (killed by the OOM killer, crashed), its
    summary made here. Raises InputError when the driver refuses its
    input, KeyboardInterrupt when it was interrupted."""
    driver = driver_path(engine)
    # <config>+flash-<opts>: the driver's config, and RocksDB's flash tier.
    base, _, flash_opts = name.partition("+flash-")
    command = [driver, "run", "--db", db, "--config", base]
    if flash_opts:
        command += ["--flash-opts", flash_opts]
    if cpus:  # taskset, not preexec_fn: the pairs are started from two threads
        command = ["taskset", "--cpu-list", ",".join(map(str, sorted(cpus)))] + command
    if preload:
        command = ["env", f"LD_PRELOAD={preload}"] + command
    for flag, value in args.items():
        if flag.startswith("flash-") and not flash_opts:
            continue  # a configuration without a flash tier
        if value is True:
            command.append(f"--{flag}")
        elif value is not None:
            command += [f"--{flag}", str(value)]
    if show_progress:
        command.append("--progress")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    stderr = _DriverStderr(f"{engine}_bench")  # the driver's name for itself

    def forward(stream) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in iter(lambda: os.read(stream.fileno(), 4096), b""):
            stderr.feed(decoder.decode(chunk))
        stderr.feed(decoder.decode(b"", final=True))
        stderr.close()

    forwarder = threading.Thread(target=forward, args=(process.stderr,), daemon=True)
    forwarder.start()
    timeline: List[dict] = []
    summary: Optional[dict] = None
    for line in process.stdout:
        record = json.loads(line)
        if record["type"] == "interval":
            timeline.append(record)
        elif record["type"] == "summary":
            summary = record
            summary["name"] = name
    status = process.wait()
    forwarder.join()
    process.stdout.close()
    process.stderr.close()
    error = stderr.errors[0] if stderr.errors else None
    if status == 130:
        raise KeyboardInterrupt
    if summary is not None and summary.get("failed"):
        return {"summary": summary, "timeline": timeline, "failed": True,
                "error": error or f"{summary['errors']} of {summary['requests']} requests "
                                  f"failed; the first: {summary['first_error']}"}
    if status == 2:
        raise InputError(error or f"the {engine} driver refused its input (exit status 2)")
    if status == 0 and summary is not None:
        return {"summary": summary, "timeline": timeline, "failed": False, "error": None}
    # The driver ended without a result (killed, crashed, or failed): a
    # failed run too, and the other configurations still run.
    if error is None and status in (-9, 137):
        error = ("the driver was killed (SIGKILL); under the kernel budget most likely by its "
                 "memory cgroup's OOM killer, the engine's memory outside its caches "
                 "(memtables, index blocks, heap) having outgrown --reserve: raise --reserve "
                 "(dmesg says)")
    error = error or f"the {engine} driver ended with exit status {status} and no result"
    last = timeline[-1] if timeline else {}
    summary = {"name": name, "final_ma_bytes": last.get("ma_bytes", 0), "throughput_ops": None,
               "mean_us": None, "p50_us": None, "p95_us": None, "p99_us": None,
               "hit_app": 0.0, "hit_second_tier": 0.0, "ops": 0, "requests": 0, "errors": 0,
               "failed": True, "first_error": error, "exit_status": status, "controller": None}
    return {"summary": summary, "timeline": timeline, "failed": True, "error": error}


def run_setup(db: str, configs: List[str], driver_args: Dict[str, str], show_progress: bool,
              log: Callable[[str], None], engine: str = "leveldb",
              preload: Optional[str] = None,
              working_copy: Callable[[str], ContextManager[str]] = nullcontext) -> dict:
    """Every configuration on one DB and workload, one after another, each
    on its own `working_copy` of `db` (by default `db` itself)."""
    results = {}
    for name in configs:
        log(f"  {name} ...")
        with working_copy(db) as copy:
            results[name] = run_config(copy, name, driver_args, show_progress, engine=engine,
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
# CPU 0 beside it (docs/decisions/bench-pairs.md). So each static configuration
# is paired --repeats times (default 2), the two runs swapping CPUs every
# time, and its ratio is the geometric mean over its pairs: with an even
# count the CPU's share cancels. Each pair runs on two fresh copies of the
# DB that share no file (KeptDbs.pair_copies), so that each run's page cache
# is its own and no run starts from what an earlier one wrote.
def pair_cpus() -> Tuple[Optional[Set[int]], Optional[Set[int]]]:
    """Half of this process's CPUs for each run of a pair, or no pinning on a
    single CPU or without taskset."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or shutil.which("taskset") is None:
        return None, None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:2 * half])


@contextmanager
def side_by_side(log: Callable[[str], None]) -> Iterator[Tuple[tuple, ThreadPoolExecutor]]:
    """(the CPU sets of a pair's two runs, a pool of two) for runs at the same time."""
    cpu_sets = pair_cpus()
    if cpu_sets[0] is None:
        log("  one CPU or no taskset: the runs of a pair share the CPUs (not pinned)")
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield cpu_sets, pool


PairCopies = Callable[[], ContextManager[Sequence[str]]]


def run_pairs(pair_copies: PairCopies, configs: List[str], driver_args: Dict[str, str],
              show_progress: bool, log: Callable[[str], None], repeats: int = 2,
              engine: str = "leveldb", preload: Optional[str] = None) -> dict:
    """Each static configuration `repeats` times at the same time as a
    Symbiosis run, on alternating CPUs, each pair on the two copies of the
    DB that `pair_copies()` makes.
    Returns {results, pairs}: pairs one per run pair, {static, repeat,
    static_cpus, static_run, symbiosis}; results as run_setup's, with each
    configuration's run of median throughput standing for it (Symbiosis's
    over all its runs; a failed run where every run failed)."""
    statics = [c for c in configs if c != "symbiosis"]
    pairs: List[dict] = []
    with side_by_side(log) as (cpu_sets, pool):
        for name in statics:
            for k in range(repeats):
                log(f"  {name} and symbiosis, side by side"
                    + (f" ({k + 1} of {repeats})" if repeats > 1 else "") + " ...")
                s, y = (0, 1) if len(pairs) % 2 == 0 else (1, 0)
                with pair_copies() as copies:
                    static_run = pool.submit(run_config, copies[0], name, driver_args, False,
                                             cpu_sets[s], engine, preload)
                    sym_run = pool.submit(run_config, copies[1], "symbiosis", driver_args,
                                          show_progress, cpu_sets[y], engine, preload)
                    pairs.append({"static": name, "repeat": k,
                                  "static_cpus": sorted(cpu_sets[s]) if cpu_sets[s] else None,
                                  "static_run": static_run.result(),
                                  "symbiosis": sym_run.result()})
    results: Dict[str, dict] = {}
    for name in statics:
        results[name] = _median_run([p["static_run"] for p in pairs if p["static"] == name])
    results["symbiosis"] = _median_run([p["symbiosis"] for p in pairs])
    return {"results": results, "pairs": pairs}


# The budgets compared. Which of the engine's compressed cache and the page
# cache serves a workload better below the same M is a question of two runs
# of one configuration, one in each budget; run apart, they compare the
# machine's moments more than the budgets (docs/decisions/bench-pairs.md). Run
# at the same time, as run_pairs runs its pairs: two copies of the DB, one
# CPU each, the CPUs swapped at every repeat.
def run_budget_pairs(pair_copies: PairCopies, configs: List[str],
                     driver_args: Dict[str, str], budgets: Tuple[str, str], show_progress: bool,
                     log: Callable[[str], None], repeats: int = 2,
                     engine: str = "leveldb", preload: Optional[str] = None) -> dict:
    """Each configuration `repeats` times under both `budgets` at once, each
    pair on the two copies of the DB that `pair_copies()` makes. Returns
    {results, budget_pairs}: budget_pairs one per run pair, {config,
    repeat, cpus: {budget: cpus}, runs: {budget: run}}; results keyed
    "<config>@<budget>", each the run of median throughput."""
    pairs: List[dict] = []
    with side_by_side(log) as (cpu_sets, pool):
        for name in configs:
            for k in range(repeats):
                log(f"  {name} under the {budgets[0]} and the {budgets[1]} budget, side by "
                    f"side ({k + 1} of {repeats}) ...")
                order = (0, 1) if len(pairs) % 2 == 0 else (1, 0)
                runs, cpus = {}, {}
                with pair_copies() as copies:
                    for i, (budget, side) in enumerate(zip(budgets, order)):
                        flags = dict(driver_args, budget=budget)
                        runs[budget] = pool.submit(run_config, copies[i], name, flags,
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


def budget_pair_ratio(pair: dict, budgets: List[str]) -> Optional[float]:
    """The second budget's throughput over the first's, in one pair; None
    if either run failed."""
    if any(failed(run) for run in pair["runs"].values()):
        return None
    first = pair["runs"][budgets[0]]["summary"]["throughput_ops"]
    second = pair["runs"][budgets[1]]["summary"]["throughput_ops"]
    return second / first if first else 0.0


def budget_ratios(cell: dict) -> Dict[str, float]:
    """Per configuration, the geometric mean of its pairs' ratios (second
    budget over first; 0 if a first-budget run did no work); configurations
    with a failed run are left out."""
    by_config: Dict[str, List[float]] = {}
    broken = set()
    for pair in cell["budget_pairs"]:
        ratio = budget_pair_ratio(pair, cell["budgets"])
        if ratio is None:
            broken.add(pair["config"])
        by_config.setdefault(pair["config"], []).append(ratio or 0.0)
    return {name: geometric_mean(rs) for name, rs in by_config.items() if name not in broken}


def format_budget_pairs(cell: dict) -> str:
    """One row per pair, then each configuration's geometric mean."""
    a, b = cell["budgets"]
    rows = [("config", f"{a} CPUs", f"{a} ops/s", f"{b} ops/s", f"{b}/{a}", f"M_a {a}",
             f"M_a {b}", f"H_a,H_k {a}", f"H_a,H_k {b}")]
    for pair in cell["budget_pairs"]:
        x, y = pair["runs"][a]["summary"], pair["runs"][b]["summary"]
        cpus = ",".join(map(str, pair["cpus"][a])) if pair["cpus"][a] else "-"
        ratio = budget_pair_ratio(pair, [a, b])
        rows.append((pair["config"], cpus, _ops_text(pair["runs"][a]), _ops_text(pair["runs"][b]),
                     f"{ratio:.2f}x" if ratio is not None else "-",
                     f"{x['final_ma_bytes'] / MIB:.0f} MiB", f"{y['final_ma_bytes'] / MIB:.0f} MiB",
                     _hits_text(pair["runs"][a]), _hits_text(pair["runs"][b])))
    lines = _aligned(rows)
    ratios = budget_ratios(cell)
    if ratios:
        lines.append(f"geometric mean of {b}/{a} per configuration: " + ", ".join(
            f"{name} {r:.3f}x" for name, r in ratios.items()))
    return "\n".join(lines + _failure_notes(
        run for p in cell["budget_pairs"] for run in p["runs"].values()))


# The grid asks for steady-state throughput, and a fixed warm-up cannot know
# when a run gets there: with trials of at least 5 s a round can outlast a
# 40 s warm-up (docs/decisions/bench-pairs.md), and the measured part then
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
    the window starts), or None where the pair has no such window or a run
    failed."""
    if failed(pair["symbiosis"]) or failed(pair["static_run"]):
        return None
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
    """The run of median throughput among those that did not fail; a
    failed one if all did."""
    ordered = sorted((r for r in runs if not failed(r)), key=lambda r: r["summary"]["throughput_ops"])
    return ordered[(len(ordered) - 1) // 2] if ordered else runs[0]


def pair_ratio(pair: dict) -> Optional[float]:
    """Symbiosis's throughput over the static run's, in one pair; None if
    either run failed."""
    if failed(pair["symbiosis"]) or failed(pair["static_run"]):
        return None
    static = pair["static_run"]["summary"]["throughput_ops"]
    return pair["symbiosis"]["summary"]["throughput_ops"] / static if static else 0.0


def pair_ratios(cell: dict, after_stable: bool = False) -> Dict[str, float]:
    """Per static configuration, the geometric mean of its pairs' ratios
    (0 if a static run did no work); `after_stable`: each pair's after
    Stable where it has one. A configuration with a failed pair (its run
    or Symbiosis's) is left out: it has no throughput to compare."""
    by_static: Dict[str, List[float]] = {}
    broken = set()
    for pair in cell["pairs"]:
        ratio = pair_ratio(pair)
        if ratio is None:
            broken.add(pair["static"])
            continue
        stable = stable_pair_ratio(pair) if after_stable else None
        by_static.setdefault(pair["static"], []).append(stable[0] if stable else ratio)
    return {name: geometric_mean(rs) for name, rs in by_static.items() if name not in broken}


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
        y = pair["symbiosis"]["summary"]
        cpus = ",".join(map(str, pair["static_cpus"])) if pair.get("static_cpus") else "-"
        stable = stable_pair_ratio(pair)
        ratio = pair_ratio(pair)
        rows.append((pair["static"], cpus, _ops_text(pair["static_run"]),
                     _ops_text(pair["symbiosis"]), f"{ratio:.2f}x" if ratio is not None else "-",
                     f"{stable[0]:.2f}x ({stable[1]:.0f} s)" if stable else "-",
                     f"{y['final_ma_bytes'] / MIB:.0f} MiB",
                     "-" if failed(pair["symbiosis"]) else f"{y['hit_app']:.3f}",
                     "-" if failed(pair["symbiosis"]) else f"{y['hit_second_tier']:.3f}"))
    lines = _aligned(rows)
    ratios = pair_ratios(cell)
    statics = {pair["static"] for pair in cell["pairs"]}
    if ratios and len(cell["pairs"]) > len(statics):
        stable = pair_ratios(cell, after_stable=True)
        lines.append("geometric mean per configuration (after Stable): " + ", ".join(
            f"{name} {r:.3f}x ({stable[name]:.3f}x)" for name, r in ratios.items()))
    return "\n".join(lines + _failure_notes(
        run for p in cell["pairs"] for run in (p["static_run"], p["symbiosis"])))


def _hits_text(run: dict) -> str:
    """A run's H_a,H_k for a table, or - when it failed."""
    s = run["summary"]
    return "-" if failed(run) else f"{s['hit_app']:.2f},{s['hit_second_tier']:.2f}"


def _ops_text(run: dict) -> str:
    """A run's throughput for a table, or FAILED."""
    return "FAILED" if failed(run) else f"{run['summary']['throughput_ops']:.0f}"


def _failure_notes(runs: Iterable[dict]) -> List[str]:
    """A line per failed run: which, and the driver's error."""
    return [f"{run['summary']['name']} FAILED: {run['error']}" for run in runs if failed(run)]


def _flash_text(run: dict) -> Tuple[str, str, str]:
    """A run's flash tier over the whole run, for a table: its hit ratio
    (hits over the lookups that read flash), MiB written, and IBOR at the
    end (invalid entries over entries); - without a tier."""
    c = run["summary"].get("engine_counters") or {}
    if "flash_lookups" not in c or failed(run):
        return "-", "-", "-"
    hit = c["flash_hits"] / c["flash_lookups"] if c["flash_lookups"] else 0.0
    ibor = c["flash_invalid_entries"] / c["flash_entries"] if c["flash_entries"] else 0.0
    return f"{hit:.3f}", f"{c['flash_bytes_written'] / MIB:.0f}", f"{ibor:.3f}"


def format_table(results: Dict[str, dict]) -> str:
    """One row per configuration; a failed one shows FAILED and no numbers,
    and its error below the table. Runs with RocksDB's flash tier add its
    hit ratio, MiB written and IBOR."""
    flash = any("+flash-" in name for name in results)
    rows = [("config", "final M_a", "ops/s", "mean us", "p99 us", "H_a", "H_k")
            + (("flash hit", "flash MiB written", "IBOR") if flash else ())]
    for name, r in results.items():
        s = r["summary"]
        tier = _flash_text(r) if flash else ()
        if failed(r):
            rows.append((name, f"{s['final_ma_bytes'] / MIB:.0f} MiB", "FAILED", "-", "-", "-",
                         "-") + tier)
            continue
        rows.append((name, f"{s['final_ma_bytes'] / MIB:.0f} MiB", f"{s['throughput_ops']:.0f}",
                     f"{s['mean_us']:.1f}", f"{s['p99_us']:.1f}", f"{s['hit_app']:.3f}",
                     f"{s['hit_second_tier']:.3f}") + tier)
    return "\n".join(_aligned(rows) + _failure_notes(results.values()))


def _aligned(rows: List[Tuple[str, ...]]) -> List[str]:
    """Text columns: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
            for row in rows]


def grid_verdicts(cells: List[dict]) -> List[dict]:
    """Symbiosis against the static configurations of each cell: the better
    of static-default and static-max, the best static configuration run (the
    oracle when the sweep ran) and the worse baseline. Cells without
    symbiosis or without both baselines, or where one of them failed, are
    left out (a failed static run is not an oracle). Side-by-side cells
    compare within each pair: Symbiosis against the better baseline is the
    smaller of its two pair ratios."""
    out = []
    for cell in cells:
        if "pairs" in cell:
            verdict = _pair_verdict(cell)
            if verdict:
                out.append(verdict)
            continue
        tput = {name: r["summary"]["throughput_ops"] for name, r in cell["results"].items()
                if not failed(r)}
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
        ratio = pair_ratio(pair)
        if ratio is None:
            return None
        pairs_by_repeat.setdefault(pair["repeat"], {}).setdefault(pair["static"], []).append(
            ratio)
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
    if ("static-default" not in ratios or "static-max" not in ratios
            or any(failed(p["symbiosis"]) for p in cell["pairs"])):
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


def _stable_fields(pair: dict) -> dict:
    """A pair's ratio after Stable and where that window starts, for the
    JSON (null where the pair has none)."""
    stable = stable_pair_ratio(pair)
    return {"ratio_after_stable": stable[0] if stable else None,
            "stable_from_s": stable[1] if stable else None}


def make_output(cells: List[dict], memory: int, args) -> dict:
    """The JSON schema shared by the engine drivers: one cell per (workload,
    data size); the first cell's configs also at the top level. A failed
    configuration has "failed": true, its "error", and null throughput,
    latencies and ratios."""
    def configs_of(cell: dict) -> List[dict]:
        out = []
        for name, r in cell["results"].items():
            s = r["summary"]
            broken = failed(r)
            out.append({"name": name, "failed": broken, "error": r.get("error"),
                        "final_ma_bytes": s["final_ma_bytes"],
                        "throughput_ops": s["throughput_ops"], "mean_us": s["mean_us"],
                        "p95_us": s["p95_us"], "p99_us": s["p99_us"],
                        "hit_app": None if broken else s["hit_app"],
                        "hit_second_tier": None if broken else s["hit_second_tier"],
                        "summary": s, "timeline": r["timeline"]})
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
                for name, ratio in ((n, ratios.get(n)) for n in
                                    dict.fromkeys(p["static"] for p in c["pairs"]))]
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
                for name, ratio in ((n, ratios.get(n)) for n in
                                    dict.fromkeys(p["config"] for p in c["budget_pairs"]))]
        return out
    budgets = cells[0].get("budgets")
    return {"engine": args.engine, "memory_bytes": memory,
            "budget": list(budgets) if budgets else args.budget, "allocator": args.allocator,
            "side_by_side": bool(args.side_by_side),
            "repeats": (args.repeats or 2) if args.side_by_side or budgets else 1,
            "configs": configs_of(cells[0]),
            "cells": [cell_of(c) for c in cells]}
