"""End-to-end tests of `symbiosis bench leveldb` on a small DB with the
emulated budget (no root needed): the JSON schema, the plot, the errors."""

import json

import pytest

from conftest import run_cli

SMALL = ["--memory", "48MiB", "--data-size", "64MiB", "--budget", "emulated",
         "--duration", "3s", "--warmup", "1s", "--interval", "1s", "--threads", "2"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    out, plot = folder / "out.json", folder / "out.png"
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(folder / "dbs"),
                   "--configs", "static-default,static-4,symbiosis",
                   "--json", str(out), "--plot", str(plot))
    return proc, json.loads(out.read_text()), plot


def test_help_teaches(cli):
    text = cli("bench", "leveldb", "--help").stdout
    for needle in ("static-default", "static-max", "symbiosis", "--budget", "cgroup",
                   "examples", "--phases"):
        assert needle in text


def test_json_has_every_config_with_its_numbers(small_run):
    proc, result, plot = small_run
    names = [c["name"] for c in result["configs"]]
    assert names == ["static-default", "static-4", "symbiosis"]
    memory = 48 << 20
    by_name = {c["name"]: c for c in result["configs"]}
    assert by_name["static-default"]["final_ma_bytes"] == 8 << 20
    assert by_name["static-4"]["final_ma_bytes"] == memory * 4 // 8
    for c in result["configs"]:
        assert c["throughput_ops"] > 0
        assert c["mean_us"] > 0 and 0 < c["summary"]["p50_us"] <= c["p95_us"] <= c["p99_us"]
        assert 0 <= c["hit_app"] <= 1 and 0 <= c["hit_kernel"] <= 1
        assert c["summary"]["errors"] == 0
        assert len(c["timeline"]) >= 2
        assert all(p["ma_bytes"] <= memory for p in c["timeline"])
    # A bigger block cache hits more often on the same data.
    assert by_name["static-4"]["hit_app"] > by_name["static-default"]["hit_app"]
    assert by_name["symbiosis"]["summary"]["controller"]["accesses"] > 0
    assert "static-4" in proc.stdout  # the table
    assert plot.stat().st_size > 10_000


@pytest.mark.parametrize("args, message", [
    (["--configs", "static-9"], "is not a configuration"),
    (["--configs", "fastest"], "is not a configuration"),
    (["--memory", "8MiB"], "below the minimum"),
    (["--ratios", "7"], "is not a ratio"),
    (["--workload", "nosuch"], "nosuch"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if "error" in l]
    assert len(lines) == 1 and message in lines[0], proc.stderr
