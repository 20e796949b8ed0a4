"""``symbiosis kernel-models``: how cheaper kernel-cache models and sampled
ghosts follow the full page-cache model (the paper's Figure 7)."""

from __future__ import annotations

from typing import Any

from symbiosis import _native
from symbiosis.study import SimConfig, build_trace


def run_kernel_models(workload: str = "zipfian", data_bytes: int = 512 << 20,
                      alpha: float = 0.5, sizes: int = 16, rate: float = 1 / 64,
                      group: int = 32, accesses: int = 0, seed: int = 1,
                      block_bytes: int = 4096, entry_bytes: int = 128,
                      file_bytes: int = 2 << 20, max_readahead_pages: int = 32,
                      warmup: float = 0.25, threads: int = 0, progress: bool = False,
                      trace: str | None = None, trace_format: str = "oracleGeneral",
                      columns: str = "", max_records: int = 0) -> dict[str, Any]:
    """Kernel cache sizes from D_c/sizes to D_c in `sizes` steps; one curve per model."""
    if sizes < 2:
        raise _native.InputError("--sizes must be at least 2")
    block_trace = build_trace(SimConfig(
        workload=workload, data_bytes=data_bytes, alpha=alpha, accesses=accesses, seed=seed,
        block_bytes=block_bytes, entry_bytes=entry_bytes, file_bytes=file_bytes, trace=trace,
        trace_format=trace_format, columns=columns, max_records=max_records))
    disk = block_trace.disk_bytes
    capacities = [max(4096, disk * i // sizes) for i in range(1, sizes + 1)]
    result = _native.kernel_models(block_trace, capacities, rate, group,
                                   max_readahead_pages, warmup, threads, progress)
    result["disk_bytes"] = disk
    result["num_accesses"] = block_trace.num_accesses
    # About how many groups the grouped sample holds: its curves vary by
    # roughly 1/sqrt of that.
    result["expected_sampled_groups"] = block_trace.num_blocks / group * rate
    result["rate"] = rate
    result["group_blocks"] = group
    return result
