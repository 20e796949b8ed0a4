"""The paper's figures and our own, regenerated from the simulator.

``symbiosis figures --out docs/figures`` writes, for each figure, a PNG and
the JSON of the numbers behind it. Sizes are scaled to a budget M (default
128 MiB, the paper used 1 GiB): only the ratios M/D_u, alpha and C_a/C_k
shape the curves.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from symbiosis import _native
from symbiosis.outputs import OutputFiles, check_writable, json_writer
from symbiosis.plots import plot_lines
from symbiosis.study import SimConfig, SimReport, run_sim

MIB = 1 << 20


def _mk_curve(report: SimReport, ca: float | None = None,
              ck: float | None = None) -> tuple[list[float], list[float]]:
    """(M_k in units of M, L_e) of a report, optionally re-costed."""
    c = report.config
    ca = c.ca if ca is None else ca
    ck = c.ck if ck is None else ck
    xs, ys = [], []
    for p in reversed(report.points):
        xs.append(p["mk_bytes"] / c.memory_bytes)
        ys.append((1 - p["hit_app"]) * (ca + (1 - p["hit_second_tier"]) * ck))
    return xs, ys


def _minimum(xs: list[float], ys: list[float]) -> tuple[float, float]:
    i = min(range(len(ys)), key=lambda k: ys[k])
    return xs[i], ys[i]


class FigureMaker:
    """Runs the studies behind each figure and writes PNG + JSON."""

    def __init__(self, out_dir: str, memory: int, points: int, log: Callable[[str], None]):
        self.out_dir = out_dir
        self.memory = memory
        self.points = points
        self.log = log
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise _native.InputError(f"--out: {out_dir} is a file; give a folder for the figures")
        os.makedirs(out_dir, exist_ok=True)
        check_writable(os.path.join(out_dir, "figure.png"), "--out")

    def _sim(self, **kw: Any) -> SimReport:
        config = SimConfig(memory_bytes=self.memory, points=self.points, **kw)
        self.log(f"  sim {config.workload} D_u={config.data_bytes // MIB}MiB "
                 f"alpha={config.alpha:g} model={config.kernel_model}"
                 + (" exclusive" if config.exclusive else ""))
        return run_sim(config)

    def _write(self, name: str, data: Any, plot: Callable[[str], None]) -> None:
        """name.png by `plot` and name.json of `data`, both or neither."""
        base = os.path.join(self.out_dir, name)
        OutputFiles({"--out (plot)": base + ".png", "--out (JSON)": base + ".json"}).write(
            {"--out (plot)": plot, "--out (JSON)": json_writer(data)})

    def _lines(self, name: str, title: str, runs: list[tuple[str, SimReport, float | None]],
               ck: float | None = None) -> None:
        series, markers, data = [], [], []
        for label, report, ca in runs:
            xs, ys = _mk_curve(report, ca=ca, ck=ck)
            series.append((label, xs, ys))
            markers.append(_minimum(xs, ys))
            data.append({"label": label, "mk_over_m": xs, "latency": ys})
        self._write(name, data, lambda path: plot_lines(
            path, title, "kernel cache size M_k / M  (application cache gets the rest)",
            "expected latency L_e (cost units)", series, markers))

    # Figure 4 I(a): C_a from 10 to 100; uniform, M/D_u = 0.7, alpha = 0.5.
    def fig4a(self) -> None:
        report = self._sim(workload="uniform", data_bytes=int(self.memory / 0.7), alpha=0.5,
                           ca=10, ck=100)
        runs = [(f"C_a={ca}", report, float(ca)) for ca in range(10, 101, 10)]
        self._lines("fig4a_miss_cost", "Fig. 4 I(a): uniform, M/D_u=0.7, alpha=0.5, C_k=100; "
                    "varying C_a (triangles: minima)", runs, ck=100)

    # Figure 4 I(b): alpha from 0.1 to 1; uniform, D_u = 2M, C_a = 50.
    def fig4b(self) -> None:
        runs = []
        for tenth in range(1, 11):
            alpha = tenth / 10
            runs.append((f"alpha={alpha:.1f}",
                         self._sim(workload="uniform", data_bytes=2 * self.memory,
                                   alpha=alpha, ca=50, ck=100), None))
        self._lines("fig4b_alpha", "Fig. 4 I(b): uniform, D_u=2M, C_a=50, C_k=100; "
                    "varying alpha", runs)

    def _data_size_sweep(self, workload: str, alpha: float,
                         ca: float) -> list[tuple[str, SimReport, float | None]]:
        runs = []
        for tenth in range(1, 11):
            ratio = tenth / 10
            runs.append((f"M/D_u={ratio:.1f}",
                         self._sim(workload=workload, data_bytes=int(self.memory / ratio),
                                   alpha=alpha, ca=ca, ck=100), None))
        return runs

    # Figure 4 I(c): D_u from M to 10M; uniform, alpha = 0.3, C_a = 50.
    def fig4c(self) -> None:
        self._lines("fig4c_data_size", "Fig. 4 I(c): uniform, alpha=0.3, C_a=50, C_k=100; "
                    "varying D_u", self._data_size_sweep("uniform", 0.3, 50))

    # Figure 4 I(d): the same with an 80/20 hotspot.
    def fig4d(self) -> None:
        self._lines("fig4d_hotspot", "Fig. 4 I(d): hotspot20, alpha=0.3, C_a=50, C_k=100; "
                    "varying D_u", self._data_size_sweep("hotspot20", 0.3, 50))

    # Figure 5: 90% reads + 10% scans (up to 100 KB) on an 80/20 hotspot.
    def fig5(self) -> None:
        self._lines("fig5_read_scan", "Fig. 5: 90% reads / 10% scans (<=100 KB), hotspot20, "
                    "alpha=0.2, C_a=50, C_k=100; varying D_u",
                    self._data_size_sweep("readscan:scans=0.1,scan_bytes=102400,base=hotspot20",
                                          0.2, 50))

    # The closed form against inclusive and exclusive two-level LRU.
    def closed_form(self) -> None:
        data = 2 * self.memory
        alpha = 0.5
        # M = D_u/2 + alpha D_u/2 puts "each level holds half" at M_a = D_u/2.
        memory = data // 2 + int(alpha * data / 2)
        base = dict(workload="uniform", data_bytes=data, alpha=alpha, kernel_model="block-lru",
                    aligned=True, ca=3, ck=16)
        self.log("  sim uniform closed-form comparison (inclusive and exclusive)")
        inclusive = run_sim(SimConfig(memory_bytes=memory, points=self.points, **base))
        exclusive = run_sim(SimConfig(memory_bytes=memory, points=self.points, exclusive=True,
                                      **base))
        ma = [p["ma_bytes"] / data for p in inclusive.points]
        closed = [min(1.0, p["mk_bytes"] / (alpha * data)) for p in inclusive.points]
        series = [
            ("closed form H_k = M_k/(alpha D_u) (paper §3.2.1)", ma, closed),
            ("inclusive two-level LRU: H_k among app misses", ma,
             [p["hit_second_tier"] for p in inclusive.points]),
            ("exclusive: kernel hits per read", ma,
             [p["second_tier_hits_per_read"] for p in exclusive.points]),
            ("exclusive: H_k among app misses", ma,
             [p["hit_second_tier"] for p in exclusive.points]),
            ("H_a (both; closed form M_a/D_u)", ma, [p["hit_app"] for p in inclusive.points]),
        ]
        self._write("closed_form_gap", {
            "memory_bytes": memory, "data_bytes": data, "alpha": alpha,
            "inclusive": inclusive.points, "exclusive": exclusive.points},
            lambda path: plot_lines(
                path, f"Uniform, aligned blocks, block-LRU kernel, alpha={alpha}, "
                f"M={memory / data:.2f} D_u: the kernel cache holds duplicates",
                "application cache size M_a / D_u", "hit ratio", series, ylim=(0, 1.02)))

    # Figure 7: kernel models and sampling against the full page model, on
    # a random-read workload and on one with scans (where read-ahead counts).
    def fig7(self, rate: float = 1 / 64, group: int = 32) -> None:
        from symbiosis.kernel_models import run_kernel_models
        data = 8 * self.memory
        for name, workload, label in (
                ("zipfian", "zipfian", "zipfian"),
                ("readscan", "readscan:scans=0.1,scan_bytes=100KiB,base=hotspot20",
                 "90% reads + 10% scans, hotspot20")):
            self.log(f"  kernel models, {name}, D_u={data >> 20}MiB, R={rate:g}, G={group}")
            result = run_kernel_models(workload=workload, data_bytes=data, alpha=0.5,
                                       sizes=16, rate=rate, group=group)
            cap = [c / (1 << 20) for c in result["capacities"]]
            series = [(f"{c['model']} (MAE {c['mean_abs_error']:.3f})", cap, c["hit_ratio"])
                      for c in result["curves"]]
            result["workload"] = workload
            title = (f"Fig. 7: kernel cache hit ratio by model; {label},\n"
                     f"D_c={result['disk_bytes'] >> 20}MiB, alpha=0.5, sampling R=1/{1 / rate:g}, "
                     f"G={group}")
            self._write(f"fig7_{name}", result, lambda path, title=title, series=series: plot_lines(
                path, title, "kernel cache size (MiB)", "kernel hit ratio", series,
                ylim=(0, 1.02)))


FIGURES = ["closed_form", "fig4a", "fig4b", "fig4c", "fig4d", "fig5", "fig7"]


def make_figures(out_dir: str, names: list[str], memory: int, points: int,
                 log: Callable[[str], None]) -> None:
    """Makes the named figures (see FIGURES) in `out_dir`; InputError on an unknown name."""
    for name in names:
        if name not in FIGURES:
            raise _native.InputError(f"unknown figure '{name}'; choose from {', '.join(FIGURES)}")
    maker = FigureMaker(out_dir, memory, points, log)
    for name in names:
        log(f"{name}:")
        getattr(maker, name)()
