"""End-to-end tests of `symbiosis bench leveldb` on a small DB with the
emulated budget (no root needed): the JSON schema, the plot, the errors."""

import json
import subprocess
import sys

import pytest

from conftest import assert_one_error_line, run_cli

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
        assert 0 <= c["hit_app"] <= 1 and 0 <= c["hit_second_tier"] <= 1
        assert c["summary"]["errors"] == 0
        assert len(c["timeline"]) >= 2
        assert all(p["ma_bytes"] <= memory for p in c["timeline"])
    # A bigger block cache hits more often on the same data.
    assert by_name["static-4"]["hit_app"] > by_name["static-default"]["hit_app"]
    assert by_name["symbiosis"]["summary"]["controller"]["accesses"] > 0
    assert result["allocator"] == "system"
    assert all(c["summary"]["allocator"] == "system" for c in result["configs"])
    assert "static-4" in proc.stdout  # the table
    assert plot.stat().st_size > 10_000


@pytest.mark.parametrize("args, message", [
    (["--configs", "static-9"], "is not a configuration"),
    (["--configs", "fastest"], "is not a configuration"),
    (["--memory", "8MiB"], "below the minimum"),
    (["--ratios", "7"], "--ratios: 7 is outside (0, 4]"),
    (["--workload", "nosuch"], "nosuch"),
    (["--app-cache-overhead", "1"], "--app-cache-overhead"),
    (["--app-cache-overhead", "-1"], "--app-cache-overhead"),
    (["--side-by-side", "--configs", "static-default,static-max"], "--side-by-side"),
    (["--repeats", "2"], "--repeats"),
    (["--side-by-side", "--repeats", "0"], "--repeats"),
    (["--warmup", "3s"], "is not shorter than --duration"),
    (["--warmup", "10x"], "'10x' is not a duration"),
    (["--allocator", "tcmalloc"], "tcmalloc"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(tmp_path), *args, check=False)
    assert_one_error_line(proc, message)


def test_every_run_gets_the_chosen_allocator_and_reports_it(tmp_path):
    out = tmp_path / "jemalloc.json"
    run_cli("bench", "leveldb", *SMALL, "--db-dir", str(tmp_path / "dbs"),
            "--configs", "static-default,symbiosis", "--allocator", "jemalloc", "--json", str(out))
    result = json.loads(out.read_text())
    assert result["allocator"] == "jemalloc"
    # The driver reads its own memory map: the library was really loaded.
    assert [c["summary"]["allocator"] for c in result["configs"]] == ["jemalloc", "jemalloc"]


def test_a_missing_jemalloc_is_one_line_before_any_run(tmp_path):
    # As on a machine without libjemalloc2: the lookup finds nothing.
    code = ("import ctypes.util, runpy, sys; ctypes.util.find_library = lambda name: None; "
            "sys.argv = ['symbiosis'] + sys.argv[1:]; "
            "runpy.run_module('symbiosis', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code, "bench", "leveldb", *SMALL,
                           "--db-dir", str(tmp_path / "dbs"), "--allocator", "jemalloc"],
                          capture_output=True, text=True, timeout=120)
    assert_one_error_line(proc, "libjemalloc is not installed")
    assert not (tmp_path / "dbs").exists()


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


def test_side_by_side_pairs_each_static_config_twice_on_swapped_cpus(tmp_path):
    out = tmp_path / "pairs.json"
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(tmp_path / "dbs"),
                   "--configs", "static-default,static-4,symbiosis", "--side-by-side",
                   "--json", str(out))
    result = json.loads(out.read_text())
    assert result["side_by_side"] is True and result["repeats"] == 2
    cell = result["cells"][0]
    assert [p["static"] for p in cell["pairs"]] == ["static-default", "static-4"]
    symbiosis_ops = []
    for pair in cell["pairs"]:
        runs = pair["runs"]
        assert [r["repeat"] for r in runs] == [0, 1]
        for run in runs:
            assert run["symbiosis"]["throughput_ops"] > 0 and run["symbiosis"]["timeline"]
            assert run["ratio"] == pytest.approx(
                run["symbiosis"]["throughput_ops"] / run["static"]["throughput_ops"])
            symbiosis_ops.append(run["symbiosis"]["throughput_ops"])
        if runs[0]["static_cpus"] is not None:  # pinned: the static run changes CPUs
            assert runs[0]["static_cpus"] != runs[1]["static_cpus"]
        assert pair["ratio"] == pytest.approx((runs[0]["ratio"] * runs[1]["ratio"]) ** 0.5)
    # Symbiosis's entry is one of its four runs, the one of median throughput.
    ops = {c["name"]: c["throughput_ops"] for c in cell["configs"]}
    assert ops["symbiosis"] == sorted(symbiosis_ops)[1]
    assert "side by side (2 of 2)" in proc.stderr and "geometric mean" in proc.stdout
    # Only the kept DB and its lock are left: the pair's copies are gone.
    assert sorted(p.name for p in (tmp_path / "dbs").iterdir()) == [
        ".leveldb-64MiB-v1000-a0.5-s1.lock", "leveldb-64MiB-v1000-a0.5-s1"]


def test_pairs_get_one_cpu_each():
    from symbiosis.bench import pair_cpus
    a, b = pair_cpus()
    if a is None:
        pytest.skip("one CPU: pairs are not pinned (nothing to check)")
    assert a and b and not a & b


def _pair_cell(workload, ratio, pairs):
    """pairs: static name -> [(static ops, symbiosis ops in that pair), ...]."""
    def run(ops):
        return {"summary": {"throughput_ops": ops, "final_ma_bytes": 8 << 20, "hit_app": 0.5,
                            "hit_second_tier": 0.9}}
    runs = [{"static": n, "repeat": k, "static_cpus": [k % 2], "static_run": run(s),
             "symbiosis": run(y)}
            for n, each in pairs.items() for k, (s, y) in enumerate(each)]
    results = {n: runs[0]["static_run"] for n in pairs}
    results["symbiosis"] = runs[0]["symbiosis"]
    return {"workload": workload, "ratio": ratio, "results": results, "pairs": runs}


def test_side_by_side_verdicts_compare_within_each_pair():
    from symbiosis.bench import grid_verdicts
    cells = [_pair_cell("uniform", 0.2, {"static-default": [(100, 120)],
                                          "static-max": [(200, 180)],
                                          "static-4": [(300, 270)]}),
             _pair_cell("zipfian", 1.0, {"static-default": [(400, 380)]})]
    v = grid_verdicts(cells)
    assert len(v) == 1  # the zipfian cell lacks static-max
    assert v[0]["vs_better_baseline"] == pytest.approx(0.9)   # 180 / 200
    assert v[0]["vs_worse_baseline"] == pytest.approx(1.2)    # 120 / 100
    assert v[0]["oracle"] == "static-max" and v[0]["vs_oracle"] == pytest.approx(0.9)


def test_repeated_pairs_give_the_geometric_mean_of_their_ratios():
    # CPU 1 slows whichever run it holds by 20%: the single ratios are 0.8x
    # and 1.25x of the truth, their geometric mean the truth.
    from symbiosis.bench import format_pairs, grid_verdicts
    cell = _pair_cell("hotspot20", 0.4, {"static-default": [(100, 80), (80, 100)],
                                          "static-max": [(100, 96), (80, 120)]})
    v = grid_verdicts([cell])[0]
    assert v["vs_better_baseline"] == pytest.approx(1.0)
    assert v["vs_worse_baseline"] == pytest.approx(1.2)
    assert v["oracle"] == "static-default"
    text = format_pairs(cell)
    assert "static-default 1.000x" in text and "static-max 1.200x" in text


def test_the_held_out_oracle_is_chosen_on_other_pairs_than_it_is_measured_on():
    # static-2 had one lucky pair (0.8) and one plain one (1.0); static-3
    # reads 0.95 in both. The lowest mean picks static-2 on its luck; held
    # out, each repeat measures the size the other repeat chose.
    from symbiosis.bench import format_verdicts, grid_verdicts, held_out_oracle
    cell = _pair_cell("hotspot10", 0.8, {"static-default": [(100, 110), (100, 110)],
                                          "static-max": [(100, 120), (100, 120)],
                                          "static-2": [(100, 80), (100, 100)],
                                          "static-3": [(100, 95), (100, 95)]})
    v = grid_verdicts([cell])[0]
    assert v["oracle"] == "static-2"
    assert v["vs_oracle"] == pytest.approx(0.8 ** 0.5)
    # Repeat 0 measures static-3 (repeat 1's lowest), repeat 1 static-2.
    assert v["vs_oracle_held_out"] == pytest.approx((0.95 * 1.0) ** 0.5)
    text = format_verdicts([v])
    assert "/oracle held out" in text and "0.97x" in text
    assert "(the oracle held out: 1/1)" in text  # no timelines: no after-Stable count
    # Two pairs of a size in one repeat (passes merged): their geometric
    # mean stands for it there, as in the per-size ratio.
    merged = dict(cell, pairs=cell["pairs"] + [
        dict(p, symbiosis={"summary": dict(p["symbiosis"]["summary"], throughput_ops=90)})
        for p in cell["pairs"] if p["static"] == "static-3" and p["repeat"] == 0])
    # Repeat 0 measures static-3 at sqrt(0.95 * 0.9); repeat 1 still measures static-2.
    assert held_out_oracle(merged) == pytest.approx((0.95 * 0.9) ** 0.25 * 1.0 ** 0.5)
    # One repeat: nothing to hold out, and no column.
    single = grid_verdicts([_pair_cell("uniform", 0.4, {"static-default": [(100, 110)],
                                                        "static-max": [(100, 120)]})])[0]
    assert single["vs_oracle_held_out"] is None
    assert "held out" not in format_verdicts([single])


def _timeline(ops, states, step=2.0, offset=0.0):
    """2 s intervals, warm from the third one on."""
    return [{"type": "interval", "t": offset + step * (i + 1), "ops": n, "warm": i >= 2,
             "state": state} for i, (n, state) in enumerate(zip(ops, states))]


def test_pairs_are_also_measured_after_stable():
    from symbiosis.bench import format_pairs, format_verdicts, grid_verdicts, stable_pair_ratio
    unsettled = ["adapting", "trial", "trial", "trial"]
    cell = _pair_cell("hotspot20", 0.4, {"static-default": [(100, 150), (100, 150)],
                                          "static-max": [(100, 120), (100, 120)],
                                          "static-0": [(100, 90), (100, 90)]})
    for k, pair in enumerate(cell["pairs"]):
        if pair["static"] != "static-0":
            continue
        # Stable from 8 s on: 12 s of it in the first pair, 8 s in the second
        # (too little: it keeps its warm-part ratio, 0.9). The static run
        # ticks 0.3 s later and has one interval more: time aligns them.
        stable = 6 if k % 2 == 0 else 4
        states = unsettled + ["trial"] * (6 - stable) + ["stable"] * stable
        pair["symbiosis"]["timeline"] = _timeline([50] * (10 - stable) + [105] * stable, states)
        pair["static_run"]["timeline"] = _timeline([100] * 11, ["static"] * 11, offset=0.3)
    first, second = [p for p in cell["pairs"] if p["static"] == "static-0"]
    # The static run's intervals from 8.3 s to 22.3 s: 7 of 100 ops in 14 s.
    assert stable_pair_ratio(first) == pytest.approx((105 * 6 / 12 / (700 / 14), 8.0))
    assert stable_pair_ratio(second) is None
    after = (1.05 * 0.9) ** 0.5
    text = format_pairs(cell)
    assert f"{stable_pair_ratio(first)[0]:.2f}x (8 s)" in text
    assert f"static-0 0.900x ({after:.3f}x)" in text
    v = grid_verdicts([cell])[0]
    assert v["vs_oracle"] == pytest.approx(0.9)
    assert v["vs_oracle_after_stable"] == pytest.approx(after)
    assert v["pairs_after_stable"] == 1
    table = format_verdicts([v])
    assert "/oracle after Stable" in table
    assert "(the oracle held out: 0/1; after Stable: 1/1)" in table


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory):
    """A 2 MiB bench DB, loaded by the driver itself."""
    from symbiosis.bench import driver_path
    db = tmp_path_factory.mktemp("driver") / "db"
    subprocess.run([driver_path(), "load", "--db", str(db), "--data-size", "2MiB"], check=True,
                   capture_output=True)
    return db


@pytest.mark.parametrize("flag, value", [
    ("--overwrite", "0.5x"), ("--overwrite", "1.5"), ("--overwrite", ""),
    ("--app-cache-overhead", "1"), ("--app-cache-overhead", "-1"),
    ("--app-cache-overhead", "0.25.1"),
])
def test_driver_rejects_a_bad_fraction_in_one_line(tiny_db, flag, value):
    # The Python CLI checks these first; the driver is also run by hand and by scripts.
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "run", "--db", str(tiny_db), "--memory", "32MiB",
                           "--config", "static-default", "--budget", "emulated", "--duration", "1s",
                           flag, value], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and f"'{value}'" in lines[0], proc.stderr


def test_driver_rejects_a_warmup_that_leaves_nothing_to_measure(tiny_db):
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "run", "--db", str(tiny_db), "--memory", "32MiB",
                           "--config", "static-default", "--budget", "emulated",
                           "--duration", "2s", "--warmup", "4s"], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--warmup" in lines[0] and "--duration" in lines[0], proc.stderr


@pytest.mark.parametrize("command", ["run", "overhead"])
def test_driver_names_a_missing_db_directory(tmp_path, command):
    from symbiosis.bench import driver_path
    missing = tmp_path / "no-such-db"
    config = ["--config", "symbiosis"] if command == "run" else []
    proc = subprocess.run([driver_path(), command, "--db", str(missing), "--memory", "32MiB",
                           *config], capture_output=True, text=True)
    assert_one_error_line(proc, f"no DB directory {missing}", "load --db")


@pytest.mark.parametrize("value, ok", [("-0.15", True), ("-1", False), ("1", False)])
def test_overhead_takes_the_same_app_cache_overhead_range_as_run(tiny_db, value, ok):
    # WiredTiger's default was negative (-0.15); `overhead` once took only [0, 1).
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "overhead", "--db", str(tiny_db), "--memory", "32MiB",
                           "--budget", "emulated", "--warmup", "1s", "--pairs", "2",
                           "--slice", "50ms", "--app-cache-overhead", value],
                          capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--app-cache-overhead" in lines[0] and "(-1, 1)" in lines[0], lines


def test_overhead_alternates_symbiosis_and_its_static_path_on_one_cache(tiny_db):
    import json
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "overhead", "--db", str(tiny_db), "--memory", "32MiB",
                           "--budget", "emulated", "--warmup", "1s", "--pairs", "20",
                           "--slice", "50ms"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    pairs = [l for l in lines if l["type"] == "pair"]
    summary = lines[-1]
    assert summary["type"] == "overhead_summary" and len(pairs) == 20
    assert [p["first"] for p in pairs[:4]] == ["a", "b", "a", "b"]
    valid = [p for p in pairs if p["valid"]]
    assert summary["valid_pairs"] == len(valid) > 0
    assert summary["ma_bytes"] == valid[0]["ma_bytes"] > 0
    assert summary["ratio"] == pytest.approx(
        sum(p["a_ops_per_s"] for p in valid) / sum(p["b_ops_per_s"] for p in valid), rel=1e-4)
    assert summary["median_low"] <= summary["median_ratio"] <= summary["median_high"]
    # Both halves of a pair read through the same cache: the 2 MiB DB fits it.
    assert min(p["a_hit_app"] for p in valid) > 0.9 and min(p["b_hit_app"] for p in valid) > 0.9
    # Only the first half reports to the Controller (a slice's edge may carry
    # a reader's access or two across).
    assert summary["control"] is False and min(p["a_reported"] for p in valid) > 0
    assert sum(p["b_reported"] for p in valid) * 100 < sum(p["a_reported"] for p in valid)


def test_overhead_control_reports_in_both_halves(tiny_db):
    import json
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "overhead", "--db", str(tiny_db), "--memory", "32MiB",
                           "--budget", "emulated", "--warmup", "1s", "--pairs", "6",
                           "--slice", "50ms", "--control"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    valid = [l for l in lines if l["type"] == "pair" and l["valid"]]
    assert lines[-1]["control"] is True and valid
    assert min(min(p["a_reported"], p["b_reported"]) for p in valid) > 0


@pytest.mark.parametrize("args, message", [
    (["--budget", "emulated"], "--memory"),
    (["--memory", "32MiB", "--slice", "10ms"], "--slice"),
    (["--memory", "32MiB", "--pairs", "0"], "--pairs"),
])
def test_overhead_rejects_bad_flags_in_one_line(tiny_db, args, message):
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "overhead", "--db", str(tiny_db), *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


@pytest.mark.parametrize("args, env, messages", [
    ([], {}, ["OUT_DIR"]),
    (["OUT", "0"], {}, ["PAIRS", "'0'"]),
    (["OUT", "400", "--no-cgroups"], {}, ["--no-cgroup", "'--no-cgroups'"]),
    (["OUT"], {"REPEATS": "0"}, ["REPEATS", "'0'"]),
    (["OUT"], {"CONTROL": "yes"}, ["CONTROL", "'yes'"]),
    (["OUT"], {}, ["no DB", "leveldb-64MiB-v1000-a0.5-s1", "--ratios 1.0"]),
])
def test_stable_overhead_script_rejects_bad_input_in_one_line(tmp_path, args, env, messages):
    # SYMBIOSIS_BENCH_DB_DIR points at an empty folder, so that good input
    # stops at the missing DBs instead of starting an hour of benchmark.
    import os
    from conftest import REPO
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    proc = subprocess.run(["bash", str(REPO / "bench" / "leveldb_stable_overhead.sh"), *args],
                          capture_output=True, text=True,
                          env=dict(os.environ, SYMBIOSIS_BENCH_DB_DIR=str(tmp_path / "dbs"),
                                   **env))
    assert_one_error_line(proc, *messages)
    assert not (tmp_path / "out").exists(), "bad input must leave no output folder"


@pytest.mark.parametrize("command, needles", [
    ("load", ["--data-size", "--value-size", "--alpha", "(default 1000)"]),
    ("run", ["--config", "--phases", "--device-latency", "static-<i>", "(default 30s)"]),
    ("overhead", ["--pairs", "--slice", "--no-cgroup", "--control", "(default 250ms)"]),
])
def test_each_driver_command_has_its_own_help(command, needles):
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), command, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith(f"usage: leveldb_bench {command} --db DIR"), proc.stdout
    for needle in needles:
        assert needle in proc.stdout, needle
    # A flag the help lists is one the command takes: an unknown one is refused
    # with a pointer to this help.
    bad = subprocess.run([driver_path(), command, "--frobnicate", "1"], capture_output=True,
                         text=True)
    assert_one_error_line(bad, "--frobnicate", f"{command} --help")


def test_driver_load_rejects_a_bad_alpha(tmp_path):
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "load", "--db", str(tmp_path / "db"), "--data-size", "2MiB",
                           "--alpha", "0.5x"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--alpha" in proc.stderr and not (tmp_path / "db").exists()


def test_driver_load_rejects_an_empty_value(tmp_path):
    from symbiosis.bench import driver_path
    proc = subprocess.run([driver_path(), "load", "--db", str(tmp_path / "db"), "--data-size", "2MiB",
                           "--value-size", "0"], capture_output=True, text=True)
    assert_one_error_line(proc, "--value-size", "is zero")
    assert not (tmp_path / "db").exists()



@pytest.mark.parametrize("extra, duration", [
    ([], "60s"),
    (["--phases", "uniform@16MiB*30K;uniform@32MiB*30K"], None),   # counted: run to the end
    (["--phases", "uniform@16MiB*30K;uniform@32MiB"], "60s"),       # the last phase is open
    (["--phases", "uniform@16MiB*30K", "--duration", "5s"], "5s"),
])
def test_counted_phases_run_to_their_end_unless_a_duration_is_given(extra, duration):
    from symbiosis.bench_cli import run_flags
    from symbiosis.cli import build_parser
    args = build_parser().parse_args(["bench", "leveldb", *extra])
    assert run_flags(args, 64 << 20).get("duration") == duration


@pytest.mark.parametrize("extra, memory, reserve", [
    ([], 64 << 20, (32 << 20) + (8 << 20)),     # 32 MiB + M/8
    ([], 512 << 20, 96 << 20),
    (["--overwrite", "0.1"], 48 << 20, (48 << 20) + (8 << 20)),  # memtables: 48 MiB + M/6
    (["--overwrite", "0.1"], 512 << 20, 134 << 20),  # 48 MiB + 85.3 MiB, whole MiB
    (["--reserve", "40MiB"], 512 << 20, 40 << 20),  # given: kept
    (["--reserve", "40MiB", "--overwrite", "0.3"], 512 << 20, 40 << 20),
])
def test_the_kernel_budgets_reserve_grows_with_m_unless_given(extra, memory, reserve):
    from symbiosis.bench_cli import run_flags
    from symbiosis.cli import build_parser
    args = build_parser().parse_args(["bench", "leveldb", *extra])
    assert run_flags(args, memory)["reserve"] == str(reserve)


@pytest.fixture
def full_disk(tmp_path):
    """A 4 MiB tmpfs, which a benchmark DB fills."""
    mount = tmp_path / "full"
    mount.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a 4 MiB tmpfs to fill ({proc.stderr.strip()}); needs root")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_is_one_line_and_leaves_nothing(full_disk):
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(full_disk),
                   "--configs", "static-default", check=False)
    assert_one_error_line(proc, "disk full", "nothing was kept", returncode=1)
    # Nothing but the DB's lock file (hidden; kept_db.py says why it stays).
    assert [p.name for p in full_disk.iterdir()] == [".leveldb-64MiB-v1000-a0.5-s1.lock"]


def _cgroup_dir(name):
    """The memory cgroup directory called `name`, or None."""
    import os
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        if name in dirs:
            return os.path.join(root, name)
        if root.count("/") > 7:
            dirs[:] = []
    return None


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_driver_alone_removes_its_cgroup(tiny_db, sig):
    # A signal to the driver's parent process only (not a terminal's Ctrl-C,
    # which the child gets too) used to exit without removing the cgroup.
    import signal
    import time
    from symbiosis.bench import driver_path
    proc = subprocess.Popen([driver_path(), "run", "--db", str(tiny_db), "--memory", "32MiB",
                             "--config", "static-default", "--budget", "kernel",
                             "--duration", "60s"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    name = f"symbiosis-bench-{proc.pid}"
    cgroup = None
    deadline = time.monotonic() + 20
    while cgroup is None and proc.poll() is None and time.monotonic() < deadline:
        cgroup = _cgroup_dir(name)
        time.sleep(0.1)
    if cgroup is None:
        proc.kill()
        _, err = proc.communicate()
        pytest.skip(f"no memory cgroup could be made here: {err.strip()[:200]}")
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and len(err.strip().splitlines()) == 1, err
    import os
    assert not os.path.exists(cgroup), f"{cgroup} left behind"
