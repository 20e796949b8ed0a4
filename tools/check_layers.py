#!/usr/bin/env python3
"""The tree's layers and the arrows allowed between them, checked.

    python3 tools/check_layers.py          # prints each include or import that climbs; exit 1 if any

Every C++ file belongs to the layer of its folder (src/<layer>/, tools/,
python/, bench/); a public header, include/symbiosis/X.h, to the layer of
the folder that holds X.cc, or HEADER_LAYERS's for a header with no .cc.
A file may include headers of its own layer and of the layers ALLOWED
names for it. Tests (*_test.cc, *_test_support.h) are not held to it: a
test may run its layer against the real parts above it. Only tests, tools
and benchmarks include src/testing. Python modules of the package are checked the same way with
PYTHON_LAYERS. The graph is written here once, as Chromium's DEPS files
write theirs: a new arrow is a change to this file, seen in review.

Models know nothing above them; the online Controller knows models, not
budgets or engines; budgets and engines sit above it; tools, the Python
package and benchmarks on top (docs/architecture.md).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Dict, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Lowest first. A layer may use itself and those listed.
ALLOWED: Dict[str, Set[str]] = {
    "base": set(),
    "model": {"base"},
    "mrc": {"base", "model"},
    "online": {"base", "model"},
    "sim": {"base", "model", "mrc", "online"},
    "budget": {"base", "model"},
    "engines": {"base", "model", "mrc", "online", "budget"},
    "tools": {"base", "model", "mrc", "online", "sim", "budget", "engines"},
}

# src/<folder> -> layer; tools/, python/ and bench/ C++ files are "tools".
FOLDER_LAYERS = {"base": "base", "model": "model", "mrc": "mrc", "online": "online", "sim": "sim",
                 "budget": "budget", "engines": "engines"}

# Public headers with no .cc of their own.
HEADER_LAYERS = {"error.h": "base", "cache_unit.h": "base",
                 "cost_model.h": "model",
                 "leveldb.h": "engines", "rocksdb.h": "engines", "wiredtiger.h": "engines"}

# Python modules, lowest first; a module may import only those before it.
PYTHON_LAYERS = ["_native", "engines", "errors", "units", "converters", "outputs", "study", "plots",
                 "kernel_models", "figures", "mrc_distributed", "mrc", "kredis", "redis_server", "redis_check", "redis_arbiter", "kept_db",
                 "bench", "bench_redis", "bench_cli", "cli",
                 "__init__", "__main__"]

# Arrows that climb today, each with what removes it. The check fails on
# any other, and on a listed one that no longer occurs (delete it here).
EXCEPTIONS: Dict[Tuple[str, str], str] = {
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IMPORT = re.compile(r"^\s*(?:from\s+symbiosis(?:\.(\w+))?\s+import\s+([\w\s,()]+)|"
                    r"import\s+symbiosis\.(\w+))", re.M)


def header_layers() -> Dict[str, str]:
    """include/symbiosis/X.h -> its layer."""
    layers = {}
    impl = {}
    for folder in FOLDER_LAYERS:
        path = os.path.join(ROOT, "src", folder)
        for dirpath, _, files in os.walk(path):
            for f in files:
                if f.endswith(".cc") and not f.endswith("_test.cc"):
                    impl[f[:-3] + ".h"] = FOLDER_LAYERS[folder]
    for f in sorted(os.listdir(os.path.join(ROOT, "include", "symbiosis"))):
        layer = HEADER_LAYERS.get(f) or impl.get(f)
        if layer is None:
            raise SystemExit(f"check_layers: error: include/symbiosis/{f} has no .cc in src/ and "
                             "no entry in HEADER_LAYERS; add one")
        layers["symbiosis/" + f] = layer
    return layers


def file_layer(rel: str) -> Optional[str]:
    """The layer of a C++ file given by its path from the root."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return FOLDER_LAYERS.get(parts[1], "testing" if parts[1] == "testing" else None)
    if parts[0] == "include":
        return header_layers().get("/".join(parts[1:]))
    if parts[0] in ("tools", "python", "bench"):
        return "tools"
    return None


def included_layer(name: str, headers: Dict[str, str]) -> Optional[str]:
    """The layer of an included path ("symbiosis/x.h", "online/tracker.h")."""
    if name in headers:
        return headers[name]
    first = name.split("/")[0]
    if first == "testing":
        return "testing"
    return FOLDER_LAYERS.get(first)


def cpp_violations() -> List[Tuple[str, str, str]]:
    """(file, included, why) for each include that climbs."""
    headers = header_layers()
    found = []
    for top in ("src", "include", "tools", "python", "bench"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if not f.endswith((".cc", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                layer = file_layer(rel)
                if layer is None:
                    continue
                is_test = f.endswith(("_test.cc", "_test_support.h")) or layer == "testing"
                with open(os.path.join(ROOT, rel), errors="replace") as fh:
                    text = fh.read()
                for name in INCLUDE.findall(text):
                    to = included_layer(name, headers)
                    if to is None or to == layer:
                        continue
                    if to == "testing":
                        if not is_test and layer != "tools":
                            found.append((rel, name, "only tests and tools include src/testing"))
                        continue
                    if is_test or to in ALLOWED.get(layer, set()):
                        continue
                    found.append((rel, name, f"{layer} may not include {to}"))
    return found


def python_violations() -> List[Tuple[str, str, str]]:
    found = []
    folder = os.path.join(ROOT, "python", "symbiosis")
    rank = {m: i for i, m in enumerate(PYTHON_LAYERS)}
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".py"):
            continue
        module = f[:-3]
        if module not in rank:
            found.append((f"python/symbiosis/{f}", "", "not in PYTHON_LAYERS; place it there"))
            continue
        with open(os.path.join(folder, f)) as fh:
            text = fh.read()
        for sub, names, plain in IMPORT.findall(text):
            targets = [sub or plain] if (sub or plain) else [
                n.strip() for n in names.replace("(", "").replace(")", "").split(",")]
            for t in targets:
                if not t or t == module or t not in rank:
                    continue
                if rank[t] > rank[module]:
                    found.append((f"python/symbiosis/{f}", f"symbiosis.{t}",
                                  f"{module} may not import {t}, a layer above it"))
    return found


def main() -> int:
    found = cpp_violations() + python_violations()
    unexpected = [v for v in found if (v[0], v[1]) not in EXCEPTIONS]
    stale = [k for k in EXCEPTIONS if k not in {(v[0], v[1]) for v in found}]
    for rel, name, why in unexpected:
        print(f"{rel}: includes {name}: {why}" if name else f"{rel}: {why}")
    for rel, name in stale:
        print(f"{rel}: no longer includes {name}; delete its entry in EXCEPTIONS")
    listed = len(found) - len(unexpected)
    print(f"{len(unexpected)} climbing arrows, {listed} listed in EXCEPTIONS, {len(stale)} stale entries",
          file=sys.stderr)
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main())
