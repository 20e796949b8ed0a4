"""bench/oracle_held_out.py: merges passes by the static run's CPU, and bad
input is a one-line error."""

import json
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "bench" / "oracle_held_out.py"


def _run(*paths):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)],
                          capture_output=True, text=True)


def _pass(path, ratios_by_cpu):
    """A --side-by-side JSON file: per static size, {cpu: (static ops, symbiosis ops)}."""
    def config(ops):
        return {"summary": {"throughput_ops": ops}}
    pairs = [{"static": name, "runs": [{"static_cpus": [cpu], "static": config(s),
                                        "symbiosis": config(y)}
                                       for cpu, (s, y) in by_cpu.items()]}
             for name, by_cpu in ratios_by_cpu.items()]
    path.write_text(json.dumps({"cells": [{"workload": "hotspot10", "ratio": 0.8,
                                           "pairs": pairs}]}))
    return path


def test_passes_merge_by_the_static_runs_cpu(tmp_path):
    a = _pass(tmp_path / "a.json", {"static-2": {0: (100, 80)}, "static-3": {1: (100, 95)}})
    b = _pass(tmp_path / "b.json", {"static-2": {1: (100, 100)}, "static-3": {0: (100, 95)}})
    proc = _run(a, b)
    assert proc.returncode == 0, proc.stderr
    row = proc.stdout.splitlines()[1].split()
    # Lowest: static-2 at sqrt(0.8); held out: static-3 (0.95) and static-2 (1.0).
    assert row[:4] == ["hotspot10", "0.80", f"{0.8 ** 0.5:.3f}", "static-2"]
    assert row[4] == f"{(0.95 * 1.0) ** 0.5:.3f}"


def test_cells_with_both_baselines_get_the_grid_verdicts(tmp_path):
    a = _pass(tmp_path / "a.json", {"static-default": {0: (100, 200), 1: (100, 300)},
                                    "static-max": {0: (100, 90), 1: (100, 100)},
                                    "static-0": {0: (100, 100), 1: (100, 98)}})
    proc = _run(a)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    row = lines[1].split()
    better, worse = 0.9 ** 0.5, 6 ** 0.5
    assert row[5:7] == [f"{better:.3f}", f"{worse:.3f}"]
    # Below 0.95 against static-max by the lowest ratio; held out, CPU 0
    # measures static-0 (chosen on CPU 1) and CPU 1 static-max: 1.0 both.
    assert lines[2] == (f">= 0.95x the better baseline in 0/1; >= 0.95x the oracle in 0/1 "
                        f"(held out 1/1); gain over the worse {worse:.2f}x (geometric), "
                        f"up to {worse:.2f}x")


def _timed_pair(cpu, states, static_ops, sym_ops):
    """A pair run with 2 s intervals, warm from the third one on."""
    def timeline(ops, states):
        return [{"type": "interval", "t": 2.0 * (i + 1), "ops": n, "warm": i >= 2,
                 "state": state} for i, (n, state) in enumerate(zip(ops, states))]
    def config(ops, states):
        warm = ops[2:]
        return {"summary": {"throughput_ops": sum(warm) / (2.0 * len(warm))},
                "timeline": timeline(ops, states)}
    return {"static_cpus": [cpu], "static": config(static_ops, ["static"] * len(states)),
            "symbiosis": config(sym_ops, states)}


def test_the_stable_window_starts_where_symbiosis_last_left_stable(tmp_path):
    unsettled = ["adapting", "trial", "trial", "trial"]
    # CPU 0: Stable from the fifth interval on, 12 s of it: measured there.
    # CPU 1: Stable for the last 8 s only: measured on the warm part.
    late = _timed_pair(0, unsettled + ["stable"] * 6, [100] * 10, [50] * 4 + [99] * 6)
    short = _timed_pair(1, unsettled + ["trial"] * 2 + ["stable"] * 4, [100] * 10,
                        [50] * 6 + [99] * 4)
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"cells": [{"workload": "uniform", "ratio": 0.8, "pairs": [
        {"static": "static-0", "runs": [late, short]}]}]}))
    proc = _run("--stable-window", path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == ("stable window: 1 pairs from t = 8-8 s (median 8 s); 1 on the warm "
                        "part (Stable for less than 10 s)")
    short_warm = (4 * 50 + 4 * 99) / (8 * 100)
    assert lines[2].split()[2] == f"{(0.99 * short_warm) ** 0.5:.3f}"
    # Without the flag, both pairs on the warm part.
    late_warm = (2 * 50 + 6 * 99) / (8 * 100)
    assert _run(path).stdout.splitlines()[1].split()[2] == f"{(late_warm * short_warm) ** 0.5:.3f}"


def test_bad_input_is_one_line(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    no_pairs = tmp_path / "no_pairs.json"
    no_pairs.write_text(json.dumps({"cells": [{"workload": "uniform", "ratio": 0.4}]}))
    for path, message in ((tmp_path / "missing.json", "is not a `symbiosis bench"),
                          (empty, "is not a `symbiosis bench"),
                          (no_pairs, "no side-by-side pairs")):
        proc = _run(path)
        assert proc.returncode != 0
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_aa_pairs_takes_only_a_static_configuration():
    import os
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "aa_pairs.py"), "--help"],
                          capture_output=True, text=True,
                          env=dict(os.environ, AA_CONFIG="symbiosis"))
    assert proc.returncode == 1
    assert "AA_CONFIG" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_per_size_lists_each_size_per_cpu_and_where_symbiosis_ended(tmp_path):
    def run(cpu, static_ma, static_ops, sym_ma, sym_ops):
        return {"static_cpus": [cpu],
                "static": {"summary": {"throughput_ops": static_ops,
                                       "final_ma_bytes": static_ma << 20}},
                "symbiosis": {"summary": {"throughput_ops": sym_ops,
                                          "final_ma_bytes": sym_ma << 20}}}
    pairs = [{"static": "static-max", "runs": [run(0, 64, 100, 8, 90), run(1, 64, 100, 8, 110)]},
             {"static": "static-default", "runs": [run(0, 8, 100, 16, 100),
                                                   run(1, 8, 100, 8, 80)]}]
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"cells": [{"workload": "uniform", "ratio": 0.2,
                                           "pairs": pairs}]}))
    proc = _run("--per-size", path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # Columns by the static M_a, smallest first, whatever order the file has.
    assert lines[0] == "| cell | static CPU | default | max | Symbiosis M_a, MiB (runs) |"
    assert lines[2] == "| uniform 0.2 | 0 | 1.00 | 0.90 | 8 (3), 16 (1) |"
    assert lines[3] == "|  | 1 | 0.80 | 1.10 |  |"
