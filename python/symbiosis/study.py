"""The two-level study behind ``symbiosis sim``: sweep M_a from 0 to M."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Optional

from symbiosis import _native


@dataclass
class SimConfig:
    """Everything that defines one study; defaults are the CLI's."""

    workload: str = "hotspot20"
    data_bytes: int = 2 << 30
    memory_bytes: int = 1 << 30
    alpha: float = 0.5
    ca: float = 3.0
    ck: float = 16.0
    points: int = 33
    kernel_model: str = "linux"
    max_readahead_pages: int = 32
    exclusive: bool = False
    accesses: int = 0  # 0: 20 per block
    seed: int = 1
    block_bytes: int = 4096
    entry_bytes: int = 128
    file_bytes: int = 2 << 20
    aligned: bool = False
    warmup: float = 0.25
    threads: int = 0
    trace: Optional[str] = None
    trace_format: str = "oracleGeneral"
    columns: str = ""
    max_records: int = 0


@dataclass
class SimReport:
    """The result: one point per split, the best split, and its inputs."""

    config: SimConfig
    points: list[dict[str, Any]]
    best: dict[str, Any]
    num_blocks: int
    num_accesses: int
    counted_accesses: int
    data_bytes: int
    disk_bytes: int
    misaligned_fraction: float

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON-ready data."""
        d = asdict(self)
        d["config"] = asdict(self.config)
        return d


def build_trace(config: SimConfig) -> "_native.BlockTrace":
    """The block access stream of a config: a workload or a trace file."""
    if config.trace:
        return _native.file_trace(
            config.trace, config.trace_format, config.columns, config.max_records,
            config.block_bytes, config.alpha, config.file_bytes, config.aligned)
    return _native.workload_trace(
        config.data_bytes, config.alpha, config.block_bytes, config.entry_bytes,
        config.file_bytes, config.aligned, config.workload, config.accesses,
        config.seed)


def run_sim(config: SimConfig, progress: bool = False) -> SimReport:
    """Runs the study; raises InputError on bad input."""
    trace = build_trace(config)
    result = _native.two_level_study(
        trace, config.memory_bytes, config.ca, config.ck, config.points,
        config.kernel_model, config.max_readahead_pages, config.exclusive,
        config.warmup, config.threads, progress)
    return SimReport(
        config=config,
        points=result["points"],
        best=result["best"],
        num_blocks=trace.num_blocks,
        num_accesses=trace.num_accesses,
        counted_accesses=result["counted_accesses"],
        data_bytes=trace.data_bytes,
        disk_bytes=trace.disk_bytes,
        misaligned_fraction=trace.misaligned_fraction(),
    )
