"""End-to-end tests of `symbiosis bench rocksdb` on a small DB with the
engine budget (block cache + RocksDB's compressed secondary cache, direct
reads; no root needed): the JSON schema shared with LevelDB, the second
tier's hits, the errors."""

import json

import pytest

from conftest import assert_one_error_line, run_cli

SMALL = ["--memory", "48MiB", "--data-size", "64MiB", "--duration", "3s", "--warmup", "1s",
         "--interval", "1s", "--threads", "2"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench_rocksdb")
    out, plot = folder / "out.json", folder / "out.png"
    proc = run_cli("bench", "rocksdb", *SMALL, "--db-dir", str(folder / "dbs"),
                   "--configs", "static-default,static-4,symbiosis",
                   "--json", str(out), "--plot", str(plot))
    return proc, json.loads(out.read_text()), plot, folder


def test_help_names_the_budgets(cli):
    text = cli("bench", "rocksdb", "--help").stdout
    for needle in ("engine", "kernel", "compressed secondary cache", "static-default", "examples"):
        assert needle in text


def test_json_has_the_shared_schema_and_the_second_tier_serves(small_run):
    proc, result, plot, folder = small_run
    assert result["engine"] == "rocksdb" and result["budget"] == "engine"
    by_name = {c["name"]: c for c in result["configs"]}
    assert list(by_name) == ["static-default", "static-4", "symbiosis"]
    memory = 48 << 20
    assert by_name["static-default"]["final_ma_bytes"] == 8 << 20
    assert by_name["static-4"]["final_ma_bytes"] == memory // 2
    for c in result["configs"]:
        assert c["throughput_ops"] > 0 and c["summary"]["errors"] == 0
        assert c["summary"]["budget"] == "engine"
        assert 0 <= c["hit_app"] <= 1 and 0 <= c["hit_second_tier"] <= 1
    # 64 MiB of values in 48 MiB of caches: a larger block cache hits more
    # often, and with 8 MiB the compressed cache serves many of the misses.
    assert by_name["static-4"]["hit_app"] > by_name["static-default"]["hit_app"]
    assert by_name["static-default"]["hit_second_tier"] > 0.3
    assert by_name["symbiosis"]["summary"]["controller"]["accesses"] > 0
    assert plot.stat().st_size > 10_000
    assert sorted(p.name for p in (folder / "dbs").iterdir()) == [
        ".rocksdb-64MiB-v1000-a0.5-s1.lock", "rocksdb-64MiB-v1000-a0.5-s1"]


@pytest.mark.parametrize("args, message", [
    (["--budget", "emulated"], "--budget"),
    (["--memory", "8MiB"], "below the minimum"),
    (["--configs", "static-9"], "is not a configuration"),
    (["--reserve", "12x"], "--reserve: '12x' is not a size"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "rocksdb", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert_one_error_line(proc, message)


def test_a_path_that_is_not_a_benchmark_db_is_one_line(tmp_path):
    from symbiosis.bench import driver_path
    import subprocess
    proc = subprocess.run([driver_path("rocksdb"), "run", "--db", str(tmp_path), "--memory", "48MiB",
                           "--config", "symbiosis"], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "rocksdb_bench: error:" in lines[0] and "not a benchmark DB" in lines[0]
