"""End-to-end tests of `symbiosis sim` through the installed package."""

import json
import struct

import pytest

from conftest import run_cli

SMALL = ["--data-size", "16MiB", "--memory", "8MiB", "--points", "5", "--quiet"]


def test_help_teaches(cli):
    top = cli("--help").stdout
    assert "sim" in top
    sim = cli("sim", "--help").stdout
    for text in ("how to read the output", "L_e", "--workload", "--trace", "examples"):
        assert text in sim


def test_json_schema_and_best(cli, tmp_path):
    out = tmp_path / "out.json"
    plot = tmp_path / "out.png"
    cli("sim", "--workload", "zipfian", *SMALL, "--json", str(out), "--plot", str(plot))
    report = json.loads(out.read_text())
    points = report["points"]
    assert len(points) == 5
    for p in points:
        assert set(p) >= {"ma_bytes", "mk_bytes", "hit_app", "hit_second_tier", "latency"}
        assert p["ma_bytes"] + p["mk_bytes"] == 8 << 20
        assert 0 <= p["hit_app"] <= 1 and 0 <= p["hit_second_tier"] <= 1
    assert [p["ma_bytes"] for p in points] == sorted(p["ma_bytes"] for p in points)
    best = report["best"]
    assert best["latency"] == min(p["latency"] for p in points)
    assert {"ma_bytes", "latency"} <= set(best)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_marks_best(cli):
    out = cli("sim", "--workload", "uniform", "--data-size", "16MiB", "--memory", "8MiB",
              "--points", "3").stdout
    assert "<- best" in out and "best split" in out and "M_a = 0" in out


def test_uniform_block_lru_matches_closed_form(cli, tmp_path):
    out = tmp_path / "u.json"
    cli("sim", "--workload", "uniform", "--data-size", "32MiB", "--memory", "16MiB",
        "--kernel-model", "block-lru", "--aligned", "--points", "9", "--quiet",
        "--json", str(out))
    report = json.loads(out.read_text())
    for p in report["points"]:
        assert p["hit_app"] == pytest.approx(p["ma_bytes"] / (32 << 20), abs=0.01)


def test_deterministic(cli, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        cli("sim", "--workload", "hotspot20", *SMALL, "--json", str(path))
    assert json.loads(a.read_text())["points"] == json.loads(b.read_text())["points"]


def test_trace_input(cli, cloudphysics_trace, tmp_path):
    out = tmp_path / "t.json"
    cli("sim", "--trace", str(cloudphysics_trace),
        "--format", "oracleGeneral", "--memory", "64MiB", "--points", "5", "--quiet",
        "--json", str(out))
    report = json.loads(out.read_text())
    assert report["num_accesses"] == 113872
    assert report["num_blocks"] == 48974


BAD_INPUTS = [
    (["--alpha", "0"], "--alpha"),
    (["--alpha", "1.5"], "--alpha"),
    (["--alpha", "nan"], "--alpha"),
    (["--memory", "-1GiB"], "--memory"),
    (["--memory", "0"], "--memory"),
    (["--data-size", "0"], "--data-size"),
    (["--data-size", "lots"], "--data-size"),
    (["--memory", "100"], "smaller than one block"),
    (["--workload", "nope"], "nope"),
    (["--points", "1"], "points"),
    (["--ca", "-3"], "--ca"),
    (["--warmup", "1"], "--warmup"),
    (["--kernel-model", "zfs"], "kernel-model"),
    (["--phases", "uniform@1GiB*1M;zipfian@99GiB*1M"], "phase"),
    (["--threads", "-1"], "--threads"),
    (["--seed", "-1"], "--seed"),
    (["--entry-size", "8KiB"], "entry"),
    (["--file-size", "1KiB"], "file"),
    (["--block-size", "trace"], "trace"),
    (["--accesses", "many"], "--accesses"),
    (["--accesses", "1e12"], "--accesses"),
    (["--phases", "uniform@8MiB*1e12"], "phase 1"),
    (["--points", "4294967296"], "--points"),
    (["--max-readahead", "4294967296"], "--max-readahead"),
    (["--threads", "99999"], "--threads"),
    (["--block-size", "5GiB"], "--block-size"),
    (["--entry-size", "5GiB"], "--entry-size"),
    (["--plot", "out.foo"], "--plot"),
    (["--phases", ""], "--phases"),
    (["--phases", "uniform@8MiB", "--trace", "x.bin"], "exclude"),
    (["--workload", "hotspot:hot_keys=2"], "hot_keys"),
]


@pytest.mark.parametrize("args,needle", BAD_INPUTS)
def test_bad_input_one_line_error(args, needle):
    proc = run_cli("sim", "--data-size", "16MiB", "--memory", "8MiB", "--points", "3",
                   "--quiet", *args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "error" in lines[0] and needle in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_trace_files(tmp_path):
    missing = run_cli("sim", "--trace", str(tmp_path / "absent.bin"), "--quiet", check=False)
    assert missing.returncode == 2 and "absent.bin" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1

    truncated = tmp_path / "cut.bin"
    record = struct.pack("<IQIq", 1, 42, 4096, -1)
    truncated.write_bytes(record * 3 + record[:10])
    proc = run_cli("sim", "--trace", str(truncated), "--quiet", check=False)
    assert proc.returncode == 2
    assert "cut.bin" in proc.stderr and "record 4" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1

    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    proc = run_cli("sim", "--trace", str(empty), "--quiet", check=False)
    assert proc.returncode == 2 and "empty.bin" in proc.stderr

    bad_format = run_cli("sim", "--trace", str(empty), "--format", "parquet", "--quiet",
                         check=False)
    assert bad_format.returncode == 2 and "parquet" in bad_format.stderr

    csv = tmp_path / "t.csv"
    csv.write_text("1,4096\n2,4096\n")
    bad_columns = run_cli("sim", "--trace", str(csv), "--format", "csv", "--columns",
                          "key=x", "--quiet", check=False)
    assert bad_columns.returncode == 2 and "key" in bad_columns.stderr
    missing_column = run_cli("sim", "--trace", str(csv), "--format", "csv", "--columns",
                             "key=1,size=3", "--block-size", "trace", "--quiet", check=False)
    assert missing_column.returncode == 2 and "record 1" in missing_column.stderr

    text = tmp_path / "keys.txt"
    text.write_text("1\n2\nthree\n")
    proc = run_cli("sim", "--trace", str(text), "--format", "txt", "--quiet", check=False)
    assert proc.returncode == 2 and "record 3" in proc.stderr


def test_phases(cli, tmp_path):
    out = tmp_path / "p.json"
    cli("sim", "--phases", "hotspot20@8MiB*100k;hotspot20@16MiB*100k", "--data-size", "16MiB",
        "--memory", "8MiB", "--points", "3", "--quiet", "--json", str(out))
    report = json.loads(out.read_text())
    assert report["num_accesses"] == 200000  # point reads: one block each
    assert report["config"]["workload"].startswith("hotspot20@8MiB")
    # Without counts the phases share the default length (20 reads per block).
    cli("sim", "--phases", "hotspot20@8MiB;uniform@16MiB", "--data-size", "16MiB",
        "--memory", "8MiB", "--points", "3", "--quiet", "--json", str(out))
    assert json.loads(out.read_text())["num_accesses"] == 20 * 4096
