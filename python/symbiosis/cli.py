"""The ``symbiosis`` command line.

Every subcommand prints a human-readable report, writes ``--json`` for
machines and ``--plot`` for people. Bad input ends with one line on stderr
that says what is wrong and what to do, and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence, TextIO

from symbiosis import _native
from symbiosis import converters as cv
from symbiosis.bench_cli import add_bench_parser
from symbiosis.errors import CommandFailed
from symbiosis.mrc import add_mrc_parser
from symbiosis.outputs import OutputFiles, json_writer
from symbiosis.redis_arbiter import add_arbiter_parser
from symbiosis.study import SimConfig, SimReport, build_trace, run_sim
from symbiosis.units import format_bytes

SIM_EPILOG = """\
how to read the output:
  Each row is one split of the budget M: the application cache holds M_a of
  uncompressed blocks, the kernel page cache the rest (M_k = M - M_a) of
  compressed pages. H_a is the application hit ratio, H_k the kernel hit ratio
  among application misses, and L_e = (1 - H_a)(C_a + (1 - H_k) C_k) the
  expected cost of a read in the units of --ca/--ck (only their ratio matters).
  The lowest L_e is the best split; it is compared with the two usual static
  choices, M_a = 0 (everything to the kernel) and M_a = M.

examples:
  symbiosis sim --workload hotspot20 --data-size 2GiB --memory 1GiB --plot sim.png
  symbiosis sim --workload zipfian --alpha 0.22 --ca 3 --ck 16 --json out.json
  symbiosis sim --phases "hotspot20@1GiB*5M;hotspot20@2GiB*5M" --data-size 2GiB
  symbiosis sim --trace cloudPhysicsIO.oracleGeneral.bin --format oracleGeneral \\
      --block-size 4096 --memory 64MiB
"""


def _add_source_args(p: argparse.ArgumentParser, accesses_default: int,
                     accesses_help: str) -> None:
    """The workload or trace flags that `sim` and `replay` share."""
    src = p.add_argument_group("workload (synthetic) or trace")
    src.add_argument("--workload", default="hotspot20",
                     help="uniform, zipfian, hotspot10/20/30 (-T: hot keys at the tail), "
                          "readscan, mixgraph, strided, or name:key=value,... "
                          "(default: %(default)s)")
    src.add_argument("--phases", default=None,
                     help='dynamic workload: "spec@size*count;spec@size*count", each phase '
                          "reading a prefix of the data set of that size")
    src.add_argument("--data-size", type=cv.size("--data-size"), default=2 << 30,
                     help="uncompressed data size D_u (default: 2GiB)")
    src.add_argument("--accesses", type=cv.count("--accesses"), default=accesses_default,
                     help=accesses_help)
    src.add_argument("--seed", type=cv.seed, default=1,
                     help="random seed (default: 1)")
    src.add_argument("--trace", default=None,
                     help="replay a trace file instead of a workload (then --workload, "
                          "--data-size, --accesses, --seed and --entry-size are not used)")
    src.add_argument("--format", dest="trace_format", default="oracleGeneral",
                     help="trace format: oracleGeneral, csv or txt (default: %(default)s)")
    src.add_argument("--columns", default="",
                     help='csv column map, e.g. "key=5,size=4,header=1"')
    src.add_argument("--max-records", type=cv.count("--max-records"), default=0,
                     help="read at most this many trace records (default: all)")


def _add_layout_args(p: argparse.ArgumentParser) -> None:
    """How blocks are laid out on disk: shared by `sim` and `replay`."""
    lay = p.add_argument_group("data layout")
    lay.add_argument("--alpha", type=cv.fraction("--alpha", True, False), default=0.5,
                     help="compression ratio D_c/D_u in (0, 1] (default: 0.5)")
    lay.add_argument("--block-size", type=cv.block_size, default=4096,
                     help="uncompressed block size (default: 4KiB, LevelDB's); with --trace, "
                          "'trace' takes each key's size from the trace")
    lay.add_argument("--entry-size", type=cv.size("--entry-size", cv.MAX_BLOCK), default=128,
                     help="bytes per key-value entry (default: 128)")
    lay.add_argument("--file-size", type=cv.size("--file-size"), default=2 << 20,
                     help="on-disk file size (default: 2MiB, LevelDB's)")
    lay.add_argument("--aligned", action="store_true",
                     help="pad blocks to whole pages (no misalignment)")


def _add_sim_args(p: argparse.ArgumentParser) -> None:
    _add_source_args(p, 0, "block accesses to simulate (default: 20 per block)")
    _add_layout_args(p)
    cache = p.add_argument_group("caches and costs")
    cache.add_argument("--memory", type=cv.size("--memory"), default=1 << 30,
                       help="memory budget M = M_a + M_k (default: 1GiB)")
    cache.add_argument("--ca", type=cv.nonnegative("--ca"), default=3.0,
                       help="C_a, cost of an application miss served from memory (default: 3)")
    cache.add_argument("--ck", type=cv.nonnegative("--ck"), default=16.0,
                       help="C_k, cost of a device read (default: 16)")
    cache.add_argument("--points", type=cv.int_in("--points", 2, cv.MAX_POINTS), default=33,
                       help="splits to simulate, M_a = i*M/(points-1), 2 to "
                            f"{cv.MAX_POINTS} (default: 33)")
    cache.add_argument("--kernel-model", default="linux", choices=["linux", "lru", "block-lru"],
                       help="linux: page cache with 2Q and read-ahead; lru: page LRU; "
                            "block-lru: LRU of whole blocks (default: linux)")
    cache.add_argument("--max-readahead", type=cv.positive_int("--max-readahead"), default=32,
                       help="read-ahead window limit in 4 KiB pages (default: 32 = 128 KiB)")
    cache.add_argument("--exclusive", action="store_true",
                       help="exclusive kernel cache: blocks admitted to the application "
                            "cache leave the kernel cache and return on eviction")
    cache.add_argument("--warmup", type=cv.fraction("--warmup", False, True), default=0.25,
                       help="leading fraction of accesses not counted (default: 0.25)")
    cache.add_argument("--threads", type=cv.threads, default=0,
                       help="worker threads (default: 0, one per core)")

    out = p.add_argument_group("output")
    out.add_argument("--json", default=None, help="write the full result as JSON to this file")
    out.add_argument("--plot", type=cv.plot_path, default=None,
                     help="write a PNG plot of L_e, H_a, H_k against M_a (a .png path)")
    out.add_argument("--quiet", action="store_true", help="no table, no progress bar")


def _source_config(args: argparse.Namespace) -> SimConfig:
    """The workload or trace of `sim` and `replay` (and their common cache
    flags) as a SimConfig, checked for conflicting flags."""
    if args.block_size == 0 and not args.trace:
        raise _native.InputError("--block-size trace needs --trace; give a size such as 4KiB")
    if args.trace and args.phases:
        raise _native.InputError("--phases and --trace exclude each other; give one")
    if args.phases is not None and not args.phases.strip():
        raise _native.InputError("--phases is empty; give e.g. \"hotspot20@1GiB*5M;hotspot20@2GiB*5M\"")
    workload = args.phases if args.phases else args.workload
    return SimConfig(
        workload=workload, data_bytes=args.data_size, memory_bytes=args.memory,
        alpha=args.alpha, ca=args.ca, ck=args.ck, kernel_model=args.kernel_model,
        max_readahead_pages=args.max_readahead, accesses=args.accesses, seed=args.seed,
        block_bytes=args.block_size, entry_bytes=args.entry_size,
        file_bytes=args.file_size, aligned=args.aligned, trace=args.trace,
        trace_format=args.trace_format, columns=args.columns, max_records=args.max_records)


def _sim_config(args: argparse.Namespace) -> SimConfig:
    config = _source_config(args)
    config.points = args.points
    config.exclusive = args.exclusive
    config.warmup = args.warmup
    config.threads = args.threads
    return config


def print_sim(report: SimReport, out: TextIO = sys.stdout) -> None:
    """Prints the study as a table with the best split marked, and a summary."""
    c = report.config
    source = f"trace {c.trace}" if c.trace else f"workload {c.workload}"
    print(f"{source}: {report.num_blocks} blocks, D_u = {format_bytes(report.data_bytes)}, "
          f"D_c = {format_bytes(report.disk_bytes)}, "
          f"{report.misaligned_fraction:.0%} of blocks straddle a page boundary, "
          f"{report.num_accesses} accesses ({report.counted_accesses} counted)", file=out)
    print(f"M = {format_bytes(c.memory_bytes)}, C_a = {c.ca:g}, C_k = {c.ck:g}, "
          f"kernel model: {c.kernel_model}{', exclusive' if c.exclusive else ''}", file=out)
    print(f"\n{'M_a':>10} {'M_k':>10} {'H_a':>7} {'H_k':>7} {'L_e':>9}", file=out)
    for p in report.points:
        mark = "  <- best" if p["ma_bytes"] == report.best["ma_bytes"] else ""
        print(f"{format_bytes(p['ma_bytes']):>10} {format_bytes(p['mk_bytes']):>10} "
              f"{p['hit_app']:7.4f} {p['hit_second_tier']:7.4f} {p['latency']:9.4f}{mark}", file=out)
    best = report.best
    all_kernel, all_app = report.points[0], report.points[-1]
    print(f"\nbest split: M_a = {format_bytes(best['ma_bytes'])} "
          f"({best['ma_bytes'] / c.memory_bytes:.0%} of M), L_e = {best['latency']:.4f}", file=out)
    for name, p in (("M_a = 0", all_kernel), ("M_a = M", all_app)):
        ratio = p["latency"] / best["latency"] if best["latency"] > 0 else (
            1.0 if p["latency"] == 0 else float("inf"))
        print(f"  {name:8} L_e = {p['latency']:.4f} ({ratio:.2f}x the best)", file=out)


def cmd_sim(args: argparse.Namespace) -> int:
    """`symbiosis sim`: the two-level study."""
    outputs = OutputFiles({"--json": args.json, "--plot": args.plot})
    config = _sim_config(args)
    report = run_sim(config, progress=not args.quiet and sys.stderr.isatty())

    def plot(path: str) -> None:
        from symbiosis.plots import plot_sim
        plot_sim(report, path)
    outputs.write({"--json": json_writer(report.to_json()), "--plot": plot})
    if not args.quiet:
        print_sim(report)
        _say_plot_written(args.plot)
    return 0


def _say_plot_written(path: Optional[str]) -> None:
    if path:
        print(f"plot written to {path}")


REPLAY_DESCRIPTION = """\
What would Symbiosis do with this workload? Runs the real online Controller
(the code an engine plugin links) over a synthetic workload or a recorded
trace. The engine it steers is simulated: an LRU application cache of M_a
bytes over a kernel page cache of M - M_a, whose hits and misses come from
the simulator's models (as in 'symbiosis sim') and are reported to the
Controller access by access, with service times C_a or C_a + C_k. The
Controller measures L_e, starts rounds, predicts L_e for each candidate M_a
from its sampled ghosts, and resizes both caches. Every round is printed
with its trigger, candidates, predictions and decision, then the final M_a.
"""

REPLAY_EPILOG = """\
how to read the output:
  One block per round of the Controller. A round starts at 'start access'
  for the reason shown as 'trigger' (the first round at start; later ones
  when the measured L_e moves by more than 10% from its reference). Each row
  is one candidate split, M_a = i*M/8 (the one nearest the current M_a is
  moved onto it): the ghosts' predicted H_a, H_k and
  L_e = (1 - H_a)(C_a + (1 - H_k) C_k) from 'samples' sampled accesses.
  '<- current' marks the M_a the engine ran during the round, '<- adopted'
  the one the Controller moved to, '<- best' the lowest prediction when it
  was not adopted. The decision is 'adopted' (the best candidate predicts at
  least 10% less than the simulated current split), 'rejected' (no gain, too
  few samples, or the model disagreed with the measured L_e: then nothing
  changes) or 'abandoned' (the workload changed during the round); the
  reason says which. Costs are in the units of --ca/--ck; see docs/replay.md.

examples:
  symbiosis replay --workload hotspot20 --data-size 2GiB --memory 1GiB --plot replay.png
  symbiosis replay --phases "hotspot20@1GiB*4M;uniform@2GiB*4M" --data-size 2GiB --json r.json
  symbiosis replay --trace my.oracleGeneral.bin --memory 4GiB --sample-rate 1/16
A round takes about 1 to 2M accesses (warm-up, then 9 candidates of 85k
each); a shorter trace ends with the first round still running.
"""


def _sample_rate(text: str) -> float:
    """R in (0, 1], as a fraction "1/64" or a decimal "0.015625"."""
    what = "--sample-rate"
    try:
        if "/" in text:
            num, den = text.split("/", 1)
            value = float(num) / float(den)
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError):
        raise _native.InputError(f"{what}: '{text}' is not a sampling rate; give e.g. 1/64 or 0.015625")
    if not 0 < value <= 1:
        raise _native.InputError(f"{what}: {text} is outside (0, 1]; the sampled fraction of "
                                 "accesses, e.g. 1/64")
    return value
_sample_rate.__name__ = "rate"


def _rate_text(rate: float) -> str:
    """1/64 for 0.015625; a decimal when 1/R is not a whole number."""
    inverse = 1 / rate
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{rate:g}"


def _add_replay_args(p: argparse.ArgumentParser) -> None:
    _add_source_args(p, 4_000_000, "block accesses to replay (default: 4M, enough for the "
                                   "first round and its settling; 0: 20 per block)")
    _add_layout_args(p)
    ctl = p.add_argument_group("engine and Controller")
    ctl.add_argument("--memory", type=cv.size("--memory"), default=1 << 30,
                     help="memory budget M = M_a + M_k (default: 1GiB)")
    ctl.add_argument("--ca", type=cv.nonnegative("--ca"), default=3.0,
                     help="C_a, the simulated engine's cost of an application miss served from "
                          "memory; also the Controller's starting estimate (default: 3)")
    ctl.add_argument("--ck", type=cv.nonnegative("--ck"), default=16.0,
                     help="C_k, the simulated engine's cost of a device read (default: 16)")
    ctl.add_argument("--kernel-model", default="linux", choices=["linux", "lru", "block-lru"],
                     help="the simulated engine's kernel cache: linux (2Q, read-ahead), lru "
                          "(page LRU) or block-lru (default: linux)")
    ctl.add_argument("--ghost-kernel-model", default="linux", choices=["linux", "lru", "block-lru"],
                     help="the Controller's own kernel ghost, which predicts H_k for each "
                          "candidate (default: linux)")
    ctl.add_argument("--sample-rate", type=_sample_rate, default=1 / 64,
                     help="R, the fraction of accesses the ghosts see, as 1/64 or 0.015625 "
                          "(default: 1/64)")
    ctl.add_argument("--max-readahead", type=cv.positive_int("--max-readahead"), default=32,
                     help="read-ahead window limit in 4 KiB pages (default: 32 = 128 KiB)")
    ctl.add_argument("--interval", type=cv.count("--interval"), default=100_000,
                     help="accesses per timeline point of L_e and M_a in --json and --plot "
                          "(default: 100k, the Controller's window)")

    out = p.add_argument_group("output")
    out.add_argument("--json", default=None,
                     help="write the rounds, final M_a and timeline as JSON to this file")
    out.add_argument("--plot", type=cv.plot_path, default=None,
                     help="write a PNG of L_e and M_a over the replay (a .png path)")
    out.add_argument("--quiet", action="store_true", help="no table, no progress bar")


REPLAY_MIN_MEMORY = 8 << 20  # ControllerConfig::default_ma_bytes (LevelDB's 8 MiB)
REPLAY_GROUP_BLOCKS = 32  # ControllerConfig::group_blocks, G


def run_replay(args: argparse.Namespace, progress: bool = False) -> dict:
    """Builds the trace as `sim` does and runs the Controller over it; the
    Controller's stats (rounds ...) with final_ma_bytes, mean_latency,
    timeline, and the inputs under config."""
    if args.interval == 0:
        raise _native.InputError("--interval must be at least 1 access, e.g. 100k")
    if args.memory < REPLAY_MIN_MEMORY:
        raise _native.InputError(
            f"--memory: M = {format_bytes(args.memory)} is below the engine's default "
            f"application cache ({format_bytes(REPLAY_MIN_MEMORY)}), the smallest M_a the "
            "Controller uses; give at least 8MiB")
    config = _source_config(args)
    trace = build_trace(config)
    result = _native.replay(trace, args.memory, args.ca, args.ck, args.kernel_model,
                            args.ghost_kernel_model, args.sample_rate, args.max_readahead,
                            args.interval, progress)
    result["config"] = {
        "workload": None if config.trace else config.workload, "trace": config.trace,
        "data_bytes": config.data_bytes, "memory_bytes": config.memory_bytes,
        "alpha": config.alpha, "ca": config.ca, "ck": config.ck,
        "kernel_model": args.kernel_model, "ghost_kernel_model": args.ghost_kernel_model,
        "sample_rate": args.sample_rate, "max_readahead_pages": args.max_readahead,
        "accesses": config.accesses, "seed": config.seed, "block_bytes": config.block_bytes,
        "interval": args.interval}
    result["num_blocks"] = trace.num_blocks
    result["num_accesses"] = trace.num_accesses
    result["trace_data_bytes"] = trace.data_bytes
    result["trace_disk_bytes"] = trace.disk_bytes
    # About how many groups of G blocks the ghosts' sample holds: their
    # predictions vary by roughly 1/sqrt of that.
    result["expected_sampled_groups"] = trace.num_blocks / REPLAY_GROUP_BLOCKS * args.sample_rate
    return result


def _round_marks(rnd: dict, c: dict, best: Optional[dict]) -> str:
    marks = []
    if c["current"]:
        marks.append("current")
    if rnd["decision"] == "adopted" and c["ma_bytes"] == rnd["adopted_ma_bytes"]:
        marks.append("adopted")
    elif rnd["decision"] == "rejected" and c is best and not c["current"]:
        marks.append("best")
    if c.get("overcommits"):
        marks.append("over the budget")
    elif c["samples"] and not c["valid"]:
        marks.append("too few samples")
    return "  <- " + ", ".join(marks) if marks else ""


def print_replay(result: dict, out: TextIO = sys.stdout) -> None:
    """Each round as a table of candidates, then the final M_a."""
    c = result["config"]
    memory = c["memory_bytes"]
    source = f"trace {c['trace']}" if c["trace"] else f"workload {c['workload']}"
    print(f"{source}: {result['num_blocks']} blocks, "
          f"D_u = {format_bytes(result['trace_data_bytes'])}, "
          f"D_c = {format_bytes(result['trace_disk_bytes'])}, "
          f"{result['num_accesses']} accesses", file=out)
    print(f"M = {format_bytes(memory)}, C_a = {c['ca']:g}, C_k = {c['ck']:g}, "
          f"engine kernel: {c['kernel_model']}, Controller's kernel ghost: "
          f"{c['ghost_kernel_model']}, R = {_rate_text(c['sample_rate'])}", file=out)
    rounds = result["rounds"]
    if not rounds:
        print("\nno round: the trace ended before the Controller started one", file=out)
    for i, rnd in enumerate(rounds, 1):
        running = rnd["end_access"] == 0
        end = "still running at the end" if running else f"end access {rnd['end_access']}"
        print(f"\nround {i}: start access {rnd['start_access']}, {end}, "
              f"trigger: {rnd['trigger']}", file=out)
        share = rnd.get("sampled_share", 0)
        if share and c["sample_rate"] < 1:
            print(f"  the sample holds {share / c['sample_rate']:.3f} R of the data "
                  f"(counted from the file sizes); predictions are scaled by that", file=out)
        if rnd["reset"]:
            print(f"  L_e rose, so M_a first shrank to the engine's default "
                  f"({format_bytes(rnd['current_ma_bytes'])}) before simulating", file=out)
        valid = [x for x in rnd["candidates"] if x["valid"]]
        best = min(valid, key=lambda x: x["predicted_latency"]) if valid else None
        print(f"  {'M_a':>10} {'H_a':>7} {'H_k':>7} {'samples':>8} {'predicted L_e':>14}",
              file=out)
        for cand in rnd["candidates"]:
            if cand["samples"] == 0 and not cand["valid"]:
                row = f"{'-':>7} {'-':>7} {0:8d} {'not measured':>14}"
            else:
                row = (f"{cand['hit_app']:7.4f} {cand['hit_second_tier']:7.4f} {cand['samples']:8d} "
                       f"{cand['predicted_latency']:14.4f}")
            print(f"  {format_bytes(cand['ma_bytes']):>10} {row}"
                  f"{_round_marks(rnd, cand, best)}", file=out)
        if running:
            more = ("a longer trace" if c["trace"] else "more --accesses")
            print(f"  decision: none yet: the trace ended during the round (a round takes about "
                  f"1 to 2M accesses); give {more}", file=out)
            continue
        if rnd["measured_latency"] or rnd["simulated_latency"]:
            print(f"  current M_a: measured L_e {rnd['measured_latency']:.4f}, "
                  f"simulated {rnd['simulated_latency']:.4f}", file=out)
        if rnd["decision"] == "adopted":
            what = f"adopted M_a = {format_bytes(rnd['adopted_ma_bytes'])}"
        else:
            what = f"{rnd['decision']}, M_a stays {format_bytes(rnd['adopted_ma_bytes'])}"
        print(f"  decision: {what}", file=out)
        print(f"  reason: {rnd['reason']}", file=out)
    final = result["final_ma_bytes"]
    print(f"\nfinal M_a = {format_bytes(final)} ({final / memory:.0%} of M), "
          f"M_k = {format_bytes(memory - final)}; Controller state: {result['state']}", file=out)
    costs = result["costs"]
    print(f"mean L_e over the replay = {result['mean_latency']:.4f}; the Controller measured "
          f"C_a = {costs['app_miss']:.3g}, C_k = {costs['second_tier_miss']:.3g}", file=out)
    groups = result["expected_sampled_groups"]
    if groups < 100:
        print(f"note: the ghosts' sample holds about {groups:.0f} groups of "
              f"{REPLAY_GROUP_BLOCKS} blocks, so predictions vary by roughly "
              f"{1 / max(groups, 1) ** 0.5:.0%}, against the 10% gain a candidate must show; "
              "raise --sample-rate (e.g. 1/8) for steadier rounds", file=out)


def cmd_replay(args: argparse.Namespace) -> int:
    """`symbiosis replay`: the online Controller over a workload or trace."""
    outputs = OutputFiles({"--json": args.json, "--plot": args.plot})
    result = run_replay(args, progress=not args.quiet and sys.stderr.isatty())

    def plot(path: str) -> None:
        from symbiosis.plots import plot_replay
        plot_replay(result, path)
    outputs.write({"--json": json_writer(result), "--plot": plot})
    if not args.quiet:
        print_replay(result)
        _say_plot_written(args.plot)
    return 0


KERNEL_EPILOG = """\
how to read the output:
  The block reads of the workload go straight to a kernel cache (no
  application cache above it), for kernel cache sizes from D_c/sizes to D_c.
  'kernel' is the full page-cache model (2Q, refault activation, read-ahead),
  the reference; every other model's hit ratio is compared with it, and its
  mean and largest absolute error are printed. 'sampled' hashes single
  blocks, 'm-aware' groups of G blocks (misalignment-aware sampling), and
  'ghost' runs the full model on that sample, as Symbiosis does online.

example:
  symbiosis kernel-models --workload zipfian --data-size 512MiB --rate 0.015625 --plot k.png
"""


def cmd_kernel_models(args: argparse.Namespace) -> int:
    """`symbiosis kernel-models`: kernel models against the full page model."""
    from symbiosis.kernel_models import run_kernel_models
    outputs = OutputFiles({"--json": args.json, "--plot": args.plot})
    result = run_kernel_models(
        workload=args.workload, data_bytes=args.data_size, alpha=args.alpha,
        sizes=args.sizes, rate=args.rate, group=args.group, accesses=args.accesses,
        seed=args.seed, block_bytes=args.block_size, max_readahead_pages=args.max_readahead,
        warmup=args.warmup, threads=args.threads,
        progress=not args.quiet and sys.stderr.isatty(), trace=args.trace,
        trace_format=args.trace_format, columns=args.columns, max_records=args.max_records)

    def plot(path: str) -> None:
        from symbiosis.plots import plot_lines
        caps = [c / (1 << 20) for c in result["capacities"]]
        plot_lines(path, f"kernel cache models: {args.trace or args.workload}, "
                   f"R={args.rate:g}, G={args.group}", "kernel cache size (MiB)",
                   "kernel hit ratio",
                   [(f"{c['model']} (MAE {c['mean_abs_error']:.3f})", caps, c["hit_ratio"])
                    for c in result["curves"]], ylim=(0, 1.02))
    outputs.write({"--json": json_writer(result), "--plot": plot})
    if not args.quiet:
        caps = result["capacities"]
        print(f"D_c = {format_bytes(result['disk_bytes'])}, {result['num_accesses']} block reads, "
              f"sampling R = {args.rate:g}, G = {args.group}")
        header = f"{'model':>12} " + " ".join(f"{format_bytes(c):>9}" for c in caps)
        print(header + f" {'MAE':>7} {'max':>7}")
        for curve in result["curves"]:
            row = " ".join(f"{h:9.4f}" for h in curve["hit_ratio"])
            print(f"{curve['model']:>12} {row} {curve['mean_abs_error']:7.4f} "
                  f"{curve['max_abs_error']:7.4f}")
        groups = result["expected_sampled_groups"]
        if groups < 1000:
            print(f"note: the sample holds about {groups:.0f} groups of {args.group} blocks, so "
                  f"the sampled curves vary by roughly {1 / max(groups, 1) ** 0.5:.0%}; "
                  "raise --data-size or --rate for a steadier comparison")
        _say_plot_written(args.plot)
    return 0


def cmd_figures(args: argparse.Namespace) -> int:
    """`symbiosis figures`: regenerates the documentation figures."""
    from symbiosis.figures import FIGURES, make_figures
    names = args.only.split(",") if args.only else FIGURES
    make_figures(args.out, names, args.memory, args.points,
                 log=(lambda m: None) if args.quiet else (lambda m: print(m, flush=True)))
    if not args.quiet:
        print(f"figures written to {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = cv.Parser(
        prog="symbiosis",
        description="Split a memory budget between a storage engine's application cache "
                    "and the kernel page cache: offline studies of the two-level cache.",
        epilog="Run 'symbiosis <command> --help' for each command's options.")
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=cv.Parser)
    sim = sub.add_parser(
        "sim", help="sweep the application cache size M_a from 0 to M and find the best split",
        description="Simulate the application cache (LRU of uncompressed blocks) above the "
                    "kernel page cache for every split of the budget M and report the "
                    "expected latency L_e of each.",
        epilog=SIM_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_sim_args(sim)
    sim.set_defaults(func=cmd_sim)

    replay = sub.add_parser(
        "replay", help="run the online Controller over a workload or trace and show its rounds",
        description=REPLAY_DESCRIPTION,
        epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_replay_args(replay)
    replay.set_defaults(func=cmd_replay)

    km = sub.add_parser(
        "kernel-models", help="compare kernel-cache models and sampled ghosts with the full page model",
        description="Hit-ratio curves of the kernel cache under several models (paper Fig. 7).",
        epilog=KERNEL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    km.add_argument("--workload", default="zipfian", help="workload spec (default: zipfian)")
    km.add_argument("--data-size", type=cv.size("--data-size"), default=512 << 20,
                    help="uncompressed data size D_u (default: 512MiB)")
    km.add_argument("--alpha", type=cv.fraction("--alpha", True, False), default=0.5,
                    help="compression ratio (default: 0.5)")
    km.add_argument("--block-size", type=cv.size("--block-size", cv.MAX_BLOCK), default=4096,
                    help="uncompressed block size (default: 4KiB)")
    km.add_argument("--sizes", type=cv.positive_int("--sizes", 1024), default=16,
                    help="kernel cache sizes to simulate, D_c/sizes .. D_c (default: 16)")
    km.add_argument("--rate", type=cv.fraction("--rate", True, False), default=1 / 64,
                    help="sampling rate R of the sampled models (default: 1/64)")
    km.add_argument("--group", type=cv.positive_int("--group"), default=32,
                    help="G, blocks per sampling group (default: 32)")
    km.add_argument("--accesses", type=cv.count("--accesses"), default=0,
                    help="block reads (default: 20 per block)")
    km.add_argument("--seed", type=cv.seed, default=1, help="random seed (default: 1)")
    km.add_argument("--max-readahead", type=cv.positive_int("--max-readahead"), default=32,
                    help="read-ahead window limit in pages (default: 32)")
    km.add_argument("--warmup", type=cv.fraction("--warmup", False, True), default=0.25,
                    help="leading fraction of reads not counted (default: 0.25)")
    km.add_argument("--threads", type=cv.threads, default=0,
                    help="worker threads (default: 0, one per core)")
    km.add_argument("--trace", default=None, help="replay a trace file instead")
    km.add_argument("--format", dest="trace_format", default="oracleGeneral",
                    help="trace format: oracleGeneral, csv or txt (default: %(default)s)")
    km.add_argument("--columns", default="", help='csv column map, e.g. "key=5,size=4,header=1"')
    km.add_argument("--max-records", type=cv.count("--max-records"), default=0,
                    help="read at most this many trace records (default: all)")
    km.add_argument("--json", default=None, help="write the curves as JSON")
    km.add_argument("--plot", type=cv.plot_path, default=None,
                    help="write a PNG of the curves (a .png path)")
    km.add_argument("--quiet", action="store_true", help="no table, no progress bar")
    km.set_defaults(func=cmd_kernel_models)

    add_bench_parser(sub)

    add_mrc_parser(sub)

    add_arbiter_parser(sub)

    fig = sub.add_parser(
        "figures", help="regenerate the documentation figures (paper Fig. 4, 5, 7 and ours)",
        description="Runs the studies behind docs/figures and writes a PNG and a JSON each.")
    fig.add_argument("--out", default="docs/figures", help="output folder (default: docs/figures)")
    fig.add_argument("--only", default="", help="comma-separated subset, e.g. fig4a,fig7")
    fig.add_argument("--memory", type=cv.size("--memory"), default=128 << 20,
                     help="budget M the sizes are scaled to (default: 128MiB)")
    fig.add_argument("--points", type=cv.int_in("--points", 2, cv.MAX_POINTS), default=17,
                     help="splits per two-level study (default: 17; fig7 has no splits)")
    fig.add_argument("--quiet", action="store_true")
    fig.set_defaults(func=cmd_figures)
    return parser


# A closed pipe (`symbiosis sim | head`) ends the command quietly, as a
# process killed by SIGPIPE would: 128 + 13.
EXIT_BROKEN_PIPE = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the CLI; returns the exit status: 0, 1 when the work failed, 2
    for bad input, 130 when interrupted, 141 when stdout was closed."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.error("give a command: sim, replay, kernel-models, bench, mrc, redis-arbiter or "
                     "figures (see --help)")
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Runs the parsed command `args.func(args)`, each way it can end
    turned into its exit status and at most one line on stderr."""
    # As argparse words the subcommand's errors.
    prog = " ".join(["symbiosis", args.command]
                    + ([args.engine] if getattr(args, "engine", None) else []))
    try:
        status = args.func(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Nothing more can reach the reader; keep the interpreter's own
        # flush at exit from failing too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except _native.InputError as e:
        print(f"{prog}: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except CommandFailed as e:
        print(f"{prog}: error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{prog}: error: {where}{_one_line(e.strerror or str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("symbiosis: interrupted", file=sys.stderr)
        return 130


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
