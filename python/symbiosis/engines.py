"""The storage engines `symbiosis bench` runs: one Engine each.

What a new engine adds on the Python side is one entry here, beside its
plugin (src/engines/NAME), its driver (tools/NAME_bench.cc) and its
CMake call (docs/adding-an-engine.md). The CLI, the benchmark runner, the
kept DBs and the plots read every per-engine fact from this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Engine:
    name: str                      # the CLI's word; the driver is NAME_bench
    title: str                     # as people write it
    budgets: Tuple[str, ...]       # --budget's choices, the default first
    budget_help: str               # --budget's help
    fallback_budget: Optional[str]  # --allow-fallback's budget where no cgroup can be made
    app_cache_overhead: float      # Options::kernel_app_cache_overhead (the plugin's header)
    allocator: str                 # the malloc every run gets: "system" or "jemalloc"
    allocator_help: str            # why (a %-format string: %% for a percent sign)
    immutable_suffixes: Tuple[str, ...]  # files written once: a working copy links them
    loads: str                     # --help: what the load makes and how runs open it
    budgets_text: str              # --help: the budgets


ENGINES: Dict[str, Engine] = {e.name: e for e in (
    Engine(
        name="leveldb", title="LevelDB", budgets=("kernel", "emulated"),
        budget_help="kernel: a real memory cgroup; emulated: a user-space page cache "
                    "(default: kernel)",
        fallback_budget="emulated", app_cache_overhead=0.25, allocator="system",
        allocator_help="as RocksDB's own builds link it",
        immutable_suffixes=(".ldb", ".sst"),
        loads="Loads a LevelDB of D_u bytes (once; kept in --db-dir), then runs each\n"
              "configuration for --duration with --threads readers and reports throughput,\n"
              "mean/p95/p99 latency, the hit ratios H_a and H_k, and M_a:",
        budgets_text="Budgets: kernel runs each configuration in a fresh memory cgroup of\n"
                     "M + --reserve (root or a delegated cgroup needed); emulated replaces the\n"
                     "page cache with a user-space one of M - M_a (no root)."),
    Engine(
        name="rocksdb", title="RocksDB", budgets=("engine", "kernel"),
        budget_help="engine: block cache + RocksDB's compressed secondary cache, "
                    "direct reads; kernel: block cache + the page cache in a real "
                    "memory cgroup (default: engine)",
        fallback_budget="engine", app_cache_overhead=0.25, allocator="system",
        allocator_help="as RocksDB's own builds link it",
        immutable_suffixes=(".sst", ".blob"),
        loads="Loads a RocksDB of D_u bytes (once; kept in --db-dir), then runs each\n"
              "configuration for --duration with --threads readers and reports throughput,\n"
              "mean/p95/p99 latency, the hit ratios H_a and H_k, and M_a:",
        budgets_text="Budgets: engine (the paper's RocksDB setting) gives the block cache M_a and\n"
                     "RocksDB's compressed secondary cache M - M_a, with direct reads, and needs\n"
                     "no root; kernel puts the page cache below the block cache and runs each\n"
                     "configuration in a fresh memory cgroup of M + --reserve."),
    # WiredTiger's documentation asks for tcmalloc or jemalloc in place of
    # the system's malloc, and MongoDB always ships it with tcmalloc; under
    # glibc a cache that has grown holds memory that its history left
    # behind, which a static run never pays (docs/decisions/allocators.md).
    Engine(
        name="wiredtiger", title="WiredTiger", budgets=("kernel",),
        budget_help="kernel: WiredTiger's cache + the page cache in a real memory "
                    "cgroup, the only budget (WiredTiger has no compressed cache of "
                    "its own)",
        fallback_budget=None, app_cache_overhead=0.0, allocator="jemalloc",
        allocator_help="as WiredTiger's documentation advises (MongoDB ships it with "
                       "tcmalloc); under glibc a cache that grew from M/4 runs about 10%% "
                       "slower at the page cache's cliff than one that always had its size",
        immutable_suffixes=(),  # B-tree files are updated in place: copied
        loads="Loads a WiredTiger table of D_u bytes (once; kept in --db-dir; snappy,\n"
              "32 KiB leaf pages), opens it with four eviction workers as MongoDB does\n"
              "(eviction=(threads_min=4,threads_max=4): WiredTiger's own tuner of their\n"
              "count moved H_a between runs) and under jemalloc as WiredTiger advises\n"
              "(--allocator), then runs each configuration for\n"
              "--duration with --threads readers and reports throughput, mean/p95/p99\n"
              "latency, the hit ratios H_a and H_k, and M_a (WiredTiger's cache_size):",
        budgets_text="Symbiosis searches M_a in [M/4, M]: WiredTiger's cache slows down sharply\n"
                     "below that. Budget: kernel only; each configuration runs in a fresh memory\n"
                     "cgroup of M + --reserve (root or a delegated cgroup needed)."),
)}


def engine_title(name: str) -> str:
    """The engine's name as people write it (the name itself if unknown)."""
    return ENGINES[name].title if name in ENGINES else name
