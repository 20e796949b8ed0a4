import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_TRACES = REPO.parent / "shared" / "traces"


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `python -m symbiosis args...` and returns the completed process."""
    proc = subprocess.run([sys.executable, "-m", "symbiosis", *args],
                          capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"symbiosis {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def assert_one_error_line(proc: subprocess.CompletedProcess, *messages: str,
                          returncode: int = 2) -> None:
    """Asserts that the CLI exited with `returncode` and that exactly one line
    of its stderr is an error, one that contains every one of `messages`."""
    assert proc.returncode == returncode, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if "error" in l]
    assert len(lines) == 1 and all(m in lines[0] for m in messages), proc.stderr


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def cloudphysics_trace() -> Path:
    """The CloudPhysics trace (oracleGeneral): ../shared/traces' copy where it
    exists, else the repository's tests/data copy."""
    shared = SHARED_TRACES / "cloudPhysicsIO.oracleGeneral.bin"
    return shared if shared.is_file() else REPO / "tests" / "data" / shared.name
