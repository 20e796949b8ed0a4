"""The benchmark programs under bench/ reject bad arguments in one line."""
import subprocess
import sys

import pytest

from conftest import REPO

NATIVE = REPO / "build" / "native"


def _tool(name):
    path = NATIVE / name
    if not path.is_file():
        pytest.skip(f"{path} is not built (./test.sh builds it)")
    return str(path)


@pytest.mark.parametrize("args", [[], ["100"], ["0", "-1"], ["27500x", "-1"], ["100", "11"],
                                  ["100", "-2"], ["100", ""]])
def test_rocksdb_shards_rejects_bad_arguments_in_one_line(args):
    proc = subprocess.run([_tool("rocksdb_shards"), *args], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and ("BLOCKS" in lines[0] or "usage" in lines[0]), proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("blocks, h_a", [("1000", "H_a 1.0000"), ("4000", "H_a 0.4")])
def test_rocksdb_shards_measures_data_that_fits(blocks, h_a):
    # 4000 blocks of 4 KiB do not fit in the 8 MiB block cache; 1000 do,
    # and then no read misses it. Either way the 56 MiB compressed cache
    # holds them all (under 8 MiB at 2 KiB): H_k is 1.
    proc = subprocess.run([_tool("rocksdb_shards"), blocks, "0"], capture_output=True, text=True,
                          timeout=300, check=True)
    out = proc.stdout
    assert f"blocks {blocks} " in out and "shard bits 0 (0 and 0):" in out, out
    rocksdb, model = out.split("; model ")
    for part in (rocksdb, model):
        assert h_a in part and "H_k 1.0000" in part, out


def test_controller_bench_names_the_parts_it_has():
    proc = subprocess.run([_tool("controller_bench"), "--part", "tier"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert "--part must be all, cost, memory, convergence or tiers, not 'tier'" in first, first


@pytest.mark.parametrize("script", ["dynamic_pairs.py", "oracle_held_out.py", "heldout.py",
                                    "tie_replay.py", "stable_change_rules.py",
                                    "kredis_decision.py", "redis_model.py", "flash_tier.py",
                                    "mrc_distributed.py"])
def test_scripts_without_the_package_say_which_python_to_use(script, tmp_path):
    # -S leaves out site-packages, where the package is installed.
    proc = subprocess.run([sys.executable, "-S", str(REPO / "bench" / script),
                           str(tmp_path / "a.json")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert ".venv/bin/python" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, \
        proc.stderr


def test_the_held_out_suite_draws_the_same_cells_from_a_seed_and_never_redraws(tmp_path):
    script = str(REPO / "bench" / "heldout.py")
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        subprocess.run([sys.executable, script, "draw", "--seed", "7", "--cells", "30", str(out)],
                       check=True, capture_output=True)
    import json
    a = json.loads((first / "cells.json").read_text())
    b = json.loads((second / "cells.json").read_text())
    assert a["cells"] == b["cells"] and a["seed"] == 7 and len(a["cells"]) == 30
    assert sum(c["memory_mib"] >= 512 for c in a["cells"]) >= 6
    for c in a["cells"]:
        assert c["budget"] in {"leveldb": ["kernel", "emulated"], "rocksdb": ["kernel", "engine"],
                               "wiredtiger": ["kernel"]}[c["engine"]]
        assert 0.2 <= c["ratio"] <= 1.0
    # A recorded seed draws the cells it drew when it was run (bench/heldout.md).
    recorded = tmp_path / "recorded"
    subprocess.run([sys.executable, script, "draw", "--seed", "7307", "--cells", "30",
                    str(recorded)], check=True, capture_output=True)
    cells = json.loads((recorded / "cells.json").read_text())["cells"]
    assert [(c["engine"], c["budget"], c["memory_mib"], c["ratio"], c["workload"], c["threads"])
            for c in cells[:4]] == [("rocksdb", "engine", 512, 0.29, "hotspot30", 1),
                                    ("wiredtiger", "kernel", 128, 0.26, "readscan", 16),
                                    ("wiredtiger", "kernel", 512, 0.89, "hotspot5", 16),
                                    ("wiredtiger", "kernel", 512, 0.27, "zipfian", 4)]
    assert [c["budget"] for c in cells if c["engine"] == "leveldb"][:2] == ["emulated", "kernel"]
    again = subprocess.run([sys.executable, script, "draw", "--seed", "8", str(first)],
                           capture_output=True, text=True)
    assert again.returncode != 0 and "never drawn again" in again.stderr
    assert json.loads((first / "cells.json").read_text()) == a
    report = subprocess.run([sys.executable, script, "report", str(first)], capture_output=True,
                            text=True, check=True)
    assert "0 run, 0 failed, 30 not run" in report.stdout
    for bad in ("0", "31"):
        late = subprocess.run([sys.executable, script, "run", str(first), "--from-cell", bad],
                              capture_output=True, text=True)
        assert late.returncode != 0 and late.stderr.count("\n") == 1
        assert f"--from-cell {bad} is not a cell of this draw (1 to 30)" in late.stderr


def test_the_held_out_report_counts_each_cell_over_the_run_and_after_stable(tmp_path):
    import json
    script = str(REPO / "bench" / "heldout.py")
    folder = tmp_path / "draw"
    subprocess.run([sys.executable, script, "draw", "--seed", "7", "--cells", "30", str(folder)],
                   check=True, capture_output=True)
    cells = json.loads((folder / "cells.json").read_text())["cells"]

    # A 120-s run's 2-s intervals, warm from 20 s: `early` ops/s through
    # 60 s, then `late`.
    def timeline(early, late, states=False):
        return [{"type": "interval", "t": t, "ops": 2 * (early if t <= 60 else late),
                 "warm": t > 20, **({"state": "adapting" if t <= 60 else "stable"}
                                    if states else {})} for t in range(2, 121, 2)]

    # The fields of `symbiosis bench --json` the report reads, for two cells;
    # in the first, Symbiosis runs at 0.8x the static runs for a minute.
    def result(vs_better, after_stable, pairs_after_stable):
        run = {"symbiosis": {"final_ma_bytes": 64 << 20,
                             "timeline": timeline(800, 1000, states=True)},
               "static": {"timeline": timeline(1000, 1000)}}
        return {"verdicts": [{"vs_better_baseline": vs_better, "vs_worse_baseline": 1.5,
                              "symbiosis_ops": 1000.0, "vs_oracle_after_stable": after_stable,
                              "pairs_after_stable": pairs_after_stable}],
                "cells": [{"pairs": [{"static": "static-default", "ratio": 1.5,
                                      "runs": [dict(run, ratio=1.5)] * 2},
                                     {"static": "static-max", "ratio": vs_better,
                                      "runs": [dict(run, ratio=vs_better - 0.06),
                                               dict(run, ratio=vs_better + 0.06)]}]}]}
    (folder / f"{cells[0]['id']}.json").write_text(json.dumps(result(0.90, 0.97, 2)))
    second = result(0.99, 0.99, 0)
    for pair in second["cells"][0]["pairs"]:
        pair["runs"] = [{"symbiosis": {"final_ma_bytes": 64 << 20},  # no timeline
                         "ratio": pair["ratio"]}] * 2
    (folder / f"{cells[1]['id']}.json").write_text(json.dumps(second))
    (folder / f"{cells[2]['id']}.failed").write_text("error: the engine failed\n")
    report = subprocess.run([sys.executable, script, "report", str(folder)], capture_output=True,
                            text=True, check=True).stdout
    assert "2 run, 1 failed, 27 not run" in report, report
    assert "| **0.900** | 0.84-0.96 | static-max | 1.50 | 64 | 0.970 (2/4) | 0.800 |" in report, \
        report
    assert "| 0.990 | 0.99-0.99 | static-max | 1.50 | 64 | - | - |" in report, report
    assert "failed: error: the engine failed |" in report and "| not run | |" in report, report
    # The first cell's pairs lie on both sides of 0.95x, the second's above it.
    assert "lie on both sides of 0.95x (undecided at this many pairs): 1/2" in report, report
    assert ">= 0.95x the better baseline in 1/2 cells (50%" in report, report
    assert "after Stable, in the 1 cells where a pair reached it" in report, report
    assert ">= 0.95x in 1/1, >= 0.90x in 1/1" in report, report
    assert "in the first 60 s (warm-up included" in report, report
    assert ">= 0.95x in 0/1, >= 0.90x in 0/1" in report, report
    # Where the time goes: warm from 20 s, a round to 60 s at 0.8x, then Stable at 1.0x.
    assert "| adapting | 40% | 0.800 | 100% |" in report, report
    assert "| stable | 60% | 1.000 | 0% |" in report, report
    # Seed 7's first cell overwrites 10%, its second none.
    assert [c["overwrite"] for c in cells[:2]] == [0.1, 0.0]
    assert ">= 0.95x by the share of overwrites: 0: 1/1 (lowest 0.990); 0.1: 0/1 (lowest 0.900)" \
        in report, report
    assert (folder / "report.png").exists()


def test_command_observer_bench_rejects_bad_arguments_in_one_line():
    proc = subprocess.run([_tool("command_observer_bench"), "--rate", "2"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "--rate in (0, 1]" in proc.stderr.splitlines()[0], proc.stderr


def test_command_observer_bench_counts_what_it_times():
    proc = subprocess.run([_tool("command_observer_bench"), "--commands", "200000", "--repeats",
                           "1", "--rate", "0.5"], capture_output=True, text=True, timeout=120,
                          check=True)
    assert "median:" in proc.stdout and "ns a command" in proc.stdout, proc.stdout
    # Of the 180,000 GETs (one command in ten is a SET) some were sampled,
    # and never more (the CPU budget may lower the rate below 0.5).
    line = next(l for l in proc.stdout.splitlines() if l.startswith("repeat 1:"))
    sampled = int(line.split("(")[1].split(" sampled")[0])
    assert 0 < sampled < 180_000, proc.stdout


def _model_row(workload, vary, k, share, real, objects, in_bytes, krr):
    return {"workload": workload, "sizes_vary": vary, "samples": k, "share": share,
            "real": real, "model_objects": objects, "model_bytes": in_bytes, "krr": krr}


def test_redis_model_report_judges_objects_only_where_values_have_one_size(tmp_path):
    runs = [_model_row("fixed", False, 5, 0.5, 0.30, 0.32, 0.305, 0.29),
            _model_row("varied", True, 5, 0.5, 0.30, 0.25, 0.302, 0.25)]
    path = tmp_path / "runs.json"
    path.write_text(__import__("json").dumps({"base_bytes": 1, "runs": runs}))
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "redis_model.py"), "--report",
                           str(path)], capture_output=True, text=True, timeout=60, check=True)
    out = proc.stdout
    # The fixed-size cell misses by its objects' 0.02; the varied one is
    # judged by its bytes' 0.002.
    assert "The model within 0.01: 1 of 2 cells" in out, out
    assert "in objects, one value size, 0 of 1" in out, out
    assert "**varied** (sizes vary: judged in bytes)" in out, out
    assert "| 5 | 0.300: -0.050 / +0.002; -0.050 | 0.002 | 0.050 |" in out, out


def test_kredis_decision_times_each_count(tmp_path):
    out = tmp_path / "decision.json"
    subprocess.run([sys.executable, str(REPO / "bench" / "kredis_decision.py"), "--tenants", "2,3",
                    "--repeats", "2", "--json", str(out)], capture_output=True, text=True,
                   timeout=300, check=True)
    results = __import__("json").loads(out.read_text())["results"]
    assert [r["tenants"] for r in results] == [2, 3]
    assert all(0 < r["median_ms"] <= r["max_ms"] and r["cells"] == 512 for r in results)
    bad = subprocess.run([sys.executable, str(REPO / "bench" / "kredis_decision.py"), "--tenants",
                          "two"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--tenants takes comma-separated counts" in bad.stderr


@pytest.mark.parametrize("content, message", [
    ('{"runs": []}', "holds no runs"),
    ('{"runs": [{"workload": "w"}]}', "a run lacks"),
    ("not json", "cannot read runs from"),
])
def test_redis_model_report_rejects_bad_json_in_one_line(tmp_path, content, message):
    path = tmp_path / "runs.json"
    path.write_text(content)
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "redis_model.py"), "--report",
                           str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert message in last and "redis_model.py: error:" in last, proc.stderr


def test_the_flash_tier_report_judges_all_three_against_the_plain_tier_beside(tmp_path):
    import json
    script = str(REPO / "bench" / "flash_tier.py")

    # A run's 2-s intervals over 20 s, warm from 10 s: `ops` ops/s; each
    # interval the counters grow as given per second, and `invalid` of
    # 1000 entries are invalid.
    def run(ops, lookups, reads, flash_lookups, flash_hits, written, invalid, tier=True):
        timeline = []
        for t in range(2, 21, 2):
            c = {"lookups": lookups * t, "app_hits": (lookups - reads) * t, "reads": reads * t,
                 "second_tier_hits": 0}
            if tier:
                c.update({"flash_lookups": flash_lookups * t, "flash_hits": flash_hits * t,
                          "flash_bytes_written": written * t, "flash_entries": 1000,
                          "flash_invalid_entries": invalid})
            timeline.append({"type": "interval", "t": t, "engine_counters": c})
        return {"failed": False, "timeline": timeline,
                "summary": {"throughput_ops": ops, "mean_us": 1e6 / ops, "p99_us": 1e7 / ops,
                            "hit_app": 1 - reads / lookups, "hit_second_tier": 0.0}}

    plain = run(1000, 1000, 500, 500, 200, 4000, 300)
    sas = run(1400, 1000, 500, 250, 200, 3000, 10)  # fewer flash lookups, same hits
    none = run(800, 1000, 500, 0, 0, 0, 0, tier=False)
    pairs = []
    for config, r in (("static-max", none), ("static-max+flash-all", sas)):
        pairs += [{"config": config, "repeat": k, "run": r, "plain": plain} for k in range(2)]
    cell = {"name": "rrwr-network", "workload": "uniform", "overwrite": 0.1,
            "storage": "network", "memory_bytes": 64 << 20, "flash_bytes": 512 << 20,
            "data_bytes": 640 << 20, "warmup": "10s", "duration": "20s", "threads": 8,
            "pairs": pairs}
    (tmp_path / "cell-rrwr-network.json").write_text(json.dumps(cell))
    report = subprocess.run([sys.executable, script, "report", str(tmp_path)],
                            capture_output=True, text=True, check=True).stdout
    # all three: 1.40x the plain tier's throughput, its flash hit ratio
    # 0.8 over 0.4 (2.00x), 0.75x its flash writes, IBOR at most 0.010;
    # no tier 0.80x, so all three run 1.75x no tier's.
    assert "| rrwr-network | 1.40x | 2.00x | 0.75x | 0.010 | 1.75x |" in report, report
    assert "| static-max+flash-none (beside each) | 1,000 |" in report, report
    assert "| 0.300 |" in report  # the plain tier's IBOR
    assert (tmp_path / "report.png").exists()
