"""One self-contained interactive HTML report (plotly, with plotly.js embedded: no CDN, works
offline): summary table (each run's stored metrics, as given), scheduler comparison, and per
schedule the Gantt chart, utilization, queue, throughput, unused cores and speedups (the ELiSE
paper, 3.1 "Output").

The page uses the report's one time unit and window (:class:`~.timeaxis.TimeAxis`, as the
PNGs). Step series with more than ``MAX_BINS`` steps in the window are drawn as bins (mean or
largest value per bin, as the axis title says); Gantt charts with more than ``MAX_GANTT_BARS``
rectangles in the window are embedded as the matplotlib PNG instead of plotly bars.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..platform import Cluster
from . import figures as F
from . import series as S
from .runs import Run, as_runs, metric, span
from .style import PLOTLY_HATCHES, category_style, needs_log_scale, scheduler_colors, wrap_label
from .timeaxis import TimeAxis, bin_note, format_number, report_axis

__all__ = [
    "MAX_BINS",
    "MAX_GANTT_BARS",
    "comparison_figures",
    "gantt_figure",
    "node_mates",
    "report_html",
    "speedup_box",
    "write_html",
]

MAX_BINS = 2000
MAX_GANTT_BARS = 20000

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1250px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}
th:first-child,td:first-child{text-align:left}
h2{border-bottom:2px solid #0067a5;padding-bottom:3px;margin-top:2em}
.note{color:#666;font-size:13px}
"""


def _line(
    s: S.Series, t0: float, bounds: tuple[float, float], axis: TimeAxis, how: str,
    scale: float, name: str, color: str,
) -> tuple[go.Scatter, float | None]:  # fmt: skip
    [s], width = S.for_drawing([s], t0 + bounds[0], t0 + bounds[1], MAX_BINS, how)
    trace = go.Scatter(
        x=(s.t - t0) / axis.div,
        y=s.v * scale,
        mode="lines",
        line={"shape": "hv", "width": 1.2, "color": color},
        name=name,
    )
    return trace, width


def _time_layout(fig: go.Figure, axis: TimeAxis, length: float) -> None:
    fig.update_xaxes(title_text=axis.label, range=list(axis.limits(length)))


def _lines_figure(title: str, drawn: list, how: str, axis: TimeAxis, length: float) -> go.Figure:
    """One figure of step lines over time (:func:`_line`'s traces and bin widths), its title
    saying how they are binned."""
    fig = go.Figure([trace for trace, _ in drawn])
    width = drawn[-1][1] if drawn else None
    fig.update_layout(title=title + bin_note(width, how, "<br>"), height=330, margin={"t": 60})
    _time_layout(fig, axis, length)
    return fig


def _cell(v: float, fmt: str) -> str:
    """A table cell: ``fmt`` (e.g. 3 decimals), or 2 significant digits for a small nonzero
    value that ``fmt`` would show as 0."""
    if not math.isfinite(v):
        return ""
    text = fmt.format(v)
    if v != 0 and float(text) == 0:
        return f"{v:.2g}"
    return text


def _summary_table(runs: Mapping[str, Run], axis: TimeAxis) -> str:
    """The runs' metrics (as stored) in one table, times in the report's unit; a metric no run
    has gets no column."""
    div, unit = axis.div, axis.unit
    cols = [
        ("n_jobs", "jobs", 1, "{:.0f}"),
        ("makespan", f"makespan ({unit})", div, "{:.3f}"),
        ("wait_mean", f"mean wait ({unit})", div, "{:.3f}"),
        ("response_mean", f"mean response ({unit})", div, "{:.3f}"),
        ("bounded_slowdown_mean", "mean bounded slowdown", 1, "{:.3f}"),
        ("utilization", "utilization (%)", 0.01, "{:.2f}"),
        ("utilization_until_queue_empty", "utilization until queue empty (%)", 0.01, "{:.2f}"),
        ("speedup_mean", "mean speedup", 1, "{:.4f}"),
        ("slower_than_compact", "slower than compact (%)", 0.01, "{:.1f}"),
    ]
    cols = [c for c in cols if any(c[0] in r.metrics for r in runs.values())]
    head = "".join(f"<th>{html.escape(c[1])}</th>" for c in cols)
    body = []
    for name, r in runs.items():
        cells = "".join(f"<td>{_cell(metric(r.metrics, c[0]) / c[2], c[3])}</td>" for c in cols)
        body.append(f"<tr><td>{html.escape(name)}</td>{cells}</tr>")
    return f"<table><tr><th>schedule</th>{head}</tr>{''.join(body)}</table>"


def comparison_figures(runs: Mapping[str, Run], axis: TimeAxis) -> list[go.Figure]:
    """The schedulers side by side: makespan, wait and slowdown bars (the runs' stored
    metrics), then utilization, queue and throughput over time, one line per run."""
    names = list(runs)
    labels = [html.escape(wrap_label(n, 18)).replace("\n", "<br>") for n in names]
    colors = list(scheduler_colors(names).values())  # as in the PNGs
    titles, values, logs = [], [], []
    for key, title, is_time in F._BARS:
        vals = [metric(runs[k].metrics, key) / (axis.div if is_time else 1.0) for k in names]
        logs.append(needs_log_scale(vals))
        values.append(vals)
        unit = f" ({axis.unit})" if is_time else ""
        titles.append(f"{title}{unit}" + (" (log scale)" if logs[-1] else ""))
    bars = make_subplots(rows=1, cols=3, subplot_titles=titles, shared_yaxes=True)
    for col, (vals, log) in enumerate(zip(values, logs, strict=True), 1):
        bars.add_trace(
            go.Bar(
                x=vals,
                y=labels,
                orientation="h",
                marker_color=colors,
                text=[format_number(v) if math.isfinite(v) else "" for v in vals],
                textposition="outside",
                cliponaxis=False,
                showlegend=False,
                hovertemplate="%{y}: %{x:.4g}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        if log:
            bars.update_xaxes(type="log", row=1, col=col)
    lines = sum(label.count("<br>") + 1 for label in labels)
    bars.update_yaxes(autorange="reversed", automargin=True)
    bars.update_layout(height=max(260, 120 + 22 * max(lines, len(names))), margin={"t": 50})
    figs = [bars]
    length = max(span(r.jobs)[1] for r in runs.values())
    bounds = axis.window.bounds(length)
    for title, fn, scale, how in F._CURVES:
        drawn = [
            _line(fn(r.jobs, r.cluster), span(r.jobs)[0], bounds, axis, how, scale, name, color)
            for (name, r), color in zip(runs.items(), colors, strict=True)
            if len(r.jobs)
        ]
        figs.append(_lines_figure(title, drawn, how, axis, length))
    return figs


#: Gantt bars whose hover lists the job's node mates (beyond: the pairs take too long)
MAX_MATES_BARS = 5000


def node_mates(
    ids: np.ndarray, start: np.ndarray, end: np.ndarray, y0: np.ndarray, y1: np.ndarray,
    shown: int = 6,
) -> list[str]:  # fmt: skip
    """For each Gantt rectangle, the other jobs that hold part of the same nodes while it
    runs (whole nodes ``[floor(y0), ceil(y1))``: two co-located halves of a node are mates;
    times ``[start, end)`` overlapping), as text: up to ``shown`` job ids and how many more;
    "" for none."""
    n = len(ids)
    y0, y1 = np.floor(y0), np.ceil(y1)
    out = [""] * n
    step = max(1, 2_000_000 // max(n, 1))
    for a in range(0, n, step):
        b = min(n, a + step)
        hit = (
            (start[a:b, None] < end[None, :]) & (start[None, :] < end[a:b, None])
            & (y0[a:b, None] < y1[None, :]) & (y0[None, :] < y1[a:b, None])
            & (ids[a:b, None] != ids[None, :])
        )  # fmt: skip
        for i, row in enumerate(hit, a):
            mates = np.unique(ids[row])
            if len(mates):
                text = ", ".join(str(m) for m in mates[:shown])
                more = len(mates) - shown
                out[i] = text + (f" and {more} more" if more > 0 else "")
    return out


def gantt_figure(
    frame: pd.DataFrame,
    cluster: Cluster,
    app_names: Mapping[int, str] | None,
    axis: TimeAxis,
    max_bars: int = MAX_GANTT_BARS,
    image: bool = True,
) -> go.Figure | str:
    """Plotly Gantt (one bar per job and node range in the window, a colour and pattern per
    application; hovering names the job, its application and its node mates). With more than
    ``max_bars`` bars in the window: an <img> of the PNG (``image``), else the nodes' busy
    share per time bin as a heatmap (:func:`gantt_heatmap`)."""
    t0, length = span(frame)
    rows, start, end, y0, y1 = F.gantt_rectangles(frame, cluster)
    lo, hi = axis.window.bounds(length)
    keep = (end > t0 + lo) & (start < t0 + hi) | ((start == end) & (start >= t0 + lo))
    rows, start, end, y0, y1 = rows[keep], start[keep], end[keep], y0[keep], y1[keep]
    if len(rows) > max_bars and not image:
        return gantt_heatmap(frame, cluster, axis, (rows, start, end, y0, y1))
    if not len(rows) or len(rows) > max_bars:
        buf = io.BytesIO()
        F.gantt(frame, cluster, app_names=app_names, axis=axis).savefig(buf, format="png")
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        return f'<img alt="Gantt chart" style="max-width:100%" src="data:image/png;base64,{data}">'
    start, end = (start - t0) / axis.div, (end - t0) / axis.div
    styled = F.app_styles(frame)
    if styled is not None:
        apps, style_of = styled[0], styled[1][rows]
    else:
        apps, style_of = np.array([None]), np.zeros(len(rows), dtype=np.int64)
    app_of = frame["app"].to_numpy()[rows] if "app" in frame.columns else np.full(len(rows), -1)
    ids = frame["job_id"].to_numpy()[rows] if "job_id" in frame.columns else rows + 1
    procs = frame["procs"].to_numpy()[rows]
    if len(rows) <= MAX_MATES_BARS:
        mates = np.array(["node mates: " + (m or "none") + "<br>"
                          for m in node_mates(ids, start, end, y0, y1)])  # fmt: skip
    else:
        mates = np.full(len(rows), "")
    fig = go.Figure()
    by_job = np.array(F.PALETTE)[np.asarray(ids, dtype=np.int64) % len(F.PALETTE)]
    for k, app in enumerate(apps):
        m = style_of == k
        if not m.any():
            continue
        color = category_style(k)[0] if styled is not None else by_job
        hatch = PLOTLY_HATCHES[(k // len(F.PALETTE)) % len(PLOTLY_HATCHES)]
        label = F._app_label(app, app_names) if app is not None else "jobs"
        names = [html.escape(F._app_label(a, app_names)) for a in app_of[m]]
        fig.add_trace(
            go.Bar(
                orientation="h",
                base=start[m],
                x=end[m] - start[m],
                y=(y0[m] + y1[m]) / 2,
                width=y1[m] - y0[m],
                marker={
                    "color": color,
                    "line": {"width": 0.3},
                    "pattern": {"shape": hatch, "fgcolor": "black", "size": 6},
                },
                name=label,
                customdata=np.column_stack([ids[m], procs[m], names, mates[m]]),
                hovertemplate=(
                    "%{customdata[2]}<br>job %{customdata[0]}, %{customdata[1]} procs"
                    f"<br>%{{customdata[3]}}%{{base:.4g}} {axis.unit}, %{{x:.4g}} {axis.unit} "
                    "long<extra></extra>"
                ),
            )
        )
    window = axis.describe(length)
    shown = (
        f"{len(np.unique(rows)):,} of {len(frame):,} jobs, {window} shown"
        if window
        else (f"{len(frame):,} jobs")
    )
    half = (y1 - y0 < 1 - 1e-9).any()
    fig.update_layout(
        barmode="overlay",
        height=max(350, min(900, 18 * cluster.nodes + 120)),
        yaxis={"title": "node", "range": [0, cluster.nodes]},
        title=f"Gantt chart ({shown}{'; half rows: co-located jobs' if half else ''})",
        legend={"title": {"text": "application"}},
        margin={"t": 40},
    )
    _time_layout(fig, axis, length)
    return fig


#: time bins and node rows of :func:`gantt_heatmap`
HEATMAP_BINS, HEATMAP_ROWS = 600, 400


def gantt_heatmap(
    frame: pd.DataFrame,
    cluster: Cluster,
    axis: TimeAxis,
    rects: tuple[np.ndarray, ...] | None = None,
) -> go.Figure:
    """The Gantt chart aggregated: each cell is the share of a node (or of a group of nodes,
    beyond ``HEATMAP_ROWS``) held during a time bin (``HEATMAP_BINS`` over the window), for
    charts with too many jobs to draw one bar each."""
    t0, length = span(frame)
    rows, start, end, y0, y1 = rects if rects is not None else F.gantt_rectangles(frame, cluster)
    lo, hi = axis.window.bounds(length)
    a, b = t0 + lo, t0 + max(hi, lo + 1e-9)
    bins = HEATMAP_BINS
    width = (b - a) / bins
    group = max(1, math.ceil(cluster.nodes / HEATMAP_ROWS))
    n_rows = math.ceil(cluster.nodes / group)
    grid = np.zeros((n_rows, bins + 1))
    # each rectangle covers whole nodes or halves: spread its node range over the rows it
    # touches, and its time over the bins (fractional ends), with a difference array per row
    s = np.clip((start - a) / width, 0, bins)
    e = np.clip((end - a) / width, 0, bins)
    first, last = np.floor(y0).astype(np.int64), np.ceil(y1).astype(np.int64)
    counts = np.maximum(last - first, 1)
    idx = np.repeat(np.arange(len(start)), counts)
    node = first[idx] + (np.arange(len(idx)) - np.repeat(np.cumsum(counts) - counts, counts))
    share = np.minimum(y1[idx], node + 1) - np.maximum(y0[idx], node)  # of that node
    ok = (share > 0) & (e[idx] > s[idx]) & (node < cluster.nodes)
    idx, node, share = idx[ok], node[ok], share[ok] / group
    r = node // group
    sb, eb = s[idx], e[idx]
    i0, i1 = np.floor(sb).astype(np.int64), np.floor(eb).astype(np.int64)
    # level 'share' from sb to eb: whole bins via the difference array, ends as fractions
    np.add.at(grid, (r, i0), share * (1 - (sb - i0)))
    np.add.at(grid, (r, np.minimum(i0 + 1, bins)), share * (sb - i0))
    np.add.at(grid, (r, i1), -share * (1 - (eb - i1)))
    np.add.at(grid, (r, np.minimum(i1 + 1, bins)), -share * (eb - i1))
    busy = np.clip(np.cumsum(grid, axis=1)[:, :bins], 0, 1)
    x = (a - t0 + width * (np.arange(bins) + 0.5)) / axis.div
    y = np.arange(n_rows) * group + group / 2
    percent = np.rint(busy * 100).astype(np.int16)  # whole percents: a small page
    fig = go.Figure(
        go.Heatmap(
            z=percent, x=np.round(x, 6), y=y, zmin=0, zmax=100, colorscale="Blues",
            colorbar={"title": {"text": "% held"}},
            hovertemplate=(f"nodes %{{y}}<br>%{{x:.4g}} {axis.unit}: %{{z}}% held"
                           "<extra></extra>"),
        )
    )  # fmt: skip
    jobs = len(np.unique(rows))
    what = f"node groups of {group}" if group > 1 else "nodes"
    fig.update_layout(
        title=(f"Gantt chart, aggregated: {jobs:,} jobs in view, share of {what} held per "
               f"time bin; zoom into a shorter window to see each job"),
        height=max(350, min(900, 2 * n_rows + 160)),
        yaxis={"title": "node", "range": [0, cluster.nodes]},
        margin={"t": 60},
    )  # fmt: skip
    _time_layout(fig, axis, length)
    return fig


def speedup_box(
    frame: pd.DataFrame, app_names: Mapping[int, str] | None, metrics: Mapping[str, Any]
) -> go.Figure | None:
    """Box plot of the speedups per application; rounding noise around 1 drawn as 1."""
    speedup = S.drawn_speedups(frame)
    ok = np.isfinite(speedup)
    if not ok.any():
        return None
    box = go.Figure()
    apps = frame["app"].to_numpy()[ok] if "app" in frame.columns else None
    for app in np.unique(apps) if apps is not None else [None]:
        values = speedup[ok] if app is None else speedup[ok][apps == app]
        name = "all" if app is None else F._app_label(app, app_names)
        box.add_trace(go.Box(y=values, name=name, boxpoints=False))
    slower = metric(metrics, "slower_than_compact")
    note = f"; {100 * slower:.1f}% of jobs slower than compact" if math.isfinite(slower) else ""
    box.update_layout(
        title=f"Job speedup (compact time / actual) per application{note}",
        height=380,
        showlegend=False,
        margin={"t": 40},
        yaxis={"exponentformat": "none", "tickformat": ".3~f"},
    )
    return box


def _per_schedule(
    run: Run, app_names: Mapping[int, str] | None, axis: TimeAxis
) -> list[go.Figure | str]:
    frame, cluster, metrics = run.jobs, run.cluster, run.metrics
    out: list[go.Figure | str] = [gantt_figure(frame, cluster, app_names, axis)]
    if not len(frame):
        return out
    t0, length = span(frame)
    bounds = axis.window.bounds(length)
    drawn = [
        _line(s, t0, bounds, axis, "mean", 1.0, name, color)
        for s, name, color in (
            (S.unused_cores(frame, cluster), "unused cores", F.PALETTE[3]),
            (S.busy_cores(frame), "used cores", F.PALETTE[0]),
        )
    ]
    title = f"Used and unused cores ({cluster.total_cores:,} in total)"
    out.append(_lines_figure(title, drawn, "mean", axis, length))
    box = speedup_box(frame, app_names, metrics)
    if box is not None:
        out.append(box)
    return out


def _users_table(run: Run) -> str:
    """The run's ten largest users of core-hours (as stored in its metrics.json), as HTML."""
    from ..metrics import group_table

    if run.users is None or not len(run.users):
        return ""
    shown = group_table(run.users, 10)
    return "<h3>Users by core-hours</h3>" + shown.to_html(
        index=False, float_format=lambda v: f"{v:,.2f}", na_rep="-", border=0
    )


def report_html(
    results: Mapping[str, Any],
    app_names: Mapping[int, str] | None = None,
    title: str = "coschedlab report",
    *,
    axis: TimeAxis | None = None,
) -> str:
    """The whole report as one HTML string (plotly.js embedded once).

    ``results``: name -> :class:`.runs.Run`, ``(jobs, cluster, metrics)`` or a Result; the
    numbers shown are each run's ``metrics`` (its metrics.json), as given. ``axis``: the
    report's time unit and window (default: the unit fitting the longest run, no window)."""
    runs = as_runs(results)
    axis = axis or report_axis(runs)
    parts = [f"<h1>{html.escape(title)}</h1>", _summary_table(runs, axis)]
    length = max(span(r.jobs)[1] for r in runs.values())
    window = axis.describe(length)
    if window:
        parts.append(f"<p class='note'>time figures show {html.escape(window)}</p>")
    first = True

    def emit(item: go.Figure | str) -> None:
        nonlocal first
        if isinstance(item, str):
            parts.append(item)
            return
        parts.append(item.to_html(full_html=False, include_plotlyjs=first))
        first = False

    parts.append("<h2>Comparison</h2>")
    for fig in comparison_figures(runs, axis):
        emit(fig)
    for name, run in runs.items():
        names = app_names or run.jobs.attrs.get("app_names")
        parts.append(
            f"<h2>{html.escape(name)}</h2><p class='note'>{html.escape(str(run.cluster))}</p>"
        )
        for item in _per_schedule(run, names, axis):
            emit(item)
        parts.append(_users_table(run))
    if first:  # no plotly figure at all: still a valid page
        parts.append("<p class='note'>no jobs</p>")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>"
    )


def write_html(
    results: Mapping[str, Any],
    path: str | Path,
    app_names: Mapping[int, str] | None = None,
    *,
    axis: TimeAxis | None = None,
) -> Path:
    """Write :func:`report_html` to ``path``."""
    path = Path(path)
    path.write_text(report_html(results, app_names, axis=axis), encoding="utf-8")
    return path
