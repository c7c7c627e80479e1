"""Matplotlib figures of a schedule (the ELiSE paper, 3.1 "Output" and Fig. 3): Gantt chart,
utilization, waiting-queue size, throughput, unused cores, per-application speedups, and a
comparison of several schedulers.

Figures are built on :class:`matplotlib.figure.Figure` objects (Agg canvas, no pyplot state), so
they work headless and in threads. Rectangles of the Gantt chart go into one
:class:`~matplotlib.collections.PolyCollection`, so 100k jobs draw in about a second.
Time axes start at the first submission and use s, min, h or days depending on the span.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..intervals import parse_alloc_column
from ..platform import Cluster
from . import series as S
from .runs import as_runs, largest, metric

__all__ = [
    "comparison",
    "gantt",
    "gantt_rectangles",
    "queue_figure",
    "save_figures",
    "speedup_boxplot",
    "throughput_figure",
    "time_unit",
    "unused_cores_figure",
    "utilization_figure",
]

_PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
]  # fmt: skip
_DPI = 110


def time_unit(span: float) -> tuple[float, str]:
    """Divisor and unit label for a time span in seconds (s, min, h or days)."""
    if span >= 3 * 86400:
        return 86400.0, "days"
    if span >= 3 * 3600:
        return 3600.0, "h"
    if span >= 3 * 60:
        return 60.0, "min"
    return 1.0, "s"


def _origin_and_unit(jobs: pd.DataFrame) -> tuple[float, float, str]:
    if not len(jobs):
        return 0.0, 1.0, "s"
    t0 = float(np.nanmin(jobs["submit"].to_numpy(dtype=float)))
    span = float(np.nanmax(jobs["end"].to_numpy(dtype=float))) - t0
    return (t0, *time_unit(span))


def _figure(size: tuple[float, float]) -> Figure:
    """A figure on an Agg canvas (no pyplot, no global backend change)."""
    fig = Figure(figsize=size, dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _new_axes(ax: Axes | None, size: tuple[float, float] = (9, 4)) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    fig = _figure(size)
    return fig, fig.add_subplot()


def _app_label(app: object, app_names: Mapping[int, str] | None) -> str:
    if app_names and isinstance(app, int | np.integer) and int(app) in app_names:
        return app_names[int(app)]
    return f"app {app}"


def _step(ax: Axes, s: S.Series, t0: float, div: float, scale: float = 1.0, **kw) -> None:
    if not len(s):
        return
    ax.step((s.t - t0) / div, s.v * scale, where="post", **kw)


def _split_spread(
    rows: np.ndarray, first: np.ndarray, count: np.ndarray, spread: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Node ranges of spread jobs split into single nodes (each drawn as a half row)."""
    sp = spread[rows]
    reps = np.where(sp, count, 1)
    new_rows = np.repeat(rows, reps)
    starts = np.repeat(first, reps)
    within = np.arange(len(new_rows)) - np.repeat(np.cumsum(reps) - reps, reps)
    new_sp = np.repeat(sp, reps)
    new_first = np.where(new_sp, starts + within, starts)
    new_count = np.where(new_sp, 1, np.repeat(count, reps))
    return new_rows, new_first, new_count


def _spread_halves(
    start: np.ndarray, end: np.ndarray, rows: np.ndarray, first: np.ndarray, count: np.ndarray,
    spread: np.ndarray, nodes: int,
) -> np.ndarray:  # fmt: skip
    """0 (lower half) or 0.5 (upper half) of the node row for each range of a spread job.

    Greedy by start time: a spread job takes the lower half of its nodes when free there.
    """
    offset = np.zeros(len(rows))
    lower_free_at = np.full(max(nodes, int((first + count).max(initial=0))), -np.inf)
    spread_jobs = np.unique(rows[spread[rows]])
    bounds = np.searchsorted(rows, np.stack([spread_jobs, spread_jobs + 1]))  # rows is sorted
    for k in np.argsort(start[spread_jobs], kind="stable"):
        j, lo, hi = spread_jobs[k], bounds[0, k], bounds[1, k]
        idx = np.concatenate([np.arange(first[r], first[r] + count[r]) for r in range(lo, hi)])
        if (lower_free_at[idx] <= start[j] + 1e-9).all():
            lower_free_at[idx] = end[j]
        else:
            offset[lo:hi] = 0.5
    return offset


def gantt_rectangles(
    jobs: pd.DataFrame, cluster: Cluster
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rectangles of the Gantt chart: ``(row, start, end, y0, y1)``, one per job and node range.

    ``row`` is the job's position in ``jobs``; y is in node units (node k spans [k, k+1)).
    Spread (co-located) jobs get one half-height rectangle per node, lower or upper half.
    Empty when no ``alloc`` strings are recorded.
    """
    rows = first = count = np.zeros(0, dtype=np.int64)
    if "alloc" in jobs.columns:
        rows, first, count = parse_alloc_column(jobs["alloc"])
    start = jobs["start"].to_numpy(dtype=float)
    end = jobs["end"].to_numpy(dtype=float)
    height = np.ones(len(rows))
    y0 = first.astype(float)
    if len(rows) and "placement" in jobs.columns:
        spread = jobs["placement"].to_numpy() == "spread"
        if spread.any():
            rows, first, count = _split_spread(rows, first, count, spread)
            off = _spread_halves(start, end, rows, first, count, spread, cluster.nodes)
            height = np.where(spread[rows], 0.5, 1.0)
            y0 = first + off
    return rows, start[rows], end[rows], y0, y0 + (count - 1) + height


def gantt(
    jobs: pd.DataFrame,
    cluster: Cluster,
    ax: Axes | None = None,
    *,
    color_by: str = "auto",
    app_names: Mapping[int, str] | None = None,
    title: str | None = None,
) -> Figure:
    """Gantt chart: nodes on y (from ``alloc``), one rectangle per job and node range.

    ``color_by``: ``"app"``, ``"job"`` or ``"auto"`` (by app when 2-20 applications). Spread
    (co-located) jobs fill half a node row. Without ``alloc`` strings, falls back to a
    packing-free view: used cores over time, stacked by application.
    """
    fig, ax = _new_axes(ax, (10, 5))
    t0, div, unit = _origin_and_unit(jobs)
    rows, start, end, y0, y1 = gantt_rectangles(jobs, cluster)
    apps = jobs["app"].to_numpy() if "app" in jobs.columns else np.full(len(jobs), -1)
    n_apps = len(np.unique(apps))
    by_app = color_by == "app" or (color_by == "auto" and 2 <= n_apps <= 20)
    if not len(rows):
        return _cores_view(jobs, cluster, ax, fig, t0, div, unit, apps, by_app, app_names, title)
    x0, x1 = (start - t0) / div, (end - t0) / div
    height = y1 - y0
    verts = np.stack([np.column_stack(p) for p in ((x0, y0), (x0, y1), (x1, y1), (x1, y0))], axis=1)
    if by_app:
        labels, inv = np.unique(apps, return_inverse=True)
        colors = np.array(_PALETTE)[inv % len(_PALETTE)]
    else:
        ids = jobs["job_id"].to_numpy() if "job_id" in jobs.columns else np.arange(len(jobs))
        colors = np.array(_PALETTE)[np.asarray(ids, dtype=np.int64) % len(_PALETTE)]
    many = len(rows) > 3000
    coll = PolyCollection(
        verts,
        facecolors=colors[rows],
        edgecolors="none" if many else "black",
        linewidths=0 if many else 0.3,
        rasterized=many,
    )
    ax.add_collection(coll)
    xmax = max(float(np.nanmax(x1)), 1e-9)
    ax.set_xlim(0, xmax * 1.01)
    ax.set_ylim(0, cluster.nodes)
    ax.set_xlabel(f"time since first submission ({unit})")
    ax.set_ylabel("node")
    if cluster.nodes <= 40:
        ax.set_yticks(np.arange(cluster.nodes) + 0.5, [str(i) for i in range(cluster.nodes)])
        ax.tick_params(axis="y", labelsize=7 if cluster.nodes > 20 else 9)
    if by_app:
        handles = [
            Patch(color=_PALETTE[k % len(_PALETTE)], label=_app_label(a, app_names))
            for k, a in enumerate(labels)
        ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  title="application", frameon=False)  # fmt: skip
    note = ", half rows: co-located (spread) jobs" if (height < 1 - 1e-9).any() else ""
    ax.set_title(title or f"Gantt chart ({len(jobs)} jobs, {cluster}{note})")
    return fig


def _cores_view(jobs, cluster, ax, fig, t0, div, unit, apps, by_app, app_names, title) -> Figure:
    """Packing-free stand-in for the Gantt chart: used cores over time, stacked by app."""
    groups = apps if by_app else np.zeros(len(jobs), dtype=np.int64)
    t, labels, values = S.cores_by_group(jobs, groups)
    if len(t):
        ax.stackplot(
            (t - t0) / div,
            values,
            step="post",
            colors=_PALETTE[: len(labels)],
            labels=[_app_label(a, app_names) if a != "other" else "other" for a in labels]
            if by_app
            else ["all jobs"],
        )
        ax.set_xlim(0, max(float((t[-1] - t0) / div), 1e-9))
    ax.axhline(cluster.total_cores, color="black", lw=0.8, ls="--", label="cluster cores")
    ax.set_ylim(0, cluster.total_cores * 1.05)
    ax.set_xlabel(f"time since first submission ({unit})")
    ax.set_ylabel("cores in use")
    handles, names = ax.get_legend_handles_labels()
    ax.legend(  # top of the legend = top of the stack
        handles[-2::-1] + handles[-1:],
        names[-2::-1] + names[-1:],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
    )
    ax.set_title(title or f"Cores over time, no node allocation recorded ({len(jobs)} jobs)")
    return fig


def _series_figure(jobs, series, ax, *, scale=1.0, color, lw, ylim, ylabel, title):
    """One step series over time since the first submission (the shared shape of the
    utilization, queue and throughput figures); returns the figure and its axes."""
    fig, ax = _new_axes(ax)
    t0, div, unit = _origin_and_unit(jobs)
    _step(ax, series, t0, div, scale, color=color, lw=lw)
    ax.set_ylim(*ylim)
    ax.set_xlim(left=0)
    ax.set_xlabel(f"time since first submission ({unit})")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig, ax


def utilization_figure(
    jobs: pd.DataFrame,
    cluster: Cluster,
    ax: Axes | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> Figure:
    """Utilization over time in % of the cluster's cores, with the run's mean utilization as a
    line when ``metrics`` (its metrics.json) holds it."""
    s = S.utilization(jobs, cluster)
    fig, ax = _series_figure(
        jobs, s, ax, scale=100.0, color="#1f77b4", lw=0.8, ylim=(0, 105),
        ylabel="utilization (% of cores)", title="Utilization over time",
    )  # fmt: skip
    mean = 100 * metric(metrics or {}, "utilization")
    if len(s) and math.isfinite(mean):
        ax.axhline(mean, color="#d62728", ls="--", lw=1, label=f"mean {mean:.1f}%")
        ax.legend(loc="lower right", fontsize=8)
    return fig


def queue_figure(jobs: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """Waiting-queue size over time."""
    return _series_figure(
        jobs, S.queue_size(jobs), ax, color="#ff7f0e", lw=0.8, ylim=(0, None),
        ylabel="waiting jobs", title="Waiting-queue size over time",
    )[0]  # fmt: skip


def throughput_figure(jobs: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """Cumulative number of finished jobs over time."""
    top = max(len(jobs), 1) * 1.03
    return _series_figure(
        jobs, S.throughput(jobs), ax, color="#2ca02c", lw=1, ylim=(0, top),
        ylabel="finished jobs", title="Throughput (cumulative finished jobs)",
    )[0]  # fmt: skip


def unused_cores_figure(jobs: pd.DataFrame, cluster: Cluster, ax: Axes | None = None) -> Figure:
    """Unused cores over time, split into idle (unallocated) and allocated-but-unused cores."""
    fig, ax = _new_axes(ax)
    t0, div, unit = _origin_and_unit(jobs)
    start, end = jobs["start"].to_numpy(float), jobs["end"].to_numpy(float)
    held = S.step_sum(start, end, S.allocated_cores(jobs, cluster))
    used = S.busy_cores(jobs)
    if len(used):
        t = np.union1d(held.t, used.t)
        idle = cluster.total_cores - held.at(t)
        waste = np.maximum(held.at(t) - used.at(t), 0.0)
        ax.stackplot(
            (t - t0) / div,
            idle,
            waste,
            step="post",
            colors=["#c7c7c7", "#d62728"],
            labels=["idle (no job)", "allocated but unused"],
        )
        ax.legend(loc="upper right", fontsize=8)
        ax.set_xlim(0, (t[-1] - t0) / div)
    ax.set_ylim(0, cluster.total_cores * 1.05)
    ax.set_xlabel(f"time since first submission ({unit})")
    ax.set_ylabel("unused cores")
    ax.set_title(f"Unused cores over time (cluster: {cluster.total_cores} cores)")
    return fig


def speedup_boxplot(
    jobs: pd.DataFrame, ax: Axes | None = None, app_names: Mapping[int, str] | None = None
) -> Figure | None:
    """Box plot of job speedups (compact time / actual) per application; None without speedups."""
    if "speedup" not in jobs.columns or not jobs["speedup"].notna().any():
        return None
    data = jobs[["app", "speedup"]].dropna() if "app" in jobs else jobs[["speedup"]].dropna()
    groups = sorted(data["app"].unique()) if "app" in data else [None]
    values = [
        data.loc[data["app"] == g, "speedup"].to_numpy() if g is not None else data["speedup"]
        for g in groups
    ]
    labels = [
        f"{_app_label(g, app_names) if g is not None else 'all'}\n(n={len(v)})"
        for g, v in zip(groups, values, strict=True)
    ]
    fig, ax = _new_axes(ax, (max(6, 0.45 * len(groups) + 2), 4.5))
    ax.boxplot(values, tick_labels=labels, showfliers=True, flierprops={"markersize": 2})
    ax.axhline(1.0, color="#d62728", lw=0.8, ls="--")
    ax.set_ylabel("speedup (compact time / actual)")
    ax.tick_params(axis="x", labelrotation=60 if len(groups) > 6 else 0, labelsize=8)
    ax.set_title(f"Job speedup per application ({len(data)} jobs)")
    return fig


def comparison(results: Mapping[str, Any]) -> Figure:
    """Several schedules side by side: makespan, mean wait and mean bounded slowdown bars (each
    run's stored metrics, as given), utilization, queue size and throughput curves.

    ``results``: name -> :class:`.runs.Run`, ``(jobs, cluster, metrics)`` or a Result."""
    runs = as_runs(results)
    fig = _figure((13, 7.5))
    axes = fig.subplots(2, 3)
    names = list(runs)
    div, unit = time_unit(largest(runs, "makespan"))
    colors = [_PALETTE[i % len(_PALETTE)] for i in range(len(names))]
    wdiv, wunit = time_unit(largest(runs, "wait_mean"))
    bars = [
        ("makespan", f"makespan ({unit})", div),
        ("wait_mean", f"mean wait ({wunit})", wdiv),
        ("bounded_slowdown_mean", "mean bounded slowdown", 1.0),
    ]
    for ax, (key, label, d) in zip(axes[0], bars, strict=True):
        vals = [metric(runs[k].metrics, key) / d for k in names]
        ax.bar(range(len(names)), vals, color=colors)
        ax.set_xticks(range(len(names)), names, rotation=20 if len(names) > 3 else 0)
        ax.set_title(label)
        for i, v in enumerate(vals):
            if math.isfinite(v):
                ax.annotate(f"{v:.3g}", (i, v), ha="center", va="bottom", fontsize=8)
        ax.margins(y=0.12)
    curves = [
        (lambda f, c: S.utilization(f, c), 100.0, "utilization (%)"),
        (lambda f, c: S.queue_size(f), 1.0, "waiting jobs"),
        (lambda f, c: S.throughput(f), 1.0, "finished jobs"),
    ]
    for ax, (fn, scale, label) in zip(axes[1], curves, strict=True):
        for name, color in zip(names, colors, strict=True):
            frame, cluster, _ = runs[name]
            if not len(frame):
                continue
            t0 = float(np.nanmin(frame["submit"].to_numpy(float)))
            _step(ax, fn(frame, cluster), t0, div, scale, color=color, lw=0.9, label=name)
        ax.set_xlabel(f"time since first submission ({unit})")
        ax.set_title(label)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    axes[1][0].set_ylim(0, 105)
    axes[1][2].legend(loc="lower right", fontsize=8)
    fig.suptitle("Scheduler comparison")
    return fig


def save_figures(
    jobs: pd.DataFrame,
    cluster: Cluster,
    out_dir: str | Path,
    prefix: str = "",
    app_names: Mapping[int, str] | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Write the per-schedule PNGs (gantt, utilization, queue, throughput, unused cores,
    speedup when present) into ``out_dir``; returns their paths. ``metrics``: the run's stored
    metrics (metrics.json), for the numbers the figures quote (the mean utilization)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, Figure | None]] = [
        ("gantt", gantt(jobs, cluster, app_names=app_names)),
        ("utilization", utilization_figure(jobs, cluster, metrics=metrics)),
        ("queue", queue_figure(jobs)),
        ("throughput", throughput_figure(jobs)),
        ("unused_cores", unused_cores_figure(jobs, cluster)),
        ("speedup", speedup_boxplot(jobs, app_names=app_names)),
    ]
    paths = []
    for name, fig in figs:
        if fig is None:
            continue
        path = out / f"{prefix}{name}.png"
        fig.savefig(path)
        paths.append(path)
    return paths
