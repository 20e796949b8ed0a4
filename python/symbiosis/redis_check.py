"""Cache-aside replays into a real redis-server beside the Redis model's
prediction of the same requests at the same times: how `symbiosis mrc
--algo redis` is checked against the server it models
(bench/redis-model.md, tests/python/test_redis_model.py).

A replay is a client's cache-aside loop: GET the key; on a miss SET it to
a value of the request's size. Key names are the key's 16 hex digits (16
bytes). Each GET's wall-clock time is recorded, since the server's LRU
clock is the wall clock in seconds; the model is given those times.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional

import numpy as np

from symbiosis import _native
from symbiosis.mrc import miss_ratio_curve
from symbiosis.redis_server import RedisServer, redis_client_module

KEY_BYTES = 16


@dataclass
class Requests:
    """A request stream: keys (uint64) and value sizes in bytes."""
    name: str
    keys: np.ndarray
    sizes: np.ndarray

    @property
    def working_set(self) -> int:
        return int(np.unique(self.keys).size)


def zipfian(theta: float, keys: int, requests: int, value_bytes: int = 100,
            seed: int = 1) -> Requests:
    """Keys drawn with P(rank r) proportional to 1 / r^theta, the ranks
    shuffled over the key ids."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, keys + 1) ** theta
    ranks = rng.choice(keys, size=requests, p=weights / weights.sum())
    ids = rng.permutation(keys).astype(np.uint64)
    return Requests(f"zipfian {theta:g}", ids[ranks], np.full(requests, value_bytes, np.uint32))


def hotspot(hot_share: float, hot_requests: float, keys: int, requests: int,
            value_bytes: int = 100, seed: int = 1) -> Requests:
    """`hot_requests` of the requests uniform over `hot_share` of the keys,
    the rest uniform over the others."""
    rng = np.random.default_rng(seed)
    hot = max(1, int(keys * hot_share))
    is_hot = rng.random(requests) < hot_requests
    ids = np.where(is_hot, rng.integers(0, hot, requests), rng.integers(hot, keys, requests))
    perm = rng.permutation(keys).astype(np.uint64)
    return Requests(f"hotspot {hot_share:g}/{hot_requests:g}", perm[ids],
                    np.full(requests, value_bytes, np.uint32))


def zipfian_with_scans(theta: float, keys: int, requests: int, scan_every: int,
                       scan_keys: int, value_bytes: int = 100, seed: int = 1) -> Requests:
    """A zipfian stream in which, every `scan_every` requests, `scan_keys`
    requests read consecutive cold keys (a scan), the next scan going on
    where the last stopped."""
    base = zipfian(theta, keys, requests, value_bytes, seed)
    out = base.keys.copy()
    cold = np.arange(keys, 2 * keys, dtype=np.uint64)  # keys the zipfian part never asks
    at = 0
    for start in range(scan_every, requests, scan_every + scan_keys):
        n = min(scan_keys, requests - start)
        out[start:start + n] = cold[(at + np.arange(n)) % cold.size]
        at += n
    return Requests(f"zipfian {theta:g} with scans", out, base.sizes)


def variable_sizes(requests: Requests, low: int, high: int, seed: int = 1) -> Requests:
    """The same keys, each with a fixed size drawn uniformly in [low, high]."""
    rng = np.random.default_rng(seed)
    uniq, inverse = np.unique(requests.keys, return_inverse=True)
    per_key = rng.integers(low, high + 1, uniq.size).astype(np.uint32)
    return Requests(f"{requests.name}, values {low}-{high} B", requests.keys, per_key[inverse])


def data_bytes(requests: Requests) -> int:
    """What the server's used_memory grows by to hold every key of
    `requests` (each at its last size), beside its own base use."""
    last = dict(zip(requests.keys.tolist(), requests.sizes.tolist()))
    return (_native.redis_table_bytes(len(last)) +
            sum(_native.redis_key_bytes(KEY_BYTES, int(s)) for s in last.values()))


def empty_server_bytes() -> int:
    """used_memory of a fresh server with one client connected."""
    with RedisServer() as server:
        server.client().ping()
        return int(server.info("memory")["used_memory"])


@dataclass
class Replay:
    """What a replay measured on the real server."""
    requests: int
    misses: int
    keys_held: int       # DBSIZE after the replay (its own evictions run first)
    base_bytes: int      # used_memory before the first key
    evicted: int
    seconds: float
    times_us: np.ndarray  # each GET's wall-clock time

    @property
    def miss_ratio(self) -> float:
        return self.misses / self.requests


def _value(size: int, cache: Dict[int, bytes]) -> bytes:
    value = cache.get(size)
    if value is None:
        value = cache[size] = b"v" * size
    return value


def replay(server: RedisServer, requests: Requests,
           progress: Optional[Callable[[int, int], None]] = None) -> Replay:
    """Plays `requests` cache-aside into `server` (empty), one at a time."""
    client = server.client()
    # The base on the replay's own connection, with its buffers grown as the
    # replay grows them (a SET and a GET of the largest value): a client's
    # buffers, tens of KB, count in used_memory as keys do.
    oom = redis_client_module().exceptions.OutOfMemoryError

    def store(name: bytes, value: bytes) -> None:
        try:
            client.set(name, value)
        except oom:
            raise _native.InputError(
                f"maxmemory {server.maxmemory} B leaves no room for a key beside what the "
                f"server uses without keys; give more") from None

    largest = int(requests.sizes.max()) if requests.sizes.size else 1
    store(b"symbiosis:warm-up", b"v" * largest)
    client.get(b"symbiosis:warm-up")
    client.delete(b"symbiosis:warm-up")
    base = int(client.info("memory")["used_memory"])
    n = requests.keys.size
    times = np.empty(n, dtype=np.uint64)
    names = [f"{int(k):016x}".encode() for k in requests.keys]
    values: Dict[int, bytes] = {}
    misses = 0
    start = time.monotonic()
    for i in range(n):
        times[i] = time.time_ns() // 1000
        if client.get(names[i]) is None:
            misses += 1
            store(names[i], _value(int(requests.sizes[i]), values))
        if progress is not None and i % 10000 == 0:
            progress(i, n)
    seconds = time.monotonic() - start
    keys_held = int(client.dbsize())
    evicted = int(client.info("stats")["evicted_keys"])
    return Replay(n, misses, keys_held, base, evicted, seconds, times)


def miss_ratio_at(requests: Requests, size: int, algo: str, *,
                  times_us: Optional[np.ndarray] = None, **options) -> float:
    """`algo`'s miss ratio of `requests` (at `times_us` when given) at one
    size, through `symbiosis.mrc.miss_ratio_curve` and a csv of them."""
    columns = [requests.keys, requests.sizes] + ([times_us] if times_us is not None else [])
    with tempfile.TemporaryDirectory(prefix="symbiosis-redis-check-") as d:
        path = os.path.join(d, "requests.csv")
        np.savetxt(path, np.column_stack(columns).astype(np.uint64), fmt="%d", delimiter=",")
        curve = miss_ratio_curve(
            path, format="csv", algo=algo, sizes=[size],
            columns="key=1,size=2" + (",time=3,time_unit=us" if times_us is not None else ""),
            **options)
    return float(curve.miss_ratios[0])


def model_miss_ratio(requests: Requests, times_us: np.ndarray, *, capacity: int,
                     in_bytes: bool, samples: int, seed: int = 1) -> float:
    """The Redis model's miss ratio of `requests` at `times_us`, holding
    `capacity` keys, or bytes of maxmemory less the empty server's use."""
    return miss_ratio_at(requests, capacity, "redis", times_us=times_us, bytes=in_bytes,
                         k=samples, key_bytes=KEY_BYTES, seed=seed)


def klru_miss_ratio(requests: Requests, keys: int, samples: int, seed: int = 1) -> float:
    """Textbook K-LRU with Redis's 16-entry pool, holding `keys` keys, and
    no clock (each request is its own tick): what KRR models."""
    return miss_ratio_at(requests, keys, "klru-sim", k=samples, pool=16, seed=seed)


@dataclass
class Check:
    """One size, one K: the server's miss ratio beside the model's."""
    workload: str
    samples: int
    maxmemory: int
    keys_held: int
    working_set: int
    real: float
    model_objects: float  # the model holding keys_held keys
    model_bytes: float    # the model at maxmemory less the empty server's use
    requests_per_second: float

    def to_json(self) -> dict:
        return dict(self.__dict__)


def check(requests: Requests, maxmemory: int, samples: int, seed: int = 1,
          progress: Optional[Callable[[int, int], None]] = None) -> Check:
    """Replays `requests` into a fresh server at `maxmemory` bytes and
    maxmemory-samples `samples`, and runs the model on the same requests,
    at the same times, in objects (at the keys the server held) and in
    bytes."""
    if maxmemory <= 0:
        raise _native.InputError("maxmemory must be above 0 bytes to evict")
    with RedisServer(maxmemory=maxmemory, samples=samples) as server:
        r = replay(server, requests, progress)
    if r.keys_held == 0:
        raise _native.InputError(f"maxmemory {maxmemory} B held no key beside the server's own "
                                 f"{r.base_bytes} B; give more")
    capacity = maxmemory - r.base_bytes
    return Check(requests.name, samples, maxmemory, r.keys_held, requests.working_set,
                 r.miss_ratio,
                 model_miss_ratio(requests, r.times_us, capacity=r.keys_held, in_bytes=False,
                                  samples=samples, seed=seed),
                 model_miss_ratio(requests, r.times_us, capacity=capacity, in_bytes=True,
                                  samples=samples, seed=seed) if capacity > 0 else float("nan"),
                 r.requests / r.seconds)
