"""The kRedis arbiter on real redis-servers (Debian's) with our module."""

from __future__ import annotations

import io
import json
import random
import shutil
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import assert_one_error_line, run_cli
from symbiosis import _native
from symbiosis.redis_arbiter import Arbiter, TenantSpec, parse_tenant, serve_metrics
from symbiosis.redis_server import RedisServer

REPO = Path(__file__).resolve().parents[2]
MODULE = REPO / "build" / "native" / "symbiosis_redis.so"
MIB = 1 << 20

if shutil.which("redis-server") is None:  # scripts/setup.sh installs it
    pytest.skip("redis-server is not installed; scripts/setup.sh installs Debian's",
                allow_module_level=True)
if not MODULE.is_file():  # built where cargo could fetch redismodule.h
    pytest.skip(f"{MODULE} was not built (cmake's warning says why)", allow_module_level=True)


def module_server(port: int = 0) -> RedisServer:
    return RedisServer(extra=["--loadmodule", str(MODULE), "rate", "1", "ks", "1,5,16"],
                       port=port)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def drive(server: RedisServer, requests: int, keys: int, seed: int) -> None:
    """Cache-aside reads of a skewed key set (1000-byte values), pipelined."""
    rng = random.Random(seed)
    c = server.client()
    for _ in range(requests // 500):
        batch = [f"k{int(keys * rng.random() ** 2)}" for _ in range(500)]
        pipe = c.pipeline(transaction=False)
        for key in batch:
            pipe.get(key)
        values = pipe.execute()
        pipe = c.pipeline(transaction=False)
        for key, value in zip(batch, values):
            if value is None:
                pipe.set(key, b"v" * 1000)
        pipe.execute()


def maxmemory(server: RedisServer) -> int:
    return int(server.client().config_get("maxmemory")["maxmemory"])


def samples(server: RedisServer) -> int:
    return int(server.client().config_get("maxmemory-samples")["maxmemory-samples"])


def spy_on_sets(arbiter: Arbiter, memory: int) -> list:
    """Records each CONFIG SET the arbiter makes and checks that none
    raises the tenants' maxmemory (no limit counting as `memory`) above
    `memory`: servers that start above it only come down."""
    moves = []
    real = arbiter._set

    def total() -> int:
        return sum(o.given if o.given else memory for o in arbiter.tenants)

    def checked(t, value, k):
        before = total()
        error = real(t, value, k)
        after = total()
        moves.append((t.spec.name, value, after))
        assert after <= memory or after <= before, f"setting {t.spec.name}: {after} > {memory}"
        return error

    arbiter._set = checked
    return moves


def test_tenant_specs():
    t = parse_tenant("web=127.0.0.1:6379,miss-latency=2ms,weight=3")
    assert (t.name, t.host, t.port, t.miss_latency, t.weight) == ("web", "127.0.0.1", 6379,
                                                                  0.002, 3.0)
    assert parse_tenant("v6=[::1]:7000").host == "::1"
    for bad, words in [("web", "must start with a name"), ("=h:1", "must start with a name"),
                       ("web=localhost", "HOST:PORT"), ("web=h:0", "from 1 to 65535"),
                       ("web=h:1,miss-latency=0", "longer than 0"),
                       ("web=h:1,miss-latency=fast", "miss-latency"),
                       ("web=h:1,weight=-1", "above 0"), ("web=h:1,size=3", "unknown option")]:
        with pytest.raises(_native.InputError, match=words):
            parse_tenant(bad)


def test_the_split_follows_the_curves_and_the_sum_never_exceeds_the_budget():
    memory = 8 * MIB
    with module_server() as local, module_server() as remote:
        log, warn = io.StringIO(), io.StringIO()
        arbiter = Arbiter([TenantSpec("local", local.host, local.port, miss_latency=1e-4),
                           TenantSpec("remote", remote.host, remote.port, miss_latency=5e-3)],
                          memory, hysteresis=0.0, log=log, warn=warn)
        arbiter.connect_all()
        moves = spy_on_sets(arbiter, memory)
        first = arbiter.round()
        # No limits yet and nothing measured: equal shares, no model.
        assert [t["mode"] for t in first["tenants"]] == ["waiting", "waiting"]
        assert maxmemory(local) == maxmemory(remote) == memory // 2
        # The same workload on both; a remote miss costs 50 times a local one.
        drive(local, 30_000, 6000, seed=1)
        drive(remote, 30_000, 6000, seed=2)
        before = len(moves)
        second = arbiter.round()
        assert second["decision"]["applied"], second["decision"]
        assert [t["mode"] for t in second["tenants"]] == ["modelled", "modelled"]
        assert maxmemory(local) + maxmemory(remote) <= memory
        assert maxmemory(remote) > maxmemory(local) + MIB
        bases = {t["name"]: t["base"] for t in second["tenants"]}
        assert maxmemory(local) - bases["local"] >= arbiter.floor
        assert {samples(local), samples(remote)} <= {1, 5, 16}
        # Shrinks before grows: local gave up memory before remote took it.
        assert [name for name, value, _ in moves[before:] if value is not None] == ["local",
                                                                                   "remote"]
        lines = [json.loads(line) for line in log.getvalue().splitlines()]
        assert [r["round"] for r in lines] == [1, 2]
        assert lines[1]["tenants"][1]["predicted_miss_ratio"] < lines[1]["tenants"][0][
            "predicted_miss_ratio"]
        assert warn.getvalue() == ""
        # No reads since: nothing to gain, so nothing moves.
        arbiter.hysteresis = 0.05
        third = arbiter.round()
        assert not third["decision"]["applied"]


def test_lru_decides_on_exact_lru_curves_and_leaves_k_alone():
    memory = 8 * MIB
    lru = RedisServer(extra=["--loadmodule", str(MODULE), "rate", "1", "ks", "0,5"])
    klru = module_server()  # ks 1,5,16: no LRU curve
    with lru as a, klru as b:
        warn = io.StringIO()
        arbiter = Arbiter([TenantSpec("a", a.host, a.port, miss_latency=1e-3),
                           TenantSpec("b", b.host, b.port, miss_latency=1e-3)],
                          memory, lru=True, hysteresis=0.0, warn=warn)
        arbiter.connect_all()
        arbiter.round()
        for server in (a, b):
            server.client().config_set("maxmemory-samples", 3)
        drive(a, 20_000, 6000, seed=1)
        drive(b, 20_000, 6000, seed=2)
        record = arbiter.round()
        assert [t["mode"] for t in record["tenants"]] == ["modelled", "waiting"]
        assert samples(a) == samples(b) == 3  # an LRU model sets no K
        assert maxmemory(a) + maxmemory(b) <= memory
        assert "tenant b's module keeps no curve for K=0; load it with ks 0,1,5,16" in \
            warn.getvalue()
        assert warn.getvalue().count("\n") == 1
        arbiter.round()
        assert warn.getvalue().count("\n") == 1  # said once


def test_a_tenant_without_the_module_or_down_keeps_its_share_and_comes_back():
    memory = 8 * MIB
    port = free_port()
    with RedisServer() as plain:
        server = module_server(port).__enter__()
        try:
            warn = io.StringIO()
            arbiter = Arbiter([TenantSpec("mod", "127.0.0.1", port),
                               TenantSpec("plain", plain.host, plain.port)],
                              memory, hysteresis=0.0, warn=warn)
            spy_on_sets(arbiter, memory)
            arbiter.round()
            assert "tenant plain has no symbiosis module loaded" in warn.getvalue()
            assert maxmemory(plain) == memory // 2
            drive(server, 20_000, 4000, seed=3)
            second = arbiter.round()
            assert [t["mode"] for t in second["tenants"]] == ["modelled", "static"]
            given = maxmemory(server)
            assert given + maxmemory(plain) <= memory
            server.__exit__(None, None, None)  # the tenant's server goes away
            third = arbiter.round()
            assert third["tenants"][0]["mode"] == "down"
            assert "tenant mod at 127.0.0.1:%d does not answer" % port in warn.getvalue()
            assert third["tenants"][0]["maxmemory"] == given  # reserved
            assert maxmemory(plain) == memory // 2
            server = module_server(port).__enter__()  # back, with no limit
            assert maxmemory(server) == 0
            fourth = arbiter.round()
            assert fourth["tenants"][0]["mode"] == "waiting"
            assert maxmemory(server) == memory // 2  # limited at once
            assert maxmemory(server) + maxmemory(plain) <= memory
        finally:
            server.__exit__(None, None, None)


def test_metrics_in_prometheus_text():
    with module_server() as server:
        arbiter = Arbiter([TenantSpec("only", server.host, server.port)], 4 * MIB,
                          warn=io.StringIO())
        arbiter.round()
        port = free_port()
        http = serve_metrics(arbiter, port)
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
            text = body.decode()
            assert "# TYPE symbiosis_redis_maxmemory_bytes gauge" in text
            assert f'symbiosis_redis_maxmemory_bytes{{tenant="only"}} {4 * MIB}' in text
            assert 'symbiosis_redis_tenant_up{tenant="only"} 1' in text
            assert "symbiosis_redis_arbiter_rounds_total 1" in text
            assert "symbiosis_redis_arbiter_read_seconds " in text
            assert "symbiosis_redis_arbiter_decision_seconds " in text
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}/other", timeout=5)
        finally:
            http.shutdown()


def test_the_command_logs_plots_and_leaves_the_sizes(tmp_path):
    with module_server() as a, module_server() as b:
        drive(a, 5000, 2000, seed=4)
        log, plot = tmp_path / "arbiter.jsonl", tmp_path / "arbiter.png"
        proc = run_cli("redis-arbiter", "--tenant", f"a={a.host}:{a.port},miss-latency=200us",
                       "--tenant", f"b={b.host}:{b.port},miss-latency=2ms", "--memory", "8MiB",
                       "--interval", "0.5s", "--rounds", "3", "--log", str(log),
                       "--plot", str(plot))
        assert proc.stdout.count("round ") == 3, proc.stdout
        assert len(log.read_text().splitlines()) == 3
        assert plot.stat().st_size > 10_000
        assert 0 < maxmemory(a) and 0 < maxmemory(b) and maxmemory(a) + maxmemory(b) <= 8 * MIB


def test_bad_input_is_one_line(tmp_path):
    with module_server() as a:
        ok = f"a={a.host}:{a.port}"
        cases = [
            (["--tenant", "a", "--memory", "8MiB"], ["--tenant 'a'"]),
            (["--tenant", ok, "--tenant", ok, "--memory", "8MiB"], ["given twice"]),
            (["--tenant", ok, "--memory", "lots"], ["--memory"]),
            (["--tenant", ok, "--memory", "8MiB", "--objective", "speed"], ["--objective"]),
            (["--tenant", ok, "--memory", "8MiB", "--k", "seven"], ["--k seven"]),
            (["--tenant", ok, "--memory", "8MiB", "--floor", "9MiB"], ["--floor"]),
            (["--tenant", ok, "--memory", "512KiB"], ["under 1 MiB"]),
            (["--tenant", ok, "--memory", "8MiB", "--interval", "0s"], ["--interval"]),
            (["--tenant", f"b=127.0.0.1:{free_port()}", "--memory", "8MiB"], ["does not answer"]),
        ]
        for args, words in cases:
            proc = run_cli("redis-arbiter", *args, "--rounds", "1", check=False)
            assert_one_error_line(proc, *words)
        assert maxmemory(a) == 0  # no bad invocation touched the server
