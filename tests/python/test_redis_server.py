"""RedisServer (symbiosis.redis_server): a real redis-server for tests and
benchmarks, that never outlives the script that started it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from symbiosis import _native
from symbiosis.redis_server import RedisServer

if shutil.which("redis-server") is None:  # scripts/setup.sh installs it
    pytest.skip("redis-server is not installed; scripts/setup.sh installs Debian's",
                allow_module_level=True)

HOLDER = """
import time
from symbiosis.redis_server import RedisServer
with RedisServer() as server:
    print(server._process.pid, flush=True)
    time.sleep(120)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie left for its new parent to reap."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_script_leaves_no_server(sig):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        server_pid = int(holder.stdout.readline())
        assert not _gone(server_pid)
        os.kill(holder.pid, sig)
        holder.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not _gone(server_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(server_pid), f"redis-server {server_pid} outlived its script ({sig.name})"
    finally:
        if holder.poll() is None:
            holder.kill()


def test_the_server_serves_and_stops_with_the_block():
    with RedisServer(maxmemory=4 << 20, samples=3) as server:
        client = server.client()
        client.set("a", b"1")
        assert client.get("a") == b"1"
        assert client.config_get("maxmemory-samples")["maxmemory-samples"] == "3"
        pid = server._process.pid
    assert _gone(pid)


def test_bad_settings_are_input_errors():
    with pytest.raises(_native.InputError, match="maxmemory-samples must be from 1 to 64"):
        RedisServer(samples=0)
    with pytest.raises(_native.InputError, match="maxmemory must be 0"):
        RedisServer(maxmemory=-1)
