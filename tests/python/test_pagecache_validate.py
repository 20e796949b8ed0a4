"""Smoke test of the page model against the real kernel (tools/pagecache_validate).

The full comparison is a benchmark (bench/pagecache_validate.md); this runs a
small one when a memory cgroup can be made here and skips, saying why,
otherwise. It also checks the one-line refusal when no cgroup can be made.
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REPO

TOOL = REPO / "build" / "native" / "pagecache_validate"


def _tool() -> Path:
    if not TOOL.exists():
        pytest.skip(f"{TOOL} is not built (run ./test.sh)")
    return TOOL


def test_small_replay_matches_kernel(tmp_path):
    tool = _tool()
    out = tmp_path / "pv.json"
    proc = subprocess.run([str(tool), "--memory", "16MiB", "--file-size", "48MiB",
                           "--accesses", "30000", "--warmup", "10000", "--pattern", "all",
                           "--dir", "/var/tmp", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode == 2:
        pytest.skip(f"no memory cgroup here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    patterns = {p["pattern"]: p for p in json.loads(out.read_text())["patterns"]}
    assert set(patterns) == {"uniform", "zipfian", "hotspot", "scan"}
    for p in patterns.values():
        assert 0 <= p["kernel"] <= 1 and 0 <= p["model"] <= 1
        assert p["capacity"] <= 16 << 20
    # Read-ahead: the kernel and the model hit a cyclic scan, a page LRU never.
    assert patterns["scan"]["kernel"] > 0.9 and patterns["scan"]["model"] > 0.9
    assert patterns["scan"]["lru"] < 0.1
    assert patterns["uniform"]["abs_error"] < 0.03
    mean = sum(p["abs_error"] for p in patterns.values()) / len(patterns)
    assert mean < 0.05, patterns


def test_refuses_without_cgroup_permission():
    tool = _tool()
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("needs root and runuser to run the tool as an unprivileged user")
    # A folder the unprivileged user can reach (pytest's tmp_path is 0700).
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        os.chmod(folder, 0o755)
        copy = Path(folder) / "pagecache_validate"
        shutil.copy(tool, copy)
        os.chmod(copy, 0o755)
        proc = subprocess.run(["runuser", "-u", "nobody", "--", str(copy), "--memory", "16MiB",
                               "--file-size", "48MiB", "--accesses", "1000",
                               "--dir", "/var/tmp"],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cgroup" in lines[0], proc.stderr
