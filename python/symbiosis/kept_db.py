"""Benchmark DBs that are loaded once, checked at every reuse, and never
changed by a run.

Loading a DB of a few GiB takes minutes, so ``symbiosis bench`` keeps
each one it loads in ``--db-dir``, under a name that carries every load
parameter exactly (engine, byte size, value size, alpha, seed). Beside the
DB's files lies a manifest: the load parameters, the driver's layout, and
every file's name, size and CRC-32. A kept DB is used only if its manifest
matches its files; otherwise it is loaded again, and the log says why.

Runs never open a kept DB itself: opening alone rewrites an engine's
manifest and log, and a run with --overwrite rewrites its tables. Each run
gets a working copy in a scratch folder beside it. Files an engine never
changes after writing them (LevelDB's and RocksDB's tables) are hard
links, which costs nothing; the others are copied. The two runs of a pair
(at the same time) get two full copies, made anew for each pair.

Concurrent runs share ``--db-dir`` safely: a load, a check and a reload
hold an exclusive lock on the DB (others wait and say so), the making of a
working copy a shared one. Each process's scratch folder is named by its
pid; a later run removes those of processes that are gone.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import zlib
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable, Dict, Iterator, List, Optional, Set, Tuple

from symbiosis._native import InputError
from symbiosis.engines import ENGINES
from symbiosis.outputs import check_folder_writable

MANIFEST = "symbiosis-manifest.json"
MANIFEST_FORMAT = 1
# The driver's load statuses that mean it printed its own one-line error.
DRIVER_ERROR_STATUSES = (1, 2)
# Files an engine writes once and never changes: a working copy links them.
IMMUTABLE_SUFFIXES: Dict[str, tuple] = {name: e.immutable_suffixes for name, e in ENGINES.items()}
_SCRATCH_PREFIX = ".scratch-"


class LoadFailed(Exception):
    """The driver's load failed; it has printed why on stderr."""

    def __init__(self, status: int):
        super().__init__(f"the load failed (exit status {status})")
        self.status = status


def size_text(n: int) -> str:
    """An exact size in the largest unit that divides it: 1000KiB, 64MiB, 1234567B."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


@dataclass(frozen=True)
class LoadSpec:
    """Everything a load depends on; two loads of one spec write the same data."""

    engine: str
    data_bytes: int
    value_bytes: int
    alpha: float
    seed: int = 1

    def name(self) -> str:
        return (f"{self.engine}-{size_text(self.data_bytes)}-v{self.value_bytes}"
                f"-a{self.alpha!r}-s{self.seed}")


def _crc32(path: str) -> str:
    crc = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            crc = zlib.crc32(chunk, crc)
        # Hashing must not warm the page cache for the runs that follow.
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return f"{crc:08x}"


def _files(folder: str) -> List[str]:
    """The DB's files, relative to `folder`, sorted; the manifest left out."""
    out = []
    for root, _, names in os.walk(folder):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), folder)
            if rel != MANIFEST:
                out.append(rel)
    return sorted(out)


def _describe(folder: str) -> List[dict]:
    return [{"name": rel, "bytes": os.path.getsize(os.path.join(folder, rel)),
             "crc32": _crc32(os.path.join(folder, rel))} for rel in _files(folder)]


def mismatch(folder: str, spec: LoadSpec) -> Optional[str]:
    """Why the DB in `folder` is not the one `spec` loads (a phrase), or
    None if its manifest matches the spec and every file."""
    try:
        with open(os.path.join(folder, MANIFEST)) as f:
            manifest = json.load(f)
    except FileNotFoundError:
        return "it has no manifest (an older or an interrupted load)"
    except (OSError, ValueError) as e:
        return f"its manifest cannot be read ({e})"
    if manifest.get("format") != MANIFEST_FORMAT or manifest.get("load") != asdict(spec):
        return "its manifest records other load parameters"
    recorded = {f["name"]: f for f in manifest.get("files", [])}
    present = _files(folder)
    for name in sorted(set(recorded) - set(present)):
        return f"its file {name} is missing"
    for name in sorted(set(present) - set(recorded)):
        return f"it holds {name}, which its manifest does not list"
    for name in present:
        size = os.path.getsize(os.path.join(folder, name))
        if size != recorded[name]["bytes"]:
            return f"its file {name} holds {size} bytes, its manifest says {recorded[name]['bytes']}"
    for name in present:
        if _crc32(os.path.join(folder, name)) != recorded[name]["crc32"]:
            return f"its file {name} does not match the checksum in its manifest"
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_db_dir(db_dir: str) -> None:
    """Raises InputError unless `db_dir` is, or can become, a folder we write in."""
    if os.path.exists(db_dir) and not os.path.isdir(db_dir):
        raise InputError(f"--db-dir: {db_dir} is a file, not a folder; give a folder for the "
                         "benchmark DBs")
    try:
        os.makedirs(db_dir, exist_ok=True)
    except OSError as e:
        raise InputError(f"--db-dir: cannot make {db_dir} ({e.strerror}); give another "
                         "folder") from None
    check_folder_writable(db_dir, "--db-dir")


class KeptDbs:
    """The kept DBs of one engine in `db_dir`, and this process's scratch
    folder for working copies. Use as a context manager: the scratch
    folder is removed on the way out. `log` takes progress messages,
    `note` what a user must see even when the progress is not shown (a
    kept DB that failed its check)."""

    def __init__(self, db_dir: str, engine: str, driver: str, log: Callable[[str], None],
                 note: Optional[Callable[[str], None]] = None):
        check_db_dir(db_dir)
        self.db_dir = db_dir
        self.engine = engine
        self.driver = driver
        self.log = log
        self.note = note or log
        self._checked: Set[str] = set()  # kept DBs checked by this process
        self._remove_orphaned_scratch()
        self.scratch = os.path.join(db_dir, f"{_SCRATCH_PREFIX}{os.getpid()}")
        os.makedirs(self.scratch, exist_ok=True)

    def __enter__(self) -> "KeptDbs":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _remove_orphaned_scratch(self) -> None:
        for name in os.listdir(self.db_dir):
            if name.startswith(_SCRATCH_PREFIX) and name[len(_SCRATCH_PREFIX):].isdigit():
                if not _pid_alive(int(name[len(_SCRATCH_PREFIX):])):
                    shutil.rmtree(os.path.join(self.db_dir, name), ignore_errors=True)

    # A lock file stays when its DB is gone: removing it could let a run
    # that opened it before the removal and one that makes it anew both
    # hold "the" lock.
    @contextmanager
    def _lock(self, path: str, exclusive: bool) -> Iterator[None]:
        folder, name = os.path.split(path)
        with open(os.path.join(folder, f".{name}.lock"), "a") as f:  # kept: see below
            mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
            try:
                fcntl.flock(f, mode | fcntl.LOCK_NB)
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                self.log(f"waiting for another run that is loading or checking {path} ...")
                fcntl.flock(f, mode)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def ensure(self, spec: LoadSpec) -> str:
        """The kept DB of `spec`: checked against its manifest, (re)loaded
        if missing or not matching. Raises LoadFailed."""
        path = os.path.join(self.db_dir, spec.name())
        if path in self._checked:  # runs work on copies: it has not changed since
            return path
        with self._lock(path, exclusive=True):
            if os.path.exists(path):
                problem = mismatch(path, spec)
                if problem is None:
                    self._checked.add(path)
                    return path
                self.note(f"the kept DB {path} is not the one loaded: {problem}; loading it "
                          "again")
                shutil.rmtree(path)
            self._load(spec, path)
        self._checked.add(path)
        return path

    def _load(self, spec: LoadSpec, path: str) -> None:
        self.log(f"loading {path} ({size_text(spec.data_bytes)}, values of {spec.value_bytes} "
                 f"bytes, alpha {spec.alpha:g}) ...")
        result = subprocess.run(
            [self.driver, "load", "--db", path, "--data-size", str(spec.data_bytes),
             "--value-size", str(spec.value_bytes), "--alpha", repr(spec.alpha),
             "--seed", str(spec.seed)], stdout=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise LoadFailed(result.returncode)
        manifest = {"format": MANIFEST_FORMAT, "load": asdict(spec),
                    "layout": json.loads(result.stdout), "files": _describe(path)}
        temporary = os.path.join(path, MANIFEST + ".tmp")
        with open(temporary, "w") as f:
            json.dump(manifest, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, os.path.join(path, MANIFEST))

    def _copy_file(self, source: str, target: str) -> None:
        if source.endswith(IMMUTABLE_SUFFIXES[self.engine]):
            os.link(source, target)
        else:
            shutil.copy2(source, target)

    @contextmanager
    def working_copy(self, kept: str) -> Iterator[str]:
        """A copy of the kept DB `kept` for one run, removed afterwards."""
        copy = tempfile.mkdtemp(prefix=os.path.basename(kept) + ".", dir=self.scratch)
        try:
            with self._lock(kept, exclusive=False):
                shutil.copytree(kept, copy, copy_function=self._copy_file, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns(MANIFEST))
            yield copy
        finally:
            shutil.rmtree(copy, ignore_errors=True)

    @contextmanager
    def pair_copies(self, kept: str) -> Iterator[Tuple[str, str]]:
        """Two copies of `kept` for the two runs of one pair, made anew for
        each pair (so that no run starts from what another wrote), sharing
        no file (so that each run's page cache of its copy is its own),
        synced to the device, and removed afterwards."""
        size = sum(os.path.getsize(os.path.join(kept, f)) for f in _files(kept))
        free = shutil.disk_usage(self.db_dir).free
        if free < 2 * size + (64 << 20):
            raise InputError(f"a pair of runs needs two copies of {kept} ({2 * size >> 20} MiB) "
                             f"but {self.db_dir} has {free >> 20} MiB free; free space or give "
                             "another --db-dir")
        copies = []
        try:
            with self._lock(kept, exclusive=False):
                for _ in range(2):
                    copy = tempfile.mkdtemp(prefix=os.path.basename(kept) + ".",
                                            dir=self.scratch)
                    copies.append(copy)
                    shutil.copytree(kept, copy, dirs_exist_ok=True,
                                    ignore=shutil.ignore_patterns(MANIFEST))
            os.sync()  # no writeback of the copies during the pair
            yield copies[0], copies[1]
        finally:
            for copy in copies:
                shutil.rmtree(copy, ignore_errors=True)
