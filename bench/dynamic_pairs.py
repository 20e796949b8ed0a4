#!/usr/bin/env python3
"""Per phase of a dynamic workload run side by side: Symbiosis against each
baseline, where it ended and how long it took (bench/leveldb.md's dynamic
pairs).

    .venv/bin/python bench/dynamic_pairs.py hot20-up.json uniform-up.json ...

Reads `symbiosis bench ... --phases ... --side-by-side --json` files. Per
file and phase:
- each baseline's ratio: the Symbiosis run's median interval throughput
  over the second half of the phase against the static run's beside it,
  each run over its own phase (phases are counted in operations, so the
  runs reach them at different times); the geometric mean over the pairs;
- Symbiosis's M_a/M at the phase's end, per run;
- convergence, per run: from the phase's start to the end of its last
  interval that was not Stable at the M_a the phase ended with (0 s: it
  kept the previous phase's M_a, Stable throughout; ">N s": not Stable
  when the phase ended, or the run was cut, N s in).
Then, per file, the whole run's p95 and p99 of the Symbiosis runs beside
static-default against it (the paper's Table 2), as medians over the pairs.
"""
import json
import statistics
import sys
from typing import List, Optional

try:
    from symbiosis.bench import geometric_mean, timeline_intervals
except ImportError:
    sys.exit("dynamic_pairs.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")


def phase_intervals(run: dict, phase: int) -> List[dict]:
    return [e for e in timeline_intervals(run) if e.get("phase", 0) == phase]


def phase_start(run: dict, phase: int) -> Optional[float]:
    """When the phase began: the end of the interval before its first."""
    tl = timeline_intervals(run)
    for i, e in enumerate(tl):
        if e.get("phase", 0) == phase:
            return tl[i - 1]["t"] if i else 0.0
    return None


def second_half_median(run: dict, phase: int) -> Optional[float]:
    """The median interval throughput over the second half of the phase."""
    tl = phase_intervals(run, phase)
    start = phase_start(run, phase)
    if not tl or start is None:
        return None
    middle = (start + tl[-1]["t"]) / 2
    late = [e["throughput_ops"] for e in tl if e["t"] > middle] or [tl[-1]["throughput_ops"]]
    return statistics.median(late)


def convergence(run: dict, phase: int) -> str:
    """Seconds from the phase's start to the end of its last interval not
    Stable at the phase's final M_a; ">N" if the phase ended (or the run
    was cut) N s in, before Symbiosis was Stable."""
    tl = phase_intervals(run, phase)
    start = phase_start(run, phase)
    if not tl or start is None:
        return "-"
    if tl[-1].get("state") != "stable":
        return f">{tl[-1]['t'] - start:.0f}"
    final = tl[-1]["ma_bytes"]
    unsettled = [e["t"] for e in tl if e.get("state") != "stable" or e["ma_bytes"] != final]
    return f"{max(unsettled) - start if unsettled else 0.0:.0f}"


def report(path: str) -> List[str]:
    with open(path) as f:
        data = json.load(f)
    memory = data["memory_bytes"]
    lines = []
    for cell in data["cells"]:
        pairs = [(group["static"], run) for group in cell.get("pairs", [])
                 for run in group["runs"]]
        if not pairs:
            raise ValueError("no side-by-side pairs")
        phases = sorted({e.get("phase", 0) for _, run in pairs
                         for e in timeline_intervals(run["symbiosis"])})
        if not phases:
            raise ValueError("no intervals in the Symbiosis runs' timelines")
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        for phase in phases:
            parts = []
            for static in sorted({s for s, _ in pairs}):
                ratios = []
                for s, run in pairs:
                    if s != static:
                        continue
                    a = second_half_median(run["symbiosis"], phase)
                    b = second_half_median(run["static"], phase)
                    if a and b:
                        ratios.append(a / b)
                parts.append(f"{static} {geometric_mean(ratios):.2f}x" if ratios
                             else f"{static} (phase not reached)")
            runs = [run["symbiosis"] for _, run in pairs if phase_intervals(run["symbiosis"], phase)]
            ends = ",".join(f"{phase_intervals(r, phase)[-1]['ma_bytes'] / memory:.2f}" for r in runs)
            times = ",".join(convergence(r, phase) for r in runs)
            lines.append(f"{name:14s} phase {phase}: " + "; ".join(parts)
                         + f"  M_a/M {ends}  converged after {times} s")
        beside = [run for s, run in pairs if s == "static-default"]
        if beside:
            def tail(key: str) -> str:
                sym = statistics.median(r["symbiosis"]["summary"][key] for r in beside)
                static = statistics.median(r["static"]["summary"][key] for r in beside)
                return f"{key[:3]} {sym:.0f} vs {static:.0f} us ({(sym / static - 1) * 100:+.0f}%)"
            lines.append(f"{name:14s} whole run beside static-default: {tail('p95_us')}, "
                         f"{tail('p99_us')}")
    return lines


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    for path in sys.argv[1:]:
        try:
            print("\n".join(report(path)))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            sys.exit(f"dynamic_pairs.py: {path} is not a `symbiosis bench --phases ... "
                     f"--side-by-side --json` file ({type(e).__name__}: {e})")


if __name__ == "__main__":
    main()
