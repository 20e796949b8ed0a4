"""`symbiosis bench redis`: real redis-servers with the module, redis_load
(hiredis) playing cache-aside, the arbiter between them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import assert_one_error_line, run_cli

REPO = Path(__file__).resolve().parents[2]
NATIVE = REPO / "build" / "native"

if shutil.which("redis-server") is None:  # scripts/setup.sh installs it
    pytest.skip("redis-server is not installed; scripts/setup.sh installs Debian's",
                allow_module_level=True)
for built in ("symbiosis_redis.so", "redis_load"):
    if not (NATIVE / built).is_file():
        pytest.skip(f"{NATIVE / built} was not built (cmake's message says why)",
                    allow_module_level=True)


def test_every_configuration_runs_and_keeps_to_the_budget(tmp_path):
    out = tmp_path / "bench.json"
    proc = run_cli("bench", "redis", "--case", "four-latencies", "--shares", "0.5",
                   "--keys", "10000", "--duration", "8s", "--warmup", "2s", "--interval", "1s",
                   "--configs", "equal,proportional,lru,kredis,oracle", "--json", str(out),
                   "--plot", str(tmp_path / "bench.png"))
    assert "vs equal" in proc.stdout
    result = json.loads(out.read_text())["results"][0]
    memory = result["memory"]
    assert list(result["runs"]) == ["equal", "proportional", "lru", "kredis", "oracle"]
    for name, run in result["runs"].items():
        assert run["overall"]["ops"] > 1000, name
        assert len(run["summary"]) == 4
        assert sum(run["sizes"].values()) <= memory, name
        assert all(s > 0 for s in run["sizes"].values()), name
        # The misses' part of the mean: at most the mean, and what the hit ratios say.
        summary = run["summary"]
        misses = sum((e["ops"] - e["hits"]) * t["miss_latency"]
                     for e, t in zip(summary, json.loads(out.read_text())["tenants"]))
        assert run["miss_latency_us"] == pytest.approx(
            1e6 * misses / sum(e["ops"] for e in summary))
        assert 0 < run["miss_latency_us"] <= run["overall"]["mean_us"], name
    # The arbiter measured every tenant; its sizes never added up to more than M.
    records = result["runs"]["kredis"]["arbiter"]
    assert len(records) >= 4
    assert all(t["mode"] == "modelled" for t in records[-1]["tenants"])
    for r in records:
        assert sum(t["maxmemory"] for t in r["tenants"]) <= memory
    assert (tmp_path / "bench.png").stat().st_size > 10_000
    # lru decides on exact LRU's curves and sets no K: every tenant keeps 5.
    lru = result["runs"]["lru"]["arbiter"]
    assert all(t["mode"] == "modelled" for t in lru[-1]["tenants"])
    assert all(t["samples"] == 5 for t in lru[-1]["tenants"])


def test_side_by_side_pairs_each_configuration_with_an_equal_split(tmp_path):
    out = tmp_path / "pairs.json"
    proc = run_cli("bench", "redis", "--case", "four-latencies", "--shares", "0.5",
                   "--keys", "10000", "--duration", "6s", "--warmup", "2s", "--interval", "1s",
                   "--configs", "equal,kredis", "--side-by-side", "--json", str(out),
                   "--plot", str(tmp_path / "pairs.png"))
    assert "beside an equal split" in proc.stdout
    data = json.loads(out.read_text())
    assert data["side_by_side"] is True
    result = data["results"][0]
    memory = result["memory"]
    assert list(result["pairs"]) == ["kredis"]
    pairs = result["pairs"]["kredis"]
    assert [p["repeat"] for p in pairs] == [0, 1]
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:  # the CPUs swap from one pair to the next
        assert pairs[0]["cpus"] != pairs[1]["cpus"]
        assert set(pairs[0]["cpus"]) | set(pairs[1]["cpus"]) <= set(cpus)
    for p in pairs:
        for side in ("run", "equal"):
            assert p[side]["overall"]["ops"] > 1000
            assert sum(p[side]["sizes"].values()) <= memory
        assert set(p["equal"]["sizes"].values()) == {memory // 4}
        assert not p["equal"]["arbiter"] and p["run"]["arbiter"]
        assert p["miss_latency_ratio"] == pytest.approx(
            p["run"]["miss_latency_us"] / p["equal"]["miss_latency_us"])
    assert (tmp_path / "pairs.png").stat().st_size > 10_000


def test_redis_load_says_what_is_wrong_with_a_tenant():
    load = str(NATIVE / "redis_load")
    import subprocess
    for spec, words in [
        ("name=a", ["needs name= and port="]),
        ("name=a,port=0", ["--tenant port"]),
        ("name=a,port=7000,keys=0", ["keys=0"]),
        ("name=a,port=7000,colour=red", ["unknown key 'colour'"]),
        ("name=a,port=7000,workload=nosuch", ["nosuch"]),
        ("name=a,port=7000,miss-latency=fast", ["--tenant miss-latency"]),
        ("name=a,port", ["'port' is not key=value"]),
    ]:
        proc = subprocess.run([load, "--tenant", spec, "--duration", "1s"], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 2, (spec, proc.stderr)
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("redis_load: error:"), \
            (spec, proc.stderr)
        for w in words:
            assert w in proc.stderr, (spec, proc.stderr)


def test_bad_input_is_one_line():
    for args, words in [
        (["--case", "three"], ["--case three"]),
        (["--configs", "equal,best"], ["unknown configuration 'best'"]),
        (["--configs", "equal,oracle"], ["oracle needs kredis"]),
        (["--duration", "5s", "--warmup", "5s"], ["--warmup"]),
        (["--shares", "0.02", "--keys", "1000"], ["--shares 0.02"]),
        (["--rate", "-1"], ["--rate"]),
        (["--side-by-side", "--configs", "equal"], ["name one besides equal"]),
        (["--repeats", "2"], ["--repeats counts the pairs of --side-by-side"]),
    ]:
        assert_one_error_line(run_cli("bench", "redis", *args, check=False), *words)
