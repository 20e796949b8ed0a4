"""A benchmark's result can be trusted or it fails loudly: failed requests
fail the run, kept DBs are checked and never changed, bad input stops
before any work. On Debian's LevelDB with the emulated budget (no root)."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_one_error_line, run_cli

SMALL = ["--memory", "32MiB", "--data-size", "48MiB", "--budget", "emulated",
         "--duration", "2s", "--warmup", "1s", "--threads", "2"]
KEPT = "leveldb-48MiB-v1000-a0.5-s1"


def driver():
    from symbiosis.bench import driver_path
    return driver_path("leveldb")


def snapshot(folder: Path) -> dict:
    """Every file under `folder` and its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def corrupting_driver(tmp_path):
    """The real driver behind a wrapper that, before a run, replaces the
    largest table of the DB it is given (the run's own copy) by its first
    100 KB: the engine's reads of it fail."""
    wrapper = tmp_path / "corrupting_driver.sh"
    wrapper.write_text(f"""#!/bin/bash
if [ "$1" = run ]; then
  prev=""; for a in "$@"; do [ "$prev" = --db ] && db=$a; prev=$a; done
  t=$(ls -S "$db"/*.ldb | head -1)
  head -c 100000 "$t" > "$t.cut" && mv "$t.cut" "$t"
fi
exec {driver()} "$@"
""")
    wrapper.chmod(0o755)
    return str(wrapper)


def run_with_driver(path: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symbiosis", *args], capture_output=True,
                          text=True, timeout=600,
                          env=dict(os.environ, SYMBIOSIS_LEVELDB_BENCH=path))


def test_failed_reads_fail_the_run_loudly_and_report_no_throughput(tmp_path, corrupting_driver):
    out = tmp_path / "out.json"
    dbs = tmp_path / "dbs"
    proc = run_with_driver(corrupting_driver, "bench", "leveldb", *SMALL, "--db-dir", str(dbs),
                           "--configs", "static-default,static-max,symbiosis", "--json", str(out))
    assert_one_error_line(proc, "3 of 3 runs failed", "requests failed", "Corruption",
                          returncode=1)
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith("static")}
    assert "FAILED" in rows["static-max"] and "FAILED" in rows["static-default"]
    result = json.loads(out.read_text())
    for config in result["configs"]:
        assert config["failed"] is True and config["throughput_ops"] is None
        assert config["summary"]["errors"] > 0 and "Corruption" in config["error"]
    assert "verdicts" not in result
    # The runs' copies were corrupted, never the kept DB.
    assert run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs",
                   "static-max").returncode == 0


def test_the_driver_fails_a_run_whose_reads_fail_with_the_count_and_the_first(tmp_path):
    db = tmp_path / "db"
    subprocess.run([driver(), "load", "--db", str(db), "--data-size", "8MiB"], check=True,
                   capture_output=True)
    table = max(db.glob("*.ldb"), key=lambda p: p.stat().st_size)
    os.truncate(table, 100_000)
    proc = subprocess.run([driver(), "run", "--db", str(db), "--memory", "32MiB", "--config",
                           "static-max", "--budget", "emulated", "--duration", "1s"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "requests failed; the first: Get user" in lines[0], proc.stderr
    summary = json.loads(proc.stdout.splitlines()[-1])
    assert summary["failed"] is True and summary["throughput_ops"] is None
    assert summary["mean_us"] is None and summary["errors"] > 0
    assert summary["first_error"].startswith("Get user")


def test_a_key_the_load_wrote_that_a_get_does_not_find_fails_the_run(tmp_path):
    # A DB of 1 MiB under the layout of one of 4 MiB: Gets of the keys past
    # the first quarter find nothing, which a read-only run must not call
    # success.
    small, large = tmp_path / "small", tmp_path / "large"
    for db, size in ((small, "1MiB"), (large, "4MiB")):
        subprocess.run([driver(), "load", "--db", str(db), "--data-size", size], check=True,
                       capture_output=True)
    (small / "symbiosis-bench.json").write_text((large / "symbiosis-bench.json").read_text())
    proc = subprocess.run([driver(), "run", "--db", str(small), "--memory", "32MiB",
                           "--config", "static-max", "--budget", "emulated", "--duration", "1s",
                           "--workload", "uniform"], capture_output=True, text=True)
    assert proc.returncode == 1 and "NotFound" in proc.stderr, proc.stderr


def test_the_driver_tells_its_limits():
    proc = subprocess.run([driver(), "limits"], capture_output=True, text=True, check=True)
    limits = json.loads(proc.stdout)
    assert limits["engine"] == "leveldb" and limits["budgets"] == ["kernel", "emulated"]
    assert limits["min_memory_bytes"] == 32 << 20 and limits["key_bytes"] == 16


def test_kept_dbs_are_named_by_their_exact_size(tmp_path):
    dbs = tmp_path / "dbs"
    sizes = {}
    for size in ("1000KiB", "100KiB"):
        out = tmp_path / f"{size}.json"
        run_cli("bench", "leveldb", *SMALL, "--data-size", size, "--db-dir", str(dbs),
                "--configs", "static-max", "--json", str(out))
        cell = json.loads(out.read_text())["cells"][0]
        sizes[size] = cell["data_bytes"]
        assert cell["ratio"] == pytest.approx((32 << 20) / cell["data_bytes"])
    assert sizes == {"1000KiB": 1000 << 10, "100KiB": 100 << 10}
    kept = sorted(p.name for p in dbs.iterdir() if p.is_dir())
    assert kept == ["leveldb-1000KiB-v1000-a0.5-s1", "leveldb-100KiB-v1000-a0.5-s1"]
    for name in kept:
        manifest = json.loads((dbs / name / "symbiosis-manifest.json").read_text())
        assert manifest["load"]["data_bytes"] in (1000 << 10, 100 << 10)
        tables = [f for f in manifest["files"] if f["name"].endswith(".ldb")]
        assert tables and all(f["bytes"] > 0 and len(f["crc32"]) == 8 for f in tables)


def test_a_kept_db_that_fails_its_check_is_loaded_again_and_says_so(tmp_path):
    dbs = tmp_path / "dbs"
    run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs", "static-max")
    table = max((dbs / KEPT).glob("*.ldb"), key=lambda p: p.stat().st_size)
    with open(table, "r+b") as f:  # one flipped byte, the size unchanged
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs", "static-max",
                   "--quiet")
    assert "does not match the checksum in its manifest; loading it again" in proc.stderr
    assert "note:" in proc.stderr  # even under --quiet
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs", "static-max")
    assert "loading" not in proc.stderr  # the reload passed its check


def test_a_run_that_writes_leaves_the_kept_db_as_loaded(tmp_path):
    dbs = tmp_path / "dbs"
    run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs", "static-max")
    before = snapshot(dbs / KEPT)
    out = tmp_path / "w.json"
    run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs",
            "static-default,symbiosis", "--overwrite", "0.5", "--json", str(out))
    assert all(c["summary"]["errors"] == 0 for c in json.loads(out.read_text())["configs"])
    assert snapshot(dbs / KEPT) == before
    assert sorted(p.name for p in dbs.iterdir()) == ["." + KEPT + ".lock", KEPT]  # no scratch left


def test_two_runs_that_load_the_same_db_at_once_both_succeed(tmp_path):
    dbs = tmp_path / "dbs"
    command = [sys.executable, "-m", "symbiosis", "bench", "leveldb", *SMALL, "--db-dir",
               str(dbs), "--configs", "static-max"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = [p.communicate(timeout=600) + (p.returncode,) for p in (first, second)]
    assert [status for _, _, status in results] == [0, 0], results
    # One loaded it; the other waited for it (or came after it).
    lines = "".join(err for _, err, _ in results).splitlines()
    assert sum(line.startswith("loading ") for line in lines) == 1, lines


@pytest.mark.parametrize("args, message", [
    (["--ratios", "abc"], "--ratios: 'abc' is not a number"),
    (["--ratios", "0.5,"], None),  # a trailing comma is fine: checked below
    (["--workloads", ","], "--workloads: ',' names nothing"),
    (["--memory", "8MiB"], "below the minimum of 32 MiB"),
    (["--workload", "nosuch"], "unknown workload 'nosuch'"),
    (["--phases", "uniform@{M}*1k;nosuch@{2M}*1k"], "phase 2"),
    (["--data-size", "100B"], "holds no entry"),
    (["--interval", "0s"], "--interval"),
    (["--json", "/nonexistent/dir/out.json"], "--json: the folder /nonexistent/dir does not exist"),
    (["--plot", "/nonexistent/dir/out.png"], "--plot: the folder /nonexistent/dir"),
])
def test_bad_input_stops_before_any_db_is_loaded(tmp_path, args, message):
    dbs = tmp_path / "dbs"
    if message is None:  # good input: planned and run
        run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), "--configs", "static-max", *args)
        return
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(dbs), *args, check=False)
    assert_one_error_line(proc, message)
    assert "Traceback" not in proc.stderr
    assert not dbs.exists() or not any(p.is_dir() for p in dbs.iterdir()), "a DB was loaded"


def test_a_db_dir_that_is_a_file_is_one_line(tmp_path):
    path = tmp_path / "a_file"
    path.write_text("x")
    proc = run_cli("bench", "leveldb", *SMALL, "--db-dir", str(path), check=False)
    assert_one_error_line(proc, "is a file, not a folder")


def test_a_failing_plot_leaves_neither_output(tmp_path, monkeypatch, capsys):
    # The plot fails after the runs (matplotlib raising, faked here; the
    # real plot is test_bench.py's): the JSON must not be left alone.
    from symbiosis import cli, plots

    def broken(*_):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(plots, "plot_bench_timeline", broken)
    out, png = tmp_path / "out.json", tmp_path / "out.png"
    out.write_text("an earlier result")
    status = cli.main(["bench", "leveldb", *SMALL, "--db-dir", str(tmp_path / "dbs"),
                       "--configs", "static-max", "--json", str(out), "--plot", str(png),
                       "--quiet"])
    assert status == 2 and "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "an earlier result" and not png.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dbs", "out.json"]  # no temporary left


def test_working_copies_link_tables_and_pair_copies_share_nothing(tmp_path):
    from symbiosis.kept_db import KeptDbs, LoadSpec
    with KeptDbs(str(tmp_path / "dbs"), "leveldb", driver(), log=lambda m: None) as store:
        kept = Path(store.ensure(LoadSpec("leveldb", 4 << 20, 1000, 0.5)))
        table = next(kept.glob("*.ldb"))
        with store.working_copy(str(kept)) as copy:
            assert (Path(copy) / table.name).stat().st_ino == table.stat().st_ino
            assert (Path(copy) / "CURRENT").stat().st_ino != (kept / "CURRENT").stat().st_ino
            assert not (Path(copy) / "symbiosis-manifest.json").exists()
        assert not Path(copy).exists()
        with store.pair_copies(str(kept)) as (a, b):
            inodes = {(Path(c) / table.name).stat().st_ino for c in (a, b)}
            assert len(inodes | {table.stat().st_ino}) == 3
        assert not Path(a).exists() and not Path(b).exists()
    assert not any(p.name.startswith(".scratch-") for p in (tmp_path / "dbs").iterdir())


def test_a_run_whose_driver_is_killed_is_a_failed_run_and_the_others_still_run(tmp_path):
    # The OOM killer's SIGKILL, sent here by a wrapper to the static-max run.
    wrapper = tmp_path / "killed_driver.sh"
    wrapper.write_text(f"""#!/bin/bash
case " $* " in *" static-max "*) kill -KILL $$ ;; esac
exec {driver()} "$@"
""")
    wrapper.chmod(0o755)
    out = tmp_path / "out.json"
    proc = run_with_driver(str(wrapper), "bench", "leveldb", *SMALL, "--db-dir",
                           str(tmp_path / "dbs"), "--configs", "static-max,static-default",
                           "--json", str(out))
    assert_one_error_line(proc, "static-max", "killed (SIGKILL)", "--reserve", returncode=1)
    configs = {c["name"]: c for c in json.loads(out.read_text())["configs"]}
    assert configs["static-max"]["failed"] and configs["static-max"]["throughput_ops"] is None
    assert not configs["static-default"]["failed"]
    assert configs["static-default"]["throughput_ops"] > 0
