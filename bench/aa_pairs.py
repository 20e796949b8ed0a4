#!/usr/bin/env python3
"""A/A pairs: `symbiosis bench ... --side-by-side` with the Symbiosis side of
every pair replaced by the static configuration $AA_CONFIG (default
static-max), so each pair runs one configuration twice at once, one CPU
each: how far identical runs read apart (docs/decisions/bench-pairs.md).
The output's "symbiosis" column is that second static run.

    AA_CONFIG=static-max .venv/bin/python bench/aa_pairs.py bench wiredtiger \\
        --configs static-max,symbiosis --side-by-side --repeats 2 ...
"""
import os
import sys

try:
    import symbiosis.bench as bench
    from symbiosis.cli import main
except ImportError:
    sys.exit("aa_pairs.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

CONFIG = os.environ.get("AA_CONFIG", "static-max")
_run_config = bench.run_config


def run_config(db, name, args, show_progress, cpus=None, engine="leveldb", preload=None):
    return _run_config(db, CONFIG if name == "symbiosis" else name, args, show_progress, cpus,
                       engine, preload)


if __name__ == "__main__":
    if not CONFIG.startswith("static-"):
        sys.exit(f"aa_pairs.py: AA_CONFIG={CONFIG!r} is not a static configuration; give e.g. "
                 "static-max or static-default")
    bench.run_config = run_config
    sys.exit(main(sys.argv[1:]))
