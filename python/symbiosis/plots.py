"""Plots a reader understands without the code: labelled axes with units,
the parameters in the title, the best point marked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from symbiosis.engines import engine_title  # noqa: E402
from symbiosis.units import format_bytes  # noqa: E402

if TYPE_CHECKING:
    from symbiosis.study import SimReport

GIB = float(1 << 30)
MIB = float(1 << 20)


def sim_title(report: "SimReport") -> str:
    """One line naming the workload or trace and every parameter of the study."""
    c = report.config
    source = f"trace {c.trace}" if c.trace else f"{c.workload}, D_u={format_bytes(report.data_bytes)}"
    return (f"{source}, M={format_bytes(c.memory_bytes)}, alpha={c.alpha:g}, "
            f"C_a={c.ca:g}, C_k={c.ck:g}, kernel model={c.kernel_model}"
            + (", exclusive" if c.exclusive else ""))


def plot_sim(report: "SimReport", path: str) -> None:
    """L_e against M_a (top) and the two hit ratios (bottom)."""
    unit, scale = ("GiB", GIB) if report.config.memory_bytes >= 2 * GIB else ("MiB", MIB)
    ma = [p["ma_bytes"] / scale for p in report.points]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    top.plot(ma, [p["latency"] for p in report.points], marker="o", ms=3,
             label="L_e = (1-H_a)(C_a + (1-H_k) C_k)")
    best = report.best
    top.plot([best["ma_bytes"] / scale], [best["latency"]], marker="v", ms=12,
             color="crimson", ls="none",
             label=f"best: M_a={format_bytes(best['ma_bytes'])}, L_e={best['latency']:.3g}")
    top.set_ylabel("expected latency L_e (cost units)")
    top.legend(loc="best")
    top.grid(alpha=0.3)
    bottom.plot(ma, [p["hit_app"] for p in report.points], marker=".", label="H_a (application cache)")
    bottom.plot(ma, [p["hit_second_tier"] for p in report.points], marker=".",
                label="H_k (kernel cache, among application misses)")
    bottom.set_ylim(-0.02, 1.02)
    bottom.set_ylabel("hit ratio")
    bottom.set_xlabel(f"application cache size M_a ({unit}); the kernel cache gets M - M_a")
    bottom.legend(loc="best")
    bottom.grid(alpha=0.3)
    fig.suptitle(sim_title(report), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_lines(path: str, title: str, xlabel: str, ylabel: str,
               series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
               markers: Sequence[tuple[float, float]] = (),
               ylim: tuple[float, float] | None = None) -> None:
    """A generic line plot: series are (label, xs, ys); markers are minima."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, xs, ys in series:
        ax.plot(xs, ys, label=label, marker=".", ms=3)
    for x, y in markers:
        ax.plot([x], [y], marker="v", color="black", ms=7, ls="none")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


DECISION_COLORS = {"adopted": "tab:green", "rejected": "tab:gray", "abandoned": "tab:orange",
                   "": "tab:blue"}


def replay_title(result: dict) -> str:
    """One line naming the workload or trace, D_u, M and the Controller's settings."""
    c = result["config"]
    source = (f"trace {c['trace']}" if c["trace"] else
              f"{c['workload']}, D_u={format_bytes(result['trace_data_bytes'])}")
    rate = 1 / c["sample_rate"]
    rate_text = f"1/{round(rate)}" if abs(rate - round(rate)) < 1e-9 else f"{c['sample_rate']:g}"
    return (f"replay: {source}, M={format_bytes(c['memory_bytes'])}, alpha={c['alpha']:g}, "
            f"C_a={c['ca']:g}, C_k={c['ck']:g}, kernel={c['kernel_model']}, "
            f"ghost={c['ghost_kernel_model']}, R={rate_text}")


def plot_replay(result: dict, path: str) -> None:
    """The Controller at work: measured L_e per timeline interval with the
    rounds shaded and their decisions (top), M_a over the replay (bottom)."""
    timeline = result["timeline"]
    memory = result["config"]["memory_bytes"]
    scale, unit = (1e6, "millions") if result["num_accesses"] >= 2_000_000 else (1e3, "thousands")
    ends = [p["end_access"] / scale for p in timeline]
    xs = [0.0] + ends  # each interval's value holds until its end (steps-pre)
    latency = [p["latency"] for p in timeline]
    app = [p["ma_bytes"] / MIB for p in timeline]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    top.plot(xs, latency[:1] + latency, drawstyle="steps-pre", lw=1.2,
             label=f"measured L_e per {result['config']['interval']:,} accesses")
    top.axhline(result["mean_latency"], color="black", ls=":", lw=1,
                label=f"mean L_e over the replay = {result['mean_latency']:.3g}")
    y_high = max(latency) if latency else 1.0
    end_of_trace = result["num_accesses"] / scale
    for i, rnd in enumerate(result["rounds"], 1):
        start = rnd["start_access"] / scale
        end = rnd["end_access"] / scale if rnd["end_access"] else end_of_trace
        decision = rnd["decision"]
        color = DECISION_COLORS.get(decision, "tab:blue")
        for ax in (top, bottom):
            ax.axvspan(start, end, color=color, alpha=0.15, lw=0)
        if decision == "adopted":
            text = f"round {i}: adopted\nM_a={format_bytes(rnd['adopted_ma_bytes'])}"
            adopted = [c for c in rnd["candidates"] if c["ma_bytes"] == rnd["adopted_ma_bytes"]]
            if adopted:  # what the round predicted for the split it chose
                top.plot([end], [adopted[0]["predicted_latency"]], marker="v", ms=9,
                         color=color, ls="none",
                         label="predicted L_e of the adopted M_a" if i == 1 else None)
        elif decision:
            text = f"round {i}: {decision}"
        else:
            text = f"round {i}: running"
        # Above the curve, staggered so that neighbouring rounds' labels do not collide.
        top.annotate(text, xy=((start + end) / 2, 0.98 - 0.09 * ((i - 1) % 2)),
                     xycoords=("data", "axes fraction"), ha="center", va="top", fontsize=7)
    top.set_ylim(0, y_high * 1.4 if y_high > 0 else 1)
    top.set_ylabel("expected latency L_e (cost units)")
    top.legend(loc="lower right", fontsize=7)
    top.grid(alpha=0.3)
    # M_a is sampled at each interval's end: it holds from there on.
    bottom.plot(xs, [result["initial_ma_bytes"] / MIB] + app, drawstyle="steps-post",
                color="tab:purple", label="M_a, application cache (at each interval's end)")
    bottom.axhline(memory / MIB, color="black", ls="--", lw=1,
                   label=f"M = {format_bytes(memory)} (M_k = M - M_a)")
    bottom.set_ylim(0, memory / MIB * 1.08)
    bottom.set_ylabel("application cache M_a (MiB)")
    bottom.set_xlabel(f"accesses ({unit}); shaded: Controller rounds "
                      "(green adopted, gray rejected, orange abandoned, blue running)")
    bottom.legend(loc="lower right", fontsize=7)
    bottom.grid(alpha=0.3)
    fig.suptitle(replay_title(result), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _engine_title(result: dict) -> str:
    """The engine's name as people write it."""
    return engine_title(result.get("engine", "leveldb"))


def plot_bench_timeline(result: dict, path: str) -> None:
    """An engine benchmark over time: mean latency per interval for every
    configuration with Symbiosis's rounds marked (top), and M_a (bottom)."""
    cell = result["cells"][0]
    memory = result["memory_bytes"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    for config in cell["configs"]:
        if config.get("failed"):  # its numbers describe requests that failed
            continue
        timeline = config["timeline"]
        ts = [p["t"] for p in timeline]
        style = {"lw": 2.2, "color": "C3"} if config["name"] == "symbiosis" else {"lw": 1, "alpha": 0.8}
        top.plot(ts, [p["mean_us"] for p in timeline], label=config["name"], **style)
        bottom.plot(ts, [p["ma_bytes"] / MIB for p in timeline], label=config["name"], **style)
        if config["name"] == "symbiosis":
            for p in timeline:
                for r in p["rounds"]:
                    verdict = r["reason"].split(":")[0][:40]
                    top.axvline(p["t"], color="C3", ls=":", lw=1)
                    top.annotate(f"{r['adopted_ma_bytes'] / MIB:.0f} MiB\n{verdict}", (p["t"], 0),
                                 xycoords=("data", "axes fraction"), fontsize=7, color="C3",
                                 xytext=(3, 4), textcoords="offset points")
    top.set_ylabel("mean read latency (us)")
    top.set_ylim(bottom=0)
    top.legend(fontsize=8, loc="upper right")
    top.set_title(f"{_engine_title(result)}, {cell['workload']}, D_u={format_bytes(cell['data_bytes'])}, "
                  f"M={format_bytes(memory)}, {result['budget']} budget", fontsize=10)
    bottom.set_ylabel("block cache M_a (MiB)")
    bottom.set_xlabel("time (s)")
    bottom.set_ylim(0, memory / MIB * 1.05)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _workload_panels(result: dict):
    """One panel per workload in a row, sharing the y axis: (fig, axes,
    [(ax, workload, its cells in order of M/D_u)])."""
    workloads = list(dict.fromkeys(c["workload"] for c in result["cells"]))
    # At least 6.4 inches wide: a single panel's two-line title fits.
    fig, axes = plt.subplots(1, len(workloads), figsize=(max(6.4, 3.2 * len(workloads)), 3.6),
                             squeeze=False, sharey=True)
    panels = [(ax, w, sorted((c for c in result["cells"] if c["workload"] == w),
                             key=lambda c: c["ratio"])) for ax, w in zip(axes[0], workloads)]
    return fig, axes, panels


def plot_bench_grid(result: dict, path: str) -> None:
    """The paper's Figure 8 style grid: one panel per workload, throughput of
    each configuration against M/D_u, normalized to the best static split."""
    fig, axes, panels = _workload_panels(result)
    for ax, workload, cells in panels:
        ratios = [c["ratio"] for c in cells]
        names = [cfg["name"] for cfg in cells[0]["configs"]]
        for name in names:
            ys = []
            for c in cells:  # a failed run has no throughput: a gap in its line
                best = max((cfg["throughput_ops"] for cfg in c["configs"]
                            if cfg["name"] != "symbiosis" and not cfg.get("failed")), default=0)
                mine = next(cfg["throughput_ops"] for cfg in c["configs"] if cfg["name"] == name)
                ys.append(mine / best if best and mine is not None else float("nan"))
            if name == "symbiosis":
                ax.plot(ratios, ys, marker="o", lw=2.2, color="C3", label=name)
            elif name in ("static-default", "static-max"):
                ax.plot(ratios, ys, marker="s", ms=4, lw=1, label=name)
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_title(workload, fontsize=9)
        ax.set_xlabel("M / D_u")
    axes[0][0].set_ylabel("throughput / best static split")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"{_engine_title(result)}, M={format_bytes(result['memory_bytes'])}, "
                 f"{result['budget']} budget",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _ratio_panel(ax, workload: str) -> None:
    """A panel of throughput ratios against M/D_u: log scale, 1 marked."""
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.FormatStrFormatter("%g"))
    ax.set_title(workload, fontsize=9)
    ax.set_xlabel("M / D_u")


def plot_bench_budgets(result: dict, path: str) -> None:
    """The budgets compared: one panel per workload, each configuration's
    throughput under the second budget over the first's, measured in the
    same pair, against M/D_u; above 1 the second budget served better. A
    ratio is the geometric mean of the pairs, and a bar spans the single
    pairs."""
    a, b = result["budget"]
    fig, axes, panels = _workload_panels(result)
    names = list(dict.fromkeys(p["config"] for c in result["cells"] for p in c["budget_pairs"]))
    for ax, workload, cells in panels:
        xs = [c["ratio"] for c in cells]
        for i, name in enumerate(names):
            points = [(x, p) for x, c in zip(xs, cells) for p in c["budget_pairs"]
                      if p["config"] == name and p["ratio"] is not None]
            style = {"lw": 2.2, "color": "C3"} if name == "symbiosis" else {"lw": 1, "color": f"C{i}"}
            ax.plot([x for x, _ in points], [p["ratio"] for _, p in points], marker="o", ms=4,
                    label=name, **style)
            for x, p in points:
                singles = [run["ratio"] for run in p["runs"] if run["ratio"] is not None]
                if len(singles) > 1:
                    ax.vlines(x, min(singles), max(singles), color=style["color"], lw=1,
                              alpha=0.6)
        _ratio_panel(ax, workload)
    axes[0][0].set_ylabel(f"throughput, {b} budget / {a} budget\n(run side by side)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"{_engine_title(result)}, M={format_bytes(result['memory_bytes'])}: the "
                 f"{a} and {b} budgets\neach configuration in both at once, "
                 f"{result.get('repeats', 1)} pairs, CPUs swapped (geometric mean; bar: pairs)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_bench_pairs(result: dict, path: str) -> None:
    """A side-by-side grid: one panel per workload, Symbiosis's throughput
    over each static configuration's measured in the same pair, against
    M/D_u; above 1 Symbiosis was faster. The best static configuration is
    the pair with the smallest ratio. With repeated pairs a ratio is their
    geometric mean, and a bar spans the best static's single pairs."""
    fig, axes, panels = _workload_panels(result)
    for ax, workload, cells in panels:
        xs = [c["ratio"] for c in cells]
        # A failed pair has no ratio: a gap in its line.
        ratios = [{p["static"]: p["ratio"] for p in c["pairs"] if p["ratio"] is not None}
                  for c in cells]
        ax.plot(xs, [min(r.values(), default=float("nan")) for r in ratios], marker="o", lw=2.2,
                color="C3", label="vs best static")
        for x, c in zip(xs, cells):
            valid = [p for p in c["pairs"] if p["ratio"] is not None]
            if not valid:
                continue
            best = min(valid, key=lambda p: p["ratio"])
            singles = [run["ratio"] for run in best.get("runs", [])]
            if len(singles) > 1:
                ax.vlines(x, min(singles), max(singles), color="C3", lw=1, alpha=0.6)
        for name, style in (("static-default", {"marker": "s", "ms": 4, "lw": 1}),
                            ("static-max", {"marker": "^", "ms": 4, "lw": 1})):
            if any(name in r for r in ratios):
                ax.plot(xs, [r.get(name, float("nan")) for r in ratios], label=f"vs {name}",
                        **style)
        ax.axhline(0.95, color="grey", lw=0.8, ls=":")
        _ratio_panel(ax, workload)
    axes[0][0].set_ylabel("Symbiosis / static throughput\n(run side by side)")
    axes[0][-1].legend(fontsize=7)
    repeats = result.get("repeats", 1)
    how = (f"each static split run beside Symbiosis {repeats} times on swapped CPUs "
           "(geometric mean; bar: single pairs)" if repeats > 1
           else "each static split run beside Symbiosis")
    fig.suptitle(f"{_engine_title(result)}, M={format_bytes(result['memory_bytes'])}, "
                 f"{result['budget']} budget\n"
                 + how, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
