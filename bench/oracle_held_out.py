#!/usr/bin/env python3
"""Symbiosis over the oracle, two ways, for side-by-side sweeps run in
several passes (bench/rocksdb.md section 15).

    .venv/bin/python bench/oracle_held_out.py s-*.json w-*.json x-*.json

Reads `symbiosis bench ... --side-by-side --json` files, merges their cells
by (workload, M/D_u), and prints per cell the lowest per-size ratio (the
CLI's /oracle, which reads low) and the held-out one
(symbiosis.bench.held_out_oracle, which reads high by as much as the size
it chose is worse than the best). A pair's repeat is the CPU its static run
had, since passes run with --repeats 1 each start at repeat 0.
"""
import argparse
import json
import sys
from typing import Dict, Tuple

try:
    from symbiosis.bench import held_out_oracle, pair_ratios
except ImportError:
    sys.exit("oracle_held_out.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="+", help="side-by-side JSON files of one or more passes")
    args = p.parse_args()
    cells: Dict[Tuple[str, float], dict] = {}
    for path in args.json:
        try:
            with open(path) as f:
                file_cells = json.load(f)["cells"]
            for c in file_cells:
                cell = cells.setdefault((c["workload"], c["ratio"]),
                                        {"workload": c["workload"], "ratio": c["ratio"],
                                         "pairs": []})
                for group in c.get("pairs", []):
                    for run in group["runs"]:
                        cell["pairs"].append({
                            "static": group["static"], "repeat": run["static_cpus"][0],
                            "static_run": {"summary": run["static"]["summary"]},
                            "symbiosis": {"summary": run["symbiosis"]["summary"]}})
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            sys.exit(f"oracle_held_out.py: {path} is not a `symbiosis bench --side-by-side "
                     f"--json` file ({type(e).__name__}: {e}); give the files such runs wrote")
    cells = {k: c for k, c in cells.items() if c["pairs"]}
    if not cells:
        sys.exit("oracle_held_out.py: no side-by-side pairs in these files; give the --json "
                 "files of `symbiosis bench ... --side-by-side` runs")
    print(f"{'workload':10s} {'M/D_u':>5s} {'/oracle':>8s} {'oracle':>15s} {'held out':>8s}")
    for (workload, ratio), cell in sorted(cells.items()):
        ratios = pair_ratios(cell)
        oracle = min(ratios, key=lambda n: ratios[n])
        held = held_out_oracle(cell)
        held_text = f"{held:8.3f}" if held is not None else f"{'-':>8s}"
        print(f"{workload:10s} {ratio:5.2f} {ratios[oracle]:8.3f} {oracle:>15s} {held_text}")


if __name__ == "__main__":
    main()
