"""Plots a reader understands without the code: labelled axes with units,
the parameters in the title, the best point marked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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
    bottom.plot(ma, [p["hit_kernel"] for p in report.points], marker=".",
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
