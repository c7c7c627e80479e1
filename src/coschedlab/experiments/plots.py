"""Plots of a comparison: the makespan improvement bar chart and, per workload, the scheduler
comparison figure of :mod:`coschedlab.report` (``plots: full`` adds every per-run figure of the
first repetition and the HTML report). The numbers the figures quote are the runs' stored
metrics.json."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..engine.result import Result
from ..report import figures, write_report
from ..report.style import figure, scheduler_colors, wrap_label
from ..sweeps.store import RunKey, completed
from .spec import Spec
from .store import RESULT_DIRS

__all__ = ["improvement_figure", "write_plots"]


def improvement_figure(table: pd.DataFrame, spec: Spec) -> Figure:
    """Grouped bars: makespan improvement (%) over the baseline per workload and scheduler,
    with the standard deviation over repetitions as error bars (none with one repetition). A
    scheduler has its colour of every figure (:func:`~coschedlab.report.style.scheduler_colors`
    of the spec's schedulers, as the scheduler comparison figures have it)."""
    order = [s.label for s in spec.schedulers]
    labels = [label for label in order if label != spec.baseline]
    workloads = [w.name for w in spec.workloads if w.name in set(table["workload"])]
    colors = scheduler_colors(order)
    n = max(1, len(labels))
    group = min(0.8, 0.25 * n)  # width of one workload's group of bars
    bar = group / n
    fig = figure(3.6)
    ax = fig.add_subplot()
    x = np.arange(len(workloads))
    values = []
    for i, label in enumerate(labels):
        rows = table[table["scheduler"] == label].set_index("workload")
        mean = [rows["makespan_improvement_mean"].get(w, math.nan) for w in workloads]
        std = [rows["makespan_improvement_std"].get(w, math.nan) for w in workloads]
        pos = x - group / 2 + bar * (i + 0.5)
        err = np.nan_to_num(np.asarray(std, dtype=float), nan=0.0)
        ax.bar(pos, mean, bar * 0.92, yerr=err if err.any() else None, capsize=3, label=label,
               color=colors[label],
               error_kw={"elinewidth": 0.8})  # fmt: skip
        for p, m, e in zip(pos, mean, err, strict=True):
            if math.isfinite(m):
                y = m + e if m >= 0 else m - e
                ax.annotate(f"{m:+.1f}", (p, y), ha="center", va="bottom" if m >= 0 else "top",
                            fontsize=7, xytext=(0, 2 if m >= 0 else -2),
                            textcoords="offset points")  # fmt: skip
                values.append(y)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, [wrap_label(w, 16) for w in workloads], fontsize=8,
                  rotation=20 if len(workloads) > 4 else 0,
                  ha="right" if len(workloads) > 4 else "center")  # fmt: skip
    ax.set_xlim(-0.5, len(workloads) - 0.5)
    ax.set_ylabel(f"makespan improvement\nover {wrap_label(spec.baseline, 24)} (%)", fontsize=9)
    reps = spec.repetitions
    ax.set_title(
        f"{spec.name}\nmakespan improvement over {spec.baseline}: mean"
        f"{' ± std' if reps > 1 else ''} of {reps} paired repetition{'s' * (reps > 1)}",
        fontsize=10,
    )
    top = max([abs(v) for v in values if math.isfinite(v)], default=1.0) or 1.0
    lo = min([0.0, *[v for v in values if math.isfinite(v)]])
    ax.set_ylim(lo - 0.15 * top if lo < 0 else -0.05 * top, max(values + [0.0]) + 0.18 * top)
    ax.grid(axis="y", alpha=0.3)
    if labels:
        fig.legend(loc="outside lower center", fontsize=8, ncols=min(len(labels), 3),
                   title="scheduler", title_fontsize=8, frameon=False)  # fmt: skip
    else:
        ax.text(0.5, 0.5, "only the baseline scheduler", transform=ax.transAxes, ha="center")
    return fig


def _first_runs(spec: Spec, out: Path, workload: str) -> dict[str, Result]:
    """The first repetition of every scheduler on ``workload`` (those that finished), loaded
    with their stored metrics.json."""
    done = completed(out)
    results = {}
    for s in spec.schedulers:
        key = RunKey(workload, s.slug, 0)
        if key in done:
            results[s.label] = RESULT_DIRS.read(out, key)
    return results


def _app_names(spec: Spec, workload: str) -> dict[int, str] | None:
    w = next(w for w in spec.workloads if w.name == workload)
    if w.kind != "pool":
        return None
    from ..coloc.pool import cached_pool

    return dict(enumerate(cached_pool(w.path).names))


def write_plots(spec: Spec, out: Path, table: pd.DataFrame) -> list[Path]:
    """Write ``improvement.png`` and ``plots/<workload>/comparison.png`` (or the full report
    with ``plots: full``); returns the paths written."""
    out = Path(out)
    paths = []
    if len(spec.schedulers) > 1 and len(table):
        path = out / "improvement.png"
        improvement_figure(table, spec).savefig(path)
        paths.append(path)
    for w in spec.workloads:
        results = _first_runs(spec, out, w.name)
        if not results:
            continue
        target = out / "plots" / w.name
        target.mkdir(parents=True, exist_ok=True)
        if spec.plots == "full":
            paths += write_report(results, target, app_names=_app_names(spec, w.name))
        else:
            fig = figures.comparison(results)
            fig.suptitle(f"{w.name}: scheduler comparison (repetition 0)", fontsize=10)
            fig.savefig(target / "comparison.png")
            paths.append(target / "comparison.png")
    return paths
