#!/usr/bin/env python3
"""The held-out suite: cells drawn at random, after the rules are fixed,
each run once side by side against both static baselines.

    .venv/bin/python bench/heldout.py draw --seed 52 --cells 30 OUT   # OUT/cells.json
    .venv/bin/python bench/heldout.py run OUT                         # OUT/cell-NN.json, resumable
    .venv/bin/python bench/heldout.py report OUT                      # OUT/report.md, OUT/report.png

A cell is (engine, budget, alpha, M, M/D_u, workload, overwrite share,
threads), drawn from the space below with a recorded seed: the engine
uniformly, then one of its budgets, then each other factor uniformly
(M/D_u uniform in [0.2, 1.0], two decimals). A draw with fewer than
MIN_LARGE cells at M >= 512 MiB is drawn again from the same stream, so
that users' budgets are in it. Nothing may be tuned on a drawn cell: draw
a new set, with a new seed, after any rule changes.

`run` runs each cell not yet run with `symbiosis bench ENGINE
--configs static-default,static-max,symbiosis --side-by-side --repeats 2`
(each static configuration at the same time as a Symbiosis run, one CPU
each, twice with the CPUs swapped), --duration 120s --warmup 20s unless
told otherwise, and keeps its JSON and log. The criteria are judged over
the whole run; the first 60 s of the same runs (warm-up included) are
reported beside them, to show how the runs compare while the controller
converges (docs/decisions/heldout-run-length.md). A cell whose run fails (a
failed request, a cgroup that cannot be made) is reported as such, never
left out. `report` gives per cell Symbiosis's throughput over the better
and the worse baseline (geometric means over the pairs), the same over the
first 60 s, the M_a its runs ended at, and the criteria: >= 0.95x the better baseline in 90% of the
cells, >= 0.90x in every cell; and where the time goes: per Controller
state (a round, trials, a verification, Stable), its share of the runs'
time and Symbiosis's throughput there over the better baseline's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from typing import Dict, List, Optional

try:
    from symbiosis.engines import ENGINES as ENGINE_TABLE
except ImportError:
    sys.exit("heldout.py: the symbiosis package is not importable; run it with the "
             "project's .venv/bin/python (scripts/setup.sh makes it)")

# Each engine's budgets (symbiosis.engines), the kernel's first: the order
# the recorded seeds drew them in.
ENGINES: Dict[str, List[str]] = {
    name: sorted(e.budgets, key=lambda b: (b != "kernel", e.budgets.index(b)))
    for name, e in ENGINE_TABLE.items()}
ALPHAS = [0.2, 0.35, 0.5, 0.8]
MEMORY_MIB = [48, 128, 512]
RATIO_RANGE = (0.2, 1.0)
WORKLOADS = ["uniform", "zipfian", "hotspot5", "hotspot10", "hotspot20", "hotspot30",
             "mixgraph", "readscan"]
OVERWRITES = [0.0, 0.1, 0.3]
THREADS = [1, 4, 16]
MIN_LARGE = 6  # cells at M >= 512 MiB
EARLY_S = 60.0  # the convergence column: each run's first minute
CONFIGS = "static-default,static-max,symbiosis"


def draw(seed: int, count: int) -> List[dict]:
    """`count` cells from the stream of `seed` (at least MIN_LARGE at M >= 512 MiB)."""
    if count < MIN_LARGE:
        raise SystemExit(f"heldout.py: error: --cells {count} is fewer than the {MIN_LARGE} "
                         "cells at M >= 512 MiB the suite needs; give at least that")
    rng = random.Random(seed)
    while True:
        cells = []
        for _ in range(count):
            engine = rng.choice(sorted(ENGINES))
            cells.append({"engine": engine, "budget": rng.choice(ENGINES[engine]),
                          "alpha": rng.choice(ALPHAS), "memory_mib": rng.choice(MEMORY_MIB),
                          "ratio": round(rng.uniform(*RATIO_RANGE), 2),
                          "workload": rng.choice(WORKLOADS),
                          "overwrite": rng.choice(OVERWRITES), "threads": rng.choice(THREADS)})
        if sum(c["memory_mib"] >= 512 for c in cells) >= MIN_LARGE:
            for i, c in enumerate(cells):
                c["id"] = f"cell-{i + 1:02d}"
            return cells


def commit() -> str:
    """The commit the suite runs (its rules), and whether the tree differs."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cell_command(cell: dict, out: str, args: argparse.Namespace) -> List[str]:
    return [sys.executable, "-m", "symbiosis", "bench", cell["engine"],
            "--budget", cell["budget"], "--alpha", str(cell["alpha"]),
            "--memory", f"{cell['memory_mib']}MiB", "--ratios", str(cell["ratio"]),
            "--workload", cell["workload"], "--overwrite", str(cell["overwrite"]),
            "--threads", str(cell["threads"]), "--configs", CONFIGS, "--side-by-side",
            "--repeats", "2", "--duration", args.duration, "--warmup", args.warmup,
            "--interval", "2s", "--db-dir", args.db_dir, "--json", out, "--quiet"]


def describe(cell: dict) -> str:
    return (f"{cell['engine']}/{cell['budget']} M={cell['memory_mib']}MiB "
            f"M/D_u={cell['ratio']:.2f} alpha={cell['alpha']:g} {cell['workload']} "
            f"overwrite={cell['overwrite']:g} threads={cell['threads']}")


def run(folder: str, args: argparse.Namespace) -> None:
    cells = load_cells(folder)
    if args.from_cell < 1 or args.from_cell > len(cells):
        raise SystemExit(f"heldout.py: error: --from-cell {args.from_cell} is not a cell of "
                         f"this draw (1 to {len(cells)})")
    def ran(c: dict) -> bool:
        return any(os.path.exists(os.path.join(folder, c["id"] + ext))
                   for ext in (".json", ".failed"))

    todo = [c for c in cells[args.from_cell - 1:] if not ran(c)]
    done = sum(ran(c) for c in cells)
    print(f"{done} of {len(cells)} cells done; running "
          f"{min(len(todo), args.limit or len(todo))}"
          + (f" from cell {args.from_cell}" if args.from_cell > 1 else "")
          + f" (commit {commit()})", file=sys.stderr)
    if args.limit:
        todo = todo[:args.limit]
    for n, cell in enumerate(todo, 1):
        out = os.path.join(folder, cell["id"] + ".json")
        log = os.path.join(folder, cell["id"] + ".log")
        start = time.monotonic()
        print(f"[{n}/{len(todo)}] {cell['id']}: {describe(cell)} ...", file=sys.stderr, flush=True)
        with open(log, "w") as f:
            status = subprocess.run(cell_command(cell, out, args), stdout=f,
                                    stderr=subprocess.STDOUT).returncode
        took = time.monotonic() - start
        if status != 0:
            with open(log) as f:
                errors = [line.strip() for line in f if "error:" in line]
            reason = errors[-1] if errors else f"exit status {status}"
            with open(os.path.join(folder, cell["id"] + ".failed"), "w") as f:
                f.write(reason + "\n")
            print(f"    failed after {took:.0f} s: {reason}", file=sys.stderr)
        else:
            print(f"    done in {took:.0f} s", file=sys.stderr)


def load_cells(folder: str) -> List[dict]:
    path = os.path.join(folder, "cells.json")
    try:
        with open(path) as f:
            return json.load(f)["cells"]
    except FileNotFoundError:
        raise SystemExit(f"heldout.py: error: {path} does not exist; draw the cells first "
                         "(heldout.py draw --seed N OUT)") from None


def geometric_mean(xs: List[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def throughput_until(timeline: List[dict], end_s: float) -> Optional[float]:
    """ops/s over a run's warm intervals that end by `end_s` (to within
    half a 2-s interval: the runs of a pair tick apart); None if none do."""
    intervals = [e for e in timeline if e.get("type", "interval") == "interval"]
    begins = [0.0] + [e["t"] for e in intervals[:-1]]
    chosen = [(b, e) for b, e in zip(begins, intervals) if e.get("warm") and e["t"] <= end_s + 1]
    if not chosen or chosen[-1][1]["t"] <= chosen[0][0]:
        return None
    return sum(e["ops"] for _, e in chosen) / (chosen[-1][1]["t"] - chosen[0][0])


def early_vs_better(pairs: List[dict]) -> Optional[float]:
    """Symbiosis over the better baseline in the runs' first EARLY_S: per
    static configuration the geometric mean over its pairs, then the lower."""
    by_static = []
    for p in pairs:
        ratios = []
        for r in p["runs"]:
            sym = throughput_until(r["symbiosis"].get("timeline", []), EARLY_S)
            static = throughput_until(r.get("static", {}).get("timeline", []), EARLY_S)
            if not sym or not static:
                return None
            ratios.append(sym / static)
        by_static.append(geometric_mean(ratios))
    return min(by_static) if by_static else None


def time_by_state(pairs: List[dict], better: str) -> Dict[str, List[float]]:
    """Where the Symbiosis runs beside the better baseline spent their
    measured time: per Controller state, [seconds, Symbiosis's operations,
    the static run's operations] over the warm intervals it was in that
    state (the runs of a pair tick together, interval by interval)."""
    out: Dict[str, List[float]] = {}
    for p in pairs:
        if p["static"] != better:
            continue
        for r in p["runs"]:
            sym = [e for e in r["symbiosis"].get("timeline", [])
                   if e.get("type", "interval") == "interval"]
            static = [e for e in r.get("static", {}).get("timeline", [])
                      if e.get("type", "interval") == "interval"]
            begin = 0.0
            for a, b in zip(sym, static):
                if a.get("warm") and b.get("warm") and "state" in a:
                    row = out.setdefault(a["state"], [0.0, 0.0, 0.0])
                    row[0] += a["t"] - begin
                    row[1] += a["ops"]
                    row[2] += b["ops"]
                begin = a["t"]
    return out


def cell_result(folder: str, cell: dict) -> dict:
    """The cell's verdict from its JSON, or its failure."""
    failed = os.path.join(folder, cell["id"] + ".failed")
    if os.path.exists(failed):
        with open(failed) as f:
            return {"status": "failed", "reason": f.read().strip()}
    path = os.path.join(folder, cell["id"] + ".json")
    if not os.path.exists(path):
        return {"status": "not run"}
    with open(path) as f:
        result = json.load(f)
    verdicts = result.get("verdicts") or []
    if not verdicts:
        return {"status": "failed", "reason": "no verdict (a run failed)"}
    v = verdicts[0]
    # The better baseline is the faster static run: Symbiosis's ratio to it is the lower.
    ratios = {p["static"]: p["ratio"] for p in result["cells"][0]["pairs"]}
    runs = [r for p in result["cells"][0]["pairs"] for r in p["runs"]]
    better = min(ratios, key=ratios.get)
    return {"status": "done", "vs_better": v["vs_better_baseline"],
            "vs_worse": v["vs_worse_baseline"], "better": better,
            "states": time_by_state(result["cells"][0]["pairs"], better),
            "ma_mib": sorted({r["symbiosis"]["final_ma_bytes"] >> 20 for r in runs}),
            "ops": v["symbiosis_ops"],
            "early": early_vs_better(result["cells"][0]["pairs"]),
            # The better baseline's pairs one by one: with the CPUs swapped
            # they spread by up to 1.5x in a cell, so a criterion between
            # them is undecided at two pairs.
            "better_pairs": sorted(r["ratio"] for p in result["cells"][0]["pairs"]
                                   if p["static"] == better for r in p["runs"]),
            # Where a pair's Symbiosis run reached Stable with 10 s or more
            # left, that pair's ratio over the span after it (bench.py's
            # stable_pair_ratio); the others' over the run.
            "after_stable": v.get("vs_oracle_after_stable", v["vs_better_baseline"]),
            "pairs_after_stable": v.get("pairs_after_stable", 0), "pairs": len(runs)}


def report(folder: str) -> None:
    cells = load_cells(folder)
    with open(os.path.join(folder, "cells.json")) as f:
        meta = json.load(f)
    rows = []
    for cell in cells:
        rows.append((cell, cell_result(folder, cell)))
    done = [r for _, r in rows if r["status"] == "done"]
    lines = [f"# Held-out suite, seed {meta['seed']}", "",
             f"Drawn at commit {meta['commit']}, {len(cells)} cells; "
             f"{len(done)} run, {sum(r['status'] == 'failed' for _, r in rows)} failed, "
             f"{sum(r['status'] == 'not run' for _, r in rows)} not run.", "",
             "| cell | engine/budget | M | M/D_u | alpha | workload | overwrite | threads | "
             "/better base | its pairs | better | /worse base | Symbiosis M_a (MiB) | "
             f"/better after Stable (pairs) | /better, first {EARLY_S:g} s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cell, r in rows:
        head = (f"| {cell['id']} | {cell['engine']}/{cell['budget']} | {cell['memory_mib']} MiB | "
                f"{cell['ratio']:.2f} | {cell['alpha']:g} | {cell['workload']} | "
                f"{cell['overwrite']:g} | {cell['threads']} |")
        if r["status"] == "done":
            mark = "**" if r["vs_better"] < 0.95 else ""
            stable = (f"{r['after_stable']:.3f} ({r['pairs_after_stable']}/{r['pairs']})"
                      if r["pairs_after_stable"] else "-")
            early = f"{r['early']:.3f}" if r["early"] is not None else "-"
            spread = "-".join(f"{x:.2f}" for x in (r["better_pairs"][0], r["better_pairs"][-1]))
            lines.append(f"{head} {mark}{r['vs_better']:.3f}{mark} | {spread} | {r['better']} | "
                         f"{r['vs_worse']:.2f} | {', '.join(map(str, r['ma_mib']))} | {stable} | "
                         f"{early} |")
        else:
            reason = f": {r['reason']}" if r.get("reason") else ""
            lines.append(f"{head} {r['status']}{reason} | | | | | | |")
    if done:
        better = [r["vs_better"] for r in done]
        settled = [r for r in done if r["pairs_after_stable"]]
        early = [r["early"] for r in done if r["early"] is not None]
        straddle = sum(r["better_pairs"][0] < 0.95 <= r["better_pairs"][-1] for r in done)
        lines += ["", f"- >= 0.95x the better baseline in {sum(b >= 0.95 for b in better)}/"
                      f"{len(done)} cells ({100 * sum(b >= 0.95 for b in better) / len(done):.0f}%; "
                      "asked: 90%)",
                  f"- >= 0.90x in {sum(b >= 0.90 for b in better)}/{len(done)} (asked: every "
                  f"cell); lowest {min(better):.3f}",
                  f"- cells whose pairs against the better baseline lie on both sides of "
                  f"0.95x (undecided at this many pairs): {straddle}/{len(done)}",
                  f"- after Stable, in the {len(settled)} cells where a pair reached it with "
                  f"10 s or more left (those pairs over that span, the others over the run): "
                  f">= 0.95x in {sum(r['after_stable'] >= 0.95 for r in settled)}/{len(settled)}, "
                  f">= 0.90x in {sum(r['after_stable'] >= 0.90 for r in settled)}/{len(settled)}",
                  f"- in the first {EARLY_S:g} s (warm-up included; while the controller "
                  f"converges): >= 0.95x in {sum(e >= 0.95 for e in early)}/{len(early)}, "
                  f">= 0.90x in {sum(e >= 0.90 for e in early)}/{len(early)}",
                  f"- gain over the worse baseline: geometric mean "
                  f"{geometric_mean([r['vs_worse'] for r in done]):.2f}x, up to "
                  f"{max(r['vs_worse'] for r in done):.2f}x"]
        by_overwrite = []
        for share in sorted({cell["overwrite"] for cell, r in rows if r["status"] == "done"}):
            mine = [r["vs_better"] for cell, r in rows
                    if r["status"] == "done" and cell["overwrite"] == share]
            by_overwrite.append(f"{share:g}: {sum(b >= 0.95 for b in mine)}/{len(mine)} "
                                f"(lowest {min(mine):.3f})")
        lines.append("- >= 0.95x by the share of overwrites: " + "; ".join(by_overwrite))
        lines += states_table(done)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(text)
    print(text)
    if done:
        plot(folder, rows)


# The Controller's states in the order a round passes through them.
STATE_ORDER = ["adapting", "trying", "verifying", "settling", "stable"]


def states_table(done: List[dict]) -> List[str]:
    """Where the time goes: per Controller state, its share of the measured
    time of the Symbiosis runs beside each cell's better baseline, their
    throughput over that baseline's in the same intervals, and the share of
    what Symbiosis was behind by that the state holds. Each cell's
    operations count in seconds of its baseline's mean throughput, so that
    a cell weighs by its time, not by how fast its engine serves."""
    total: Dict[str, List[float]] = {}
    for r in done:
        states = r.get("states", {})
        seconds = sum(v[0] for v in states.values())
        static_ops = sum(v[2] for v in states.values())
        if seconds <= 0 or static_ops <= 0:
            continue
        rate = static_ops / seconds
        for state, (t, sym, static) in states.items():
            row = total.setdefault(state, [0.0, 0.0, 0.0])
            row[0] += t
            row[1] += sym / rate
            row[2] += static / rate
    seconds = sum(row[0] for row in total.values())
    behind = sum(max(row[2] - row[1], 0.0) for row in total.values())
    if seconds <= 0:
        return []
    lines = ["", "Where the time goes: the Symbiosis runs beside each cell's better baseline, "
             "per Controller state (warm intervals, each cell weighed by its time; behind: "
             "the state's share of what Symbiosis was behind that baseline by):", "",
             "| state | share of the time | Symbiosis / better base | behind |", "|---|---|---|---|"]
    order = sorted(total, key=lambda k: (STATE_ORDER.index(k) if k in STATE_ORDER
                                         else len(STATE_ORDER), k))
    for state in order:
        t, sym, static = total[state]
        lost = max(static - sym, 0.0)
        lines.append(f"| {state} | {100 * t / seconds:.0f}% | "
                     f"{sym / static if static else float('nan'):.3f} | "
                     f"{100 * lost / behind if behind else 0:.0f}% |")
    return lines


def plot(folder: str, rows: List[tuple]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    done = [(c, r) for c, r in rows if r["status"] == "done"]
    fig, ax = plt.subplots(figsize=(max(6.4, 0.35 * len(done) + 2), 4))
    xs = range(len(done))
    colors = {name: f"C{i}" for i, name in enumerate(sorted(ENGINES))}
    ax.bar(xs, [r["vs_better"] for _, r in done], color=[colors[c["engine"]] for c, _ in done])
    early = [(x, r["early"]) for x, (_, r) in zip(xs, done) if r["early"] is not None]
    if early:
        ax.plot([x for x, _ in early], [e for _, e in early], "k_", ms=9, mew=1.5,
                label=f"first {EARLY_S:g} s (bars: the whole run)")
    ax.axhline(0.95, color="grey", ls="--", lw=0.8, label="0.95x")
    ax.axhline(0.90, color="red", ls=":", lw=0.8, label="0.90x")
    # Beside the axes, not on them: a legend inside covered the last bars.
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.axhline(1.0, color="black", lw=0.6)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([c["id"][5:] for c, _ in done], fontsize=7)
    ax.set_ylabel("Symbiosis / better static baseline\n(side by side, 2 pairs each)")
    ax.set_xlabel("cell (colour: LevelDB blue, RocksDB orange, WiredTiger green)")
    ax.set_title("Held-out suite: each cell drawn after the rules were fixed, run once", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "report.png"), dpi=120, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="draw the cells and write OUT/cells.json")
    d.add_argument("--seed", type=int, required=True, help="the draw's seed (record it)")
    d.add_argument("--cells", type=int, default=30, help="how many cells (default: 30)")
    d.add_argument("out")
    r = sub.add_parser("run", help="run the cells of OUT not yet run")
    r.add_argument("out")
    r.add_argument("--duration", default="120s",
                   help="per run, warm-up included (default: 120s; "
                   "docs/decisions/heldout-run-length.md)")
    r.add_argument("--warmup", default="20s", help="left out of the ratios (default: 20s)")
    r.add_argument("--from-cell", type=int, default=1, metavar="N",
                   help="start at the draw's Nth cell, leaving the ones before it (run on "
                        "another machine, say) to a later `run` (default: 1)")
    r.add_argument("--limit", type=int, default=0,
                   help="run at most this many cells, in order (default: all)")
    r.add_argument("--db-dir", default="/var/tmp/symbiosis-bench",
                   help="where the kept DBs are (default: %(default)s)")
    rep = sub.add_parser("report", help="write OUT/report.md and OUT/report.png")
    rep.add_argument("out")
    args = p.parse_args()
    if args.command == "draw":
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "cells.json")
        if os.path.exists(path):
            raise SystemExit(f"heldout.py: error: {path} exists; a drawn set is never drawn "
                             "again: give a new folder")
        cells = draw(args.seed, args.cells)
        with open(path, "w") as f:
            json.dump({"seed": args.seed, "commit": commit(), "cells": cells}, f, indent=1)
        for c in cells:
            print(f"{c['id']}: {describe(c)}")
    elif args.command == "run":
        run(args.out, args)
    else:
        report(args.out)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # `heldout.py draw ... | head`: end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
