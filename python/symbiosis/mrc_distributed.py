"""Miss-ratio curves of traces too large for one machine, on a Dask cluster.

The trace is split by key into P partitions (trace_partition.h): each is a
spatial sample of the keys at rate 1/P, so its curve at C x its share of
the working set estimates the whole trace's at C, and the partitions'
curves, weighted by their requests, add up to the whole's (SHARDS'
argument). Every method of ``symbiosis mrc`` takes this sampling: exact
LRU and SHARDS (a partition of a SHARDS sample is the SHARDS sample of
the partition: the partition's hash is apart from the sample's), KRR, and
the simulators (K-LRU, the Redis model) at per-partition capacities.

How the work flows (docs/mrc-distributed.md)::

    trace files, in time order
      -> chunks: byte ranges of a plain file (oracleGeneral records, csv
         lines: every record in exactly one range), or a whole zstd file
      -> reader tasks, any worker, several at once: parse a chunk in
         batches, split each batch by partition
      -> one actor per partition, spread over the workers: feeds its
         batches to its builder in trace order, by (chunk, batch) number,
         holding early arrivals until their turn (so order within a key is
         the trace's) and making a reader wait when it holds too many
      -> the client: each partition's working set, then each partition's
         curve at its share of the sizes, merged (native code)

The merge takes the partitions' curves at the chosen sizes, so its cost
grows with the partitions and sizes, never with the trace.

A reader that fails (a bad record) stops the run with the file and byte
offset; a reader whose worker is lost is run again by Dask, and the
actors drop the batches they already have. An actor's worker lost takes
that partition's state with it: the run fails with a message that says
so, never a partial curve.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from symbiosis import _native
from symbiosis.errors import CommandFailed

DEFAULT_CHUNK_BYTES = 64 << 20
BATCH_RECORDS = 1 << 20
# An actor holds batches that arrived before their turn up to this many
# bytes; a reader past it waits (bounded memory per worker whatever the
# trace's length).
HELD_BYTES = 256 << 20


@dataclass(frozen=True)
class Chunk:
    """A piece of the trace one reader task reads: [start, end) of a plain
    file (end 0: to its end), or a whole compressed file."""

    index: int
    path: str
    start: int
    end: int
    compressed: bool


def plan_chunks(paths: Sequence[str], chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> List[Chunk]:
    """The chunks of `paths`, which follow each other in time."""
    if chunk_bytes < 1 << 20:
        raise _native.InputError(f"--chunk-size: {chunk_bytes} bytes is less than 1MiB; a "
                                 "reader task's overhead needs larger chunks (default 64MiB)")
    chunks: List[Chunk] = []
    for path in paths:
        if path == "-":
            raise _native.InputError("--trace -: the distributed mode reads files (its workers "
                                     "cannot read this process's standard input); give a file")
        if not os.path.isfile(path):
            raise _native.InputError(f"{path}: not a file; give trace files, in time order")
        size = os.path.getsize(path)
        if _native.trace_is_compressed(path) or size <= chunk_bytes:
            chunks.append(Chunk(len(chunks), path, 0, 0, _native.trace_is_compressed(path)))
            continue
        for start in range(0, size, chunk_bytes):
            end = min(start + chunk_bytes, size)
            chunks.append(Chunk(len(chunks), path, start, 0 if end == size else end, False))
    return chunks


def partition_options(algorithm: str, *, bytes: bool = False, rate: Optional[float] = None,
                      max_keys: int = 0, min_keys: int = 0, k: int = 5,
                      k_exponent: float = 1.4, pool: int = 0, with_replacement: bool = True,
                      request_rate: float = 0.0, key_bytes: int = 16,
                      seed: int = 1) -> Dict[str, Any]:
    """A partition builder's options (_native.PartitionMrc's arguments but
    its sizes), with miss_ratio_curve's meanings and defaults; ``rate``
    None: the method's default."""
    return dict(algorithm=algorithm, bytes=bytes, rate=rate if rate is not None else 0.0,
                max_keys=max_keys, min_keys=min_keys, k=k, k_exponent=k_exponent,
                pool_size=pool, with_replacement=with_replacement, request_rate=request_rate,
                key_bytes=key_bytes, seed=seed)


class PartitionActor:
    """One partition's builder on a worker (a Dask actor).

    Batches come numbered (chunk, batch, last-of-its-chunk) and are fed in
    that order: trace order, since chunks follow the trace.
    """

    def __init__(self, options: Dict[str, Any], sim_sizes: Sequence[int]):
        self._part = _native.PartitionMrc(**options, sim_sizes=list(sim_sizes))
        self._next: Tuple[int, int] = (0, 0)  # the next batch to claim
        self._busy = False  # a claimed batch is being fed
        self._stopped = False  # the run failed: no batch has a turn any more
        self._held_bytes = 0
        self._turn: Optional[asyncio.Condition] = None
        # The builder is fed on a thread of its own, one batch at a time
        # (order), off the worker's event loop.
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="symbiosis-partition")

    async def feed(self, chunk: int, batch: int, last: bool, keys, sizes, times) -> int:
        """Feeds the batch in its turn; 0 for one fed already (its reader
        ran again after a lost worker)."""
        if self._turn is None:
            self._turn = asyncio.Condition()
        me = (chunk, batch)
        nbytes = keys.nbytes + sizes.nbytes + times.nbytes
        async with self._turn:
            # Early arrivals wait their turn holding their batch; past
            # HELD_BYTES a later one waits before it is held.
            await self._turn.wait_for(lambda: self._stopped or me <= self._next or
                                      self._held_bytes + nbytes <= HELD_BYTES)
            self._held_bytes += nbytes
            await self._turn.wait_for(lambda: self._stopped or me < self._next or
                                      (me == self._next and not self._busy))
            self._held_bytes -= nbytes
            self._turn.notify_all()
            if self._stopped:
                raise RuntimeError("the run stopped (another chunk failed)")
            if me < self._next:
                return 0
            self._next = (chunk + 1, 0) if last else (chunk, batch + 1)
            self._busy = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._pool, self._part.feed, keys,
                                                             sizes, times)
        finally:
            async with self._turn:
                self._busy = False
                self._turn.notify_all()
        return int(keys.shape[0])

    async def stop(self) -> None:
        """Wakes every batch waiting for a turn that will not come (a
        chunk before it failed), so that no reader waits forever."""
        if self._turn is None:
            self._turn = asyncio.Condition()
        async with self._turn:
            self._stopped = True
            self._turn.notify_all()

    def summary(self) -> Dict[str, Any]:
        return {"working_set": int(self._part.working_set()), "requests": self._part.requests,
                "requested_bytes": self._part.requested_bytes,
                "memory_bytes": int(self._part.memory_bytes()), "next_chunk": self._next[0]}

    def curve(self, sizes: Sequence[int]) -> Dict[str, Any]:
        return self._part.curve(list(sizes))


def read_chunk(chunk: Chunk, trace_format: str, columns: str, ops: str, partitions: int,
               require_sizes: bool, actors: list) -> Dict[str, int]:
    """A reader task: the chunk's batches, split, each to its partitions'
    actors; returns what it read."""
    from distributed import rejoin, secede
    # Off the worker's task slots while it waits for actors: a reader ahead
    # of its turn must not keep the one behind it from running.
    secede()
    try:
        reader = _native.PartitionedReader(chunk.path, trace_format, columns, ops, chunk.start,
                                           chunk.end, partitions, require_sizes)
        done = {"records": 0, "skipped": 0, "bytes": 0}
        batch = 0
        current = reader.read(BATCH_RECORDS)
        while current is not None:
            following = reader.read(BATCH_RECORDS)
            last = following is None
            waits = [actors[p].feed(chunk.index, batch, last, *current["parts"][p])
                     for p in range(partitions)]
            for w in waits:
                w.result()
            for key in done:
                done[key] += current[key]
            batch += 1
            current = following
        if batch == 0:  # a range without records: its turn still ends
            empty = _empty_part()
            for w in [actors[p].feed(chunk.index, 0, True, *empty) for p in range(partitions)]:
                w.result()
        return done
    finally:
        rejoin()


def _empty_part():
    return (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint32),
            np.zeros(0, dtype=np.uint64))


@dataclass
class DistributedResult:
    curve: Dict[str, Any]       # merge_partition_curves' dict
    working_set: int
    memory_bytes: int           # the partitions' builders, summed
    seconds: float              # in all, the cluster's start included
    pass_seconds: List[float]   # reading and building: one pass, two for the simulators
    merge_seconds: float        # the partitions' curves and their merge
    workers: int
    partitions: int
    skipped: int


class _Progress:
    """Requests read, their rate and the time left, on one terminal line."""

    def __init__(self, total_bytes: int, label: str, enabled: bool):
        self.total, self.label, self.enabled = total_bytes, label, enabled
        self.start = time.monotonic()
        self.records = 0
        self.bytes = 0
        self.shown = 0.0

    def add(self, done: Dict[str, int]) -> None:
        self.records += done["records"]
        self.bytes += done["bytes"]
        now = time.monotonic()
        if self.enabled and (now - self.shown > 0.5 or self.bytes >= self.total):
            self.shown = now
            elapsed = max(now - self.start, 1e-9)
            left = ((self.total - self.bytes) * elapsed / self.bytes if self.bytes else 0)
            pct = 100 * self.bytes / self.total if self.total else 100
            sys.stderr.write(f"\r{self.label}: {self.records:,} requests, "
                             f"{self.records / elapsed / 1e6:.2f} M/s, {pct:.0f}%, "
                             f"{left:.0f} s left ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def _client(workers: Optional[int], scheduler: Optional[str]):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CommandFailed("the distributed mode needs Dask distributed (pip install "
                            "'dask[distributed]'); scripts/setup.sh installs it")
    if scheduler:
        try:
            return Client(scheduler, timeout="20s"), None
        except (OSError, TimeoutError) as e:
            raise CommandFailed(f"--scheduler {scheduler}: cannot reach the Dask scheduler "
                                f"({e}); check the address (tcp://HOST:8786) and that it runs")
    import logging
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster), cluster


def _run_pass(client, actors: list, chunks: List[Chunk], trace_format: str, columns: str,
              ops: str, require_sizes: bool, window: int, progress: _Progress) -> int:
    """Every chunk read and fed, at most `window` chunks at once; returns
    the records the ops filter left out."""
    from distributed import wait
    skipped = 0
    pending: list = []
    queue = list(chunks)
    try:
        while queue or pending:
            while queue and len(pending) < window:
                chunk = queue.pop(0)
                pending.append(client.submit(read_chunk, chunk, trace_format, columns, ops,
                                             len(actors), require_sizes, actors, pure=False,
                                             retries=2))
            finished, _ = wait(pending, return_when="FIRST_COMPLETED")
            for f in finished:
                pending.remove(f)
                done = _result(f)
                skipped += done["skipped"]
                progress.add(done)
    except BaseException:
        # The readers of later chunks wait for the failed one's turn: wake
        # them, and drop what is queued.
        for actor in actors:
            try:
                actor.stop().result(timeout=10)
            except Exception:  # its worker is gone: nothing waits there
                pass
        client.cancel(pending)
        raise
    return skipped


def _result(future):
    try:
        return future.result()
    except _native.InputError:
        raise
    except Exception as e:  # a lost worker, a killed reader
        raise CommandFailed(f"the distributed run failed and its curve would miss part of "
                            f"the trace, so none is written: {type(e).__name__}: "
                            f"{str(e).splitlines()[0] if str(e) else ''}".rstrip(": "))


def _actor_call(future):
    try:
        return future.result()
    except Exception as e:
        raise CommandFailed(f"a partition's worker was lost, and its partition with it; the "
                            f"curve would miss it, so none is written ({type(e).__name__}: "
                            f"{str(e).splitlines()[0] if str(e) else ''}); run again, with "
                            f"fewer partitions per worker or more memory if it ran out")


def _make_actors(client, options: Dict[str, Any],
                 sim_sizes: List[List[int]]) -> Tuple[list, list]:
    """One actor per partition, round-robin over the workers; the futures
    keep the actors alive."""
    addresses = sorted(client.scheduler_info()["workers"])
    futures = [client.submit(PartitionActor, options, sim_sizes[p], actor=True,
                             workers=[addresses[p % len(addresses)]], pure=False)
               for p in range(len(sim_sizes))]
    return futures, [_actor_call(f) for f in futures]


def _summaries(actors: list, chunks: List[Chunk]) -> List[Dict[str, Any]]:
    summaries = [_actor_call(a.summary()) for a in actors]
    for p, s in enumerate(summaries):
        if s["next_chunk"] != len(chunks):
            raise CommandFailed(f"partition {p} was fed {s['next_chunk']} of the trace's "
                                f"{len(chunks)} chunks; the curve would miss the rest, so "
                                "none is written")
    return summaries


def distributed_curve(paths: Sequence[str], *, trace_format: str, columns: str, ops: str,
                      options: Dict[str, Any], sizes: Sequence[int], points: int,
                      workers: Optional[int] = None, scheduler: Optional[str] = None,
                      partitions: Optional[int] = None,
                      chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                      progress: bool = False, client: Any = None) -> DistributedResult:
    """The curve of the trace `paths` (in time order) by `options`
    (PartitionMrc's: algorithm, bytes, rate, ...), at `sizes` or `points`
    sizes over the working set, on a local cluster of `workers` processes,
    the cluster at `scheduler`, or `client`'s (which stays open)."""
    def check_sizes(working_set: Optional[int]) -> None:
        _native.check_mrc_sizes(list(sizes), working_set, options["algorithm"],
                                options["bytes"], options["rate"])

    check_sizes(None)  # before the passes: zero, or not ascending
    chunks = plan_chunks(paths, chunk_bytes)
    start = time.monotonic()
    owned = client is None
    cluster = None
    if owned:
        client, cluster = _client(workers, scheduler)
    try:
        n_workers = len(client.scheduler_info()["workers"])
        if n_workers == 0:
            raise CommandFailed("the cluster has no workers; start some (dask worker "
                                "SCHEDULER) or use --workers N for a local cluster")
        count = partitions or n_workers
        # The floor of sampled keys is the whole's, shared by the partitions.
        options = dict(options, min_keys=math.ceil(options.get("min_keys", 0) / count))
        total_bytes = sum(os.path.getsize(p) for p in paths)
        window = 2 * n_workers
        simulates = _native.mrc_simulates(options["algorithm"])
        require_sizes = bool(options["bytes"])
        label = "working set" if simulates else options["algorithm"]
        bar = _Progress(total_bytes, label, progress)
        pass_seconds = []
        # Pass 1: the one-pass methods' curves, or the simulators' working set.
        holders, actors = _make_actors(client, options, [[] for _ in range(count)])
        skipped = _run_pass(client, actors, chunks, trace_format, columns, ops, require_sizes,
                            window, bar)
        bar.close()
        summaries = _summaries(actors, chunks)
        pass_seconds.append(time.monotonic() - bar.start)
        working_set = sum(s["working_set"] for s in summaries)
        if working_set == 0:
            raise _native.InputError(f"{paths[0]}: the trace holds no requests of the "
                                     "operations asked for")
        check_sizes(working_set)
        chosen = list(sizes) if sizes else _native.even_sizes(working_set, points)
        shares = [s["working_set"] / working_set for s in summaries]
        if simulates:  # pass 2: each partition simulated at its sizes
            del holders, actors
            bar = _Progress(total_bytes, options["algorithm"], progress)
            holders, actors = _make_actors(client, options,
                                           [_native.partition_sizes(chosen, s) for s in shares])
            _run_pass(client, actors, chunks, trace_format, columns, ops, require_sizes,
                      window, bar)
            bar.close()
            summaries = _summaries(actors, chunks)
            pass_seconds.append(time.monotonic() - bar.start)
        merge_start = time.monotonic()
        parts = []
        for actor, share, summary in zip(actors, shares, summaries):
            curve = _actor_call(actor.curve(_native.partition_sizes(chosen, share)))
            parts.append({"share": share, "curve": curve, "requests": summary["requests"],
                          "requested_bytes": summary["requested_bytes"]})
        merged = _native.merge_partition_curves(chosen, parts)
        return DistributedResult(curve=merged, working_set=working_set,
                                 memory_bytes=sum(s["memory_bytes"] for s in summaries),
                                 seconds=time.monotonic() - start, pass_seconds=pass_seconds,
                                 merge_seconds=time.monotonic() - merge_start,
                                 workers=n_workers, partitions=count, skipped=skipped)
    finally:
        if owned:
            client.close()
            if cluster is not None:
                cluster.close()
