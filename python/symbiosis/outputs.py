"""The files a command writes: checked before the work, written whole after it.

A run that computes for minutes must not fail at its end because its
output folder does not exist, and a failure while writing must not leave a
half-written JSON, or a JSON without the plot that was asked for beside it.
So ``OutputFiles`` checks every path when the command starts (its folder
exists and takes a new file, it is not a folder itself), and writes each
output to a temporary file in the same folder; only when all of them are
written does it rename them into place, which on one file system is
atomic. A failure removes the temporary files and leaves what was there.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Optional, Tuple

from symbiosis._native import InputError


def check_writable(path: str, flag: str) -> None:
    """Raises InputError unless a file can be written at `path`."""
    if not path:
        raise InputError(f"{flag}: the path is empty; give a file name, e.g. out.json")
    if os.path.isdir(path):
        raise InputError(f"{flag}: {path} is a folder; give a file name in it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{flag}: the folder {folder} does not exist; create it or give "
                         "another path")
    check_folder_writable(folder, flag)


def check_folder_writable(folder: str, flag: str) -> None:
    """Raises InputError unless a new file can be made in `folder`."""
    try:  # the real test: root passes os.access on a read-only file system
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".symbiosis-check-"):
            pass
    except OSError as e:
        raise InputError(f"{flag}: cannot write in {folder} ({e.strerror}); give another "
                         "path") from None


class OutputFiles:
    """The output files of one command, by flag ("--json": path or None).

    REQUIRES: construct it before the work (it checks the paths); call
    ``write`` once, after it."""

    def __init__(self, paths: Dict[str, Optional[str]]):
        self.paths = {flag: path for flag, path in paths.items() if path is not None}
        for flag, path in self.paths.items():
            check_writable(path, flag)
        if len(set(map(os.path.abspath, self.paths.values()))) < len(self.paths):
            raise InputError(" and ".join(self.paths) + " name the same file; give each its own")

    def get(self, flag: str) -> Optional[str]:
        return self.paths.get(flag)

    def write(self, writers: Dict[str, Callable[[str], None]]) -> None:
        """Calls writers[flag](temporary path) for each path given, then
        renames all of them into place; on any failure, none is."""
        pending: List[Tuple[str, str]] = []
        mask = os.umask(0)
        os.umask(mask)
        try:
            for flag, path in self.paths.items():
                folder, name = os.path.split(os.path.abspath(path))
                suffix = os.path.splitext(name)[1]  # matplotlib picks the format by it
                fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=suffix)
                os.fchmod(fd, 0o666 & ~mask)  # as open() would have made it
                os.close(fd)
                pending.append((temporary, path))
                writers[flag](temporary)
            for temporary, path in pending:
                os.replace(temporary, path)
            pending.clear()
        finally:
            for temporary, _ in pending:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass


def json_writer(data: Any) -> Callable[[str], None]:
    """A writer of `data` as indented JSON."""
    def write(path: str) -> None:
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
    return write


# JSON keys renamed since results were first kept (docs/decisions/names.md):
# the cache below M_a is the "second tier", whether it is the page cache or
# RocksDB's compressed cache.
RENAMED_KEYS = {
    "hit_kernel": "hit_second_tier",
    "kernel_miss": "second_tier_miss",
    "kernel_miss_cpu": "second_tier_miss_cpu",
    "kernel_miss_measured": "second_tier_miss_measured",
    "kernel_miss_cpu_measured": "second_tier_miss_cpu_measured",
    "kernel_hits_per_read": "second_tier_hits_per_read",
}


def _renamed(obj: Dict[str, Any]) -> Dict[str, Any]:
    return {RENAMED_KEYS.get(k, k): v for k, v in obj.items()}


def read_result(path: str) -> Any:
    """A JSON file a command wrote, old key names read as today's."""
    with open(path) as f:
        return json.load(f, object_hook=_renamed)
