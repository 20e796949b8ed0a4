"""`symbiosis mrc` and the Python API of symbiosis.mrc."""

import json
import struct
import subprocess
import sys

import numpy as np
import pytest

from conftest import assert_one_error_line, run_cli
from symbiosis import _native
from symbiosis.mrc import mean_absolute_error, miss_ratio_curve


def write_oracle(path, keys, size=4096):
    """An oracleGeneral trace of `keys` (next-access times -1: not checked)."""
    with open(path, "wb") as f:
        for i, k in enumerate(keys):
            f.write(struct.pack("<IQIq", i, k, size, -1))


def zipf_keys(n, objects, seed=3):
    rng = np.random.default_rng(seed)
    return [int(k) % objects for k in rng.zipf(1.2, n)]


def test_api_lru_matches_a_brute_force_lru(tmp_path):
    trace = tmp_path / "t.bin"
    keys = zipf_keys(20_000, 2_000)
    write_oracle(trace, keys)
    c = miss_ratio_curve(str(trace), sizes=[1, 10, 100, 1000])
    for size, miss in zip(c.sizes, c.miss_ratios):
        cache, misses = [], 0
        for k in keys:  # an LRU list, most recent last
            if k in cache:
                cache.remove(k)
            else:
                misses += 1
                if len(cache) == size:
                    cache.pop(0)
            cache.append(k)
        assert miss == pytest.approx(misses / len(keys), abs=1e-12), size
    assert c.requests == len(keys) and c.working_set == len(set(keys))


def test_cli_krr_against_the_simulator_json_and_plot(tmp_path):
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(50_000, 5_000))
    out, plot = tmp_path / "m.json", tmp_path / "m.png"
    proc = run_cli("mrc", "--trace", str(trace), "--algo", "krr,klru-sim", "--k", "5",
                   "--points", "10", "--json", str(out), "--plot", str(plot))
    assert "mean absolute error of KRR, K=5 against K-LRU simulator, K=5" in proc.stdout
    result = json.loads(out.read_text())
    assert len(result["sizes"]) == 10 and len(result["miss_ratios"]) == 10
    assert [c["algorithm"] for c in result["curves"]] == ["krr", "klru-sim"]
    assert result["curves"][0]["sizes"] == result["curves"][1]["sizes"]
    assert result["mean_absolute_error"]["krr"] <= 0.01
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_cli_bytes_from_csv_and_from_a_pipe(tmp_path):
    trace = tmp_path / "t.csv"
    keys = zipf_keys(5_000, 500)
    trace.write_text("time,key,size\n" + "".join(f"{i},{k},{512 * (1 + k % 8)}\n"
                                                 for i, k in enumerate(keys)))
    out = tmp_path / "b.json"
    run_cli("mrc", "--trace", str(trace), "--format", "csv", "--columns",
            "key=2,size=3,header=1", "--bytes", "--sizes", "64KiB,256KiB,1MiB",
            "--json", str(out), "--quiet")
    result = json.loads(out.read_text())
    assert result["sizes"] == [64 << 10, 256 << 10, 1 << 20]
    assert len(result["byte_miss_ratios"]) == 3
    assert result["miss_ratios"] == sorted(result["miss_ratios"], reverse=True)
    piped = subprocess.run(
        [sys.executable, "-m", "symbiosis", "mrc", "--trace", "-", "--format", "csv",
         "--columns", "key=2,size=3,header=1", "--bytes", "--sizes", "64KiB,256KiB,1MiB",
         "--json", str(tmp_path / "p.json"), "--quiet"],
        input=trace.read_text(), capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert json.loads((tmp_path / "p.json").read_text())["miss_ratios"] == result["miss_ratios"]
    for args in (["--algo", "lru,krr"], ["--algo", "klru-sim"]):
        once = subprocess.run([sys.executable, "-m", "symbiosis", "mrc", "--trace", "-", *args],
                              input="1\n2\n", capture_output=True, text=True, timeout=60)
        assert once.returncode == 2 and "read once" in once.stderr, once.stderr


def test_sampled_krr_against_the_simulator_takes_the_simulators_sizes(tmp_path):
    """The reference (last) algorithm fixes the sizes: a sampled first
    algorithm's estimated working set may exceed the true one."""
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(30_000, 20_000))
    out = tmp_path / "s.json"
    run_cli("mrc", "--trace", str(trace), "--algo", "krr,klru-sim", "--rate", "0.3",
            "--points", "8", "--json", str(out), "--quiet")
    result = json.loads(out.read_text())
    assert result["curves"][0]["sizes"] == result["curves"][1]["sizes"]
    assert result["sizes"][-1] == result["curves"][1]["working_set"]


def test_a_sample_keeps_min_keys_keys_unless_told_otherwise(tmp_path):
    """R = 0.01 of 30,000 objects is 300 keys: the default floor of 8,192
    samples at a higher rate and says so; --min-keys 0 keeps R and warns."""
    trace = tmp_path / "t.bin"
    write_oracle(trace, [i % 30_000 for i in range(60_000)])
    out = tmp_path / "f.json"
    proc = run_cli("mrc", "--trace", str(trace), "--algo", "shards,lru", "--rate", "0.01",
                   "--points", "5", "--json", str(out))
    first = json.loads(out.read_text())["curves"][0]
    assert first["parameters"]["min_keys"] == 8192
    assert first["sample_rate"] == 0.5  # 15,000 keys; at 1/4 7,500 would be under the floor
    assert "sampled at R = 0.5 to keep at least 8,192 keys" in proc.stdout
    proc = run_cli("mrc", "--trace", str(trace), "--algo", "shards,lru", "--rate", "0.01",
                   "--min-keys", "0", "--points", "5", "--json", str(out))
    assert json.loads(out.read_text())["curves"][0]["sample_rate"] == pytest.approx(0.01)
    assert "sample holds about" in proc.stdout and "raise --rate or --min-keys" in proc.stdout
    api = miss_ratio_curve(str(trace), algo="krr", rate=0.01, min_keys=1000, points=5)
    assert api.sample_rate == pytest.approx(1 / 16)  # 1,875 keys; 1/32 would hold 937


def test_bad_input_is_one_line(tmp_path):
    good = tmp_path / "t.bin"
    write_oracle(good, zipf_keys(1000, 100))
    truncated = tmp_path / "cut.bin"
    truncated.write_bytes(good.read_bytes()[:-5])
    text = tmp_path / "t.txt"
    text.write_text("1\n2\nthree\n")
    keys_only = tmp_path / "keys.txt"
    keys_only.write_text("1\n2\n1\n")
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    cases = [
        (["--trace", str(truncated)], "truncated"),
        (["--trace", str(text), "--format", "txt"], "record 3 (line 3, byte 4)"),
        (["--trace", str(empty)], "no records"),
        (["--trace", str(good), "--sizes", "10,5000"], "beyond the trace's working set"),
        (["--trace", str(good), "--sizes", "10,5"], "ascending"),
        (["--trace", str(keys_only), "--format", "txt", "--bytes"], "size 0"),
        (["--trace", str(good), "--algo", "arc"], "arc"),
        (["--trace", str(good), "--algo", "shards", "--rate", "0"], "--rate"),
        (["--trace", str(good), "--k", "0"], "--k"),
        (["--trace", str(good), "--algo", "shards", "--min-keys", "many"], "--min-keys"),
        (["--trace", str(good), "--format", "parquet"], "parquet"),
        (["--trace", str(tmp_path / "missing.bin")], "cannot open"),
        (["--trace", str(good), "--format", "rocksdb"], "21"),
        (["--trace", str(text), "--format", "twitter"], "Twitter's 7 fields"),
        (["--trace", str(good), "--ops", "deletes"], "'deletes' is not reads or writes"),
    ]
    for args, needle in cases:
        bad = run_cli("mrc", "--quiet", *args, check=False)
        assert bad.returncode == 2, (args, bad.stderr)
        assert needle in bad.stderr, (args, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_mean_absolute_error_needs_the_same_sizes(tmp_path):
    trace = tmp_path / "t.bin"
    write_oracle(trace, zipf_keys(2000, 200))
    a = miss_ratio_curve(str(trace), sizes=[10, 20])
    b = miss_ratio_curve(str(trace), sizes=[10, 30])
    assert mean_absolute_error(a, a) == 0
    with pytest.raises(_native.InputError):
        mean_absolute_error(a, b)


def test_cloudphysics_exact_lru_published_values(cloudphysics_trace):
    c = miss_ratio_curve(str(cloudphysics_trace),
                         sizes=[100, 1000, 5000, 10000, 20000, 40000])
    assert c.miss_ratios == pytest.approx([0.8801, 0.8327, 0.8038, 0.6976, 0.6328, 0.4303],
                                          abs=5e-5)


def test_cli_redis_model_takes_times_from_the_trace_or_a_rate(tmp_path):
    """--algo redis reads each request's time (a csv's time column here);
    a trace without times needs --request-rate, and the faster the requests
    the more keys share a second of the LRU clock and the more it misses."""
    keys = zipf_keys(40_000, 4_000)
    timed = tmp_path / "t.csv"
    timed.write_text("".join(f"{k},100,{i}\n" for i, k in enumerate(keys)))  # 1 request a ms
    untimed = tmp_path / "u.txt"
    untimed.write_text("".join(f"{k}\n" for k in keys))
    out = tmp_path / "r.json"
    run_cli("mrc", "--trace", str(timed), "--format", "csv", "--columns",
            "key=1,size=2,time=3,time_unit=ms", "--algo", "redis,klru-sim", "--pool", "16",
            "--sizes", "200,800", "--json", str(out), "--quiet")
    result = json.loads(out.read_text())
    assert [c["algorithm"] for c in result["curves"]] == ["redis", "klru-sim"]
    assert result["curves"][0]["parameters"]["k"] == 5
    at_ms = result["curves"][0]["miss_ratios"]
    assert at_ms == sorted(at_ms, reverse=True)

    no_rate = run_cli("mrc", "--trace", str(untimed), "--format", "txt", "--algo", "redis",
                      "--sizes", "200", check=False)
    assert_one_error_line(no_rate, "needs each request's time", "--request-rate")
    slow = miss_ratio_curve(str(untimed), format="txt", algo="redis", sizes=[200],
                            request_rate=100)
    fast = miss_ratio_curve(str(untimed), format="txt", algo="redis", sizes=[200],
                            request_rate=1e6)
    assert fast.miss_ratios[0] > slow.miss_ratios[0] + 0.01
    assert slow.parameters["request_rate"] == 100


def test_cli_redis_in_bytes_runs_alone(tmp_path):
    trace = tmp_path / "t.bin"
    keys = zipf_keys(2_000, 200)
    write_oracle(trace, keys)
    both = run_cli("mrc", "--trace", str(trace), "--algo", "redis,lru", "--bytes", check=False)
    assert both.returncode == 2 and "run redis alone in bytes" in both.stderr, both.stderr
    alone = tmp_path / "b.json"
    run_cli("mrc", "--trace", str(trace), "--algo", "redis", "--bytes", "--points", "4",
            "--key-bytes", "24", "--json", str(alone), "--quiet")
    result = json.loads(alone.read_text())
    # The working set in the server's bytes: each key's 4 KiB value and
    # 24-byte name, and the table's buckets.
    n = len(set(keys))
    assert result["working_set"] == (n * _native.redis_key_bytes(24, 4096) +
                                     _native.redis_table_bytes(n))
    assert result["parameters"]["key_bytes"] == 24


@pytest.mark.parametrize("flag, value, message", [
    ("--request-rate", "0", "--request-rate: 0 is outside"),
    ("--request-rate", "fast", "--request-rate: 'fast' is not a number"),
    ("--key-bytes", "0", "--key-bytes: 0 must be a whole number from 1 to 512"),
])
def test_bad_redis_flags_are_one_line_errors(tmp_path, flag, value, message):
    trace = tmp_path / "t.bin"
    write_oracle(trace, [1, 2, 3])
    proc = run_cli("mrc", "--trace", str(trace), "--algo", "redis", flag, value, check=False)
    assert_one_error_line(proc, message)
