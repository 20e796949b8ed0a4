"""kRedis's arbiter: one memory budget split among the tenants of a Redis
cache, each its own unmodified redis-server with our module loaded, live.

Each interval it reads every tenant: the module's KRR curves for several
maxmemory-samples K (SYMBIOSIS.MRC, sizes in bytes of maxmemory less the
server's own use), its reads since the last interval (the request rate),
INFO's hits and misses (the measured miss ratio) and MEMORY STATS (the
server's own use: startup, client buffers, replication; what a key costs
is in the curves). The curves are merged over K (the lowest miss ratio at
each size), the sizes that minimise the total expected miss latency (the
paper's Equation 6; hits per second for Equation 7) are chosen under the
budget, each with the K lowest there unless the K in place is within the
hysteresis (kredis.choose_k), and applied with CONFIG SET maxmemory and
maxmemory-samples: shrinks before grows, so the sum of maxmemory never
exceeds the budget, even if a server goes away half-way.

A decision is applied only when it lowers the predicted cost by more than
the hysteresis share of the cost now (each tenant at its present size and
K, on the same curves), so that sampling noise moves nothing. A tenant
whose module has not been measured over an interval yet keeps its limit
(a restarted arbiter moves nothing before it has measured); one without
the module keeps a static share (the budget over the tenants); one that
does not answer keeps the maxmemory it was last given, reserved, and is
named in a warning each interval; when it answers again it is given its
size at once. Killing the arbiter leaves
every server at its last size (CONFIG SET is the servers' own state).

Every interval goes to a JSON-lines log, a plot is drawn from it at the
end, and `--metrics-port` serves the tenants' state in Prometheus' text
format.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

import numpy as np

from symbiosis import _native
from symbiosis.kredis import (OBJECTIVES, TenantCurve, allocate, choose_k, merge_over_k,
                              predicted_cost)
from symbiosis.redis_server import redis_client_module
from symbiosis.units import format_bytes, parse_seconds

DEFAULT_MISS_LATENCY = 0.001  # seconds: a local database's read
CURVE_POINTS = 64             # sizes asked of SYMBIOSIS.MRC
GRID_CELLS = 512              # the split's grid: 1/512 of the budget
MIN_GRANULARITY = 64 << 10    # bytes
SOCKET_SECONDS = 2.0          # a tenant that takes longer is unreachable this interval

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass
class TenantSpec:
    """One tenant as given on the command line."""
    name: str
    host: str
    port: int
    miss_latency: float = DEFAULT_MISS_LATENCY  # seconds a miss costs beyond a hit
    weight: float = 1.0


def parse_tenant(text: str) -> TenantSpec:
    """"NAME=HOST:PORT[,miss-latency=2ms][,weight=W]". Raises InputError."""
    example = "give e.g. --tenant web=127.0.0.1:6379,miss-latency=2ms,weight=1"
    name, eq, rest = text.partition("=")
    if not eq or not name or not _NAME.match(name):
        raise _native.InputError(f"--tenant '{text}': it must start with a name (letters, digits, "
                                 f"_ . -) and '='; {example}")
    parts = rest.split(",")
    host, colon, port_text = parts[0].rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise _native.InputError(f"--tenant '{text}': '{parts[0]}' is not HOST:PORT with a port "
                                 f"from 1 to 65535; {example}")
    spec = TenantSpec(name, host, int(port_text))
    for option in parts[1:]:
        key, eq, value = option.partition("=")
        if key == "miss-latency" and eq:
            spec.miss_latency = parse_seconds(value, f"--tenant {name}: miss-latency")
            if not (spec.miss_latency > 0 and math.isfinite(spec.miss_latency)):
                raise _native.InputError(f"--tenant {name}: miss-latency {value} must be longer "
                                         "than 0, e.g. 2ms")
        elif key == "weight" and eq:
            try:
                spec.weight = float(value)
            except ValueError:
                spec.weight = float("nan")
            if not (spec.weight > 0 and math.isfinite(spec.weight)):
                raise _native.InputError(f"--tenant {name}: weight '{value}' must be a number "
                                         "above 0, e.g. 2")
        else:
            raise _native.InputError(f"--tenant {name}: unknown option '{option}'; the options "
                                     "are miss-latency=DURATION and weight=W")
    return spec


@dataclass
class Reading:
    """What one interval read of a tenant; `up` False when it did not answer."""
    up: bool
    error: str = ""
    maxmemory: int = 0
    samples: int = 0
    base: int = 0                 # the server's own use, bytes
    hits: int = 0
    misses: int = 0
    module: bool = False
    requests: int = 0             # the module's reads since its start or reset
    curves: Dict[int, Tuple[List[int], List[float]]] = field(default_factory=dict)
    time: float = 0.0


@dataclass
class TenantState:
    spec: TenantSpec
    client: object = None
    last: Optional[Reading] = None
    given: Optional[int] = None   # the maxmemory this arbiter last set (or found)
    rate: Optional[float] = None  # reads per second over the last interval
    measured: Optional[float] = None


def default_floor(memory: int, tenants: int) -> int:
    """A tenant's least size, in bytes beside its server's own use: a tenth
    of an equal share, so that no tenant is starved on a curve's word (KRR
    under-predicts a real server's misses at the smallest sizes)."""
    return memory // tenants // 10


def grid_granularity(room: int) -> int:
    """The split's grid for `room` bytes: GRID_CELLS cells, none under
    MIN_GRANULARITY."""
    return max(MIN_GRANULARITY, -(-max(room, 1) // GRID_CELLS))


def server_base(stats: dict) -> int:
    """The server's own use from MEMORY STATS: its overhead less the key
    tables' (those are in the curves' per-key bytes)."""
    base = int(stats.get("overhead.total", 0))
    for name, value in stats.items():
        if str(name).startswith("db.") and isinstance(value, dict):
            base -= int(value.get("overhead.hashtable.main", 0))
            base -= int(value.get("overhead.hashtable.expires", 0))
    return max(base, 0)


def runnable_curves(curves: Dict[int, Tuple[List[int], List[float]]]
                    ) -> Dict[int, Tuple[List[int], List[float]]]:
    """The curves of the K a Redis server can run: the module's K = 0 is
    exact LRU's, which no Redis evicts by."""
    return {k: c for k, c in curves.items() if k > 0}


def parse_mrc(reply) -> Tuple[int, Dict[int, Tuple[List[int], List[float]]]]:
    """SYMBIOSIS.MRC's reply: (requests, {K: (sizes, miss ratios)})."""
    fields = {(k.decode() if isinstance(k, bytes) else str(k)): v
              for k, v in zip(reply[::2], reply[1::2])}
    curves = {}
    for k, sizes, ratios in fields.get("curves", []):
        curves[int(k)] = ([int(s) for s in sizes], [float(m) for m in ratios])
    return int(fields.get("requests", 0)), curves


class Arbiter:
    """The decisions of one arbiter over its tenants. `round()` runs one
    interval; the CLI calls it every --interval."""

    def __init__(self, tenants: Sequence[TenantSpec], memory: int, *, objective: str = "latency",
                 k: int = 0, lru: bool = False, floor: Optional[int] = None,
                 hysteresis: float = 0.02,
                 log: Optional[TextIO] = None, warn: TextIO = sys.stderr) -> None:
        if not tenants:
            raise _native.InputError("give at least one --tenant NAME=HOST:PORT")
        names = [t.name for t in tenants]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})[0]
            raise _native.InputError(f"--tenant {dup} is given twice; give each tenant one name")
        if objective not in OBJECTIVES:
            raise _native.InputError(f"--objective {objective}: unknown; use latency or "
                                     "hit-throughput")
        if not (0 <= hysteresis < 1):
            raise _native.InputError(f"--hysteresis {hysteresis} must be from 0 to below 1, "
                                     "e.g. 0.02")
        self.memory = memory
        self.share = memory // len(tenants)
        self.floor = default_floor(memory, len(tenants)) if floor is None else floor
        if self.floor * len(tenants) > memory:
            raise _native.InputError(
                f"--floor {format_bytes(self.floor)} for {len(tenants)} tenants is "
                f"{format_bytes(self.floor * len(tenants))}, more than --memory "
                f"{format_bytes(memory)}; lower the floor or give more memory")
        if self.share < 1 << 20:
            raise _native.InputError(
                f"--memory {format_bytes(memory)} over {len(tenants)} tenants is under 1 MiB "
                "each, less than a redis-server holds empty; give more memory")
        self.objective = objective
        self.k = k
        # Exact LRU's curves (the module's K = 0), maxmemory-samples left
        # alone: what an LRU model of Redis (pRedis) decides.
        self.lru = lru
        self.hysteresis = hysteresis
        self.log = log
        self.warn = warn
        self.tenants = [TenantState(t) for t in tenants]
        self.rounds = 0
        self.applied = 0
        self.last_record: Optional[dict] = None
        self._warned: set = set()
        self._redis = redis_client_module()

    # -- reading ---------------------------------------------------------

    def connect_all(self) -> None:
        """Checks every tenant answers, at start. Raises InputError naming
        the first that does not (a wrong port is likelier than a down server)."""
        for t in self.tenants:
            r = self._read(t)
            if not r.up:
                raise _native.InputError(
                    f"tenant {t.spec.name} at {t.spec.host}:{t.spec.port} does not answer "
                    f"({r.error}); check the address, or start its redis-server")

    def _client(self, t: TenantState):
        if t.client is None:
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            t.client = self._redis.Redis(host=t.spec.host, port=t.spec.port,
                                         socket_timeout=SOCKET_SECONDS,
                                         socket_connect_timeout=SOCKET_SECONDS,
                                         retry=Retry(NoBackoff(), 0))
        return t.client

    def _read(self, t: TenantState) -> Reading:
        c = self._client(t)
        try:
            memory = c.memory_stats()
            stats = c.info("stats")
            config = c.config_get("maxmemory*")
            r = Reading(up=True, maxmemory=int(config["maxmemory"]),
                        samples=int(config["maxmemory-samples"]), base=server_base(memory),
                        hits=int(stats["keyspace_hits"]), misses=int(stats["keyspace_misses"]),
                        time=time.monotonic())
            try:
                r.requests, r.curves = parse_mrc(
                    c.execute_command("SYMBIOSIS.MRC", "POINTS", CURVE_POINTS))
                r.module = True
            except self._redis.exceptions.ResponseError:
                r.module = False  # "unknown command": no module loaded
            return r
        except (self._redis.exceptions.ConnectionError, self._redis.exceptions.TimeoutError,
                OSError) as e:
            t.client = None
            return Reading(up=False, error=" ".join(str(e).split()) or type(e).__name__)

    # -- deciding ---------------------------------------------------------

    def _curve(self, t: TenantState, r: Reading) -> Optional[TenantCurve]:
        """The tenant's curve (merged over the K Redis runs, or the fixed
        K's, or exact LRU's), or None."""
        want = 0 if self.lru else self.k
        if self.lru or self.k:
            if want not in r.curves:
                if t.spec.name not in self._warned:
                    self._warned.add(t.spec.name)
                    print(f"symbiosis redis-arbiter: warning: tenant {t.spec.name}'s module "
                          f"keeps no curve for K={want}; load it with ks "
                          f"{','.join(map(str, sorted(set(r.curves) | {want})))}; the tenant "
                          "keeps its size", file=self.warn)
                return None
            curves = {want: r.curves[want]}
        else:
            curves = runnable_curves(r.curves)
        if not curves or not curves[min(curves)][0]:
            return None
        sizes, ratios = merge_over_k(curves)
        return TenantCurve(t.spec.name, sizes, ratios, t.rate, t.spec.miss_latency,
                           t.spec.weight)

    def _curve_at_k(self, t: TenantState, r: Reading, k: int) -> Optional[TenantCurve]:
        if k not in r.curves:
            return None
        sizes, ratios = r.curves[k]
        return TenantCurve(t.spec.name, np.asarray(sizes, dtype=np.uint64),
                           np.asarray(ratios, dtype=float), t.rate,
                           t.spec.miss_latency, t.spec.weight)

    def round(self) -> dict:
        """Reads every tenant, decides, applies; returns the log record."""
        start = time.monotonic()
        self.rounds += 1
        readings = []
        for t in self.tenants:
            r = self._read(t)
            prev = t.last
            if r.up and prev is not None and r.time > prev.time:  # t.last: an up reading
                dt = r.time - prev.time
                # A server restarted (or its module reset) counts from 0 again.
                t.rate = (max(r.requests - prev.requests, 0) / dt
                          if r.requests >= prev.requests else r.requests / dt)
                h, m = r.hits - prev.hits, r.misses - prev.misses
                t.measured = m / (h + m) if h >= 0 and m >= 0 and h + m > 0 else None
            if r.up:
                t.given = r.maxmemory  # the server's own word (a restart resets it)
                t.last = r
            readings.append(r)
        decide = time.monotonic()
        record = self._decide_and_apply(readings)
        # Reading the servers (which waits on busy ones) apart from the
        # decision and its CONFIG SETs.
        record["read_seconds"] = decide - start
        record["decision_seconds"] = time.monotonic() - decide
        self.last_record = record
        if self.log is not None:
            self.log.write(json.dumps(record) + "\n")
            self.log.flush()
        return record

    def _decide_and_apply(self, readings: List[Reading]) -> dict:
        down: List[TenantState] = []
        modelled: List[Tuple[TenantState, Reading, TenantCurve]] = []
        static: List[TenantState] = []
        waiting: List[Tuple[TenantState, Reading]] = []
        mode: Dict[str, str] = {}  # each tenant's, for the record
        for t, r in zip(self.tenants, readings):
            if not r.up:
                down.append(t)
                mode[t.spec.name] = "down"
                print(f"symbiosis redis-arbiter: warning: tenant {t.spec.name} at "
                      f"{t.spec.host}:{t.spec.port} does not answer ({r.error}); it keeps "
                      f"{format_bytes(t.given or self.share)}", file=self.warn)
                continue
            if not r.module:
                static.append(t)
                mode[t.spec.name] = "static"
                if t.spec.name not in self._warned:
                    self._warned.add(t.spec.name)
                    print(f"symbiosis redis-arbiter: warning: tenant {t.spec.name} has no "
                          "symbiosis module loaded; it keeps a static share of "
                          f"{format_bytes(self.share)}", file=self.warn)
                continue
            curve = self._curve(t, r) if t.rate is not None else None
            if curve is None:
                waiting.append((t, r))  # no rate yet (a first reading) or no curve
                mode[t.spec.name] = "waiting"
            else:
                modelled.append((t, r, curve))
                mode[t.spec.name] = "modelled"
        # What is not the modelled tenants': the absent's reservations, static
        # shares, and the waiting ones' present limits (a restarted arbiter
        # moves nothing before it has measured), or shares where those do
        # not fit or there is no limit.
        reserved = sum(min(t.given, self.memory) if t.given else self.share for t in down)
        target: Dict[str, Tuple[int, int]] = {}  # name -> (maxmemory, samples or 0)
        for t in static:
            target[t.spec.name] = (self.share, 0)
        keep = [r.maxmemory if 0 < r.maxmemory <= self.memory else self.share for _, r in waiting]
        if reserved + self.share * len(static) + sum(keep) > self.memory:
            keep = [self.share] * len(waiting)
        for (t, _), m in zip(waiting, keep):
            target[t.spec.name] = (m, 0)
        budget = self.memory - reserved - self.share * len(static) - sum(keep)
        bases = sum(r.base for _, r, _ in modelled)
        decision = {"modelled": [t.spec.name for t, _, _ in modelled]}
        applied_model = False
        if modelled:
            room = budget - bases
            floors = [self.floor] * len(modelled)
            granularity = grid_granularity(room)
            if room < self.floor * len(modelled):
                # Not even the floors fit beside the absent's reservations:
                # equal parts of what there is.
                sizes = [max(room, 0) // len(modelled)] * len(modelled)
                floors = [0] * len(modelled)
                decision["reason"] = "the floors do not fit beside the reservations"
            else:
                sizes = allocate([c for _, _, c in modelled], room, granularity, floors,
                                 self.objective)
            # The K in place stays within the hysteresis (docs/decisions/redis-k-choice.md).
            ks = [self.k or (0 if self.lru else
                             choose_k(runnable_curves(r.curves), s, r.samples, self.hysteresis))
                  for (_, r, _), s in zip(modelled, sizes)]
            new_cost = predicted_cost([c for _, _, c in modelled], sizes, self.objective)
            # Now: each at its present size and K, on the same curves.
            now_sizes, now_curves, must = [], [], False
            for (t, r, c), floor in zip(modelled, floors):
                size = r.maxmemory - r.base
                if r.maxmemory == 0 or size < floor:
                    must = True  # no limit, or under the floor
                now_sizes.append(max(size, 0))
                now_curves.append(self._curve_at_k(t, r, 0 if self.lru else r.samples) or c)
            if sum(r.maxmemory for _, r, _ in modelled) > budget:
                must = True
            old_cost = predicted_cost(now_curves, now_sizes, self.objective)
            gain = old_cost - new_cost
            scale = abs(old_cost) if old_cost else 1.0
            decision.update(predicted_cost_now=old_cost, predicted_cost_new=new_cost,
                            granularity=granularity)
            # docs/decisions/arbiter-hysteresis.md
            if must or gain > self.hysteresis * scale:
                applied_model = True
                decision["reason"] = decision.get("reason") or (
                    "a limit to restore" if must else "predicted gain above the hysteresis")
                for (t, r, _), size, k in zip(modelled, sizes, ks):
                    target[t.spec.name] = (size + r.base, k)
            else:
                decision["reason"] = "predicted gain within the hysteresis"
                for t, r, _ in modelled:
                    target[t.spec.name] = (r.maxmemory, 0)
        # Servers back from the dead, static ones off their share: set them.
        moves = self._apply(readings, target)
        if applied_model:
            self.applied += 1
        decision["applied"] = applied_model
        curves = {t.spec.name: c for t, _, c in modelled}
        tenants = []
        for t, r in zip(self.tenants, readings):
            entry = {"name": t.spec.name, "up": r.up, "module": r.module if r.up else None,
                     "maxmemory": t.given, "samples": r.samples if r.up else None,
                     "base": r.base if r.up else None, "request_rate": t.rate,
                     "measured_miss_ratio": t.measured, "mode": mode[t.spec.name]}
            if t.spec.name in curves and t.given:
                size = t.given - r.base
                entry["predicted_miss_ratio"] = float(curves[t.spec.name].miss_ratio_at(size))
                entry["working_set"] = int(curves[t.spec.name].sizes[-1])
            tenants.append(entry)
        return {"time": time.time(), "round": self.rounds, "memory": self.memory,
                "objective": self.objective, "tenants": tenants, "decision": decision,
                "moves": moves}

    # -- applying -----------------------------------------------------------

    def _set(self, t: TenantState, maxmemory: Optional[int], samples: int) -> Optional[str]:
        """CONFIG SET on one tenant; the error, or None."""
        try:
            c = self._client(t)
            if samples:
                c.config_set("maxmemory-samples", samples)
            if maxmemory is not None:
                c.config_set("maxmemory", maxmemory)
                t.given = maxmemory
            return None
        except (self._redis.exceptions.RedisError, OSError) as e:
            t.client = None
            return " ".join(str(e).split()) or type(e).__name__

    def _apply(self, readings: List[Reading], target: Dict[str, Tuple[int, int]]) -> List[dict]:
        """Shrinks first, then grows, each grow only as far as keeps the sum
        of every tenant's maxmemory (the absent's as last given) within the
        budget, whatever failed before it."""
        def current(t: TenantState) -> int:
            return self.memory if not t.given else t.given  # 0: no limit

        moves = []
        by_name = {t.spec.name: t for t in self.tenants}
        up = {t.spec.name for t, r in zip(self.tenants, readings) if r.up}
        shrinks = [(n, m, k) for n, (m, k) in target.items() if m < current(by_name[n])]
        grows = [(n, m, k) for n, (m, k) in target.items() if m >= current(by_name[n])]
        for name, maxmemory, k in shrinks + grows:
            t = by_name[name]
            before = current(t)
            if maxmemory > before:
                others = sum(current(o) for o in self.tenants if o is not t)
                maxmemory = min(maxmemory, self.memory - others)
                if maxmemory <= before:
                    maxmemory = None  # a shrink elsewhere failed: stay
            elif maxmemory == before and t.given:
                maxmemory = None  # nothing to change
            if maxmemory is None and not k:
                continue
            if name not in up:
                continue
            error = self._set(t, maxmemory, k)
            moves.append({"name": name, "maxmemory": maxmemory, "samples": k or None,
                          "error": error})
            if error:
                print(f"symbiosis redis-arbiter: warning: tenant {name}: CONFIG SET failed "
                      f"({error}); it stays at {format_bytes(current(t))}", file=self.warn)
        return moves


# -- Prometheus ----------------------------------------------------------------

def metrics_text(arbiter: Arbiter) -> str:
    """The arbiter's state in Prometheus' text exposition format."""
    record = arbiter.last_record or {"tenants": [], "decision": {}}
    lines = []

    def family(name: str, kind: str, help_text: str, samples: List[Tuple[str, object]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            if value is None:
                continue
            lines.append(f"{name}{labels} {float(value):.10g}")

    def per_tenant(key: str) -> List[Tuple[str, object]]:
        return [(f'{{tenant="{t["name"]}"}}', t.get(key)) for t in record["tenants"]]

    family("symbiosis_redis_tenant_up", "gauge", "1 when the tenant's server answered",
           [(f'{{tenant="{t["name"]}"}}', int(t["up"])) for t in record["tenants"]])
    family("symbiosis_redis_tenant_modelled", "gauge",
           "1 when the tenant's size comes from its curves, 0 for a static share",
           [(f'{{tenant="{t["name"]}"}}', int(t["mode"] == "modelled")) for t in record["tenants"]])
    family("symbiosis_redis_maxmemory_bytes", "gauge", "the maxmemory last set",
           per_tenant("maxmemory"))
    family("symbiosis_redis_maxmemory_samples", "gauge", "maxmemory-samples (K)",
           per_tenant("samples"))
    family("symbiosis_redis_request_rate", "gauge", "reads per second over the last interval",
           per_tenant("request_rate"))
    family("symbiosis_redis_predicted_miss_ratio", "gauge", "the curve's miss ratio at the size",
           per_tenant("predicted_miss_ratio"))
    family("symbiosis_redis_measured_miss_ratio", "gauge",
           "keyspace misses over reads in the last interval", per_tenant("measured_miss_ratio"))
    family("symbiosis_redis_arbiter_memory_bytes", "gauge", "the budget split",
           [("", arbiter.memory)])
    family("symbiosis_redis_arbiter_rounds_total", "counter", "intervals run",
           [("", arbiter.rounds)])
    family("symbiosis_redis_arbiter_decisions_applied_total", "counter",
           "decisions applied (the others were within the hysteresis)", [("", arbiter.applied)])
    family("symbiosis_redis_arbiter_read_seconds", "gauge",
           "the last interval's reading of the tenants", [("", record.get("read_seconds"))])
    family("symbiosis_redis_arbiter_decision_seconds", "gauge",
           "the last interval's deciding and applying", [("", record.get("decision_seconds"))])
    return "\n".join(lines) + "\n"


def serve_metrics(arbiter: Arbiter, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """Serves /metrics on a thread of its own; returns the server (shutdown() stops it)."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404, "the metrics are at /metrics")
                return
            body = metrics_text(arbiter).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    try:
        server = ThreadingHTTPServer((host, port), Handler)
    except OSError as e:
        raise _native.InputError(f"--metrics-port {port}: cannot listen ({e.strerror}); "
                                 "choose a free port") from None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# -- plot ------------------------------------------------------------------------

def plot_log(records: List[dict], path: str) -> None:
    """Sizes (stacked), K and miss ratios (measured, predicted) over time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not records:
        raise _native.InputError("the arbiter's log is empty: nothing to plot")
    t0 = records[0]["time"]
    xs = [r["time"] - t0 for r in records]
    names = [t["name"] for t in records[0]["tenants"]]
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)

    def series(key: str, name: str) -> List[float]:
        out = []
        for r in records:
            entry = next((t for t in r["tenants"] if t["name"] == name), {})
            v = entry.get(key)
            out.append(float("nan") if v is None else float(v))
        return out

    sizes = [np.nan_to_num(np.asarray(series("maxmemory", n)) / (1 << 20)) for n in names]
    axes[0].stackplot(xs, sizes, labels=names, step="post")
    axes[0].axhline(records[0]["memory"] / (1 << 20), color="black", lw=1, ls="--",
                    label="budget")
    axes[0].set_ylabel("maxmemory (MiB)")
    axes[0].legend(loc="upper left", fontsize=8, ncol=min(len(names) + 1, 5))
    for n in names:
        axes[1].step(xs, series("samples", n), where="post", label=n)
    axes[1].set_ylabel("maxmemory-samples K")
    for i, n in enumerate(names):
        line, = axes[2].plot(xs, series("measured_miss_ratio", n), label=f"{n} measured")
        axes[2].plot(xs, series("predicted_miss_ratio", n), ls="--", color=line.get_color(),
                     label=f"{n} predicted")
    axes[2].set_ylabel("miss ratio")
    axes[2].set_xlabel("seconds since the arbiter started")
    axes[2].legend(loc="upper right", fontsize=7, ncol=2)
    applied = [x for x, r in zip(xs, records) if r["decision"].get("applied")]
    for ax in axes:
        for x in applied:
            ax.axvline(x, color="grey", lw=0.5, alpha=0.5)
    axes[0].set_title("kRedis arbiter: sizes, K and miss ratios per tenant "
                      "(grey lines: decisions applied)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- command line ----------------------------------------------------------------

ARBITER_DESCRIPTION = """\
Split one memory budget among the tenants of a Redis cache, each its own
redis-server with the symbiosis module loaded (redis-server --loadmodule
symbiosis_redis.so), live: each interval it reads every tenant's KRR
miss-ratio curves for several maxmemory-samples K, merges them over K,
chooses the sizes that minimise the total expected miss latency (kRedis,
the KRR paper's Equation 6; --objective hit-throughput for its Equation 7)
and applies them with CONFIG SET maxmemory / maxmemory-samples, shrinks
before grows, so the servers' maxmemory never add up to more than
--memory."""

ARBITER_EPILOG = """\
what it does with each tenant:
  modelled  its size and K come from its curves and its request rate
  waiting   the module is there but no interval has been measured yet (or
            no read seen): it keeps its present limit, so a restarted
            arbiter moves nothing before it has measured
  static    no module: a static share (--memory over the tenants), and a
            warning names it
  down      it does not answer: it keeps the maxmemory it was last given,
            reserved, named in a warning each interval; when it answers
            again it gets its size at once
  A decision is applied only if it lowers the predicted cost by more than
  --hysteresis of the cost now; a tenant's K changes only if another K's
  curve is lower at its size by more than --hysteresis of its own.
  Stopping the arbiter (Ctrl-C, SIGTERM, a kill) leaves every server at
  its last size.

examples:
  symbiosis redis-arbiter --tenant web=127.0.0.1:6379,miss-latency=200us \\
      --tenant feed=127.0.0.1:6380,miss-latency=2ms --memory 4GiB --interval 10s \\
      --log arbiter.jsonl --plot arbiter.png --metrics-port 9402
  symbiosis redis-arbiter --tenant a=10.0.0.5:6379 --tenant b=10.0.0.6:6379 \\
      --memory 8GiB --k 5 --objective hit-throughput --rounds 1   # one decision
"""


def add_arbiter_parser(sub) -> None:
    """Adds `symbiosis redis-arbiter` to the CLI's subcommands."""
    import argparse

    from symbiosis import converters as cv

    p = sub.add_parser("redis-arbiter", help="split a memory budget among Redis servers, live "
                                             "(kRedis)",
                       description=ARBITER_DESCRIPTION, epilog=ARBITER_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tenant", type=parse_tenant, action="append", required=True,
                   metavar="NAME=HOST:PORT[,miss-latency=D][,weight=W]",
                   help="a tenant's server; miss-latency is what a miss costs it beyond a hit "
                        "(its database's read; default 1ms), weight multiplies its cost "
                        "(default 1). Repeat for each tenant")
    p.add_argument("--memory", type=cv.size("--memory"), required=True,
                   help="the budget: the sum of the servers' maxmemory, e.g. 4GiB")
    p.add_argument("--interval", type=cv.seconds("--interval", positive=True), default="10s",
                   help="how often to read and decide (default: 10s)")
    p.add_argument("--objective", choices=OBJECTIVES, default="latency",
                   help="latency: least total miss latency (Eq. 6); hit-throughput: most hits "
                        "per second (Eq. 7) (default: latency)")
    p.add_argument("--k", default="auto",
                   help="auto: each tenant's K where its curves say (default); or a K of the "
                        "module's (e.g. 5) for every tenant; or lru: exact LRU's curves (the "
                        "module loaded with a 0 in its ks), K left as it is, as an LRU model "
                        "of Redis (pRedis) would decide")
    p.add_argument("--floor", type=cv.size("--floor"), default=None,
                   help="the least a modelled tenant's keys get (default: a tenth of the equal "
                        "share)")
    p.add_argument("--hysteresis", type=cv.fraction("--hysteresis", False, True), default=0.02,
                   help="apply a decision only if it lowers the predicted cost by more than "
                        "this share of the cost now (default: 0.02)")
    p.add_argument("--rounds", type=cv.count("--rounds"), default=0,
                   help="stop after this many intervals (default: 0, run until stopped)")
    p.add_argument("--log", default=None, help="append each interval as a JSON line here")
    p.add_argument("--plot", type=cv.plot_path, default=None,
                   help="at the end, plot sizes, K and miss ratios over time (a .png path)")
    p.add_argument("--metrics-port", type=cv.int_in("--metrics-port", 1, 65535), default=None,
                   help="serve /metrics in Prometheus' text format on this port (127.0.0.1)")
    p.add_argument("--metrics-host", default="127.0.0.1",
                   help="the address to serve metrics on (default: %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no line per interval")
    p.set_defaults(func=cmd_redis_arbiter)


def _k_option(text: str) -> Tuple[int, bool]:
    """--k: (K, 0 for auto; whether exact LRU's curves decide)."""
    if text == "auto":
        return 0, False
    if text == "lru":
        return 0, True
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise _native.InputError(f"--k {text}: give auto, lru, or a K from 1 to 64 that the "
                                 "module keeps (its ks, default 1,5,8,16)")
    return int(text), False


def _summary(record: dict) -> str:
    parts = []
    for t in record["tenants"]:
        if t["mode"] == "down":
            parts.append(f"{t['name']} down")
            continue
        size = format_bytes(t["maxmemory"]) if t["maxmemory"] else "no limit"
        mr = t.get("measured_miss_ratio")
        pred = t.get("predicted_miss_ratio")
        parts.append(f"{t['name']} {size} K={t['samples']}"
                     + (f" miss {mr:.3f}" if mr is not None else "")
                     + (f" (predicted {pred:.3f})" if pred is not None else "")
                     + ("" if t["mode"] == "modelled" else f" [{t['mode']}]"))
    d = record["decision"]
    return (f"round {record['round']}: " + "; ".join(parts)
            + f" -- {'applied' if d.get('applied') else 'kept'}"
            + (f": {d['reason']}" if d.get("reason") else "")
            + f" (read {record['read_seconds'] * 1000:.0f} ms, decided "
            f"{record['decision_seconds'] * 1000:.0f} ms)")


def cmd_redis_arbiter(args) -> int:
    import signal

    k, lru = _k_option(args.k)
    interval = parse_seconds(args.interval, "--interval")
    log = open(args.log, "a") if args.log else None
    records: List[dict] = []
    metrics = None
    stop = threading.Event()

    def on_signal(signum, frame) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        arbiter = Arbiter(args.tenant, args.memory, objective=args.objective, k=k,
                          lru=lru, floor=args.floor, hysteresis=args.hysteresis, log=log)
        arbiter.connect_all()
        if args.metrics_port:
            metrics = serve_metrics(arbiter, args.metrics_port, args.metrics_host)
        next_time = time.monotonic()
        while not stop.is_set():
            record = arbiter.round()
            records.append(record)
            if not args.quiet:
                print(_summary(record), flush=True)
            if args.rounds and arbiter.rounds >= args.rounds:
                break
            next_time += interval
            stop.wait(max(next_time - time.monotonic(), 0))
        if stop.is_set() and not args.quiet:
            print("symbiosis redis-arbiter: stopped; every server keeps its last size",
                  file=sys.stderr)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if metrics is not None:
            metrics.shutdown()
        if log is not None:
            log.close()
    if args.plot and records:
        plot_log(records, args.plot)
        if not args.quiet:
            print(f"wrote {args.plot}")
    return 0
