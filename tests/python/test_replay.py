"""End-to-end tests of `symbiosis replay`: the online Controller over a
workload, with the engine simulated."""

import json

import pytest

from conftest import run_cli

GIB = 1 << 30
# One round takes about 1.5M accesses; 3M leaves room for it and its settling.
HOTSPOT = ["--workload", "hotspot20", "--data-size", "2GiB", "--memory", "1GiB",
           "--accesses", "3M"]


@pytest.fixture(scope="module")
def hotspot(tmp_path_factory):
    """One replay of the paper's setting, shared by the tests that read it."""
    folder = tmp_path_factory.mktemp("replay")
    out, plot = folder / "out.json", folder / "out.png"
    proc = run_cli("replay", *HOTSPOT, "--json", str(out), "--plot", str(plot))
    return proc, json.loads(out.read_text()), plot


def test_help_teaches(cli):
    assert "replay" in cli("--help").stdout
    text = cli("replay", "--help").stdout
    for needle in ("Controller", "round", "how to read the output", "examples",
                   "symbiosis replay --workload", "--sample-rate", "--ghost-kernel-model"):
        assert needle in text


def test_hotspot_adopts_all_to_the_application_cache(hotspot):
    proc, report, _ = hotspot
    rounds = report["rounds"]
    assert rounds, "no round in 3M accesses"
    first = rounds[0]
    assert first["trigger"] == "start" and first["start_access"] == 0
    assert 0 < first["end_access"] <= 3_000_000
    assert len(first["candidates"]) == 9
    for c in first["candidates"]:
        assert {"ma_bytes", "predicted_latency"} <= set(c)
        assert 0 <= c["ma_bytes"] <= GIB and c["predicted_latency"] >= 0
    assert [c["ma_bytes"] for c in first["candidates"]] == sorted(
        c["ma_bytes"] for c in first["candidates"])
    assert sum(c["current"] for c in first["candidates"]) == 1
    # hotspot20 at D_u = 2M: everything to the application cache (sim's best split).
    assert first["decision"] == "adopted" and first["reason"]
    assert first["adopted_ma_bytes"] == GIB
    assert report["final_ma_bytes"] == GIB

    timeline = report["timeline"]
    assert len(timeline) == 30 and timeline[-1]["end_access"] == 3_000_000
    for p in timeline:
        assert {"end_access", "hit_app", "hit_second_tier", "latency", "ma_bytes", "state"} <= set(p)
        assert p["state"] in ("stable", "adapting", "settling")
    assert timeline[-1]["ma_bytes"] == GIB
    assert report["mean_latency"] > 0

    out = proc.stdout
    assert "round 1: start access 0" in out and "trigger: start" in out
    assert "<- current" in out and "<- adopted" in out
    assert "decision: adopted M_a = 1 GiB" in out
    assert "final M_a = 1 GiB" in out


BAD_INPUTS = [
    (["--sample-rate", "2"], "sample-rate"),
    (["--sample-rate", "0"], "sample-rate"),
    (["--sample-rate", "1/0"], "sample-rate"),
    (["--ghost-kernel-model", "zfs"], "ghost-kernel-model"),
    (["--memory", "4MiB"], "--memory"),
    (["--interval", "0"], "--interval"),
    (["--phases", "uniform@8MiB", "--trace", "x.bin"], "exclude"),
]


@pytest.mark.parametrize("args,needle", BAD_INPUTS)
def test_bad_input_one_line_error(args, needle):
    proc = run_cli("replay", "--data-size", "16MiB", "--memory", "8MiB", "--accesses", "10k",
                   *args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("symbiosis replay: error:") and needle in lines[0], proc.stderr


def test_plot(hotspot):
    proc, _, plot = hotspot
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000
    assert f"plot written to {plot}" in proc.stdout


def test_short_run(cli, tmp_path):
    """A replay too short for a round still reports, plots and writes JSON."""
    plot, out = tmp_path / "r.png", tmp_path / "r.json"
    proc = cli("replay", "--workload", "zipfian", "--data-size", "64MiB", "--memory", "32MiB",
               "--accesses", "300k", "--sample-rate", "1/8", "--plot", str(plot),
               "--json", str(out))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000
    report = json.loads(out.read_text())
    assert report["rounds"][0]["end_access"] == 0  # still running
    assert "still running" in proc.stdout and "decision: none yet" in proc.stdout
    assert report["final_ma_bytes"] == 8 << 20  # the engine's default, untouched
