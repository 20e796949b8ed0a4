"""`symbiosis mrc --workers / --scheduler`: curves computed by partitions on a
Dask cluster (a local one of two workers here), against one process."""

import logging
import os
import shutil
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

from conftest import assert_one_error_line, run_cli
from symbiosis import _native
from symbiosis.errors import CommandFailed
from symbiosis.mrc import mean_absolute_error, miss_ratio_curve

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                  "(scripts/setup.sh installs it)")

ORACLE = np.dtype([("time", "<u4"), ("key", "<u8"), ("size", "<u4"), ("next", "<i8")])


def write_oracle(path, keys, sizes=None, times=None):
    """An oracleGeneral trace (next-access times -1: not checked), fast."""
    records = np.zeros(len(keys), dtype=ORACLE)
    records["key"] = keys
    records["size"] = 4096 if sizes is None else sizes
    records["time"] = np.arange(len(keys)) // 1000 if times is None else times
    records["next"] = -1
    records.tofile(path)


def zipf_keys(n, objects, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.zipf(1.2, n) % objects).astype(np.uint64)


@pytest.fixture(scope="module")
def scheduler():
    """A local cluster of two worker processes, one thread each, for the module."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """2M requests over 200K keys (48 MB): 46 chunks of 1 MiB."""
    path = tmp_path_factory.mktemp("trace") / "zipf.bin"
    keys = zipf_keys(2_000_000, 200_000)
    write_oracle(path, keys, sizes=512 + (keys * 2654435761 % 7680).astype(np.uint32))
    return path


def test_exact_lru_by_partitions_matches_one_process(scheduler, big_trace):
    one = miss_ratio_curve(str(big_trace), points=20, bytes=False)
    spread = miss_ratio_curve(str(big_trace), points=20, scheduler=scheduler, partitions=4,
                              chunk_bytes=1 << 20)
    assert list(spread.sizes) == list(one.sizes)  # the working set summed exactly
    assert spread.requests == one.requests == 2_000_000
    assert mean_absolute_error(spread, one) <= 0.005
    assert spread.parameters["partitions"] == 4 and spread.parameters["workers"] == 2


def test_bytes_and_the_cloudphysics_trace(scheduler, cloudphysics_trace):
    trace = str(cloudphysics_trace)
    one = miss_ratio_curve(trace, points=25, bytes=True)
    spread = miss_ratio_curve(trace, points=25, bytes=True, scheduler=scheduler)
    assert mean_absolute_error(spread, one) <= 0.005
    assert np.mean(np.abs(spread.byte_miss_ratios - one.byte_miss_ratios)) <= 0.01


@pytest.mark.parametrize("algo,rate,tolerance", [("shards", 0.05, 0.015), ("krr", None, 0.006),
                                                 ("klru-sim", None, 0.006)])
def test_sampled_and_simulated_curves_match_one_process(scheduler, tmp_path, algo, rate,
                                                        tolerance):
    # The same seed samples the same keys in one process and in partitions
    # (the partitions' hash is apart from the sample's): the two curves
    # differ by the partitions' own sampling only.
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(300_000, 40_000, seed=5))
    one = miss_ratio_curve(str(trace), algo=algo, rate=rate, min_keys=0, points=12)
    # A sample's working set is an estimate, each process's its own: the
    # same sizes for both.
    spread = miss_ratio_curve(str(trace), algo=algo, rate=rate, min_keys=0,
                              sizes=list(one.sizes), scheduler=scheduler, partitions=3,
                              chunk_bytes=1 << 20)
    assert mean_absolute_error(spread, one) <= tolerance


def test_files_in_time_order_and_zstd_read_as_one_trace(scheduler, tmp_path, big_trace):
    if shutil.which("zstd") is None:
        pytest.skip("no zstd tool (scripts/setup.sh installs it)")
    data = big_trace.read_bytes()
    half = len(data) // 2 // 24 * 24
    first, second = tmp_path / "a.bin", tmp_path / "b.bin"
    first.write_bytes(data[:half])
    second.write_bytes(data[half:])
    subprocess.run(["zstd", "-q", "-f", str(second), "-o", str(second) + ".zst"], check=True)
    whole = miss_ratio_curve(str(big_trace), points=10, scheduler=scheduler,
                             chunk_bytes=1 << 20)
    parts = miss_ratio_curve([str(first), str(second) + ".zst"], points=10,
                             scheduler=scheduler, chunk_bytes=1 << 20)
    # The same partitions fed the same requests in the same order: equal.
    assert list(parts.miss_ratios) == list(whole.miss_ratios)


def test_a_corrupt_record_names_its_file_and_byte(scheduler, tmp_path):
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(200_000, 10_000))
    data = bytearray(trace.read_bytes())
    bad = 150_000 * 24
    data[bad + 16:bad + 24] = (5).to_bytes(8, "little", signed=True)  # a next access in the past
    trace.write_bytes(bytes(data))
    with pytest.raises(_native.InputError, match=f"t.bin: the record at byte {bad}: "
                                                 "next_access_vtime 5 is not in the future"):
        miss_ratio_curve(str(trace), scheduler=scheduler, chunk_bytes=1 << 20)


def test_a_lost_worker_fails_the_run_and_writes_no_curve(tmp_path):
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(6_000_000, 500_000))  # 138 chunks of 1 MiB
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    watcher = distributed.Client(cluster.scheduler_address)
    try:
        def kill_one_once_reading():
            def chunks_read(dask_scheduler):  # read and fed, of the 138
                prefix = dask_scheduler.task_prefixes.get("read_chunk")
                counts = prefix.state_counts if prefix else {}
                return sum(counts.get(state, 0) for state in ("memory", "released", "forgotten"))
            deadline = time.monotonic() + 60
            while watcher.run_on_scheduler(chunks_read) < 10 and time.monotonic() < deadline:
                time.sleep(0.05)
            nanny = next(iter(cluster.workers.values()))
            os.kill(nanny.process.process.pid, signal.SIGKILL)  # as the OOM killer does

        killer = threading.Thread(target=kill_one_once_reading)
        killer.start()
        with pytest.raises(CommandFailed, match="none is written"):
            miss_ratio_curve(str(trace), scheduler=cluster.scheduler_address,
                             chunk_bytes=1 << 20)
        killer.join()
    finally:
        watcher.close()
        cluster.close()


def test_cli_runs_a_local_cluster_and_rejects_bad_flags(tmp_path):
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(100_000, 5_000))
    out = tmp_path / "c.json"
    run_cli("mrc", "--trace", str(trace), "--workers", "2", "--points", "8", "--json",
            str(out), "--quiet")
    import json
    d = json.loads(out.read_text())
    assert d["parameters"]["workers"] == 2 and len(d["miss_ratios"]) == 8
    for flags, message in [
        (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "give one of them"),
        (["--partitions", "4"], "add --workers N"),
        (["--workers", "2", "--chunk-size", "1000"], "less than 1MiB"),
        (["--workers", "2", "--max-records", "10"], "--max-records"),
        (["--workers", "2", "--sizes", "10,5"], "ascending"),
    ]:
        assert_one_error_line(run_cli("mrc", "--trace", str(trace), *flags, check=False),
                              message)
    proc = run_cli("mrc", "--trace", str(trace), str(trace), check=False)
    assert proc.returncode == 2 and "distributed mode" in proc.stderr
    # A scheduler nobody runs: one line, status 1 (the input was good), after
    # the client's 20-s connect timeout.
    assert_one_error_line(run_cli("mrc", "--trace", str(trace), "--scheduler",
                                  "tcp://127.0.0.1:1", check=False),
                          "cannot reach the Dask scheduler", returncode=1)
