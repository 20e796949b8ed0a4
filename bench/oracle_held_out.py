#!/usr/bin/env python3
"""Symbiosis over the oracle, two ways, for side-by-side sweeps run in
several passes (bench/rocksdb.md).

    .venv/bin/python bench/oracle_held_out.py s-*.json w-*.json x-*.json

Reads `symbiosis bench ... --side-by-side --json` files, merges their cells
by (workload, M/D_u), and prints per cell the lowest per-size ratio (the
CLI's /oracle, which reads low) and the held-out one
(symbiosis.bench.held_out_oracle, which reads high by as much as the size
it chose is worse than the best). A pair's repeat is the CPU its static run
had, since passes run with --repeats 1 each start at repeat 0.

Where a cell ran both baselines, also Symbiosis over the better and the
worse of them (the grid's criteria, bench/leveldb.md),
the M_a at which its runs ended, and a last line that counts the cells at
>= 0.95x and gives the gain over the worse baseline as a geometric mean
(one cell of 4x does not dominate it as it does an arithmetic one).

With --stable-window, each pair is measured after Stable: on the intervals
after its Symbiosis run last left Stable (both runs of the pair over the
same span of time), when at least 10 s of them lie within the warm part;
otherwise on the warm part as without the flag (symbiosis.bench.
stable_pair_ratio, whose ratio `symbiosis bench --side-by-side` prints too).

With --per-size, a Markdown table instead: per cell and static run's CPU,
each static size's ratio (the geometric mean of its pairs there), and how
often each Symbiosis run ended at each M_a (bench/rocksdb.md shows such
tables).
"""
import argparse
import json
import signal
import statistics
import sys
from collections import Counter
from typing import Dict, List, Tuple

try:
    from symbiosis.bench import (MIN_STABLE_S, geometric_mean, held_out_oracle, pair_ratios,
                                 stable_pair_ratio)
except ImportError:
    sys.exit("oracle_held_out.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="+", help="side-by-side JSON files of one or more passes")
    p.add_argument("--per-size", action="store_true",
                   help="a Markdown table of every static size's ratio per CPU and "
                        "Symbiosis's final M_a, instead of the summary")
    p.add_argument("--stable-window", action="store_true",
                   help="measure each pair after its Symbiosis run last left Stable, where "
                        f"at least {MIN_STABLE_S:g} s of warm intervals remain")
    args = p.parse_args()
    stable_starts: List[float] = []
    fixed_pairs = 0
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
                        pair = {"static": group["static"], "repeat": run["static_cpus"][0],
                                "static_ma_bytes": run["static"]["summary"].get("final_ma_bytes"),
                                "static_run": run["static"], "symbiosis": run["symbiosis"]}
                        stable = stable_pair_ratio(pair) if args.stable_window else None
                        if stable:
                            # The pair's ratio after Stable, in the static run's units.
                            static = run["static"]["summary"]["throughput_ops"]
                            pair["symbiosis"] = {"summary": dict(
                                run["symbiosis"]["summary"], throughput_ops=stable[0] * static)}
                            stable_starts.append(stable[1])
                        elif args.stable_window:
                            fixed_pairs += 1
                        cell["pairs"].append(pair)
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            sys.exit(f"oracle_held_out.py: {path} is not a `symbiosis bench --side-by-side "
                     f"--json` file ({type(e).__name__}: {e}); give the files such runs wrote")
    cells = {k: c for k, c in cells.items() if c["pairs"]}
    if not cells:
        sys.exit("oracle_held_out.py: no side-by-side pairs in these files; give the --json "
                 "files of `symbiosis bench ... --side-by-side` runs")
    if args.stable_window:
        print(f"stable window: {len(stable_starts)} pairs from t = "
              + (f"{min(stable_starts):.0f}-{max(stable_starts):.0f} s (median "
                 f"{statistics.median(stable_starts):.0f} s)" if stable_starts else "-")
              + f"; {fixed_pairs} on the warm part (Stable for less than {MIN_STABLE_S:g} s)")
    if args.per_size:
        print_per_size(cells)
        return
    print(f"{'workload':10s} {'M/D_u':>5s} {'/oracle':>8s} {'oracle':>15s} {'held out':>8s} "
          f"{'/better':>7s} {'/worse':>7s}  Sym M_a (MiB)")
    verdicts = []  # (/better, /oracle, held out, /worse) of cells with both baselines
    for (workload, ratio), cell in sorted(cells.items()):
        ratios = pair_ratios(cell)
        oracle = min(ratios, key=lambda n: ratios[n])
        held = held_out_oracle(cell)
        held_text = f"{held:8.3f}" if held is not None else f"{'-':>8s}"
        finals = {p["symbiosis"]["summary"].get("final_ma_bytes") for p in cell["pairs"]}
        ends = "/".join([_mib(ma) for ma in sorted(finals - {None})] + ["?"] * (None in finals))
        line = f"{workload:10s} {ratio:5.2f} {ratios[oracle]:8.3f} {oracle:>15s} {held_text}"
        if "static-default" in ratios and "static-max" in ratios:
            better = min(ratios["static-default"], ratios["static-max"])
            worse = max(ratios["static-default"], ratios["static-max"])
            verdicts.append((better, ratios[oracle], held, worse))
            line += f" {better:7.3f} {worse:7.3f}"
        else:
            line += f" {'-':>7s} {'-':>7s}"
        print(f"{line}  {ends}")
    if verdicts:
        n = len(verdicts)
        held_all = [v[2] for v in verdicts if v[2] is not None]
        gain = geometric_mean([v[3] for v in verdicts])
        print(f">= 0.95x the better baseline in {sum(v[0] >= 0.95 for v in verdicts)}/{n}; "
              f">= 0.95x the oracle in {sum(v[1] >= 0.95 for v in verdicts)}/{n} (held out "
              f"{sum(h >= 0.95 for h in held_all)}/{len(held_all)}); gain over the worse "
              f"{gain:.2f}x (geometric), up to {max(v[3] for v in verdicts):.2f}x")


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g}"


def print_per_size(cells: Dict[Tuple[str, float], dict]) -> None:
    """Columns are the static sizes of all cells, smallest M_a first."""
    sizes: Dict[str, int] = {}
    for cell in cells.values():
        for pair in cell["pairs"]:
            sizes.setdefault(pair["static"], pair["static_ma_bytes"] or 0)
    names = sorted(sizes, key=lambda n: (sizes[n], n))
    heads = [n[len("static-"):] if n.startswith("static-") else n for n in names]
    print("| cell | static CPU | " + " | ".join(heads) + " | Symbiosis M_a, MiB (runs) |")
    print("|---" * (len(names) + 3) + "|")
    for (workload, ratio), cell in sorted(cells.items()):
        final = Counter(pair["symbiosis"]["summary"].get("final_ma_bytes")
                        for pair in cell["pairs"])
        ends = ", ".join(f"{_mib(ma)} ({n})" if ma is not None else f"? ({n})"
                         for ma, n in sorted(final.items(), key=lambda kv: kv[0] or 0))
        for k, cpu in enumerate(sorted({pair["repeat"] for pair in cell["pairs"]})):
            here = pair_ratios({"pairs": [p for p in cell["pairs"] if p["repeat"] == cpu]})
            row = [f"{workload} {ratio:.1f}" if k == 0 else "", str(cpu)]
            row += [f"{here[n]:.2f}" if n in here else "-" for n in names]
            row.append(ends if k == 0 else "")
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    main()
