"""The ``symbiosis`` command line.

Every subcommand prints a human-readable report, writes ``--json`` for
machines and ``--plot`` for people. Bad input ends with one line on stderr
that says what is wrong and what to do, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Optional, Sequence, TextIO

from symbiosis import _native
from symbiosis.study import SimConfig, SimReport, run_sim
from symbiosis.units import format_bytes, parse_bytes, parse_count

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


def _bytes(what: str, high: int = (1 << 64) - 1) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = parse_bytes(text, what)
        if value > high:
            raise _native.InputError(f"{what}: {text} is larger than {format_bytes(high)}")
        return value
    parse.__name__ = "size"
    return parse


MAX_BLOCK = (1 << 32) - 1  # block and entry sizes are 32-bit


def _plot_path(text: str) -> str:
    """A PNG path: the only format the plots are written in."""
    if not text.lower().endswith(".png"):
        raise _native.InputError(f"--plot: '{text}' does not end in .png; plots are PNG files")
    return text


def _count(what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        return parse_count(text, what)
    parse.__name__ = "count"
    return parse


def _fraction(what: str, low_open: bool, high_open: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _native.InputError(f"{what}: '{text}' is not a number")
        low_ok = value > 0 if low_open else value >= 0
        high_ok = value < 1 if high_open else value <= 1
        if not (low_ok and high_ok):
            interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
            raise _native.InputError(f"{what}: {text} is outside {interval}")
        return value
    parse.__name__ = "fraction"
    return parse


def _nonnegative(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _native.InputError(f"{what}: '{text}' is not a number; give e.g. 3")
        if not (value >= 0) or value == float("inf"):
            raise _native.InputError(f"{what}: {text} must be a finite number >= 0")
        return value
    parse.__name__ = "cost"
    return parse


def _int_in(what: str, low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _native.InputError(f"{what}: '{text}' is not a whole number")
        if not low <= value <= high:
            raise _native.InputError(f"{what}: {text} must be a whole number from {low} to {high}")
        return value
    parse.__name__ = "int"
    return parse


def _positive_int(what: str, high: int = (1 << 32) - 1) -> Callable[[str], int]:
    return _int_in(what, 1, high)


def _seed(text: str) -> int:
    return _int_in("--seed", 0, (1 << 64) - 1)(text)


def _threads(text: str) -> int:
    return _int_in("--threads", 0, 1024)(text)


def _block_size(text: str) -> int:
    """A size, or 'trace': each key's block is the largest size the trace gives it."""
    return 0 if text == "trace" else _bytes("--block-size", MAX_BLOCK)(text)


class _Parser(argparse.ArgumentParser):
    """argparse that reports our InputError from type converters as one line."""

    def _get_value(self, action, arg_string):  # type: ignore[override]
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as e:
            cause = e.__context__
            if isinstance(cause, _native.InputError):
                raise argparse.ArgumentError(None, str(cause)) from None
            raise

    def error(self, message: str) -> None:  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _add_sim_args(p: argparse.ArgumentParser) -> None:
    src = p.add_argument_group("workload (synthetic) or trace")
    src.add_argument("--workload", default="hotspot20",
                     help="uniform, zipfian, hotspot10/20/30 (-T: hot keys at the tail), "
                          "readscan, mixgraph, strided, or name:key=value,... "
                          "(default: %(default)s)")
    src.add_argument("--phases", default=None,
                     help='dynamic workload: "spec@size*count;spec@size*count", each phase '
                          "reading a prefix of the data set of that size")
    src.add_argument("--data-size", type=_bytes("--data-size"), default=2 << 30,
                     help="uncompressed data size D_u (default: 2GiB)")
    src.add_argument("--accesses", type=_count("--accesses"), default=0,
                     help="block accesses to simulate (default: 20 per block)")
    src.add_argument("--seed", type=_seed, default=1,
                     help="random seed (default: 1)")
    src.add_argument("--trace", default=None,
                     help="replay a trace file instead of a workload (then --workload, "
                          "--data-size, --accesses, --seed and --entry-size are not used)")
    src.add_argument("--format", dest="trace_format", default="oracleGeneral",
                     help="trace format: oracleGeneral, csv or txt (default: %(default)s)")
    src.add_argument("--columns", default="",
                     help='csv column map, e.g. "key=5,size=4,header=1"')
    src.add_argument("--max-records", type=_count("--max-records"), default=0,
                     help="read at most this many trace records (default: all)")

    lay = p.add_argument_group("data layout")
    lay.add_argument("--alpha", type=_fraction("--alpha", True, False), default=0.5,
                     help="compression ratio D_c/D_u in (0, 1] (default: 0.5)")
    lay.add_argument("--block-size", type=_block_size, default=4096,
                     help="uncompressed block size (default: 4KiB, LevelDB's); with --trace, "
                          "'trace' takes each key's size from the trace")
    lay.add_argument("--entry-size", type=_bytes("--entry-size", MAX_BLOCK), default=128,
                     help="bytes per key-value entry (default: 128)")
    lay.add_argument("--file-size", type=_bytes("--file-size"), default=2 << 20,
                     help="on-disk file size (default: 2MiB, LevelDB's)")
    lay.add_argument("--aligned", action="store_true",
                     help="pad blocks to whole pages (no misalignment)")

    cache = p.add_argument_group("caches and costs")
    cache.add_argument("--memory", type=_bytes("--memory"), default=1 << 30,
                       help="memory budget M = M_a + M_k (default: 1GiB)")
    cache.add_argument("--ca", type=_nonnegative("--ca"), default=3.0,
                       help="C_a, cost of an application miss served from memory (default: 3)")
    cache.add_argument("--ck", type=_nonnegative("--ck"), default=16.0,
                       help="C_k, cost of a device read (default: 16)")
    cache.add_argument("--points", type=_positive_int("--points"), default=33,
                       help="splits to simulate, M_a = i*M/(points-1) (default: 33)")
    cache.add_argument("--kernel-model", default="linux", choices=["linux", "lru", "block-lru"],
                       help="linux: page cache with 2Q and read-ahead; lru: page LRU; "
                            "block-lru: LRU of whole blocks (default: linux)")
    cache.add_argument("--max-readahead", type=_positive_int("--max-readahead"), default=32,
                       help="read-ahead window limit in 4 KiB pages (default: 32 = 128 KiB)")
    cache.add_argument("--exclusive", action="store_true",
                       help="exclusive kernel cache: blocks admitted to the application "
                            "cache leave the kernel cache and return on eviction")
    cache.add_argument("--warmup", type=_fraction("--warmup", False, True), default=0.25,
                       help="leading fraction of accesses not counted (default: 0.25)")
    cache.add_argument("--threads", type=_threads, default=0,
                       help="worker threads (default: 0, one per core)")

    out = p.add_argument_group("output")
    out.add_argument("--json", default=None, help="write the full result as JSON to this file")
    out.add_argument("--plot", type=_plot_path, default=None,
                     help="write a PNG plot of L_e, H_a, H_k against M_a (a .png path)")
    out.add_argument("--quiet", action="store_true", help="no table, no progress bar")


def _sim_config(args: argparse.Namespace) -> SimConfig:
    if args.block_size == 0 and not args.trace:
        raise _native.InputError("--block-size trace needs --trace; give a size such as 4KiB")
    if args.trace and args.phases:
        raise _native.InputError("--phases and --trace exclude each other; give one")
    if args.phases is not None and not args.phases.strip():
        raise _native.InputError("--phases is empty; give e.g. \"hotspot20@1GiB*5M;hotspot20@2GiB*5M\"")
    workload = args.phases if args.phases else args.workload
    return SimConfig(
        workload=workload, data_bytes=args.data_size, memory_bytes=args.memory,
        alpha=args.alpha, ca=args.ca, ck=args.ck, points=args.points,
        kernel_model=args.kernel_model, max_readahead_pages=args.max_readahead,
        exclusive=args.exclusive, accesses=args.accesses, seed=args.seed,
        block_bytes=args.block_size, entry_bytes=args.entry_size,
        file_bytes=args.file_size, aligned=args.aligned, warmup=args.warmup,
        threads=args.threads, trace=args.trace, trace_format=args.trace_format,
        columns=args.columns, max_records=args.max_records)


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
              f"{p['hit_app']:7.4f} {p['hit_kernel']:7.4f} {p['latency']:9.4f}{mark}", file=out)
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
    config = _sim_config(args)
    report = run_sim(config, progress=not args.quiet and sys.stderr.isatty())
    if not args.quiet:
        print_sim(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report.to_json(), f, indent=1)
    if args.plot:
        from symbiosis.plots import plot_sim
        plot_sim(report, args.plot)
        if not args.quiet:
            print(f"plot written to {args.plot}")
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
    result = run_kernel_models(
        workload=args.workload, data_bytes=args.data_size, alpha=args.alpha,
        sizes=args.sizes, rate=args.rate, group=args.group, accesses=args.accesses,
        seed=args.seed, block_bytes=args.block_size, max_readahead_pages=args.max_readahead,
        warmup=args.warmup, threads=args.threads,
        progress=not args.quiet and sys.stderr.isatty(), trace=args.trace,
        trace_format=args.trace_format, columns=args.columns, max_records=args.max_records)
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
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.plot:
        from symbiosis.plots import plot_lines
        caps = [c / (1 << 20) for c in result["capacities"]]
        plot_lines(args.plot, f"kernel cache models: {args.trace or args.workload}, "
                   f"R={args.rate:g}, G={args.group}", "kernel cache size (MiB)",
                   "kernel hit ratio",
                   [(f"{c['model']} (MAE {c['mean_abs_error']:.3f})", caps, c["hit_ratio"])
                    for c in result["curves"]], ylim=(0, 1.02))
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
    parser = _Parser(
        prog="symbiosis",
        description="Split a memory budget between a storage engine's application cache "
                    "and the kernel page cache: offline studies of the two-level cache.",
        epilog="Run 'symbiosis <command> --help' for each command's options.")
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)
    sim = sub.add_parser(
        "sim", help="sweep the application cache size M_a from 0 to M and find the best split",
        description="Simulate the application cache (LRU of uncompressed blocks) above the "
                    "kernel page cache for every split of the budget M and report the "
                    "expected latency L_e of each.",
        epilog=SIM_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_sim_args(sim)
    sim.set_defaults(func=cmd_sim)

    km = sub.add_parser(
        "kernel-models", help="compare kernel-cache models and sampled ghosts with the full page model",
        description="Hit-ratio curves of the kernel cache under several models (paper Fig. 7).",
        epilog=KERNEL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    km.add_argument("--workload", default="zipfian", help="workload spec (default: zipfian)")
    km.add_argument("--data-size", type=_bytes("--data-size"), default=512 << 20,
                    help="uncompressed data size D_u (default: 512MiB)")
    km.add_argument("--alpha", type=_fraction("--alpha", True, False), default=0.5,
                    help="compression ratio (default: 0.5)")
    km.add_argument("--block-size", type=_bytes("--block-size", MAX_BLOCK), default=4096,
                    help="uncompressed block size (default: 4KiB)")
    km.add_argument("--sizes", type=_positive_int("--sizes", 1024), default=16,
                    help="kernel cache sizes to simulate, D_c/sizes .. D_c (default: 16)")
    km.add_argument("--rate", type=_fraction("--rate", True, False), default=1 / 64,
                    help="sampling rate R of the sampled models (default: 1/64)")
    km.add_argument("--group", type=_positive_int("--group"), default=32,
                    help="G, blocks per sampling group (default: 32)")
    km.add_argument("--accesses", type=_count("--accesses"), default=0,
                    help="block reads (default: 20 per block)")
    km.add_argument("--seed", type=_seed, default=1, help="random seed (default: 1)")
    km.add_argument("--max-readahead", type=_positive_int("--max-readahead"), default=32,
                    help="read-ahead window limit in pages (default: 32)")
    km.add_argument("--warmup", type=_fraction("--warmup", False, True), default=0.25,
                    help="leading fraction of reads not counted (default: 0.25)")
    km.add_argument("--threads", type=_threads, default=0,
                    help="worker threads (default: 0, one per core)")
    km.add_argument("--trace", default=None, help="replay a trace file instead")
    km.add_argument("--format", dest="trace_format", default="oracleGeneral",
                    help="trace format: oracleGeneral, csv or txt (default: %(default)s)")
    km.add_argument("--columns", default="", help='csv column map, e.g. "key=5,size=4,header=1"')
    km.add_argument("--max-records", type=_count("--max-records"), default=0,
                    help="read at most this many trace records (default: all)")
    km.add_argument("--json", default=None, help="write the curves as JSON")
    km.add_argument("--plot", type=_plot_path, default=None,
                    help="write a PNG of the curves (a .png path)")
    km.add_argument("--quiet", action="store_true", help="no table, no progress bar")
    km.set_defaults(func=cmd_kernel_models)

    fig = sub.add_parser(
        "figures", help="regenerate the documentation figures (paper Fig. 4, 5, 7 and ours)",
        description="Runs the studies behind docs/figures and writes a PNG and a JSON each.")
    fig.add_argument("--out", default="docs/figures", help="output folder (default: docs/figures)")
    fig.add_argument("--only", default="", help="comma-separated subset, e.g. fig4a,fig7")
    fig.add_argument("--memory", type=_bytes("--memory"), default=128 << 20,
                     help="budget M the sizes are scaled to (default: 128MiB)")
    fig.add_argument("--points", type=_positive_int("--points"), default=17,
                     help="splits per two-level study (default: 17; fig7 has no splits)")
    fig.add_argument("--quiet", action="store_true")
    fig.set_defaults(func=cmd_figures)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the CLI; returns the exit status (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.error("give a command: sim, kernel-models or figures (see --help)")
    try:
        return args.func(args)
    except _native.InputError as e:
        print(f"symbiosis: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"symbiosis: error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("symbiosis: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
