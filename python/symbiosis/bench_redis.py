"""`symbiosis bench redis`: kRedis's benchmark on real redis-servers.

One redis-server per tenant (Debian's, unmodified, our module loaded) on
loopback, and redis_load (tools/redis_load.cc, hiredis) playing
cache-aside for every tenant: GET, and on a miss wait the tenant's miss
latency (its database, emulated: a sleep) and SET. Each configuration runs
on fresh servers with the same load:

  equal         maxmemory = M / tenants, K = 5 (what operators do)
  proportional  maxmemory in proportion to each tenant's working set, K = 5
  lru           the arbiter on exact LRU's curves, K = 5 (pRedis-like: an LRU
                model of a server that samples)
  krr5          the arbiter (symbiosis redis-arbiter) on the KRR curves of K = 5
  kredis        the arbiter, curves merged over K and K per tenant
  oracle        static sizes and K from the module's curves of a whole earlier
                run of the same load (kredis's), merged over K: the best
                static split those curves know, fixed from the start

It reports per tenant and over every request the mean and p99 latency, hit
ratios and throughput after the warm-up, and each configuration's mean
latency over the equal split's; beside it the miss latency (each tenant's
misses times its miss latency, over every request: the part of the mean
the split changes, free of the CPU waits that move a run's measured mean
by as much as a configuration does). Requests arrive open-loop at --rate per
tenant (one that finds its client busy counts its latency from its arrival,
one that finds it idle from its send), so that a configuration changes
latencies, not the mix of requests; --rate 0 plays closed loops.

With --side-by-side each configuration runs at the same time as an equal
split of its own (fresh servers, the same requests), each with its load
generator on one CPU, --repeats times with the CPUs swapped; its ratios are
over the equal split beside it, the geometric mean of its pairs: the
machine's moments then weigh on both runs of a pair alike.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from symbiosis import _native
from symbiosis import converters as cv
from symbiosis.bench import geometric_mean, side_by_side
from symbiosis.errors import CommandFailed
from symbiosis.kredis import TenantCurve, allocate, choose_k, merge_over_k
from symbiosis.redis_arbiter import (CURVE_POINTS, Arbiter, TenantSpec, default_floor,
                                     grid_granularity, parse_mrc, runnable_curves, server_base)
from symbiosis.redis_server import RedisServer
from symbiosis.units import format_bytes, parse_seconds

CONFIGS = ("equal", "proportional", "lru", "krr5", "kredis", "oracle")

# Every server's module, whatever the configuration: the K the arbiter
# chooses among, and exact LRU's curve (0) for the lru configuration.
MODULE_KS = "0,1,5,8,16"


@dataclass
class BenchTenant:
    name: str
    workload: str
    keys: int
    value_bytes: int
    miss_latency: float  # seconds
    rate: float = 0.0    # requests per second, open loop; 0: closed loop
    clients: int = 2

    def client_count(self) -> int:
        """Closed loop: 2. Open loop: enough that a client is busy at most a
        third of the time when every request misses."""
        if self.rate <= 0:
            return self.clients
        return max(2, min(64, math.ceil(3 * self.rate * (self.miss_latency + 0.001))))

    def working_set(self) -> int:
        """Bytes of used_memory its keys take when all are held."""
        key_bytes = len(self.name) + 1 + len(str(self.keys - 1))
        return self.keys * int(_native.redis_key_bytes(key_bytes, self.value_bytes)) + int(
            _native.redis_table_bytes(self.keys))


def case_tenants(case: str, keys: int, value_bytes: int, rate: float = 0.0) -> List[BenchTenant]:
    """The paper's cases: tenants with their workloads and miss latencies."""
    if case == "four-mixed":  # two workloads, each at a local and a remote miss
        specs = [("zipfian", 200e-6), ("zipfian", 2000e-6), ("hotspot10", 200e-6),
                 ("hotspot10", 2000e-6)]
    elif case == "four-latencies":
        specs = [("zipfian", x * 1e-6) for x in (200, 400, 1000, 2000)]
    elif case == "fifteen":  # miss latencies spaced exponentially, 100 us to 5 ms
        workloads = ["zipfian", "hotspot10", "hotspot30"]
        specs = [(workloads[i % 3], 100e-6 * 50 ** (i / 14)) for i in range(15)]
    else:
        raise _native.InputError(f"--case {case}: unknown; use four-mixed, four-latencies "
                                 "or fifteen")
    return [BenchTenant(f"t{i:02d}", w, keys, value_bytes, lat, rate) for i, (w, lat) in
            enumerate(specs)]


def find_binary(name: str, env: str) -> str:
    """A binary of ours: $env, the package's bin/, or build/native/."""
    here = Path(__file__).resolve().parent
    for candidate in [os.environ.get(env, ""), str(here / "bin" / name),
                      str(Path.cwd() / "build" / "native" / name)]:
        if candidate and os.path.exists(candidate):
            return candidate
    raise _native.InputError(f"{name} was not found (set {env}, or build it: scripts/setup.sh "
                             "with libhiredis-dev and cargo installed)")


@dataclass
class RunResult:
    config: str
    summary: List[dict]        # per tenant, after the warm-up
    overall: dict              # every request
    timeline: List[dict]       # redis_load's interval lines
    arbiter: List[dict]        # the arbiter's records (dynamic configurations)
    final_curves: Dict[str, dict]  # name -> {K: (sizes, ratios)}, requests, at the end
    sizes: Dict[str, int]      # maxmemory at the end


@dataclass
class Pair:
    """A configuration and an equal split, run at the same time on the same
    requests, each on fresh servers and CPUs of its own."""
    config: str
    repeat: int
    cpus: Optional[List[int]]        # the configuration's (the equal split's: the others)
    run: RunResult
    equal: RunResult

    def miss_ratio(self, tenants: Sequence[BenchTenant]) -> float:
        """Its misses' latency over the equal split's beside it."""
        return (miss_latency_us(tenants, self.run.summary)
                / max(miss_latency_us(tenants, self.equal.summary), 1e-9))

    def mean_ratio(self) -> float:
        """Its measured mean latency over the equal split's beside it."""
        return self.run.overall["mean_us"] / max(self.equal.overall["mean_us"], 1e-9)


def _initial_sizes(config: str, tenants: Sequence[BenchTenant], memory: int,
                   oracle: Optional[Dict[str, Tuple[int, int]]]) -> Dict[str, Tuple[int, int]]:
    if config == "proportional":
        ws = [t.working_set() for t in tenants]
        return {t.name: (int(memory * w / sum(ws)), 5) for t, w in zip(tenants, ws)}
    if config == "oracle":
        assert oracle is not None
        return oracle
    return {t.name: (memory // len(tenants), 5) for t in tenants}


def run_config(config: str, tenants: Sequence[BenchTenant], memory: int, *, duration: float,
               warmup: float, interval: float, module: str, load: str,
               oracle: Optional[Dict[str, Tuple[int, int]]] = None, quiet: bool = False,
               seed: int = 1, cpus: Optional[Set[int]] = None) -> RunResult:
    """One configuration on fresh servers; with `cpus`, the servers and the
    load generator run on those CPUs only."""
    servers = [RedisServer(extra=["--loadmodule", module, "ks", MODULE_KS], cpus=cpus)
               for _ in tenants]
    started: List[RedisServer] = []
    try:
        for s in servers:
            started.append(s.__enter__())
        initial = _initial_sizes(config, tenants, memory, oracle)
        for t, s in zip(tenants, servers):
            size, k = initial[t.name]
            c = s.client()
            c.config_set("maxmemory-samples", k)
            c.config_set("maxmemory", size)
        command = [load, "--duration", f"{duration}s", "--warmup", f"{warmup}s",
                   "--interval", "1s"]
        for i, (t, s) in enumerate(zip(tenants, servers)):
            command += ["--tenant", f"name={t.name},port={s.port},workload={t.workload},"
                                    f"keys={t.keys},value-bytes={t.value_bytes},"
                                    f"miss-latency={t.miss_latency * 1e6:.0f}us,"
                                    f"clients={t.client_count()},rate={t.rate:g},"
                                    f"seed={seed * 100 + i}"]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=(lambda: os.sched_setaffinity(0, cpus))
                                if cpus else None)
        records: List[dict] = []
        stop = threading.Event()
        arbiter_thread = None
        if config in ("lru", "krr5", "kredis"):
            arbiter = Arbiter([TenantSpec(t.name, s.host, s.port, t.miss_latency)
                               for t, s in zip(tenants, servers)], memory,
                              k=5 if config == "krr5" else 0, lru=config == "lru",
                              warn=sys.stderr)

            def arbitrate() -> None:
                next_time = time.monotonic()
                while not stop.is_set():
                    records.append(arbiter.round())
                    next_time += interval
                    stop.wait(max(next_time - time.monotonic(), 0))

            arbiter_thread = threading.Thread(target=arbitrate, daemon=True)
            arbiter_thread.start()
        out, err = proc.communicate()
        stop.set()
        if arbiter_thread is not None:
            arbiter_thread.join()
        if proc.returncode != 0:
            lines = [l for l in err.splitlines() if l.strip()]
            raise CommandFailed(f"{config}: redis_load failed: "
                                f"{lines[-1] if lines else f'exit {proc.returncode}'}")
        lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        summary = lines[-1]
        curves, sizes = {}, {}
        for t, s in zip(tenants, servers):
            c = s.client()
            requests, by_k = parse_mrc(c.execute_command("SYMBIOSIS.MRC", "POINTS",
                                                          CURVE_POINTS))
            curves[t.name] = {"requests": requests, "curves": by_k,
                              "base": server_base(c.memory_stats())}
            sizes[t.name] = int(c.config_get("maxmemory")["maxmemory"])
        return RunResult(config, summary["summary"], summary["all"], lines[:-1], records,
                         curves, sizes)
    finally:
        for s in started:
            s.__exit__(None, None, None)


def run_pairs(configs: Sequence[str], tenants: Sequence[BenchTenant], memory: int, *,
              repeats: int, duration: float, quiet: bool, **run_args) -> Dict[str, List[Pair]]:
    """Each configuration but equal `repeats` times beside an equal split,
    the CPUs swapped from one pair to the next (bench.side_by_side: half of
    this process's CPUs each, or unpinned on one). The oracle, whose sizes
    come from kredis's first run, goes after it."""
    pairs: Dict[str, List[Pair]] = {}
    count = 0
    log = (lambda line: None) if quiet else (lambda line: print(line, file=sys.stderr,
                                                                  flush=True))
    with side_by_side(log) as (cpu_sets, pool):
        for config in configs:
            if config == "equal":
                continue
            oracle = (oracle_sizes(tenants, pairs["kredis"][0].run, memory, duration)
                      if config == "oracle" else None)
            for k in range(repeats):
                log(f"  {config} and equal, side by side ({k + 1} of {repeats}) ...")
                mine, theirs = (0, 1) if count % 2 == 0 else (1, 0)
                count += 1
                run = pool.submit(run_config, config, tenants, memory, oracle=oracle,
                                  duration=duration, cpus=cpu_sets[mine], **run_args)
                equal = pool.submit(run_config, "equal", tenants, memory, duration=duration,
                                    cpus=cpu_sets[theirs], **run_args)
                pairs.setdefault(config, []).append(
                    Pair(config, k, sorted(cpu_sets[mine]) if cpu_sets[mine] else None,
                         run.result(), equal.result()))
    return pairs


def oracle_sizes(tenants: Sequence[BenchTenant], run: RunResult, memory: int,
                 duration: float) -> Dict[str, Tuple[int, int]]:
    """The best static split of `run`'s whole-run curves (merged over K),
    each tenant's rate its reads over the run: maxmemory and K per tenant.
    Under the arbiter's own constraints (its floor and grid), so that it is
    the best the arbiter could have held, not a split it may not choose."""
    curves, bases, per_k = [], [], []
    for t in tenants:
        c = run.final_curves[t.name]
        per_k.append(runnable_curves(c["curves"]))
        sizes, ratios = merge_over_k(per_k[-1])
        curves.append(TenantCurve(t.name, sizes, ratios, c["requests"] / duration,
                                  t.miss_latency))
        bases.append(c["base"])
    room = memory - sum(bases)
    split = allocate(curves, room, grid_granularity(room),
                     [default_floor(memory, len(tenants))] * len(tenants))
    return {t.name: (size + base, choose_k(k_curves, size))
            for t, size, base, k_curves in zip(tenants, split, bases, per_k)}


def add_redis_bench_parser(engines) -> None:
    """Adds `symbiosis bench redis`."""
    p = engines.add_parser(
        "redis", help="kRedis on real redis-servers: one budget split among tenants",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="four-mixed",
                   help="four-mixed (two workloads, each at 200 us and 2 ms misses), "
                        "four-latencies (200/400/1000/2000 us), fifteen (100 us to 5 ms) "
                        "(default: four-mixed)")
    p.add_argument("--shares", type=cv.numbers_in("--shares", 0.01, 1.0, "0.25,0.5,0.75"),
                   default=[0.25, 0.5, 0.75],
                   help="M as shares of the tenants' working sets (default: 0.25,0.5,0.75)")
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help="comma-separated, of " + ", ".join(CONFIGS) + " (default: all)")
    p.add_argument("--keys", type=cv.count("--keys"), default=20000,
                   help="keys per tenant (default: 20000)")
    p.add_argument("--value-bytes", type=cv.int_in("--value-bytes", 1, 1 << 20), default=500,
                   help="value size (default: 500)")
    p.add_argument("--rate", type=cv.nonnegative("--rate"), default=1000.0,
                   help="requests per second per tenant, arriving open-loop whatever the "
                        "latency (as a cache's users do; Equation 6 weighs misses by it); 0: "
                        "closed loop, two clients a tenant (default: 1000)")
    p.add_argument("--duration", type=cv.seconds("--duration", positive=True), default="120s",
                   help="per configuration (default: 120s)")
    p.add_argument("--warmup", type=cv.seconds("--warmup"), default="30s",
                   help="left out of the results (default: 30s)")
    p.add_argument("--interval", type=cv.seconds("--interval", positive=True), default="5s",
                   help="the arbiter's interval (default: 5s)")
    p.add_argument("--side-by-side", action="store_true",
                   help="run each configuration at the same time as an equal split of its "
                        "own, on the same requests, one CPU each, and compare within each "
                        "pair: runs one after another differ by the machine's moments as much "
                        "as configurations do")
    p.add_argument("--repeats", type=cv.positive_int("--repeats", 64), default=None,
                   help="--side-by-side: pairs per configuration, the CPUs swapped every "
                        "time; its ratios are their geometric mean. Keep it even: the CPUs "
                        "are not alike (default: 2)")
    p.add_argument("--json", default=None, help="write every run as JSON")
    p.add_argument("--plot", type=cv.plot_path, default=None,
                   help="mean latency per configuration and the arbiter's sizes (a .png)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_bench_redis)


def cmd_bench_redis(args) -> int:
    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            raise _native.InputError(f"--configs: unknown configuration '{c}'; use "
                                     + ", ".join(CONFIGS))
    if "oracle" in configs and "kredis" not in configs:
        raise _native.InputError("--configs: oracle needs kredis's run (its curves); add kredis")
    if args.side_by_side and not [c for c in configs if c != "equal"]:
        raise _native.InputError("--side-by-side runs each configuration beside an equal split; "
                                 "name one besides equal in --configs")
    if args.repeats is not None and not args.side_by_side:
        raise _native.InputError("--repeats counts the pairs of --side-by-side; add "
                                 "--side-by-side or leave --repeats out")
    duration = parse_seconds(args.duration, "--duration")
    warmup = parse_seconds(args.warmup, "--warmup")
    interval = parse_seconds(args.interval, "--interval")
    if warmup >= duration:
        raise _native.InputError(f"--warmup {args.warmup} must be shorter than --duration "
                                 f"{args.duration}")
    module = find_binary("symbiosis_redis.so", "SYMBIOSIS_REDIS_MODULE")
    load = find_binary("redis_load", "SYMBIOSIS_REDIS_LOAD")
    tenants = case_tenants(args.case, args.keys, args.value_bytes, args.rate)
    # The oracle runs after the run whose curves it takes.
    order = [c for c in configs if c != "oracle"] + (["oracle"] if "oracle" in configs else [])
    results = []
    for share in args.shares:
        memory = int(share * sum(t.working_set() for t in tenants))
        if memory // len(tenants) < 2 << 20:
            raise _native.InputError(f"--shares {share}: M = {format_bytes(memory)} leaves under "
                                     "2 MiB a tenant; give more --keys or a larger share")
        if args.side_by_side:
            pairs = run_pairs(order, tenants, memory, repeats=args.repeats or 2,
                              duration=duration, quiet=args.quiet, warmup=warmup,
                              interval=interval, module=module, load=load)
            results.append({"share": share, "memory": memory, "pairs": pairs})
            if not args.quiet:
                print(format_pairs(args.case, share, memory, pairs, tenants))
            continue
        runs: Dict[str, RunResult] = {}
        for config in order:
            if not args.quiet:
                print(f"{args.case}, M = {format_bytes(memory)} ({share:g} of the working sets): "
                      f"{config} ...", file=sys.stderr, flush=True)
            oracle = (oracle_sizes(tenants, runs["kredis"], memory, duration)
                      if config == "oracle" else None)
            runs[config] = run_config(config, tenants, memory, duration=duration,
                                      warmup=warmup, interval=interval, module=module,
                                      load=load, oracle=oracle)
        results.append({"share": share, "memory": memory, "runs": runs})
        if not args.quiet:
            print(format_share(args.case, share, memory, runs, tenants))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(to_json(args, tenants, results), f, indent=1)
    if args.plot:
        plot_results(args.case, tenants, results, args.plot)
    return 0


def miss_latency_us(tenants: Sequence[BenchTenant], summary: List[dict]) -> float:
    """The misses' share of the mean latency, from the measured hit ratios:
    each tenant's misses times its miss latency, over every request. What
    the split changes (Equation 6), without the time a request waits for a
    CPU on a machine shared with the servers and the load, which moves the
    measured mean by as much between runs of one configuration."""
    latency = {t.name: t.miss_latency for t in tenants}
    ops = sum(e["ops"] for e in summary)
    return 1e6 * sum((e["ops"] - e["hits"]) * latency[e["name"]] for e in summary) / max(ops, 1)


def format_share(case: str, share: float, memory: int, runs: Dict[str, RunResult],
                 tenants: Sequence[BenchTenant]) -> str:
    equal = runs.get("equal")
    lines = [f"\n{case}, M = {format_bytes(memory)} ({share:g} of the working sets)",
             f"{'config':14} {'mean us':>9} {'vs equal':>9} {'miss us':>9} {'vs equal':>9} "
             f"{'p99 us':>9} {'hit ratio':>9} {'ops/s':>9}  sizes (MiB) at the end"]
    base = miss_latency_us(tenants, equal.summary) if equal else None
    for name, r in runs.items():
        vs = (f"{r.overall['mean_us'] / equal.overall['mean_us']:.3f}x" if equal else "-")
        miss = miss_latency_us(tenants, r.summary)
        vs_miss = f"{miss / base:.3f}x" if base else "-"
        sizes = " ".join(f"{s / (1 << 20):.1f}" for s in r.sizes.values())
        lines.append(f"{name:14} {r.overall['mean_us']:9.1f} {vs:>9} {miss:9.1f} {vs_miss:>9} "
                     f"{r.overall['p99_us']:9.0f} {r.overall['hit_ratio']:9.3f} "
                     f"{r.overall['ops_per_s']:9.0f}  {sizes}")
    return "\n".join(lines)


def format_pairs(case: str, share: float, memory: int, pairs: Dict[str, List[Pair]],
                 tenants: Sequence[BenchTenant]) -> str:
    """Each configuration against the equal split beside it: the misses'
    latency and the measured mean, the geometric mean of its pairs (each
    pair's in brackets)."""
    lines = [f"\n{case}, M = {format_bytes(memory)} ({share:g} of the working sets), "
             "each configuration beside an equal split",
             f"{'config':14} {'miss us':>9} {'equal':>9} {'vs equal (pairs)':>26} "
             f"{'mean vs equal':>13} {'p99 us':>9} {'hit ratio':>9}  sizes (MiB) at the end"]
    for name, ps in pairs.items():
        miss = np.mean([miss_latency_us(tenants, p.run.summary) for p in ps])
        equal = np.mean([miss_latency_us(tenants, p.equal.summary) for p in ps])
        each = " ".join(f"{p.miss_ratio(tenants):.3f}" for p in ps)
        vs = f"{geometric_mean([p.miss_ratio(tenants) for p in ps]):.3f}x ({each})"
        mean_vs = f"{geometric_mean([p.mean_ratio() for p in ps]):.3f}x"
        last = ps[-1].run
        sizes = " ".join(f"{s / (1 << 20):.1f}" for s in last.sizes.values())
        lines.append(f"{name:14} {miss:9.1f} {equal:9.1f} {vs:>26} {mean_vs:>13} "
                     f"{last.overall['p99_us']:9.0f} {last.overall['hit_ratio']:9.3f}  {sizes}")
    if "kredis" in pairs and "oracle" in pairs:
        ratio = (geometric_mean([p.miss_ratio(tenants) for p in pairs["kredis"]])
                 / geometric_mean([p.miss_ratio(tenants) for p in pairs["oracle"]]))
        lines.append(f"kredis / oracle (each over its equal split): {ratio:.3f}")
    return "\n".join(lines)


def _run_json(tenants: Sequence[BenchTenant], run: RunResult) -> dict:
    return {"summary": run.summary, "overall": run.overall,
            "miss_latency_us": miss_latency_us(tenants, run.summary), "sizes": run.sizes,
            "timeline": run.timeline, "arbiter": run.arbiter}


def to_json(args, tenants: Sequence[BenchTenant], results: List[dict]) -> dict:
    """One-after-another runs under "runs" (name -> run); side-by-side
    pairs under "pairs" (name -> [pair]), each with its ratios."""
    out = []
    for r in results:
        entry = {"share": r["share"], "memory": r["memory"]}
        if "pairs" in r:
            entry["pairs"] = {
                name: [{"repeat": p.repeat, "cpus": p.cpus,
                        "miss_latency_ratio": p.miss_ratio(tenants),
                        "mean_latency_ratio": p.mean_ratio(),
                        "run": _run_json(tenants, p.run), "equal": _run_json(tenants, p.equal)}
                       for p in ps]
                for name, ps in r["pairs"].items()}
        else:
            entry["runs"] = {name: _run_json(tenants, run) for name, run in r["runs"].items()}
        out.append(entry)
    return {"case": args.case, "duration": args.duration, "warmup": args.warmup,
            "side_by_side": bool(args.side_by_side),
            "tenants": [t.__dict__ | {"working_set": t.working_set()} for t in tenants],
            "results": out}


def plot_results(case: str, tenants: Sequence[BenchTenant], results: List[dict],
                 path: str) -> None:
    """Left: each configuration's misses' latency per request (one after
    another: in us, with the measured mean; side by side: over the equal
    split beside it, each pair a dot). Right: kredis's sizes over time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    paired = "pairs" in results[0]
    names = list(results[0]["pairs" if paired else "runs"])
    width = 0.8 / len(results)
    for i, r in enumerate(results):
        xs = np.arange(len(names)) + i * width
        label = f"M = {r['share']:g} of the working sets"
        if paired:
            ratios = [[p.miss_ratio(tenants) for p in r["pairs"][n]] for n in names]
            axes[0].bar(xs, [geometric_mean(v) for v in ratios], width, color=f"C{i}",
                        label=label)
            for x, v in zip(xs, ratios):
                axes[0].plot([x] * len(v), v, ".", color="black", ms=4)
            continue
        misses = [miss_latency_us(tenants, r["runs"][n].summary) for n in names]
        means = [r["runs"][n].overall["mean_us"] for n in names]
        axes[0].bar(xs, misses, width, color=f"C{i}", label=label + ": miss latency")
        axes[0].plot(xs, means, "_", color="black", ms=10, mew=1.5,
                     label="measured mean latency" if i == 0 else None)
    axes[0].set_xticks(np.arange(len(names)) + width * (len(results) - 1) / 2, names)
    if paired:
        axes[0].axhline(1, color="gray", lw=0.8)
        axes[0].set_ylabel("misses x miss latency, over the equal split beside")
        axes[0].set_title(f"{case}: each configuration over an equal split run at the same "
                          "time\n(bars: geometric mean of the pairs, dots: each pair; lower "
                          "is better)", fontsize=9)
    else:
        axes[0].set_ylabel("us per request")
        axes[0].set_title(f"{case}: misses x miss latency per request (bars; lower is better)\n"
                          "and the measured mean latency (ticks)", fontsize=9)
    axes[0].legend(fontsize=7)
    last = next((r for r in reversed(results)
                 if "kredis" in r.get("pairs", r.get("runs", {}))), None)
    records = []
    if last is not None:
        records = (last["pairs"]["kredis"][0].run.arbiter if paired
                   else last["runs"]["kredis"].arbiter)
    if records:
        t0 = records[0]["time"]
        xs = [rec["time"] - t0 for rec in records]
        for t in tenants:
            ys = [next(e["maxmemory"] for e in rec["tenants"] if e["name"] == t.name) / (1 << 20)
                  for rec in records]
            axes[1].step(xs, ys, where="post",
                         label=f"{t.name} {t.workload} {t.miss_latency * 1e6:.0f} us")
        axes[1].set_xlabel("seconds")
        axes[1].set_ylabel("maxmemory (MiB)")
        axes[1].set_title(f"kredis's sizes at M = {last['share']:g} of the working sets")
        axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
