"""bench/tie_replay.py: a near tie moves the decision to fewer device reads,
and bad input is a one-line error."""

import json
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "bench" / "tie_replay.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True)


def _candidate(mib, time, hit_app, hit_second_tier, current=False):
    return {"ma_bytes": mib << 20, "valid": True, "current": current, "hit_app": hit_app,
            "hit_second_tier": hit_second_tier, "predicted_access_time": time, "predicted_latency": 0}


def _file(path):
    # 40 MiB scores 1% better than 32 with 0.011 device reads per access
    # against 32's 0.0003; both gain over 20% on the current 8 MiB.
    rd = {"candidates": [_candidate(8, 30.0, 0.35, 1.0, current=True),
                         _candidate(32, 22.2, 0.58, 0.9993),
                         _candidate(40, 22.0, 0.65, 0.968)]}
    run = {"symbiosis": {"summary": {"controller": {"rounds": [rd]}}}}
    path.write_text(json.dumps({"engine": "rocksdb", "cells": [
        {"workload": "zipfian", "ratio": 0.8, "pairs": [{"static": "static-4", "runs": [run]}]}]}))
    return path


def test_a_near_tie_goes_to_fewer_device_reads(tmp_path):
    f = _file(tmp_path / "a.json")
    tied = _run("--margin", "0.03", f)
    assert tied.returncode == 0, tied.stderr
    assert "adopt 40 MiB -> adopt 32 MiB (1)" in tied.stdout
    assert "decisions changed: 1 of 1 rounds" in tied.stdout
    off = _run("--margin", "0", f)
    assert off.returncode == 0, off.stderr
    assert "decisions changed: 0 of 1 rounds" in off.stdout


def test_results_kept_with_the_old_key_read_the_same(tmp_path):
    # Results written before the second tier's rename say hit_kernel
    # (docs/decisions/names.md).
    old = tmp_path / "old.json"
    old.write_text(_file(tmp_path / "a.json").read_text().replace("hit_second_tier", "hit_kernel"))
    assert "hit_kernel" in old.read_text()
    tied = _run("--margin", "0.03", old)
    assert tied.returncode == 0, tied.stderr
    assert "adopt 40 MiB -> adopt 32 MiB (1)" in tied.stdout


def test_a_tie_needs_the_winner_to_halve_the_reads(tmp_path):
    # RocksDB's hotspot10 at M/D_u 0.2 (docs/decisions/read-tie-margin.md):
    # 40 MiB scores within 3% of 64 MiB, predicting 0.081 device reads to
    # its 0.095.
    rd = {"candidates": [_candidate(8, 24.55, 0.110, 0.916, current=True),
                         _candidate(40, 15.76, 0.829, 0.524),
                         _candidate(64, 15.38, 0.905, 0.0)]}
    run = {"symbiosis": {"summary": {"controller": {"rounds": [rd]}}}}
    f = tmp_path / "b.json"
    f.write_text(json.dumps({"engine": "rocksdb", "cells": [
        {"workload": "hotspot10", "ratio": 0.2, "pairs": [{"static": "static-max",
                                                            "runs": [run]}]}]}))
    halved = _run("--margin", "0.03", f)
    assert halved.returncode == 0, halved.stderr
    assert "decisions changed: 0 of 1 rounds" in halved.stdout
    any_reads = _run("--margin", "0.03", "--read-share", "1", f)
    assert "adopt 64 MiB -> adopt 40 MiB (1)" in any_reads.stdout, any_reads.stdout


def test_bad_input_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for args in (["--margin", "1.5", _file(tmp_path / "a.json")],
                 ["--read-share", "0", _file(tmp_path / "a.json")], [bad],
                 [tmp_path / "missing.json"]):
        proc = _run(*args)
        assert proc.returncode != 0
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith("tie_replay.py: ")
