"""`symbiosis bench wiredtiger`: the help, the driver's load (no cgroup
needed), and bad input. Runs need the kernel budget's memory cgroup, which
tests must not depend on; the C++ tests drive the plugin itself."""

import json
import subprocess

import pytest

from conftest import assert_one_error_line, run_cli

SMALL = ["--memory", "48MiB", "--data-size", "64MiB", "--duration", "3s", "--warmup", "1s"]


def test_help_names_the_budget_and_the_floor(cli):
    text = cli("bench", "wiredtiger", "--help").stdout
    for needle in ("kernel", "M/4", "static-default", "cache_size", "examples",
                   "threads_min=4,threads_max=4"):
        assert needle in text
    # WiredTiger's own options, not RocksDB's: one budget, nothing to fall
    # back to, and its page-cache overhead.
    assert "--allow-fallback" not in text and "secondary cache" not in text
    assert "(default: 0.0)" in " ".join(text.split())


def test_driver_load_writes_a_table_wiredtiger_reads(tmp_path):
    from symbiosis.bench import driver_path
    db = tmp_path / "db"
    proc = subprocess.run([driver_path("wiredtiger"), "load", "--db", str(db), "--data-size", "4MiB",
                           "--alpha", "0.2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    layout = json.loads((db / "symbiosis-bench.json").read_text())
    assert layout["keys"] > 3000 and 0 < layout["table_bytes"] < layout["data_bytes"]
    assert (db / "bench.wt").stat().st_size == layout["table_bytes"]
    # Created without a base configuration: plain WiredTiger must not look
    # for Symbiosis's extension when it opens this database.
    assert not (db / "WiredTiger.basecfg").exists()


@pytest.mark.parametrize("args, message", [
    (["--budget", "emulated"], "--budget"),
    (["--memory", "8MiB"], "below the minimum"),
    (["--configs", "static-9"], "is not a configuration"),
    (["--allow-fallback"], "--allow-fallback"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "wiredtiger", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert_one_error_line(proc, message)


def test_help_defaults_are_the_plugins_own():
    # The CLI's --app-cache-overhead help repeats each plugin's
    # Options::kernel_app_cache_overhead; a change in a header must show.
    import re
    from conftest import REPO
    from symbiosis.bench_cli import BENCH_APP_CACHE_OVERHEAD
    for engine, default in BENCH_APP_CACHE_OVERHEAD.items():
        header = (REPO / "include" / "symbiosis" / f"{engine}.h").read_text()
        found = re.search(r"double kernel_app_cache_overhead = (-?[0-9.]+);", header)
        assert found and float(found.group(1)) == default, engine


def test_wiredtiger_runs_under_jemalloc_unless_told_otherwise(cli):
    # WiredTiger's documentation asks for a scalable malloc; the other
    # engines keep the system's, and every engine can be told either.
    from symbiosis.cli import build_parser
    parser = build_parser()
    assert parser.parse_args(["bench", "wiredtiger"]).allocator == "jemalloc"
    assert parser.parse_args(["bench", "wiredtiger", "--allocator", "system"]).allocator == "system"
    assert parser.parse_args(["bench", "leveldb"]).allocator == "system"
    assert parser.parse_args(["bench", "rocksdb"]).allocator == "system"
    text = " ".join(cli("bench", "wiredtiger", "--help").stdout.split())
    assert "(default: jemalloc)" in text and "tcmalloc" in text
