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


def test_flash_configurations_run_with_their_tier_and_only_they(tmp_path):
    out = tmp_path / "flash.json"
    proc = run_cli("bench", "rocksdb", *SMALL, "--db-dir", str(tmp_path / "dbs"),
                   "--configs", "static-max,static-max+flash-none,static-max+flash-all",
                   "--flash-size", "32MiB", "--slow-storage", "200us", "--overwrite", "0.1",
                   "--json", str(out))
    result = json.loads(out.read_text())
    by_name = {c["name"]: c for c in result["configs"]}
    assert list(by_name) == ["static-max", "static-max+flash-none", "static-max+flash-all"]
    header = next(line for line in proc.stdout.splitlines() if line.startswith("config"))
    assert "flash hit" in header and header.endswith("IBOR"), header
    no_tier = next(line for line in proc.stdout.splitlines() if line.startswith("static-max "))
    assert no_tier.split()[-3:] == ["-", "-", "-"], no_tier
    assert "flash_hits" not in by_name["static-max"]["summary"]["engine_counters"]
    for name in ("static-max+flash-none", "static-max+flash-all"):
        counters = by_name[name]["summary"]["engine_counters"]
        assert counters["flash_capacity_bytes"] == 32 << 20
        assert counters["flash_inserts"] > 0 and counters["flash_failed"] == 0
        assert counters["storage_mean_read_ns"] >= 200_000  # the emulated latency
        # every interval line carries the counters (IBOR over time)
        assert all("flash_entries" in i["engine_counters"] for i in by_name[name]["timeline"])
    plain = by_name["static-max+flash-none"]["summary"]["engine_counters"]
    sas = by_name["static-max+flash-all"]["summary"]["engine_counters"]
    assert plain["flash_bypassed_absent"] == 0 and plain["flash_lookups"] == plain[
        "flash_lookups_received"]
    assert sas["flash_lookups"] + sas["flash_bypassed_absent"] + sas[
        "flash_bypassed_slow"] == sas["flash_lookups_received"]
    # the tier's DRAM comes out of M: static-max's block cache is smaller with it
    assert (by_name["static-max+flash-all"]["final_ma_bytes"] + counters["flash_dram_bytes"]
            <= 48 << 20 < by_name["static-max"]["final_ma_bytes"] + counters["flash_dram_bytes"])


@pytest.mark.parametrize("args, message", [
    (["--configs", "static-max+flash-all"], "give its size"),
    (["--configs", "static-max+flash-fast", "--flash-size", "32MiB"], "<config>+flash-<opts>"),
    (["--flash-size", "32MiB"], "needs a configuration with a flash tier"),
    (["--configs", "flash", "--flash-size", "32MiB", "--budget", "kernel"], "engine budget"),
    (["--configs", "flash", "--flash-size", "100KiB"], "below two regions"),
    (["--configs", "flash", "--flash-size", "32MiB", "--slow-storage", "tape"],
     "--slow-storage 'tape'"),
])
def test_bad_flash_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "rocksdb", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert_one_error_line(proc, message)
