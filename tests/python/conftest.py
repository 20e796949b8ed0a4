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


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def shared_traces() -> Path:
    if not SHARED_TRACES.is_dir():
        pytest.skip(f"no shared traces at {SHARED_TRACES}: the repo's sibling ../shared is absent")
    return SHARED_TRACES
