"""`symbiosis bench rocksdb --compare-budgets`: each configuration run under
the engine and the kernel budget at the same time, CPUs swapped at each
repeat, the kernel run's throughput over the engine run's. The kernel
budget needs a memory cgroup; without one the end-to-end test skips and
says why."""

import json
import math

import pytest

from conftest import run_cli
from test_bench_rocksdb import SMALL


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench_budgets")
    out, plot = folder / "out.json", folder / "out.png"
    proc = run_cli("bench", "rocksdb", *SMALL, "--db-dir", str(folder / "dbs"),
                   "--configs", "static-default,symbiosis", "--compare-budgets",
                   "--reserve", "40MiB",
                   "--json", str(out), "--plot", str(plot), check=False)
    if proc.returncode != 0 and "cgroup" in proc.stderr:
        pytest.skip(f"no memory cgroup could be made here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(out.read_text()), plot, folder


def test_each_configuration_runs_in_both_budgets_at_once_on_swapped_cpus(compared):
    proc, result, plot, folder = compared
    assert result["budget"] == ["engine", "kernel"] and result["repeats"] == 2
    cell = result["cells"][0]
    assert cell["budgets"] == ["engine", "kernel"]
    assert [p["config"] for p in cell["budget_pairs"]] == ["static-default", "symbiosis"]
    for pair in cell["budget_pairs"]:
        runs = pair["runs"]
        assert [r["repeat"] for r in runs] == [0, 1]
        for run in runs:
            for budget in ("engine", "kernel"):
                assert run[budget]["summary"]["budget"] == budget
                assert run[budget]["summary"]["reserve_bytes"] == 40 << 20
                assert run[budget]["throughput_ops"] > 0 and run[budget]["timeline"]
            assert run["ratio"] == pytest.approx(
                run["kernel"]["throughput_ops"] / run["engine"]["throughput_ops"])
            if run["cpus"]["engine"] is not None:  # pinned: one CPU each
                assert run["cpus"]["engine"] != run["cpus"]["kernel"]
        if runs[0]["cpus"]["engine"] is not None:  # and the CPUs swap
            assert runs[0]["cpus"]["engine"] == runs[1]["cpus"]["kernel"]
        assert pair["ratio"] == pytest.approx(math.sqrt(runs[0]["ratio"] * runs[1]["ratio"]))
    static = cell["budget_pairs"][0]["runs"][0]
    assert static["engine"]["final_ma_bytes"] == static["kernel"]["final_ma_bytes"] == 8 << 20
    names = [c["name"] for c in cell["configs"]]
    assert names == ["static-default@engine", "static-default@kernel", "symbiosis@engine",
                     "symbiosis@kernel"]
    assert "geometric mean of kernel/engine per configuration: static-default" in proc.stdout
    assert plot.stat().st_size > 10_000
    assert sorted(p.name for p in (folder / "dbs").iterdir()) == [
        ".rocksdb-64MiB-v1000-a0.5-s1.lock", "rocksdb-64MiB-v1000-a0.5-s1"]


@pytest.mark.parametrize("engine, extra, message", [
    ("rocksdb", ["--side-by-side"], "drop --side-by-side"),
    ("rocksdb", ["--allow-fallback"], "drop --allow-fallback"),
    ("wiredtiger", [], "--compare-budgets"),
])
def test_what_it_cannot_compare_is_one_line(tmp_path, engine, extra, message):
    proc = run_cli("bench", engine, *SMALL, "--db-dir", str(tmp_path), "--compare-budgets",
                   *extra, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not any(tmp_path.iterdir())  # nothing loaded


def test_budget_pairs_give_the_geometric_mean_of_their_ratios():
    # CPU 1 slows whichever run it holds by 20%: the single ratios are 1.5x
    # and 0.96x, their geometric mean the truth, 1.2x.
    from symbiosis.bench import budget_ratios, format_budget_pairs

    def run(ops):
        return {"summary": {"throughput_ops": ops, "final_ma_bytes": 8 << 20, "hit_app": 0.5,
                            "hit_second_tier": 0.9}}
    cell = {"budgets": ["engine", "kernel"], "budget_pairs": [
        {"config": "symbiosis", "repeat": 0, "cpus": {"engine": [1], "kernel": [0]},
         "runs": {"engine": run(80), "kernel": run(120)}},
        {"config": "symbiosis", "repeat": 1, "cpus": {"engine": [0], "kernel": [1]},
         "runs": {"engine": run(100), "kernel": run(96)}}]}
    assert budget_ratios(cell)["symbiosis"] == pytest.approx(1.2)
    assert "symbiosis 1.200x" in format_budget_pairs(cell)
