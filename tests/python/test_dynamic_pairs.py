"""bench/dynamic_pairs.py: per-phase ratios, final M_a and convergence, and
bad input as a one-line error."""

import json
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "bench" / "dynamic_pairs.py"
MIB = 1 << 20


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True)


def _timeline(rows):
    """rows: (t, phase, ops/s, state, M_a in MiB), one per 1 s interval."""
    return [{"type": "interval", "t": t, "phase": p, "throughput_ops": ops, "state": state,
             "ma_bytes": ma * MIB} for t, p, ops, state, ma in rows]


def _run_of(rows, p95, p99):
    return {"summary": {"p95_us": p95, "p99_us": p99}, "timeline": _timeline(rows)}


def test_phases_are_compared_within_each_pair(tmp_path):
    static = [(t, 0 if t <= 4 else 1, 100, "static", 8) for t in range(1, 9)]
    # Symbiosis: adapting then Stable at 64 MiB in phase 0; in phase 1 a
    # trial at 32 MiB, then Stable at 16 MiB from t = 7 on.
    sym = [(1, 0, 90, "adapting", 8), (2, 0, 120, "adapting", 64), (3, 0, 150, "stable", 64),
           (4, 0, 150, "stable", 64), (5, 1, 80, "trying", 32), (6, 1, 90, "settling", 16),
           (7, 1, 200, "stable", 16), (8, 1, 200, "stable", 16)]
    # static-max reaches phase 1 at t = 6 and runs at 50 there.
    slow = [(t, 0 if t <= 6 else 1, 150 if t <= 6 else 50, "static", 64) for t in range(1, 9)]
    data = {"memory_bytes": 64 * MIB, "cells": [{"pairs": [
        {"static": "static-default", "runs": [
            {"static": _run_of(static, 10, 20), "symbiosis": _run_of(sym, 11, 40)}]},
        {"static": "static-max", "runs": [
            {"static": _run_of(slow, 10, 20), "symbiosis": _run_of(sym, 11, 40)}]}]}]}
    path = tmp_path / "hot20-up.json"
    path.write_text(json.dumps(data))
    proc = _run(path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # Phase 0, second halves: Symbiosis t 3-4 (150) against static-default
    # t 3-4 (100) and static-max t 4-6 (150).
    assert lines[0] == ("hot20-up       phase 0: static-default 1.50x; static-max 1.00x  "
                        "M_a/M 1.00,1.00  converged after 2,2 s")
    # Phase 1 starts at 4 s for Symbiosis; its last unsettled interval ends at 6 s.
    assert lines[1] == ("hot20-up       phase 1: static-default 2.00x; static-max 4.00x  "
                        "M_a/M 0.25,0.25  converged after 2,2 s")
    assert lines[2] == ("hot20-up       whole run beside static-default: p95 11 vs 10 us (+10%), "
                        "p99 40 vs 20 us (+100%)")
    # A run cut while still trying has not converged.
    data["cells"][0]["pairs"][1]["runs"][0]["symbiosis"]["timeline"][-1]["state"] = "trying"
    path.write_text(json.dumps(data))
    assert _run(path).stdout.splitlines()[1].endswith("converged after 2,>4 s")


def test_bad_input_is_one_line(tmp_path):
    no_pairs = tmp_path / "no_pairs.json"
    no_pairs.write_text(json.dumps({"memory_bytes": 1, "cells": [{"workload": "x"}]}))
    no_timeline = tmp_path / "no_timeline.json"
    run = {"summary": {"p95_us": 1, "p99_us": 1}}
    no_timeline.write_text(json.dumps({"memory_bytes": 1, "cells": [{"pairs": [
        {"static": "static-default", "runs": [{"static": run, "symbiosis": run}]}]}]}))
    for path in (tmp_path / "missing.json", no_pairs, no_timeline):
        proc = _run(path)
        assert proc.returncode == 1
        assert "is not a `symbiosis bench --phases" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
