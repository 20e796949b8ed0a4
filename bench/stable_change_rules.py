#!/usr/bin/env python3
"""Replays Stable change rules offline on the timelines of `symbiosis bench
--side-by-side` JSON files: how often would each rule have started a round
in a stretch of Stable windows where nothing changed?

The timeline's intervals stand in for the Controller's windows, and L_e is
recomputed from each interval's H_a and H_k with the run's final costs, so
the counts are indications of the rules' relative noise, not what the
Controller did (its windows are 100,000 accesses and its costs move).

    .venv/bin/python bench/stable_change_rules.py pairs-*.json
"""

import statistics
import sys
from typing import Callable, List, Optional

try:
    from symbiosis.outputs import read_result
except ImportError:
    sys.exit("stable_change_rules.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

THRESHOLD = 0.10  # ControllerConfig::change_threshold


def expected_latency(hit_app: float, hit_second_tier: float, c_a: float, c_k: float) -> float:
    return (1 - hit_app) * c_a + (1 - hit_app) * (1 - hit_second_tier) * c_k


def after_warmup(windows: List[float]) -> List[float]:
    """The windows after the reference stops following L_e down, the first included."""
    lowest = windows[0]
    for i, latency in enumerate(windows[1:], 1):
        if latency >= lowest:
            return windows[i:]
        lowest = latency
    return []


def current_rule(windows: List[float]) -> Optional[int]:
    """The reference is the lowest window of the warm-up; one window 10% off fires."""
    rest = after_warmup(windows)
    if not rest:
        return None
    reference = windows[len(windows) - len(rest) - 1]
    for i, latency in enumerate(rest):
        if abs(latency - reference) > THRESHOLD * reference:
            return i
    return None


def mean_rule(windows: List[float], base: int = 3, confirm: int = 2,
              sigmas: float = 0) -> Optional[int]:
    """The reference is the mean of `base` windows after the warm-up; `confirm`
    windows in a row must differ by 10% (and by `sigmas` standard deviations of
    the base windows, when set)."""
    rest = after_warmup(windows)
    if len(rest) <= base:
        return None
    reference = statistics.mean(rest[:base])
    spread = sigmas * statistics.stdev(rest[:base]) if sigmas else 0
    run = 0
    for i, latency in enumerate(rest[base:], base):
        run = run + 1 if abs(latency - reference) > max(THRESHOLD * reference, spread) else 0
        if run >= confirm:
            return i
    return None


RULES: List[tuple] = [
    ("one window vs the lowest (now)", current_rule),
    ("mean of 3, two in a row", lambda w: mean_rule(w)),
    ("mean and 3 sd of 4, two in a row", lambda w: mean_rule(w, base=4, sigmas=3)),
]


def stable_stretch(run: dict) -> List[float]:
    costs = run["summary"]["controller"]["costs"]
    stretch: List[float] = []
    for interval in run["timeline"]:
        if interval["state"] == "stable":
            stretch.append(expected_latency(interval["hit_app"], interval["hit_second_tier"],
                                            costs["app_miss"], costs["second_tier_miss"]))
        elif stretch:
            break
    return stretch


def main(paths: List[str]) -> int:
    if not paths:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    fired = [0] * len(RULES)
    stretches = 0
    for path in paths:
        for cell in read_result(path).get("cells", []):
            for pair in cell.get("pairs", []):
                for run in pair["runs"]:
                    windows = stable_stretch(run["symbiosis"])
                    if len(windows) < 6:
                        continue
                    stretches += 1
                    for r, (_, rule) in enumerate(RULES):
                        fired[r] += rule(windows) is not None
    print(f"{stretches} Stable stretches without a change")
    for (name, _), count in zip(RULES, fired):
        print(f"  {name:34s} fires in {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
