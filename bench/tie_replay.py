#!/usr/bin/env python3
"""Replays read_tie_margin over recorded rounds: in how many the winner and
the decision would change (docs/decisions/read-tie-margin.md).

    .venv/bin/python bench/tie_replay.py --margin 0.03 s-*.json w-*.json

Reads `symbiosis bench ... --json` files (side by side or not) and applies
the Tracker's rules to each round's candidates: the best score; within the
margin and at most --read-share of the best's predicted device reads, the
fewest in steps of 0.005 per access, then the score (--read-share 1: the
rule before the half-the-reads share, any reads); a gain under 10% keeps
M_a, under 20% is tried, else adopted (the defaults of gain_threshold and
trusted_gain).
"""
import argparse
import collections
import math
import sys

try:
    from symbiosis.outputs import read_result
except ImportError:
    sys.exit("tie_replay.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

READS_STEP = 0.005
GAIN, TRUSTED = 0.10, 0.20


def reads(c: dict) -> float:
    return (1 - c["hit_app"]) * (1 - c["hit_second_tier"])


def reads_step(c: dict) -> int:
    return math.floor(reads(c) / READS_STEP)


def score(c: dict) -> float:
    return c["predicted_access_time"] or c["predicted_latency"]


def decision(winner: dict, current: dict) -> str:
    if winner is current or score(winner) > (1 - GAIN) * score(current):
        return "keep"
    verb = "try" if score(winner) > (1 - TRUSTED) * score(current) else "adopt"
    return f"{verb} {winner['ma_bytes'] >> 20} MiB"


def rounds(d: dict):
    """(engine, workload, ratio, round) of every Symbiosis run in a file."""
    for cell in d["cells"]:
        runs = [r["symbiosis"] for p in cell.get("pairs", []) for r in p["runs"]]
        runs = runs or [c for c in cell["configs"] if c["name"] == "symbiosis"]
        for s in runs:
            controller = (s.get("summary") or {}).get("controller") or {}
            for rd in controller.get("rounds", []):
                yield d["engine"], cell["workload"], cell["ratio"], rd


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--margin", type=float, default=0.03, help="read_tie_margin (default 0.03)")
    p.add_argument("--read-share", type=float, default=0.5,
                   help="a tie's winner predicts at most this share of the best's device "
                        "reads (default 0.5, the Tracker's; 1: any)")
    p.add_argument("json", nargs="+", help="--json files of `symbiosis bench` runs")
    args = p.parse_args()
    if not 0 <= args.margin < 1:
        sys.exit(f"tie_replay.py: --margin {args.margin} is outside [0, 1); give e.g. 0.03")
    if not 0 < args.read_share <= 1:
        sys.exit(f"tie_replay.py: --read-share {args.read_share} is outside (0, 1]; "
                 "give e.g. 0.5")
    seen, changed = collections.Counter(), collections.Counter()
    examples = collections.defaultdict(collections.Counter)
    for path in args.json:
        try:
            found = list(rounds(read_result(path)))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"tie_replay.py: {path} is not a `symbiosis bench --json` file "
                     f"({type(e).__name__}: {e}); give the files such runs wrote")
        for engine, workload, ratio, rd in found:
            valid = [c for c in rd["candidates"] if c["valid"]]
            current = [c for c in rd["candidates"] if c["current"]]
            if not valid or not current:
                continue
            best = min(valid, key=score)
            tied = [c for c in valid if score(c) <= (1 + args.margin) * score(best) and
                    (c is best or reads(c) <= args.read_share * reads(best))]
            winner = min(tied, key=lambda c: (reads_step(c), score(c)))
            key = (engine, workload, round(ratio, 2))
            seen[key] += 1
            before, after = decision(best, current[0]), decision(winner, current[0])
            if before != after:
                changed[key] += 1
                examples[key][f"{before} -> {after}"] += 1
    if not seen:
        sys.exit("tie_replay.py: no rounds in these files; give the --json files of "
                 "`symbiosis bench` runs with Symbiosis in them")
    for key in sorted(changed):
        common = ", ".join(f"{e} ({n})" for e, n in examples[key].most_common(3))
        print(f"{key[0]:10s} {key[1]:10s} {key[2]:4.2f} {changed[key]:3d}/{seen[key]:<3d} {common}")
    print(f"decisions changed: {sum(changed.values())} of {sum(seen.values())} rounds")


if __name__ == "__main__":
    main()
