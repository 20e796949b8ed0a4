"""Property-based tests of the command line's argument handling: any
argument list, made of each subcommand's real flags with values good and
bad, either runs (exit 0) or ends with exit status 2 and one line on
stderr that names the problem, never a traceback.

sim, replay, kernel-models and mrc run for real, in this process, on data
small enough to take a fraction of a second (their flags' good values are
small; the bad ones include sizes and counts past every limit, which must
be refused at once). bench is checked up to its plan (plan_bench: every
flag, the workloads against each cell's data size, M against the engine's
minimum, the output paths, --db-dir), which is all it does before its
first load; its runs are the end-to-end tests' (test_bench.py)."""

import io
import struct
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Dict, List

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is installed by scripts/setup.sh")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from symbiosis import cli  # noqa: E402
from symbiosis.bench_cli import plan_bench  # noqa: E402

JUNK = ["", "abc", "-1", "0", "nan", "inf", "1e400", ",", "4000000000",
        "99999999999999999999999", "1/0", " ", "\x00", "--quiet", "é"]


def _small_trace(folder: Path) -> Path:
    """2,000 records of oracleGeneral: 200 keys, sizes up to 64 KiB."""
    path = folder / "small.oracleGeneral.bin"
    with open(path, "wb") as f:
        for i in range(2000):
            f.write(struct.pack("<IQIq", i // 10, (i * 7919) % 200, 4096 * (1 + i % 16), -1))
    return path


def _huge_objects_trace(folder: Path) -> Path:
    """A trace whose records claim 4 GiB objects."""
    path = folder / "huge.oracleGeneral.bin"
    with open(path, "wb") as f:
        for i in range(50):
            f.write(struct.pack("<IQIq", i, i % 7, 0xFFFFFFFF, -1))
    return path


@pytest.fixture(autouse=True)
def in_a_scratch_folder(tmp_path, monkeypatch):
    """Junk values name relative paths (--json nan, --db-dir -1): the runs
    write them in a folder of their own."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Dict[str, str]:
    folder = tmp_path_factory.mktemp("properties")
    (folder / "a_file").write_text("x")
    (folder / "empty.bin").write_bytes(b"")
    return {"dir": str(folder), "out_json": str(folder / "out.json"),
            "out_png": str(folder / "out.png"), "file": str(folder / "a_file"),
            "trace": str(_small_trace(folder)), "huge": str(_huge_objects_trace(folder)),
            "empty": str(folder / "empty.bin"), "dbs": str(folder / "dbs")}


def values(files: Dict[str, str]) -> Dict[str, List[str]]:
    """Each flag's good values (small enough to run in well under a second)."""
    sizes = ["1MiB", "4MiB", "64KiB", "1TiB", "1PiB", "16EiB"]
    return {
        "--memory": ["1MiB", "4MiB", "256KiB", "2GiB"],
        "--data-size": ["2MiB", "4MiB", "1TiB", "64KiB"],
        "--accesses": ["10k", "30k", "0", "1e12"],
        "--points": ["2", "3", "9", "1025", "1026", "4000000000"],
        "--alpha": ["0.5", "1", "0.01", "1.5"],
        "--block-size": ["4KiB", "16KiB", "trace", "128MiB", "4GiB"],
        "--entry-size": ["128", "4KiB", "1MiB"],
        "--file-size": ["2MiB", "64KiB", "1TiB"],
        "--ca": ["3", "0", "16"], "--ck": ["16", "0", "100"],
        "--kernel-model": ["linux", "lru", "block-lru", "x"],
        "--ghost-kernel-model": ["linux", "lru", "block-lru", "x"],
        "--max-readahead": ["32", "1", "16777216"],
        "--warmup": ["0.25", "0", "0.99", "1"],
        "--threads": ["0", "1", "2", "2000"],
        "--workload": ["uniform", "zipfian", "hotspot20", "readscan", "mixgraph", "nosuch",
                       "zipfian:theta=0.9", "hotspot20:x=1", "strided"],
        "--phases": ["uniform@1MiB*5k;zipfian@2MiB*5k", "x@1", ";", "uniform@100TiB*1",
                     "uniform@1MiB*1e12"],
        "--seed": ["1", "0", "18446744073709551616"],
        "--trace": [files["trace"], files["huge"], files["empty"], files["dir"],
                    files["dir"] + "/nonexistent"],
        "--format": ["oracleGeneral", "csv", "txt", "rocksdb", "bogus"],
        "--columns": ["", "key=1", "key=0,size=9", "junk"],
        "--max-records": ["0", "100", "1k"],
        "--json": [files["out_json"], "/nonexistent/x.json", files["dir"], files["out_png"]],
        "--plot": [files["out_png"], "x.txt", "/nonexistent/p.png"],
        "--sample-rate": ["1/64", "1/8", "0.5", "2", "1/0"],
        "--interval": ["100k", "1", "0"],
        "--rate": ["0.5", "0.015625", "2"],
        "--group": ["32", "1", "4000000000"],
        "--sizes": ["4", "16", "100,200", "1MiB,2MiB", "300,100", "2000"],
        "--algo": ["lru", "shards", "krr", "klru-sim", "lru,krr", "bogus"],
        "--k": ["1", "5", "16", "70000"],
        "--max-keys": ["0", "100", "8192"], "--min-keys": ["0", "100", "8192"],
        "--k-exponent": ["1.4", "1", "5"],
        "--pool": ["0", "16", "2000"],
        "--only": ["nosuch", "fig4a,nosuch"],
        "--out": [files["file"], files["dir"] + "/figs"],
        # bench
        "--scale": ["1", "0.5"],
        "--workloads": ["uniform,zipfian", "nosuch", "hotspot20"],
        "--ratios": ["0.5,1", "5", "0.2"],
        "--configs": ["static-default,symbiosis", "sweep", "all", "static-9", "static-08",
                      "static-max"],
        "--duration": ["3s", "1m", "2", "10x"],
        "--ops": ["10k", "0"],
        "--overwrite": ["0", "0.5", "1.5"],
        "--value-size": ["100", "1000", "2MiB"],
        "--budget": ["kernel", "emulated", "engine", "x"],
        "--device-latency": ["0us", "70us", "x"],
        "--app-cache-overhead": ["0.25", "1", "-0.5"],
        "--repeats": ["2", "65"],
        "--reserve": ["32MiB", "1KiB"],
        "--allocator": ["system", "jemalloc", "tcmalloc"],
        "--db-dir": [files["dbs"], files["file"]],
    } | {"_sizes": sizes}


def _flags(parser) -> List[tuple]:
    """(option, takes a value) for each flag of `parser`, --help left out."""
    out = []
    for action in parser._actions:
        option = next((o for o in action.option_strings if o.startswith("--")), None)
        if option and option != "--help":
            out.append((option, action.nargs != 0))
    return out


def _subparser(path: List[str]):
    parser = cli.build_parser()
    for name in path:
        sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = sub.choices[name]
    return parser


def argument_lists(path: List[str], files: Dict[str, str], base: List[str]):
    """Strategy: `path` + `base` + 0 to 6 of the subcommand's flags, each
    with a good or a junk value, sometimes an unknown flag or a stray word."""
    pools = values(files)
    flags = _flags(_subparser(path))

    def one(flag_and_value):
        (option, takes), value = flag_and_value
        return [option, value] if takes else [option]

    # Good values four times as likely as junk, so that most lists get past
    # the parser and reach the work.
    flag_values = st.sampled_from(flags).flatmap(
        lambda f: st.tuples(st.just(f), st.sampled_from(pools.get(f[0], []) * 4 + JUNK)
                            if f[1] else st.just("")))
    extras = st.sampled_from([[]] * 9 + [["--frobnicate"], ["stray"], ["--memory"]])
    return st.tuples(st.lists(flag_values.map(one), max_size=6), extras).map(
        lambda t: path + base + [w for pair in t[0] for w in pair] + t[1])


def _outcome(run) -> tuple:
    """(exit status, stdout, stderr) of `run()`, which returns a status or
    exits; any other exception escapes (a failure of the property)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = run()
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return status, out.getvalue(), err.getvalue()


def _check(argv: List[str], status: int, stdout: str, stderr: str) -> None:
    where = f"symbiosis {' '.join(repr(a) for a in argv)}"
    assert "Traceback" not in stderr, f"{where}:\n{stderr}"
    assert status in (0, 2), f"{where}: exit status {status}\n{stderr}"
    if status == 2:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and "error: " in lines[0], f"{where}:\n{stderr}"
        assert len(lines[0].split("error: ", 1)[1]) > 10, f"{where}: a message says little\n{stderr}"


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# Each subcommand's leading flags keep its runs small; the generated flags
# come after them and may override them with values past every limit.
RUNNABLE = {
    "sim": ["--data-size", "2MiB", "--memory", "1MiB", "--points", "3", "--quiet"],
    "replay": ["--data-size", "2MiB", "--memory", "8MiB", "--accesses", "20k", "--quiet"],
    "kernel-models": ["--data-size", "2MiB", "--sizes", "4", "--quiet"],
    "mrc": ["--points", "5", "--quiet"],  # --trace is required: generated or junk
}


@pytest.mark.parametrize("command", sorted(RUNNABLE))
def test_any_argument_list_runs_or_is_one_line_with_exit_2(command, files):
    base = RUNNABLE[command] + (["--trace", files["trace"]] if command == "mrc" else [])

    @SETTINGS
    @given(argument_lists([command], files, base))
    def check(argv):
        _check(argv, *_outcome(lambda: cli.main(argv)))

    check()


@pytest.mark.parametrize("engine", ["leveldb", "rocksdb", "wiredtiger"])
def test_any_bench_argument_list_plans_or_is_one_line_with_exit_2(engine, files):
    base = ["--db-dir", files["dbs"], "--duration", "3s", "--warmup", "1s"]

    def plan(argv):
        args = cli.build_parser().parse_args(argv)
        args.func = lambda a: (plan_bench(a), 0)[1]
        return cli.run(args)

    @SETTINGS
    @given(argument_lists(["bench", engine], files, base))
    def check(argv):
        _check(argv, *_outcome(lambda: plan(argv)))

    check()


def test_top_level_words_are_one_line_or_help(files):
    @SETTINGS
    @given(st.lists(st.sampled_from(["sim", "bench", "mrc", "nosuch", "--help", "-h", "leveldb",
                                     "--version", ""] + JUNK), max_size=3))
    def check(argv):
        _check(argv, *_outcome(lambda: cli.main(argv)))

    check()
