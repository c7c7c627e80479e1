"""One self-contained interactive HTML report (plotly, with plotly.js embedded: no CDN, works
offline): summary table (each run's stored metrics, as given), scheduler comparison, and per
schedule the Gantt chart, utilization, queue, throughput, unused cores and speedups (the ELiSE
paper, 3.1 "Output").

Long step series are resampled to at most ``MAX_POINTS`` points; Gantt charts with more than
``MAX_GANTT_BARS`` rectangles are embedded as the matplotlib PNG instead of plotly bars.
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
from .runs import Run, as_runs, largest, metric

__all__ = ["MAX_GANTT_BARS", "MAX_POINTS", "report_html", "write_html"]

MAX_POINTS = 5000
MAX_GANTT_BARS = 20000

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1250px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}
th:first-child,td:first-child{text-align:left}
h2{border-bottom:2px solid #1f77b4;padding-bottom:3px;margin-top:2em}
.note{color:#666;font-size:13px}
"""


def _line(s: S.Series, t0: float, div: float, scale: float, name: str, color: str) -> go.Scatter:
    s = s.resample(MAX_POINTS)
    return go.Scatter(
        x=(s.t - t0) / div,
        y=s.v * scale,
        mode="lines",
        line={"shape": "hv", "width": 1.2, "color": color},
        name=name,
    )


def _t0(frame: pd.DataFrame) -> float:
    return float(np.nanmin(frame["submit"].to_numpy(float))) if len(frame) else 0.0


def _summary_table(runs: Mapping[str, Run]) -> str:
    """The runs' metrics (as stored) in one table; a metric no run has gets no column."""
    div, unit = F.time_unit(largest(runs, "makespan"))
    wdiv, wunit = F.time_unit(largest(runs, "wait_mean"))
    cols = [
        ("n_jobs", "jobs", 1, "{:.0f}"),
        ("makespan", f"makespan ({unit})", div, "{:.3f}"),
        ("wait_mean", f"mean wait ({wunit})", wdiv, "{:.3f}"),
        ("response_mean", f"mean response ({wunit})", wdiv, "{:.3f}"),
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
        values = [metric(r.metrics, c[0]) for c in cols]
        cells = "".join(
            f"<td>{c[3].format(v / c[2]) if math.isfinite(v) else ''}</td>"
            for c, v in zip(cols, values, strict=True)
        )
        body.append(f"<tr><td>{html.escape(name)}</td>{cells}</tr>")
    return f"<table><tr><th>schedule</th>{head}</tr>{''.join(body)}</table>"


def _comparison(runs: Mapping[str, Run]) -> list[go.Figure]:
    names = list(runs)
    colors = [F._PALETTE[i % len(F._PALETTE)] for i in range(len(names))]
    div, unit = F.time_unit(largest(runs, "makespan"))
    wdiv, wunit = F.time_unit(largest(runs, "wait_mean"))
    bars = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(f"makespan ({unit})", f"mean wait ({wunit})", "mean bounded slowdown"),
    )
    keys = (("makespan", div), ("wait_mean", wdiv), ("bounded_slowdown_mean", 1))
    for col, (key, d) in enumerate(keys, 1):
        bars.add_trace(
            go.Bar(
                x=names,
                y=[metric(runs[k].metrics, key) / d for k in names],
                marker_color=colors,
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    bars.update_layout(height=360, margin={"t": 40, "b": 30})
    figs = [bars]
    curves = [
        ("utilization (% of cores)", lambda f, c: S.utilization(f, c), 100.0),
        ("waiting jobs", lambda f, c: S.queue_size(f), 1.0),
        ("finished jobs (throughput)", lambda f, c: S.throughput(f), 1.0),
    ]
    for title, fn, scale in curves:
        fig = go.Figure()
        for name, color in zip(names, colors, strict=True):
            frame, cluster, _ = runs[name]
            if len(frame):
                fig.add_trace(_line(fn(frame, cluster), _t0(frame), div, scale, name, color))
        fig.update_layout(
            title=title,
            height=330,
            margin={"t": 40, "b": 40},
            xaxis_title=f"time since first submission ({unit})",
        )
        figs.append(fig)
    return figs


def _gantt(
    frame: pd.DataFrame, cluster: Cluster, app_names: Mapping[int, str] | None
) -> go.Figure | str:
    """Plotly Gantt (one bar per job and node range), or an <img> of the PNG when too large."""
    rows, start, end, y0, y1 = F.gantt_rectangles(frame, cluster)
    if not len(rows) or len(rows) > MAX_GANTT_BARS:
        buf = io.BytesIO()
        F.gantt(frame, cluster, app_names=app_names).savefig(buf, format="png")
        data = base64.b64encode(buf.getvalue()).decode("ascii")
        return f'<img alt="Gantt chart" style="max-width:100%" src="data:image/png;base64,{data}">'
    t0 = _t0(frame)
    div, unit = F.time_unit(float(np.nanmax(frame["end"].to_numpy(float))) - t0)
    start, end = (start - t0) / div, (end - t0) / div
    apps = frame["app"].to_numpy()[rows] if "app" in frame.columns else np.full(len(rows), -1)
    ids = frame["job_id"].to_numpy()[rows] if "job_id" in frame.columns else rows + 1
    procs = frame["procs"].to_numpy()[rows]
    fig = go.Figure()
    for k, app in enumerate(np.unique(apps)):
        m = apps == app
        label = F._app_label(app, app_names)
        fig.add_trace(
            go.Bar(
                orientation="h",
                base=start[m],
                x=end[m] - start[m],
                y=(y0[m] + y1[m]) / 2,
                width=y1[m] - y0[m],
                marker={"color": F._PALETTE[k % len(F._PALETTE)], "line": {"width": 0.3}},
                name=label,
                customdata=np.column_stack([ids[m], procs[m]]),
                hovertemplate=(
                    f"{html.escape(label)}<br>job %{{customdata[0]}}, %{{customdata[1]}} procs"
                    f"<br>%{{base:.3f}} - %{{x:.3f}} {unit} long<extra></extra>"
                ),
            )
        )
    fig.update_layout(
        barmode="overlay",
        height=max(350, min(900, 18 * cluster.nodes + 120)),
        xaxis_title=f"time since first submission ({unit})",
        yaxis={"title": "node", "range": [0, cluster.nodes]},
        title=f"Gantt chart ({len(frame)} jobs; half rows: co-located jobs)",
        margin={"t": 40},
    )
    return fig


def _per_schedule(
    frame: pd.DataFrame, cluster: Cluster, app_names: Mapping[int, str] | None
) -> list[go.Figure | str]:
    out: list[go.Figure | str] = [_gantt(frame, cluster, app_names)]
    if not len(frame):
        return out
    t0 = _t0(frame)
    div, unit = F.time_unit(float(np.nanmax(frame["end"].to_numpy(float))) - t0)
    fig = go.Figure()
    fig.add_trace(_line(S.unused_cores(frame, cluster), t0, div, 1.0, "unused cores", "#d62728"))
    fig.add_trace(_line(S.busy_cores(frame), t0, div, 1.0, "used cores", "#1f77b4"))
    fig.update_layout(
        title=f"Used and unused cores ({cluster.total_cores} in total)",
        height=330,
        margin={"t": 40},
        xaxis_title=f"time since first submission ({unit})",
    )
    out.append(fig)
    if "speedup" in frame.columns and frame["speedup"].notna().any():
        box = go.Figure()
        data = frame.dropna(subset=["speedup"])
        groups = data.groupby("app")["speedup"] if "app" in data else [("all", data["speedup"])]
        for app, values in groups:
            box.add_trace(go.Box(y=values, name=F._app_label(app, app_names), boxpoints=False))
        box.update_layout(
            title="Job speedup (compact time / actual) per application",
            height=380,
            showlegend=False,
            margin={"t": 40},
        )
        out.append(box)
    return out


def report_html(
    results: Mapping[str, Any],
    app_names: Mapping[int, str] | None = None,
    title: str = "coschedlab report",
) -> str:
    """The whole report as one HTML string (plotly.js embedded once).

    ``results``: name -> :class:`.runs.Run`, ``(jobs, cluster, metrics)`` or a Result; the
    numbers shown are each run's ``metrics`` (its metrics.json), as given."""
    runs = as_runs(results)
    parts = [f"<h1>{html.escape(title)}</h1>", _summary_table(runs)]
    first = True

    def emit(item: go.Figure | str) -> None:
        nonlocal first
        if isinstance(item, str):
            parts.append(item)
            return
        parts.append(item.to_html(full_html=False, include_plotlyjs=first))
        first = False

    parts.append("<h2>Comparison</h2>")
    for fig in _comparison(runs):
        emit(fig)
    for name, (frame, cluster, _) in runs.items():
        names = app_names or frame.attrs.get("app_names")
        parts.append(f"<h2>{html.escape(name)}</h2><p class='note'>{html.escape(str(cluster))}</p>")
        for item in _per_schedule(frame, cluster, names):
            emit(item)
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
) -> Path:
    """Write :func:`report_html` to ``path``."""
    path = Path(path)
    path.write_text(report_html(results, app_names), encoding="utf-8")
    return path
