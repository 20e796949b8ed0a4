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
    (["--app-cache-overhead", "1"], "--app-cache-overhead"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if "error" in l]
    assert len(lines) == 1 and message in lines[0], proc.stderr


def _cell(workload, ratio, tputs, ma=8 << 20):
    return {"workload": workload, "ratio": ratio,
            "results": {n: {"summary": {"throughput_ops": t, "final_ma_bytes": ma}}
                        for n, t in tputs.items()}}


def test_grid_verdicts_compare_with_baselines_and_the_oracle():
    from symbiosis.bench import format_verdicts, grid_verdicts
    cells = [
        _cell("uniform", 0.2, {"static-default": 100, "static-max": 200, "static-4": 300,
                               "symbiosis": 290}),
        _cell("zipfian", 1.0, {"static-default": 400, "static-max": 100, "symbiosis": 360}),
        _cell("no-symbiosis", 1.0, {"static-default": 1, "static-max": 2}),
    ]
    v = grid_verdicts(cells)
    assert [x["workload"] for x in v] == ["uniform", "zipfian"]
    assert v[0]["oracle"] == "static-4"
    assert v[0]["vs_better_baseline"] == pytest.approx(1.45)
    assert v[0]["vs_oracle"] == pytest.approx(290 / 300)
    assert v[1]["vs_better_baseline"] == pytest.approx(0.9)
    assert v[1]["vs_worse_baseline"] == pytest.approx(3.6)
    text = format_verdicts(v)
    assert "better baseline in 1/2 cells" in text
    assert "best static run in 1/2" in text
    assert "mean gain over the worse baseline 3.25x (up to 3.60x)" in text
