"""Miss-ratio curves of traces: exact LRU, SHARDS, KRR (K-LRU) and a K-LRU
simulator, computed natively (src/mrc/) while the trace streams through.

Python API::

    from symbiosis.mrc import miss_ratio_curve
    c = miss_ratio_curve("cloudPhysicsIO.oracleGeneral.bin", algo="krr", k=5)
    c.sizes, c.miss_ratios          # numpy arrays

CLI: ``symbiosis mrc --trace FILE --algo krr --k 5 --plot mrc.png``.

With ``workers=N`` (a local Dask cluster) or ``scheduler=ADDRESS`` (a
running one) the trace is split by key and its parts computed on the
cluster's workers (symbiosis.mrc_distributed, docs/mrc-distributed.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from symbiosis import _native
from symbiosis import converters as cv
from symbiosis.outputs import OutputFiles, json_writer
from symbiosis.units import format_bytes, parse_bytes, parse_count

ALGORITHMS = ("lru", "shards", "krr", "klru-sim", "redis")
# A sample's error falls as 1/sqrt(its keys): at R = 0.01 the 48,974
# objects of the CloudPhysics trace left ~490 keys and errors of
# 0.005-0.025; at 8,192 keys and more, under 0.004 (docs/mrc.md).
DEFAULT_MIN_KEYS = 8192
FORMATS = ("oracleGeneral", "csv", "txt", "rocksdb", "twitter", "msr")


@dataclass
class MrcCurve:
    """One miss-ratio curve: capacities (objects or bytes) and ratios."""

    algorithm: str
    unit: str  # "objects" or "bytes"
    sizes: np.ndarray
    miss_ratios: np.ndarray
    byte_miss_ratios: Optional[np.ndarray]
    requests: int
    sampled_requests: int
    sample_rate: float  # at the end of the pass; 1 unsampled
    working_set: int
    memory_bytes: int
    seconds: float
    parameters: Dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict:
        d = {
            "algorithm": self.algorithm,
            "unit": self.unit,
            "parameters": self.parameters,
            "sizes": [int(s) for s in self.sizes],
            "miss_ratios": [float(m) for m in self.miss_ratios],
        }
        if self.byte_miss_ratios is not None:
            d["byte_miss_ratios"] = [float(m) for m in self.byte_miss_ratios]
        d.update(requests=self.requests, sampled_requests=self.sampled_requests,
                 sample_rate=self.sample_rate, working_set=self.working_set, memory_bytes=self.memory_bytes,
                 seconds=self.seconds)
        return d


def miss_ratio_curve(trace: Union[str, Sequence[str]], *, format: str = "oracleGeneral",
                     columns: str = "", ops: str = "reads,writes",
                     algo: str = "lru", bytes: bool = False,
                     sizes: Optional[Sequence[int]] = None, points: int = 40,
                     rate: Optional[float] = None, max_keys: int = 0,
                     min_keys: int = DEFAULT_MIN_KEYS, k: int = 5,
                     k_exponent: float = 1.4, pool: int = 0, with_replacement: bool = True,
                     request_rate: float = 0.0, key_bytes: int = 16,
                     seed: int = 1, max_records: int = 0, progress: bool = False,
                     workers: Optional[int] = None, scheduler: Optional[str] = None,
                     partitions: Optional[int] = None,
                     chunk_bytes: int = 64 << 20) -> MrcCurve:
    """The miss-ratio curve of `trace` by `algo`.

    `trace` is a file, or several that follow each other in time (the
    distributed mode). Capacities count objects, or bytes with
    ``bytes=True`` (then the byte
    miss ratio comes too). ``sizes`` gives them (ascending); otherwise
    ``points`` sizes spread evenly over the working set. ``rate`` is the
    spatial sampling rate (shards: default 0.01; krr: default 1, none);
    ``min_keys`` is a floor on the sampled keys: the sample starts with
    every key and halves its rate each time it holds twice as many, down
    to ``rate``, so a small trace is sampled at a higher rate (0: exactly
    ``rate``); ``max_keys`` makes SHARDS fixed-size instead. The curve's
    ``sample_rate`` is the rate reached. ``k`` is K-LRU's sample size,
    ``k_exponent`` KRR's correction K' = K^k_exponent, ``pool`` the K-LRU
    simulator's Redis eviction pool (16 in Redis; 0 none). ``ops`` chooses
    the requests of formats that name their operations (twitter, msr):
    "reads", "writes" or both.

    ``redis`` models a real redis-server 7.0 under allkeys-lru
    (redis_cache.h): ``k`` is its maxmemory-samples; its LRU clock takes
    each request's time from the trace, or from ``request_rate`` requests
    per second when given; in bytes a size is maxmemory less the empty
    server's used_memory, and ``key_bytes`` the key names' length.

    ``workers`` (a local cluster of that many processes) or ``scheduler``
    (a Dask scheduler's address) computes it on a cluster, in
    ``partitions`` parts (default: one a worker) read in chunks of
    ``chunk_bytes``. Raises ``_native.InputError`` with a one-line message
    for bad input, ``CommandFailed`` when the cluster fails.
    """
    if algo not in ALGORITHMS:
        raise _native.InputError(f"unknown MRC algorithm '{algo}'; use {', '.join(ALGORITHMS)}")
    paths = [trace] if isinstance(trace, str) else list(trace)
    if not paths:
        raise _native.InputError("give a trace file")
    for path in paths:
        if os.path.isdir(path):
            raise _native.InputError(f"{path}: is a directory; give a trace file")
    distributed = workers is not None or scheduler is not None
    if workers is not None and scheduler is not None:
        raise _native.InputError("--workers starts a local cluster and --scheduler names a "
                                 "running one; give one of them")
    if len(paths) > 1 and not distributed:
        raise _native.InputError("several trace files are read by the distributed mode; add "
                                 "--workers N (a local cluster) or --scheduler ADDRESS")
    if distributed and max_records:
        raise _native.InputError("--max-records reads a trace's first records, which a "
                                 "cluster's readers do not know; leave it out with --workers "
                                 "or --scheduler")
    if distributed:
        from symbiosis import mrc_distributed
        options = mrc_distributed.partition_options(
            algo, bytes=bytes, rate=rate, max_keys=max_keys, min_keys=min_keys, k=k,
            k_exponent=k_exponent, pool=pool, with_replacement=with_replacement,
            request_rate=request_rate, key_bytes=key_bytes, seed=seed)
        r = mrc_distributed.distributed_curve(
            paths, trace_format=format, columns=columns, ops=ops, options=options,
            sizes=[int(s) for s in sizes] if sizes else [], points=points, workers=workers,
            scheduler=scheduler, partitions=partitions, chunk_bytes=chunk_bytes,
            progress=progress)
        d = dict(r.curve, working_set=r.working_set, memory_bytes=r.memory_bytes,
                 seconds=r.seconds)
    else:
        d = _native.mrc(paths[0], format, columns, max_records, algo, bytes,
                        [int(s) for s in sizes] if sizes else [], points,
                        rate if rate is not None else 0.0, max_keys, min_keys, k, k_exponent,
                        pool, with_replacement, request_rate, key_bytes, seed, progress, ops)
    parameters: Dict[str, object] = {}
    if algo in ("krr", "klru-sim", "redis"):
        parameters["k"] = k
    if algo == "krr":
        parameters["k_exponent"] = k_exponent
    if algo in ("shards", "krr"):
        parameters["rate"] = rate if rate is not None else (0.01 if algo == "shards" else 1.0)
    if algo == "shards" and max_keys:
        parameters["max_keys"] = max_keys
    elif algo in ("shards", "krr") and float(parameters["rate"]) < 1:
        parameters["min_keys"] = min_keys
    if algo == "klru-sim":
        parameters.update(pool=pool, with_replacement=with_replacement)
    if algo == "redis":
        parameters["request_rate"] = request_rate
        if bytes:
            parameters["key_bytes"] = key_bytes
    if algo != "lru":
        parameters["seed"] = seed
    if distributed:
        parameters.update(workers=r.workers, partitions=r.partitions)
    return MrcCurve(
        algorithm=algo, unit=d["unit"], sizes=np.asarray(d["sizes"], dtype=np.uint64),
        miss_ratios=np.asarray(d["miss_ratios"]),
        byte_miss_ratios=np.asarray(d["byte_miss_ratios"]) if "byte_miss_ratios" in d else None,
        requests=d["requests"], sampled_requests=d["sampled_requests"],
        sample_rate=d["sample_rate"], working_set=d["working_set"], memory_bytes=d["memory_bytes"], seconds=d["seconds"],
        parameters=parameters)


def mean_absolute_error(a: MrcCurve, b: MrcCurve) -> float:
    """Mean |difference| of the miss ratios of two curves at the same sizes."""
    if len(a.sizes) != len(b.sizes) or np.any(a.sizes != b.sizes):
        raise _native.InputError("the curves have different sizes; compare curves built at "
                                 "the same sizes")
    return float(np.mean(np.abs(a.miss_ratios - b.miss_ratios)))


def _label(c: MrcCurve) -> str:
    p = c.parameters
    text = {"lru": "exact LRU", "shards": "SHARDS", "krr": "KRR", "klru-sim": "K-LRU simulator",
            "redis": "Redis 7.0 model"}[c.algorithm]
    if "k" in p:
        text += f", K={p['k']}"
    if c.algorithm == "shards":
        text += f", R={p['rate']:g}" + (f", {p['max_keys']} keys max" if "max_keys" in p else "")
    if c.algorithm == "krr" and p.get("rate", 1) != 1:
        text += f", R={p['rate']:g}"
    if c.algorithm == "klru-sim" and p.get("pool"):
        text += f", pool {p['pool']}"
    return text


def plot_mrc(curves: Sequence[MrcCurve], path: str, title: str) -> None:
    """Miss ratio against cache size for each curve (and the byte miss ratio,
    dashed, in bytes mode), on one figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bytes_mode = curves[0].unit == "bytes"
    scale, unit = 1.0, "objects"
    if bytes_mode:
        top = float(max(int(c.sizes[-1]) for c in curves))
        scale, unit = (float(1 << 30), "GiB") if top >= 4 * (1 << 30) else (float(1 << 20), "MiB")
    fig, ax = plt.subplots(figsize=(8, 5))
    for c in curves:
        x = c.sizes.astype(float) / scale
        line, = ax.plot(x, c.miss_ratios, marker="o", ms=3, label=f"{_label(c)}: miss ratio")
        if c.byte_miss_ratios is not None:
            ax.plot(x, c.byte_miss_ratios, ls="--", color=line.get_color(),
                    label=f"{_label(c)}: byte miss ratio")
    ax.set_xlabel(f"cache size ({unit})")
    ax.set_ylabel("miss ratio (misses / requests)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


MRC_DESCRIPTION = """\
Miss-ratio curves of a trace: for each cache size, the fraction of requests
a cache of that size would miss. The trace streams through once (twice for
klru-sim and redis without --sizes), so a 100 GB trace needs no more memory
than its working set, or its sample's.

  lru       exact LRU, every size from one pass (Mattson's stack algorithm)
  shards    LRU from a spatial sample of the keys (SHARDS, FAST '15): --rate
            (default 0.01), or a fixed number of sampled keys (--max-keys)
  krr       K-LRU, Redis's random-sampling LRU (evict the oldest of K keys
            drawn at random), from one pass (KRR, with K' = K^1.4); --rate
            samples keys as SHARDS does
  klru-sim  the K-LRU cache simulated at each size: the ground truth for krr
            (--pool 16 for Redis's eviction pool)
  redis     a real redis-server 7.0 under allkeys-lru, modelled at each size
            as it evicts: K = maxmemory-samples, a 16-entry pool, keys drawn
            from neighbouring hash buckets, an LRU clock that ticks once a
            second (request times from the trace, or --request-rate), and
            in --bytes the server's own memory per key (sizes are maxmemory
            less the empty server's used_memory; --key-bytes)

A sample keeps at least --min-keys keys (default 8,192): a trace too small
for --rate is sampled at a higher rate, since a sample's error grows as its
keys shrink (490 keys of a 49K-object trace: off by 0.005-0.025).

A trace too large for one machine: --workers N starts a local Dask cluster
of N processes, --scheduler ADDRESS uses a running one (its workers must
read the same paths). The trace is split by key into --partitions parts
(default: one a worker), each a spatial sample of rate 1/P whose curve is
computed on a worker and merged; files are read in byte ranges by every
worker at once (a zstd file whole, by one), and several files, given in
time order, follow each other (docs/mrc-distributed.md).

Several algorithms, comma-separated, run at the same sizes and are plotted
together; the mean absolute error of each against the last one is printed.
"""

MRC_EPILOG = """\
examples:
  symbiosis mrc --trace cloudPhysicsIO.oracleGeneral.bin --plot mrc.png
  symbiosis mrc --trace t.bin --algo krr,klru-sim --k 5 --plot krr.png
  symbiosis mrc --trace t.bin --algo shards --rate 0.001 --bytes --json mrc.json
  symbiosis mrc --trace cloudPhysicsIO.csv --format csv --columns key=5,size=4,header=1 \\
      --bytes --sizes 16MiB,64MiB,256MiB
  zstd -dc big.oracleGeneral.zst | symbiosis mrc --trace - --algo shards
  symbiosis mrc --trace t.bin --algo redis --k 5 --bytes --key-bytes 16 --plot redis.png

  symbiosis mrc --trace cluster52.0.zst cluster52.1.zst --format twitter --ops reads \
      --algo shards --rate 0.01 --workers 2 --json c52.json

trace formats: oracleGeneral (libCacheSim's binary), csv with a column map
(key=N,size=N,time=N,time_unit=s|ms|us,delimiter=D,header=1,key_type=string),
txt (one key per line), rocksdb (block_cache_trace_analyzer's human-readable
trace), twitter (Twitter's cache traces: a key's size is key + value, get and
gets are reads, set, add, replace, cas, append, prepend, incr and decr writes,
delete neither), msr (MSR Cambridge's block traces: the object is host, disk
and offset). oracleGeneral's times are seconds; rocksdb's microseconds. Any
of them zstd-compressed is read as it is decompressed (known by its magic
number).
"""


def add_mrc_parser(sub: argparse._SubParsersAction) -> None:
    """Adds `symbiosis mrc` to the CLI's subcommands."""
    p = sub.add_parser("mrc", help="miss-ratio curves of a trace: exact LRU, SHARDS, KRR (K-LRU), "
                                   "a Redis model",
                       description=MRC_DESCRIPTION, epilog=MRC_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", required=True, nargs="+",
                   help="trace file ('-': standard input); several, in time order, with "
                        "--workers or --scheduler")
    p.add_argument("--format", dest="trace_format", default="oracleGeneral",
                   help="trace format: " + ", ".join(FORMATS) + " (default: %(default)s)")
    p.add_argument("--columns", default="", help='csv column map, e.g. "key=5,size=4,header=1"')
    p.add_argument("--ops", default="reads,writes",
                   help="twitter, msr: the requests that count: reads, writes or reads,writes "
                        "(default: %(default)s)")
    p.add_argument("--max-records", type=cv.count("--max-records"), default=0,
                   help="read at most this many records (default: all)")
    p.add_argument("--algo", default="lru",
                   help="lru, shards, krr, klru-sim or redis; several comma-separated "
                        "(default: lru)")
    p.add_argument("--k", type=cv.positive_int("--k", 1 << 16), default=5,
                   help="K-LRU's keys drawn per eviction (krr, klru-sim; redis: "
                        "maxmemory-samples, at most 64; default: 5, Redis's)")
    p.add_argument("--bytes", action="store_true",
                   help="count cache sizes in bytes (the trace's sizes) and add the byte miss "
                        "ratio; default: in objects")
    p.add_argument("--sizes", default="",
                   help="comma-separated cache sizes (bytes units with --bytes: 64MiB), "
                        "ascending; default: --points sizes over the working set")
    p.add_argument("--points", type=cv.positive_int("--points", 100_000), default=40,
                   help="sizes spread evenly over the working set (default: 40)")
    p.add_argument("--rate", type=cv.fraction("--rate", True, False), default=None,
                   help="spatial sampling rate R (shards default 0.01, krr default 1)")
    p.add_argument("--max-keys", type=cv.count("--max-keys"), default=0,
                   help="shards: fixed-size SHARDS with at most this many sampled keys")
    p.add_argument("--min-keys", type=cv.count("--min-keys"), default=DEFAULT_MIN_KEYS,
                   help="shards, krr: sample at least this many keys; the rate starts at 1 and "
                        "halves down to --rate as the sample grows (default: %(default)s; "
                        "0: exactly --rate)")
    p.add_argument("--k-exponent", type=float, default=1.4,
                   help="krr: K' = K^exponent (default: 1.4, the paper's; 1 = uncorrected)")
    p.add_argument("--pool", type=cv.int_in("--pool", 0, 1024), default=0,
                   help="klru-sim: Redis's eviction pool size (Redis: 16; default: 0, none)")
    p.add_argument("--without-replacement", action="store_true",
                   help="klru-sim: draw K distinct keys (default: with replacement)")
    p.add_argument("--request-rate", default=None,
                   type=cv.number_in("--request-rate", 0, 1e9, True, False, "20000"),
                   help="redis: the requests come at this many a second (the i-th at i/rate "
                        "s), replacing the trace's times; needed for a trace without times")
    p.add_argument("--key-bytes", type=cv.int_in("--key-bytes", 1, 512), default=16,
                   help="redis --bytes: the length of the key names the server holds "
                        "(default: 16)")
    p.add_argument("--seed", type=cv.seed, default=1, help="random seed (default: 1)")
    p.add_argument("--workers", type=cv.positive_int("--workers", 1024), default=None,
                   help="compute on a local Dask cluster of this many worker processes")
    p.add_argument("--scheduler", default=None,
                   help="compute on the Dask cluster of this scheduler (tcp://HOST:8786)")
    p.add_argument("--partitions", type=cv.positive_int("--partitions", 65536), default=None,
                   help="with --workers or --scheduler: parts the keys are split into "
                        "(default: one a worker)")
    p.add_argument("--chunk-size", type=cv.size("--chunk-size"),
                   default=64 << 20,
                   help="with --workers or --scheduler: the bytes of a plain file one reader "
                        "task reads (default: 64MiB)")
    p.add_argument("--json", default=None, help="write the curve(s) as JSON")
    p.add_argument("--plot", type=cv.plot_path, default=None,
                   help="write a PNG of the curve(s)")
    p.add_argument("--quiet", action="store_true", help="no table, no progress bar")
    p.set_defaults(func=cmd_mrc)


def _parse_sizes(text: str, bytes_mode: bool) -> List[int]:
    sizes = []
    for word in [w.strip() for w in text.split(",") if w.strip()]:
        sizes.append(parse_bytes(word, "--sizes") if bytes_mode else parse_count(word, "--sizes"))
    return sizes


def _algorithms(text: str) -> List[str]:
    algos = [a.strip() for a in text.split(",") if a.strip()]
    if not algos:
        raise _native.InputError("--algo: give lru, shards, krr, klru-sim or redis")
    for a in algos:
        if a not in ALGORITHMS:
            raise _native.InputError(f"--algo: unknown algorithm '{a}'; use "
                                     + ", ".join(ALGORITHMS))
    return algos


def _size_text(size: int, bytes_mode: bool) -> str:
    return format_bytes(size) if bytes_mode else f"{size:,}"


def cmd_mrc(args: argparse.Namespace) -> int:
    """`symbiosis mrc`."""
    outputs = OutputFiles({"--json": args.json, "--plot": args.plot})
    algos = _algorithms(args.algo)
    if not (0 < args.k_exponent <= 4):
        raise _native.InputError(f"--k-exponent: {args.k_exponent:g} is outside (0, 4]; the "
                                 "paper's correction is 1.4")
    sizes = _parse_sizes(args.sizes, args.bytes)
    if "redis" in algos and args.bytes and len(algos) > 1:
        raise _native.InputError("--algo redis --bytes counts the server's memory, not the "
                                 "trace's sizes the others count; run redis alone in bytes")
    simulated = [a for a in algos if a in ("klru-sim", "redis")]
    if simulated and len(sizes or range(args.points)) > cv.MAX_POINTS:
        # Each size is a cache simulated over the whole trace.
        raise _native.InputError(f"{simulated[0]} simulates a cache per size: "
                                 f"{len(sizes or range(args.points))} sizes are more than the "
                                 f"{cv.MAX_POINTS} it takes; give fewer --points or --sizes")
    if args.partitions is not None and args.workers is None and args.scheduler is None:
        raise _native.InputError("--partitions splits the trace among a cluster's workers; add "
                                 "--workers N or --scheduler ADDRESS")
    if "-" in args.trace and len(algos) > 1:
        raise _native.InputError("--trace -: standard input can be read once; give a file to "
                                 "compare several algorithms")
    progress = not args.quiet and sys.stderr.isatty()
    trace = args.trace[0] if len(args.trace) == 1 else args.trace
    # The last algorithm is the reference the others are compared with: it
    # runs first and, without --sizes, its sizes (spread over its working
    # set, exact unless it samples) are the others'.
    by_algo: Dict[int, MrcCurve] = {}
    for index in [len(algos) - 1] + list(range(len(algos) - 1)):
        reference = by_algo.get(len(algos) - 1)
        by_algo[index] = miss_ratio_curve(
            trace, format=args.trace_format, columns=args.columns, ops=args.ops,
            algo=algos[index],
            bytes=args.bytes, sizes=sizes or (list(reference.sizes) if reference else None),
            points=args.points, rate=args.rate, max_keys=args.max_keys,
            min_keys=args.min_keys, k=args.k,
            k_exponent=args.k_exponent, pool=args.pool,
            with_replacement=not args.without_replacement,
            request_rate=args.request_rate or 0.0, key_bytes=args.key_bytes, seed=args.seed,
            max_records=args.max_records, progress=progress, workers=args.workers,
            scheduler=args.scheduler, partitions=args.partitions, chunk_bytes=args.chunk_size)
    curves = [by_algo[i] for i in range(len(algos))]
    name = ("standard input" if args.trace == ["-"] else
            ", ".join(os.path.basename(t) for t in args.trace))
    out = dict(curves[0].to_json(), trace=trace)
    if len(curves) > 1:
        out["curves"] = [c.to_json() for c in curves]
        out["mean_absolute_error"] = {c.algorithm: mean_absolute_error(c, curves[-1])
                                      for c in curves[:-1]}
    title = (f"{name}: {curves[0].requests:,} requests, working set "
             f"{_size_text(curves[-1].working_set, args.bytes)}"
             f"{'' if args.bytes else ' objects'}")
    if len(curves) > 1:
        title += "; mean absolute error against the last: " + ", ".join(
            f"{_label(c)} {mean_absolute_error(c, curves[-1]):.4f}" for c in curves[:-1])
    outputs.write({"--json": json_writer(out),
                   "--plot": lambda path: plot_mrc(curves, path, title)})
    if not args.quiet:
        _print_table(curves, name)
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def _print_table(curves: Sequence[MrcCurve], name: str) -> None:
    bytes_mode = curves[0].unit == "bytes"
    head = f"{'cache size':>14}" + "".join(
        f"  {_label(c)[:22]:>22}" + (f"  {'(bytes)':>9}" if bytes_mode else "") for c in curves)
    print(f"{name}: {curves[0].requests:,} requests, working set "
          f"{_size_text(curves[0].working_set, bytes_mode)}"
          f"{'' if bytes_mode else ' objects'}")
    print(head)
    for i, size in enumerate(curves[0].sizes):
        row = f"{_size_text(int(size), bytes_mode):>14}"
        for c in curves:
            row += f"  {c.miss_ratios[i]:>22.4f}"
            if bytes_mode:
                row += f"  {c.byte_miss_ratios[i]:>9.4f}"
        print(row)
    for c in curves:
        rate = c.requests / c.seconds / 1e6 if c.seconds > 0 else float("inf")
        print(f"{_label(c)}: {c.seconds:.2f} s ({rate:.1f} M requests/s, trace reading "
              f"included), {format_bytes(c.memory_bytes)} of memory, "
              f"{c.sampled_requests:,} requests modelled")
    for c in curves[:-1]:
        print(f"mean absolute error of {_label(c)} against {_label(curves[-1])}: "
              f"{mean_absolute_error(c, curves[-1]):.4f}")
    for c in curves:
        rate = float(c.parameters.get("rate", 1))
        if rate < 1 and c.sample_rate > rate:
            print(f"{_label(c)}: sampled at R = {c.sample_rate:g} to keep at least "
                  f"{c.parameters['min_keys']:,} keys (--min-keys)")
        if c.sample_rate < 1 and c.unit == "objects" and c.working_set * c.sample_rate < 2000:
            print(f"note: {_label(c)}'s sample holds about {c.working_set * c.sample_rate:.0f} "
                  "keys; with fewer than a few thousand, expect errors of 0.01-0.02 (on "
                  "CloudPhysics at R = 0.01, 490 keys: 0.005-0.025); raise --rate or --min-keys")
