"""A real redis-server (Debian's package, unmodified) on a loopback port of
its own, for tests and benchmarks.

    with RedisServer(maxmemory=4 << 20, samples=5) as server:
        client = server.client()
        client.set("a", b"1")

It runs as a cache: allkeys-lru (or the policy given), no persistence (no
RDB saves, no AOF: a saving child would stop the LRU clock's updates and
the table's resizing), in a temporary directory removed with it, and is
shut down when the block ends, however it ends; if the process that
started it is killed (SIGTERM, SIGKILL: no block ends then), the kernel
sends the server SIGTERM, so no server outlives its script. redis-py is
its client.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Set

from symbiosis import _native

SERVER = "redis-server"
START_SECONDS = 10.0


def server_binary() -> str:
    """The redis-server to run. Raises InputError where none is installed."""
    path = shutil.which(SERVER) or ("/usr/bin/redis-server"
                                    if os.access("/usr/bin/redis-server", os.X_OK) else None)
    if path is None:
        raise _native.InputError("redis-server is not installed; install Debian's redis-server "
                                 "(scripts/setup.sh does)")
    return path


def redis_client_module():
    """redis-py, imported on first use. Raises InputError where it is missing."""
    try:
        import redis  # type: ignore
    except ImportError:
        raise _native.InputError("the redis client for Python is not installed; run "
                                 "scripts/setup.sh (it installs PyPI's redis into .venv)") from None
    return redis


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int, cpus: Optional[Set[int]] = None) -> None:
    """In the child, before exec: SIGTERM when the thread that started it
    exits (prctl(2) PR_SET_PDEATHSIG), and exit at once if that parent is
    already gone; with `cpus`, pinned to them."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(1)
    if cpus:
        os.sched_setaffinity(0, cpus)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One redis-server, started by __enter__ and stopped by __exit__.
    REQUIRES: the thread that enters it outlives it (the server is stopped
    when that thread exits; the main thread's does, as do the tools')."""

    def __init__(self, *, maxmemory: int = 0, samples: int = 5, policy: str = "allkeys-lru",
                 extra: Sequence[str] = (), port: int = 0,
                 cpus: Optional[Set[int]] = None) -> None:
        if maxmemory < 0:
            raise _native.InputError(f"maxmemory must be 0 (no limit) or more bytes; got {maxmemory}")
        if not 1 <= samples <= 64:
            raise _native.InputError(f"maxmemory-samples must be from 1 to 64; got {samples}")
        self.maxmemory = maxmemory
        self.samples = samples
        self.policy = policy
        self.extra = list(extra)
        self.host = "127.0.0.1"
        self.fixed_port = port  # 0: a free one (a restart in a test reuses its port)
        self.cpus = set(cpus) if cpus else None  # None: wherever the kernel runs it
        self.port = port
        self._dir: Optional[str] = None
        self._process: Optional[subprocess.Popen] = None

    def _arguments(self) -> List[str]:
        assert self._dir is not None
        return [server_binary(), "--port", str(self.port), "--bind", self.host,
                "--save", "", "--appendonly", "no", "--dir", self._dir,
                "--logfile", os.path.join(self._dir, "redis.log"), "--daemonize", "no",
                "--maxmemory", str(self.maxmemory), "--maxmemory-policy", self.policy,
                "--maxmemory-samples", str(self.samples), *self.extra]

    def _log_tail(self) -> str:
        """The log's last three lines, on one line (a module that refused to
        load says why before Redis says it was not loaded)."""
        try:
            with open(os.path.join(self._dir or "", "redis.log"), errors="replace") as f:
                lines = [line.strip() for line in f if line.strip()]
            return " / ".join(lines[-3:]) if lines else "(its log is empty)"
        except OSError:
            return "(no log)"

    def __enter__(self) -> "RedisServer":
        redis = redis_client_module()
        self._dir = tempfile.mkdtemp(prefix="symbiosis-redis-")
        try:
            for _ in range(3):  # the free port may be taken before the server binds it
                self.port = self.fixed_port or _free_port()
                parent = os.getpid()
                self._process = subprocess.Popen(self._arguments(), stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL,
                                                 preexec_fn=lambda: _die_with_parent(parent, self.cpus))
                if self._wait_ready(redis):
                    return self
                self._stop_process()
            raise _native.InputError(f"redis-server did not start: {self._log_tail()}")
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def _wait_ready(self, redis) -> bool:
        assert self._process is not None
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        # One try a probe: redis-py's own retries back off for seconds.
        probe = redis.Redis(host=self.host, port=self.port, socket_timeout=1,
                            retry=Retry(NoBackoff(), 0))
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return False
            try:
                if probe.ping():
                    return True
            except redis.exceptions.ConnectionError:
                time.sleep(0.02)
        return False

    def _stop_process(self) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.terminate()  # SIGTERM: redis-server exits (no save: save "")
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def __exit__(self, *exc) -> None:
        self._stop_process()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def client(self):
        """A redis-py client of this server (bytes in, bytes out)."""
        return redis_client_module().Redis(host=self.host, port=self.port)

    def info(self, section: str = "memory") -> Dict[str, object]:
        """INFO `section` as a dict."""
        return self.client().info(section)
