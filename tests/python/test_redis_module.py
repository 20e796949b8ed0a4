"""The Redis module (src/engines/redis) loaded into a real redis-server."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from symbiosis import _native
from symbiosis.redis_server import RedisServer

REPO = Path(__file__).resolve().parents[2]
MODULE = REPO / "build" / "native" / "symbiosis_redis.so"

if shutil.which("redis-server") is None:  # scripts/setup.sh installs it
    pytest.skip("redis-server is not installed; scripts/setup.sh installs Debian's",
                allow_module_level=True)
if not MODULE.is_file():  # built where cargo could fetch redismodule.h
    pytest.skip(f"{MODULE} was not built (cmake's warning says why)", allow_module_level=True)


def module_server(*arguments: str, maxmemory: int = 0) -> RedisServer:
    return RedisServer(maxmemory=maxmemory, extra=["--loadmodule", str(MODULE), *arguments])


def as_dict(reply):
    return {(k.decode() if isinstance(k, bytes) else k): v
            for k, v in zip(reply[::2], reply[1::2])}


def test_it_counts_what_clients_do_and_changes_nothing():
    with module_server("rate", "1", "ks", "1,5,0") as server:
        c = server.client()
        for i in range(2000):
            key = f"key:{i % 300}"
            if c.get(key) is None:
                assert c.set(key, f"value-{i % 300}" * 10)
        assert c.get("key:7") == b"value-7" * 10  # what was stored, unchanged
        assert c.mset({"a": "1", "b": "22"}) and c.mget("a", "b") == [b"1", b"22"]
        # redis-cli, another client, works alike.
        cli = subprocess.run(["redis-cli", "-p", str(server.port), "GET", "key:7"],
                             capture_output=True, text=True, timeout=10)
        assert cli.returncode == 0 and cli.stdout.strip() == "value-7" * 10
        stats = as_dict(c.execute_command("SYMBIOSIS.STATS"))
        assert stats["reads"] == 2000 + 1 + 2 + 1
        assert stats["writes"] == 300 + 2
        mrc = as_dict(c.execute_command("SYMBIOSIS.MRC", "POINTS", "10"))
        curves = mrc["curves"]
        assert [int(curve[0]) for curve in curves] == [1, 5, 0]  # 0: exact LRU's
        for k, sizes, misses in curves:
            assert len(sizes) == len(misses) == 10
            ratios = [float(m) for m in misses]
            assert ratios[0] >= ratios[-1]
            # 300 keys read 2,000 times: at the working set only the first reads miss.
            assert ratios[-1] == pytest.approx(300 / 2001, abs=0.02)
        assert c.execute_command("SYMBIOSIS.RESET") == b"OK"
        assert as_dict(c.execute_command("SYMBIOSIS.STATS"))["reads"] == 0
        with pytest.raises(Exception, match="POINTS"):
            c.execute_command("SYMBIOSIS.MRC", "POINTS", "0")


@pytest.mark.parametrize("arguments, message", [
    (["rate", "2"], "rate 2 is not in (0, 1]"),
    (["ks", "1,x"], "is not a list of K"),
    (["ks", "5,65"], "is not a list of K from 1 to 64 (0: exact LRU's curve"),
    (["cpu-budget", "2"], "cpu-budget 2 is not a share of one CPU"),
    (["colour", "red"], "unknown argument 'colour'"),
    (["rate"], "arguments come in pairs"),
])
def test_bad_arguments_stop_the_server_with_a_line_that_says_why(arguments, message):
    with pytest.raises(_native.InputError, match="did not start") as e:
        with module_server(*arguments):
            pass
    assert message in str(e.value)
