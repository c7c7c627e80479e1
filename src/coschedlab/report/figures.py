"""Matplotlib figures of a schedule (the ELiSE paper, 3.1 "Output" and Fig. 3): Gantt chart,
utilization, waiting-queue size, throughput, unused cores, per-application speedups, and a
comparison of several schedulers.

Figures are built on :class:`matplotlib.figure.Figure` objects (Agg canvas, no pyplot state), so
they work headless and in threads, and are sized for a paper (:mod:`.style`). Rectangles of the
Gantt chart go into one :class:`~matplotlib.collections.PolyCollection` per hatch, so 100k jobs
draw in about a second. Time axes start at the first submission, in the unit and window of a
:class:`~.timeaxis.TimeAxis` (by default one fitting the run). Step series with more steps than
the figure has pixels are drawn as bins (:func:`.series.binned`), and the axis label says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from ..intervals import parse_alloc_column
from ..platform import Cluster
from . import series as S
from .runs import as_runs, metric, span
from .style import (
    MAX_CATEGORIES,
    PALETTE,
    category_style,
    figure,
    needs_log_scale,
    scheduler_color,
    scheduler_colors,
    wrap_label,
)
from .timeaxis import TimeAxis, bin_note, format_number, report_axis, time_unit

__all__ = [
    "COMPARISON_UTILIZATION_BINS",
    "MAX_BINS",
    "MAX_LEGEND_APPS",
    "colocated",
    "comparison",
    "gantt",
    "gantt_rectangles",
    "queue_figure",
    "run_figures",
    "save_figures",
    "speedup_boxplot",
    "throughput_figure",
    "time_unit",
    "unused_cores_figure",
    "utilization_figure",
]

#: Most bins of a drawn step series (about the figure's width in pixels).
MAX_BINS = 1000
#: About how many bins the comparison's utilization curves have: several runs' curves, each
#: the mean per bin of a round length (:data:`_ROUND_BINS`; the axis label states it), smooth
#: enough to tell apart.
COMPARISON_UTILIZATION_BINS = 60
_ROUND_BINS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
               43200, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400)  # fmt: skip
#: Most applications the Gantt chart's legend names: beyond, the applications holding the
#: fewest node-hours in the window are drawn grey, as "other".
MAX_LEGEND_APPS = 12
_OTHER_GREY = "#c7c7c7"
_SERIES_HEIGHT = 2.6


def _app_label(app: object, app_names: Mapping[int, str] | None) -> str:
    if app_names and isinstance(app, int | np.integer) and int(app) in app_names:
        return app_names[int(app)]
    return f"app {app}"


def _axes(ax: Axes | None, height: float) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    fig = figure(height)
    return fig, fig.add_subplot()


def _frame_axis(jobs: pd.DataFrame, axis: TimeAxis | None) -> tuple[float, float, TimeAxis]:
    """Origin and span of ``jobs`` (seconds) and the time axis to draw them on."""
    t0, length = span(jobs)
    return t0, length, axis or TimeAxis.for_span(length)


def _draw_series(
    ax: Axes, s: S.Series, t0: float, bounds: tuple[float, float], axis: TimeAxis,
    how: str, scale: float = 1.0, bins: int = MAX_BINS, **kw: Any,
) -> float | None:  # fmt: skip
    """Draw ``s`` over ``bounds`` (seconds since ``t0``) as steps, in at most ``bins`` bins;
    returns the bin width (None when drawn exactly)."""
    [drawn], width = S.for_drawing([s], t0 + bounds[0], t0 + bounds[1], bins, how)
    ax.step((drawn.t - t0) / axis.div, drawn.v * scale, where="post", **kw)
    return width


def _time_xaxis(ax: Axes, axis: TimeAxis, length: float) -> None:
    ax.set_xlim(*axis.limits(length))
    ax.set_xlabel(axis.label)


def _round_bins(bounds: tuple[float, float], target: int) -> tuple[tuple[float, float], int]:
    """About ``target`` bins of a round length (:data:`_ROUND_BINS`) covering ``bounds``:
    the bounds extended to a whole number of them, and that number."""
    lo, hi = bounds
    if not hi > lo:
        return bounds, target
    width = next((w for w in _ROUND_BINS if w >= (hi - lo) / target), _ROUND_BINS[-1])
    n = max(1, math.ceil((hi - lo) / width - 1e-9))
    return (lo, lo + n * width), n


def _window_ylim(ax: Axes) -> None:
    """y-limits from what the lines of ``ax`` show (a window of a run: not the whole run's
    range, which would flatten the window's curves)."""
    ys = [np.asarray(line.get_ydata(), dtype=float) for line in ax.lines]
    ys = [y[np.isfinite(y)] for y in ys if len(y)]
    if not any(len(y) for y in ys):
        return
    lo = min(float(y.min()) for y in ys if len(y))
    hi = max(float(y.max()) for y in ys if len(y))
    pad = max(0.08 * (hi - lo), 0.5)
    ax.set_ylim(max(lo - pad, 0.0), hi + pad)


# --- Gantt chart -----------------------------------------------------------------------------


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


def app_styles(jobs: pd.DataFrame, color_by: str = "auto") -> tuple[np.ndarray, np.ndarray] | None:
    """The applications of ``jobs`` and each job's index among them (its style,
    :func:`.style.category_style`) when the Gantt chart colours by application, else None.

    ``color_by``: ``"app"``, ``"job"`` or ``"auto"`` (by application when there are 2 to
    :data:`.style.MAX_CATEGORIES` of them)."""
    if "app" not in jobs.columns or color_by == "job":
        return None
    apps, index = np.unique(jobs["app"].to_numpy(), return_inverse=True)
    if color_by == "app" or 2 <= len(apps) <= MAX_CATEGORIES:
        return apps, index
    return None


def gantt(
    jobs: pd.DataFrame,
    cluster: Cluster,
    ax: Axes | None = None,
    *,
    color_by: str = "auto",
    app_names: Mapping[int, str] | None = None,
    title: str | None = None,
    axis: TimeAxis | None = None,
) -> Figure:
    """Gantt chart: nodes on y (from ``alloc``), one rectangle per job and node range.

    ``color_by``: ``"app"``, ``"job"`` or ``"auto"`` (by application when 2-80 of them: twenty
    colours, then the same hatched, legend outside the plot). Spread (co-located) jobs fill
    half a node row. ``axis`` gives the unit and the window shown (only jobs running in it are
    drawn). Without ``alloc`` strings, falls back to a packing-free view: used cores over time,
    stacked by application.
    """
    t0, length, axis = _frame_axis(jobs, axis)
    styled = app_styles(jobs, color_by)
    rows, start, end, y0, y1 = gantt_rectangles(jobs, cluster)
    if not len(rows):
        return _cores_view(jobs, cluster, ax, t0, length, axis, styled, app_names, title)
    lo, hi = axis.window.bounds(length)
    keep = (end > t0 + lo) & (start < t0 + hi) | ((start == end) & (start >= t0 + lo))
    rows, start, end, y0, y1 = rows[keep], start[keep], end[keep], y0[keep], y1[keep]
    shown = len(np.unique(rows))
    x0, x1 = (start - t0) / axis.div, (end - t0) / axis.div
    other = 0
    if styled:
        style = styled[1][rows]
        if len(styled[0]) > MAX_LEGEND_APPS:
            styled, style, other = _top_apps(styled[0], style, (x1 - x0) * (y1 - y0))
    else:
        ids = jobs["job_id"].to_numpy() if "job_id" in jobs.columns else np.arange(len(jobs))
        style = np.asarray(ids, dtype=np.int64)[rows] % len(PALETTE)
    n_styles = len(styled[0]) + bool(other) if styled else 0
    below = n_styles > MAX_LEGEND_APPS  # a long legend goes below the plot, in columns
    fig, ax = _axes(ax, 4.2 + (0.16 * math.ceil(n_styles / 5) if below else 0))
    verts = np.stack([np.column_stack(p) for p in ((x0, y0), (x0, y1), (x1, y1), (x1, y0))], axis=1)
    many = len(rows) > 3000
    colors = np.array(PALETTE + [_OTHER_GREY])  # style -1 ("other"): grey
    for hatch_group in np.unique(np.maximum(style, 0) // len(PALETTE)):
        m = np.maximum(style, 0) // len(PALETTE) == hatch_group
        hatch = category_style(int(hatch_group) * len(PALETTE))[1]
        ax.add_collection(
            PolyCollection(
                verts[m],
                facecolors=colors[np.where(style[m] < 0, -1, style[m] % len(PALETTE))],
                edgecolors="black" if (hatch or not many) else "none",
                linewidths=0 if many else 0.3,
                hatch=hatch or None,
                rasterized=many,
            )
        )
    _time_xaxis(ax, axis, length)
    ax.set_ylim(0, cluster.nodes)
    ax.set_ylabel("node")
    if cluster.nodes <= 40:
        ax.set_yticks(np.arange(cluster.nodes) + 0.5, [str(i) for i in range(cluster.nodes)])
        ax.tick_params(axis="y", labelsize=6 if cluster.nodes > 20 else 8)
    if styled:
        _app_legend(fig, ax, styled[0], app_names, below, other)
    half = (y1 - y0 < 1 - 1e-9).any()
    ax.set_title(title or _gantt_title(len(jobs), shown, cluster, axis, length, half), fontsize=9)
    return fig


def _top_apps(
    apps: np.ndarray, style: np.ndarray, area: np.ndarray
) -> tuple[tuple[np.ndarray, None], np.ndarray, int]:
    """The legend's applications when there are too many: the ``MAX_LEGEND_APPS - 1`` with
    the largest drawn ``area`` (node x time in the window) keep a colour each, the others
    become "other" (style -1). Returns the kept applications, largest first (as ``styled``),
    each rectangle's new style and how many applications "other" holds."""
    held = np.bincount(style, weights=area, minlength=len(apps))
    drawn = np.flatnonzero(held > 0)
    keep = drawn[np.argsort(-held[drawn], kind="stable")][: MAX_LEGEND_APPS - 1]  # largest first
    new = np.full(len(apps), -1)
    new[keep] = np.arange(len(keep))
    return (apps[keep], None), new[style], len(drawn) - len(keep)


def _app_legend(
    fig: Figure, ax: Axes, apps: np.ndarray, app_names, below: bool, other: int = 0
) -> None:
    handles = []
    for k, a in enumerate(apps):
        color, hatch = category_style(k)
        handles.append(Patch(facecolor=color, hatch=hatch, edgecolor="black", linewidth=0.3,
                             label=_app_label(a, app_names)))  # fmt: skip
    if other:
        handles.append(Patch(facecolor=_OTHER_GREY, edgecolor="black", linewidth=0.3,
                             label=f"other ({other} applications)"))  # fmt: skip
    title = "application" + (f"\n(top {len(apps)} by node-time)" if other else "")
    common = {"handles": handles, "fontsize": 7, "frameon": False, "title_fontsize": 7}
    if below:
        fig.legend(**common, loc="outside lower center", ncols=5, title=title,
                   handlelength=1.6, columnspacing=1.0)  # fmt: skip
    else:
        ax.legend(**common, loc="upper left", bbox_to_anchor=(1.0, 1.0), title=title)


def _gantt_title(
    n: int, shown: int, cluster: Cluster, axis: TimeAxis, length: float, half: bool
) -> str:
    window = axis.describe(length)
    jobs = f"{shown:,} of {n:,} jobs, {window} shown" if window else f"{n:,} jobs"
    note = "; half rows: co-located (spread) jobs" if half else ""
    return f"Gantt chart ({jobs})\n{cluster}{note}"


def _group_color(group: object, styled: tuple[np.ndarray, np.ndarray] | None) -> str:
    """The colour of an application in the cores view: its Gantt colour; grey for "other"."""
    if styled is None or isinstance(group, str):
        return PALETTE[0] if styled is None else "#c7c7c7"
    return category_style(int(np.flatnonzero(styled[0] == group)[0]))[0]


def _cores_view(jobs, cluster, ax, t0, length, axis, styled, app_names, title) -> Figure:
    """Packing-free stand-in for the Gantt chart: used cores over time, stacked by app."""
    fig, ax = _axes(ax, 4.2)
    groups = styled[0][styled[1]] if styled else np.zeros(len(jobs), dtype=np.int64)
    t, labels, values = S.cores_by_group(jobs, groups)
    lo, hi = axis.window.bounds(length)
    width = None
    if len(t):
        series = [S.Series(t, v) for v in values]
        drawn, width = S.for_drawing(series, t0 + lo, t0 + hi, MAX_BINS)
        names = [_app_label(a, app_names) if a != "other" else "other" for a in labels]
        ax.stackplot(
            (drawn[0].t - t0) / axis.div,
            [d.v for d in drawn],
            step="post",
            colors=[_group_color(a, styled) for a in labels],
            labels=names if styled else ["all jobs"],
        )
    ax.axhline(cluster.total_cores, color="black", lw=0.8, ls="--", label="cluster cores")
    ax.set_ylim(0, cluster.total_cores * 1.05)
    _time_xaxis(ax, axis, length)
    ax.set_ylabel("cores in use" + bin_note(width, "mean"))
    handles, names = ax.get_legend_handles_labels()
    ax.legend(  # top of the legend = top of the stack
        handles[-2::-1] + handles[-1:],
        names[-2::-1] + names[-1:],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=7,
        frameon=False,
    )
    window = axis.describe(length)
    ax.set_title(
        title
        or f"Cores over time, no node allocation recorded ({len(jobs):,} jobs"
        + (f"; {window} shown)" if window else ")"),
        fontsize=9,
    )
    return fig


# --- series over time ------------------------------------------------------------------------


def _series_figure(jobs, series, ax, axis, *, how, scale=1.0, color, ylim, ylabel, title):
    """One step series over time since the first submission (the shared shape of the
    utilization, queue and throughput figures); returns the figure and its axes. ``ylim``
    None: the range the curve takes in the shown window."""
    fig, ax = _axes(ax, _SERIES_HEIGHT)
    t0, length, axis = _frame_axis(jobs, axis)
    width = None
    if len(series):
        bounds = axis.window.bounds(length)
        width = _draw_series(ax, series, t0, bounds, axis, how, scale, color=color, lw=0.8)
    if ylim is None:
        _window_ylim(ax)
    else:
        ax.set_ylim(*ylim)
    _time_xaxis(ax, axis, length)
    ax.set_ylabel(ylabel + bin_note(width, how))
    ax.set_title(title, fontsize=10)
    return fig, ax


def utilization_figure(
    jobs: pd.DataFrame,
    cluster: Cluster,
    ax: Axes | None = None,
    metrics: Mapping[str, Any] | None = None,
    *,
    axis: TimeAxis | None = None,
    color: str = PALETTE[0],
) -> Figure:
    """Utilization over time in % of the cluster's cores (time-weighted mean per bin on long
    runs), with the run's mean utilization as a line when ``metrics`` (its metrics.json)
    holds it. ``color``: the curve's (a scheduler's, :func:`.style.scheduler_color`)."""
    s = S.utilization(jobs, cluster)
    fig, ax = _series_figure(
        jobs, s, ax, axis, how="mean", scale=100.0, color=color, ylim=(0, 105),
        ylabel="utilization (% of cores)", title="Utilization over time",
    )  # fmt: skip
    mean = 100 * metric(metrics or {}, "utilization")
    if len(s) and math.isfinite(mean):
        ax.axhline(mean, color="black", ls="--", lw=1, label=f"run mean {mean:.1f}%")
        ax.legend(loc="lower right", fontsize=8)
    return fig


def queue_figure(
    jobs: pd.DataFrame,
    ax: Axes | None = None,
    *,
    axis: TimeAxis | None = None,
    color: str = PALETTE[1],
) -> Figure:
    """Waiting-queue size over time (the largest per bin on long runs)."""
    return _series_figure(
        jobs, S.queue_size(jobs), ax, axis, how="max", color=color, ylim=(0, None),
        ylabel="waiting jobs", title="Waiting-queue size over time",
    )[0]  # fmt: skip


def throughput_figure(
    jobs: pd.DataFrame,
    ax: Axes | None = None,
    *,
    axis: TimeAxis | None = None,
    color: str = PALETTE[2],
) -> Figure:
    """Cumulative number of finished jobs over time (at each bin's end on long runs); in a
    window, the y-range is the window's."""
    windowed = axis is not None and not axis.window.is_open
    top = max(len(jobs), 1) * 1.03
    return _series_figure(
        jobs, S.throughput(jobs), ax, axis, how="max", color=color,
        ylim=None if windowed else (0, top),
        ylabel="finished jobs", title="Throughput (cumulative finished jobs)",
    )[0]  # fmt: skip


def unused_cores_figure(
    jobs: pd.DataFrame, cluster: Cluster, ax: Axes | None = None, *, axis: TimeAxis | None = None
) -> Figure:
    """Unused cores over time, split into idle (unallocated) and allocated-but-unused cores
    (time-weighted means per bin on long runs)."""
    fig, ax = _axes(ax, _SERIES_HEIGHT)
    t0, length, axis = _frame_axis(jobs, axis)
    start, end = jobs["start"].to_numpy(float), jobs["end"].to_numpy(float)
    held = S.step_sum(start, end, S.allocated_cores(jobs, cluster))
    used = S.busy_cores(jobs)
    width = None
    if len(used):
        lo, hi = axis.window.bounds(length)
        t = np.union1d(held.t, used.t)
        waste = S.Series(t, np.maximum(held.at(t) - used.at(t), 0.0))  # allocated, unused
        (held_d, waste_d), width = S.for_drawing([held, waste], t0 + lo, t0 + hi, MAX_BINS)
        ax.stackplot(
            (held_d.t - t0) / axis.div,
            cluster.total_cores - held_d.v,
            waste_d.v,
            step="post",
            colors=["#c7c7c7", PALETTE[3]],
            labels=["idle (no job)", "allocated but unused"],
        )
        ax.legend(loc="upper right", fontsize=8)
    ax.set_ylim(0, cluster.total_cores * 1.05)
    _time_xaxis(ax, axis, length)
    ax.set_ylabel("unused cores" + bin_note(width, "mean"))
    ax.set_title(f"Unused cores over time (cluster: {cluster.total_cores:,} cores)", fontsize=10)
    return fig


# --- speedups --------------------------------------------------------------------------------


def speedup_boxplot(
    jobs: pd.DataFrame,
    ax: Axes | None = None,
    app_names: Mapping[int, str] | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> Figure | None:
    """Box plot of job speedups (compact time / actual) per application; None without speedups.

    Speedups within ``metrics.SPEEDUP_TOLERANCE`` of 1 are drawn as 1 (float rounding of a
    compact run, not a spread). The title quotes the run's stored share of jobs slower than
    compact when ``metrics`` holds it."""
    speedup = S.drawn_speedups(jobs)
    ok = np.isfinite(speedup)
    if not ok.any():
        return None
    apps = jobs["app"].to_numpy()[ok] if "app" in jobs.columns else None
    values, labels = [], []
    for g in np.unique(apps) if apps is not None else [None]:
        v = speedup[ok] if g is None else speedup[ok][apps == g]
        values.append(v)
        labels.append(f"{'all' if g is None else _app_label(g, app_names)} (n={len(v)})")
    many = len(values) > 6
    fig, ax = _axes(ax, 3.6 if many else 3.0)
    ax.boxplot(values, tick_labels=labels, showfliers=True, flierprops={"markersize": 2},
               widths=0.6)  # fmt: skip
    ax.axhline(1.0, color=PALETTE[3], lw=0.8, ls="--")
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    if all(np.all(v == 1.0) for v in values):
        ax.set_ylim(0.9, 1.1)
        ax.text(0.5, 0.75, "every job ran at its compact speed (speedup 1)", ha="center",
                transform=ax.transAxes, fontsize=8, color="#555555")  # fmt: skip
    ax.set_ylabel("speedup (compact time / actual)")
    ax.tick_params(axis="x", labelrotation=90 if many else 0, labelsize=6 if many else 8)
    slower = metric(metrics or {}, "slower_than_compact")
    note = f"; {100 * slower:.1f}% slower than compact" if math.isfinite(slower) else ""
    ax.set_title(f"Job speedup per application ({int(ok.sum()):,} jobs{note})", fontsize=10)
    return fig


# --- comparison ------------------------------------------------------------------------------

_BARS = (
    ("makespan", "makespan", True),
    ("wait_mean", "mean wait", True),
    ("bounded_slowdown_mean", "mean bounded slowdown", False),
)
_CURVES = (
    ("utilization (% of cores)", lambda f, c: S.utilization(f, c), 100.0, "mean"),
    ("waiting jobs", lambda f, c: S.queue_size(f), 1.0, "max"),
    ("finished jobs", lambda f, c: S.throughput(f), 1.0, "max"),
)


def comparison(results: Mapping[str, Any], *, axis: TimeAxis | None = None) -> Figure:
    """Several schedules: makespan, mean wait and mean bounded slowdown as horizontal bars (each
    run's stored metrics, as given; log scale when a panel spans more than 100x), over the
    utilization, queue size and throughput curves, all in one time unit. Each scheduler has
    its colour (:func:`.style.scheduler_colors`); the utilization curves are means over
    :data:`COMPARISON_UTILIZATION_BINS` bins of the shown time (the label says how long), so
    that several runs' curves can be told apart; in a window, each curve's y-range is the
    window's.

    ``results``: name -> :class:`.runs.Run`, ``(jobs, cluster, metrics)`` or a Result."""
    runs = as_runs(results)
    axis = axis or report_axis(runs)
    names = list(runs)
    labels = [wrap_label(n, 18) for n in names]
    lines = max(label.count("\n") + 1 for label in labels)  # every bar gets room for this
    bar_height = max(1.1, 0.5 + len(names) * (0.1 + 0.14 * lines))
    fig = figure(bar_height + 3 * 1.55 + 0.5)
    grid = fig.add_gridspec(4, 3, height_ratios=[bar_height, 1.55, 1.55, 1.55])
    colors = list(scheduler_colors(names).values())
    y = np.arange(len(names))
    bar_axes = []
    for col, (key, title, is_time) in enumerate(_BARS):
        ax = fig.add_subplot(grid[0, col], sharey=bar_axes[0] if bar_axes else None)
        bar_axes.append(ax)
        div = axis.div if is_time else 1.0
        vals = np.array([metric(runs[k].metrics, key) / div for k in names])
        log = needs_log_scale(vals)
        shown = vals.copy()  # NaN (no stored value): no bar
        top = float(np.nanmax(vals, initial=0.0)) or 1.0  # no positive value: 0-1.35
        if log:  # zero bars as a stub a decade below the smallest; room for the labels
            ax.set_xscale("log")
            low = float(vals[vals > 0].min()) / 10
            shown[vals <= 0] = low
            ax.set_xlim(low, top * 30)
        else:
            ax.set_xlim(0, top * 1.35)
        ax.barh(y, shown, color=colors, height=0.7)
        for i, v in enumerate(vals):
            if math.isfinite(v):
                ax.annotate(f" {format_number(v)}", (shown[i], i), va="center", fontsize=7)
        unit = f" ({axis.unit})" if is_time else ""
        ax.set_title(f"{title}{unit}" + ("\n(log scale)" if log else ""), fontsize=9)
        _value_ticks(ax, log)
        if col:
            ax.tick_params(axis="y", labelleft=False)
    bar_axes[0].set_yticks(y, labels, fontsize=8)
    bar_axes[0].invert_yaxis()
    length = max(span(r.jobs)[1] for r in runs.values())
    bounds = axis.window.bounds(length)
    curve_axes: list[Axes] = []
    for row, (label, fn, scale, how) in enumerate(_CURVES, 1):
        ax = fig.add_subplot(grid[row, :], sharex=curve_axes[0] if curve_axes else None)
        curve_axes.append(ax)
        width = None
        drawn, bins = bounds, MAX_BINS
        if row == 1:  # utilization: means per round bin
            drawn, bins = _round_bins(bounds, COMPARISON_UTILIZATION_BINS)
        for name, color in zip(names, colors, strict=True):
            frame, cluster = runs[name].jobs, runs[name].cluster
            if len(frame):
                t0 = span(frame)[0]
                binned = _draw_series(ax, fn(frame, cluster), t0, drawn, axis, how, scale,
                                      bins, color=color, lw=1.0, label=name)  # fmt: skip
                width = binned or width  # the label states the bin when any curve has one
        ax.set_ylabel(label.replace(" (", "\n(") + bin_note(width, how), fontsize=8)
        if label == "finished jobs" and not axis.window.is_open:
            _window_ylim(ax)  # cumulative: the window's range, not the whole run's
        else:
            ax.set_ylim(bottom=0)
        ax.tick_params(labelsize=7)
        if row < len(_CURVES):
            ax.tick_params(axis="x", labelbottom=False)
    curve_axes[0].set_ylim(0, 105)
    _time_xaxis(curve_axes[-1], axis, length)
    one_row = sum(len(n) + 6 for n in names) <= 90  # characters across the page
    fig.legend(*curve_axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=len(names) if one_row else min(len(names), 3), fontsize=8,
               frameon=False)  # fmt: skip
    window = axis.describe(length)
    fig.suptitle("Scheduler comparison" + (f" ({window} shown)" if window else ""), fontsize=10)
    return fig


def _value_ticks(ax: Axes, log: bool) -> None:
    """Few, readable value ticks on a bar panel's x-axis (``10,000``, not ``10000``
    touching its neighbour)."""
    ax.tick_params(axis="x", labelsize=7)
    if log:
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3, min_n_ticks=2))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: format_number(v)))


def colocated(jobs: pd.DataFrame) -> bool:
    """True when some job of ``jobs`` was co-located (``placement == "spread"``): only then
    does a run have speedups to draw."""
    return "placement" in jobs.columns and bool((jobs["placement"] == "spread").any())


def _named(fig: Figure | None, name: str | None) -> Figure | None:
    """``fig`` with the scheduler ``name`` at the head of its title."""
    if fig is not None and name:
        ax = fig.axes[0]
        ax.set_title(f"{name}: {ax.get_title()}", fontsize=ax.title.get_fontsize())
    return fig


def run_figures(
    jobs: pd.DataFrame,
    cluster: Cluster,
    app_names: Mapping[int, str] | None = None,
    metrics: Mapping[str, Any] | None = None,
    *,
    axis: TimeAxis | None = None,
    name: str | None = None,
) -> list[tuple[str, Figure]]:
    """The per-schedule figures as ``(what, figure)``: gantt, utilization, queue, throughput,
    unused cores, and speedup when some job was co-located (:func:`colocated`; without, every
    speedup is 1 and the figure would be empty). ``metrics``: the run's stored metrics
    (metrics.json), for the numbers the figures quote; ``axis``: the report's time unit and
    window (default: one fitting this run); ``name``: the scheduler, named in every title,
    whose colour (:func:`.style.scheduler_color`) the curves take."""
    axis = axis or _frame_axis(jobs, None)[2]
    color = {"color": scheduler_color(name)} if name else {}
    figs: list[tuple[str, Figure | None]] = [
        ("gantt", gantt(jobs, cluster, app_names=app_names, axis=axis)),
        ("utilization", utilization_figure(jobs, cluster, metrics=metrics, axis=axis, **color)),
        ("queue", queue_figure(jobs, axis=axis, **color)),
        ("throughput", throughput_figure(jobs, axis=axis, **color)),
        ("unused_cores", unused_cores_figure(jobs, cluster, axis=axis)),
    ]
    if colocated(jobs):
        figs.append(("speedup", speedup_boxplot(jobs, app_names=app_names, metrics=metrics)))
    return [(what, _named(fig, name)) for what, fig in figs if fig is not None]


def save_figures(
    jobs: pd.DataFrame,
    cluster: Cluster,
    out_dir: str | Path,
    prefix: str = "",
    app_names: Mapping[int, str] | None = None,
    metrics: Mapping[str, Any] | None = None,
    *,
    axis: TimeAxis | None = None,
    name: str | None = None,
) -> list[Path]:
    """Write the figures of :func:`run_figures` into ``out_dir`` as ``<prefix><what>.png``;
    returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for what, fig in run_figures(jobs, cluster, app_names, metrics, axis=axis, name=name):
        path = out / f"{prefix}{what}.png"
        fig.savefig(path)
        paths.append(path)
    return paths
