"""The commands' outputs are checked before the work and written whole after
it; work is bounded by limits a user never needs to pass; a closed pipe
ends quietly."""

import json
import struct
import subprocess
import sys

import pytest

from conftest import assert_one_error_line, run_cli

SMALL_SIM = ["--data-size", "4MiB", "--memory", "2MiB", "--points", "3"]


def _write_trace(path, records):
    with open(path, "wb") as f:
        for t, key, size in records:
            f.write(struct.pack("<IQIq", t, key, size, -1))
    return path


@pytest.mark.parametrize("command, extra", [
    ("sim", []), ("replay", ["--memory", "8MiB"]), ("kernel-models", []), ("mrc", []),
])
def test_an_output_path_is_checked_before_the_input_is_read(tmp_path, command, extra):
    # The trace is bad too, but only reading it (the work) would tell: the
    # error names the output, so the output was checked first.
    trace = tmp_path / "truncated.bin"
    trace.write_bytes(b"\x01" * 30)  # 1.25 records
    proc = run_cli(command, "--trace", str(trace), *extra, "--json",
                   str(tmp_path / "no" / "such" / "dir.json"), check=False)
    assert_one_error_line(proc, "--json: the folder", "does not exist")


@pytest.mark.parametrize("flag, make, message", [
    ("--json", lambda d: str(d), "is a folder"),
    ("--plot", lambda d: str(d / "missing" / "p.png"), "does not exist"),
    ("--json", lambda d: "", "the path is empty"),
])
def test_bad_output_paths_are_one_line(tmp_path, flag, make, message):
    proc = run_cli("sim", *SMALL_SIM, flag, make(tmp_path), check=False)
    assert_one_error_line(proc, flag, message)


def test_the_json_and_the_plot_are_written_whole_or_not_at_all(tmp_path, monkeypatch, capsys):
    # A plot that fails (faked: matplotlib raising; the real one is drawn
    # in test_sim_cli.py) leaves the earlier JSON as it was and no
    # temporary file.
    from symbiosis import cli, plots

    def broken(*_):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(plots, "plot_sim", broken)
    out = tmp_path / "sim.json"
    out.write_text("an earlier result")
    status = cli.main(["sim", *SMALL_SIM, "--json", str(out), "--plot", str(tmp_path / "p.png"),
                       "--quiet"])
    assert status == 2 and "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "an earlier result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim.json"]
    monkeypatch.undo()
    assert cli.main(["sim", *SMALL_SIM, "--json", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["points"] and oct(out.stat().st_mode)[-3:] != "600"


@pytest.mark.parametrize("args, message", [
    (["sim", "--points", "4000000000"], "--points: 4000000000 must be a whole number from 2 to 1025"),
    (["sim", "--block-size", "128MiB"], "--block-size: 128MiB is larger than 64 MiB"),
    (["sim", "--data-size", "1TiB"], "exceed the 67108864 the simulator holds"),
    (["sim", "--accesses", "1e12"], "accesses a study holds in memory"),
    (["kernel-models", "--block-size", "4GiB"], "larger than 64 MiB"),
])
def test_work_past_a_limit_is_refused_at_once_naming_it(args, message):
    proc = run_cli(*args, check=False)
    assert_one_error_line(proc, message)


def test_a_trace_of_huge_objects_is_refused_before_it_is_simulated(tmp_path):
    trace = _write_trace(tmp_path / "huge.bin", [(i, i % 7, 0xFFFFFFFF) for i in range(1750)])
    proc = run_cli("sim", "--trace", str(trace), "--block-size", "trace", "--memory", "64MiB",
                   check=False)
    assert_one_error_line(proc, "trace record 1 has an object of 4294967295 bytes",
                          "up to 64 MiB")


def test_klru_sim_takes_at_most_1025_sizes(cloudphysics_trace):
    proc = run_cli("mrc", "--trace", str(cloudphysics_trace), "--algo", "klru-sim",
                   "--points", "2000", check=False)
    assert_one_error_line(proc, "2000 sizes are more than the 1025")


def test_an_empty_trace_names_the_format_flag(tmp_path):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    for command in ("sim", "mrc"):
        proc = run_cli(command, "--trace", str(empty), check=False)
        assert_one_error_line(proc, "(--format)")
        assert "--trace-format" not in proc.stderr


def test_a_closed_pipe_ends_quietly(cloudphysics_trace):
    # `symbiosis mrc ... | head -1`: the reader goes away after one line of
    # a table (3 MB) far longer than a pipe holds.
    proc = subprocess.Popen([sys.executable, "-m", "symbiosis", "mrc", "--trace",
                             str(cloudphysics_trace), "--points", "100000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141
    assert err == "", err


def test_a_control_character_in_a_value_stays_on_one_whole_line():
    proc = run_cli("sim", "--workload", "uni\nform\x01x", check=False)
    assert_one_error_line(proc, "unknown workload 'uni\\x0aform\\x01x'")
