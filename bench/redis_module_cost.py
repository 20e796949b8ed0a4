#!/usr/bin/env python3
"""What the module costs a redis-server: redis-benchmark's GET and SET
throughput against a server with the module and one without, in turn.

    .venv/bin/python bench/redis_module_cost.py [--rounds 5] [--requests 2000000] \\
        [--module-args "rate 0.01 min-keys 4096 ks 1,5,8,16 cpu-budget 0.01"] [--json out.json]

Both servers run at once (same build, no persistence, no maxmemory), side
by side: in each round each server and its own redis-benchmark -t get,set
-c 50 -P 16 -r KEYS -d 100 share one CPU (every thread of the server, the
module's too, pinned there), the two pairs at the same time, and the CPUs
swap between rounds (one of the two takes the disk's interrupts). A
round's ratio is the module server's throughput over the plain one's,
and its CPU time per command (every thread, from /proc) over the plain
one's: a measure the share of the CPU each server got does not move.
Reported are the geometric means and the ranges of the rounds' ratios, and
the module's memory and sample (SYMBIOSIS.STATS) beside the server's
used_memory.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from symbiosis.redis_server import RedisServer

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "build" / "native" / "symbiosis_redis.so"


def pin(pid: int, cpu: int) -> None:
    """Every thread of `pid` on `cpu`."""
    subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), str(pid)], check=True,
                   capture_output=True)


def start_benchmark(port: int, requests: int, keys: int, cpu: int) -> subprocess.Popen:
    return subprocess.Popen(["taskset", "-c", str(cpu), "redis-benchmark", "-p", str(port),
                             "-t", "get,set", "-n", str(requests), "-c", "50", "-P", "16",
                             "-r", str(keys), "-d", "100", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cpu_and_commands(server: RedisServer) -> tuple:
    """The server's CPU seconds so far (every thread, the module's too) and
    the commands it has processed."""
    with open(f"/proc/{server._process.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return cpu, int(server.client().info("stats")["total_commands_processed"])


def rates_of(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"redis_module_cost.py: error: redis-benchmark failed: {err.strip()[-200:]}")
    rates = {}
    for line in out.replace("\r", "\n").splitlines():
        m = re.match(r"^(GET|SET): ([0-9.]+) requests per second", line.strip())
        if m:
            rates[m.group(1)] = float(m.group(2))
    if set(rates) != {"GET", "SET"}:
        sys.exit(f"redis_module_cost.py: error: redis-benchmark's output had no GET/SET rates: "
                 f"{out[-200:]!r}")
    return rates


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=6, help="an even count: each CPU alike")
    p.add_argument("--requests", type=int, default=2_000_000)
    p.add_argument("--keys", type=int, default=100_000)
    p.add_argument("--module-args", default="", help="the module's arguments (default: its own)")
    p.add_argument("--aa", action="store_true",
                   help="calibration: both servers without the module (an A/A test), so the "
                        "ratios show the protocol's own noise")
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if not MODULE.is_file():
        sys.exit(f"redis_module_cost.py: error: {MODULE} is not built; run scripts/setup.sh")
    rows = []
    extra = [] if args.aa else ["--loadmodule", str(MODULE), *args.module_args.split()]
    with RedisServer() as plain, RedisServer(extra=extra) as module:
        for r in range(args.rounds):
            cpus = {"plain": r % 2, "module": 1 - r % 2}
            pin(plain._process.pid, cpus["plain"])
            pin(module._process.pid, cpus["module"])
            servers = {"plain": plain, "module": module}
            before = {name: cpu_and_commands(s) for name, s in servers.items()}
            procs = {name: start_benchmark(s.port, args.requests, args.keys, cpus[name])
                     for name, s in servers.items()}
            rates = {name: rates_of(p) for name, p in procs.items()}
            after = {name: cpu_and_commands(s) for name, s in servers.items()}
            # CPU per command: what the module adds to the server's work,
            # whatever share of the CPU the machine let each server have.
            cpu_us = {name: 1e6 * (after[name][0] - before[name][0]) /
                      max(after[name][1] - before[name][1], 1) for name in servers}
            row = {"round": r, "module_cpu": cpus["module"], "plain": rates["plain"],
                   "module": rates["module"],
                   "get_ratio": rates["module"]["GET"] / rates["plain"]["GET"],
                   "set_ratio": rates["module"]["SET"] / rates["plain"]["SET"],
                   "cpu_us_per_command": cpu_us,
                   "cpu_ratio": cpu_us["module"] / cpu_us["plain"]}
            rows.append(row)
            print(f"round {r} (module on CPU {cpus['module']}): GET {rates['plain']['GET']:,.0f} vs "
                  f"{rates['module']['GET']:,.0f} ({row['get_ratio']:.3f}x), SET "
                  f"{rates['plain']['SET']:,.0f} vs {rates['module']['SET']:,.0f} "
                  f"({row['set_ratio']:.3f}x); CPU per command {cpu_us['plain']:.3f} vs "
                  f"{cpu_us['module']:.3f} us ({row['cpu_ratio']:.3f}x)", flush=True)
        c = module.client()
        stats = {"memory_bytes": 0, "dropped_reads": 0, "sampled_reads": 0, "reads": 0,
                 "rate": 0}
        if not args.aa:
            reply = c.execute_command("SYMBIOSIS.STATS")
            stats = {k.decode(): v for k, v in zip(reply[::2], reply[1::2])}
        used = int(c.info("memory")["used_memory"])
    summary = {name: {"geomean": math.exp(statistics.fmean(math.log(r[f"{name}_ratio"])
                                                          for r in rows)),
                      "low": min(r[f"{name}_ratio"] for r in rows),
                      "high": max(r[f"{name}_ratio"] for r in rows)}
               for name in ("get", "set", "cpu")}
    print(f"module / plain: GET {summary['get']['geomean']:.3f}x "
          f"({summary['get']['low']:.3f}-{summary['get']['high']:.3f}), SET "
          f"{summary['set']['geomean']:.3f}x ({summary['set']['low']:.3f}-"
          f"{summary['set']['high']:.3f}); server CPU per command {summary['cpu']['geomean']:.3f}x "
          f"({summary['cpu']['low']:.3f}-{summary['cpu']['high']:.3f}); "
          f"module memory {int(stats['memory_bytes']):,} B beside "
          f"used_memory {used:,} B; dropped reads {stats['dropped_reads']}, sampled "
          f"{stats['sampled_reads']} of {stats['reads']}, rate {float(stats['rate']):.4g} "
          f"(lowered {stats.get('rate_lowered', 0)} times for the CPU budget)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "rounds": rows, "summary": summary,
                       "module_stats": stats, "used_memory": used}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
