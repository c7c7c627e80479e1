"""Compare the runs of a comparison directory (the dashboard's or the command line's): the
comparison table as the command line prints it, the schedulers side by side (makespan, wait
and slowdown; utilization, queue and throughput over time), and per run the node Gantt chart
(zoom or type a time window; hovering names the job, its application and its node mates),
speedups per application and the pool's speedup heatmap."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..components import error_text, figure, section, table
from ..results import load_run, made, open_comparison

NAME = "results"
PATH = "/results"
TITLE = "Compare"

#: Gantt bars drawn one per job up to this many in the window (beyond: the aggregate);
#: COSCHEDLAB_GUI_GANTT_BARS changes it (benchmarks/bench_gui.py measures both)
GANTT_BARS = int(os.environ.get("COSCHEDLAB_GUI_GANTT_BARS", "4000"))


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    outputs = ctx.workspace.outputs()
    newest = max(outputs, key=lambda o: (ctx.workspace.root / o / "spec.json").stat().st_mtime,
                 default=None)  # fmt: skip
    return html.Div([
        html.H2("Compare schedulers"),
        html.Div(className="row", children=[
            html.Label("comparison directory"),
            dcc.Dropdown(id="result-dir", options=outputs, value=newest, clearable=False,
                         style={"width": "24em"}, placeholder="no comparison in the workspace"),
            dcc.Input(id="result-path", type="text", placeholder="or type a folder",
                      debounce=True, style={"width": "16em"}),
        ]),
        html.Div(id="result-error", className="error"),
        html.Div(id="result-table"),
        html.Div(className="row", children=[
            html.Label("workload"), dcc.Dropdown(id="result-workload", clearable=False,
                                                 style={"width": "14em"}),
            html.Label("repetition"), dcc.Dropdown(id="result-rep", clearable=False,
                                                   style={"width": "6em"}),
        ]),
        dcc.Loading(html.Div(id="result-comparison")),
        section("One run",
            html.Div(className="row", children=[
                html.Label("scheduler"), dcc.Dropdown(id="result-run", clearable=False,
                                                      style={"width": "18em"}),
                html.Label("from"), dcc.Input(id="win-from", type="text", debounce=True,
                                              placeholder="e.g. 2h", style={"width": "6em"}),
                html.Label("to"), dcc.Input(id="win-to", type="text", debounce=True,
                                            placeholder="e.g. 1d", style={"width": "6em"}),
                html.Button("whole run", id="win-reset"),
            ]),
            html.Div(id="window-error", className="error"),
            dcc.Loading(html.Div(id="result-gantt")),
            html.Div(id="result-extra"),
        ),
    ])  # fmt: skip


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    def chosen(folder: str | None) -> Path:
        return ws.inside(folder or "", "comparison directory")

    @app.callback(
        Output("result-dir", "options"), Output("result-dir", "value"),
        Output("result-error", "children", allow_duplicate=True),
        Input("result-path", "value"), State("result-dir", "options"),
        prevent_initial_call=True,
    )  # fmt: skip
    def typed(text: str | None, options: list) -> tuple:
        try:
            out = chosen(text)
            open_comparison(out)
        except InputError as exc:
            return no_update, no_update, error_text(exc)
        rel = ws.relative(out)
        return sorted({*options, rel}), rel, ""

    @app.callback(
        Output("result-table", "children"), Output("result-workload", "options"),
        Output("result-workload", "value"), Output("result-rep", "options"),
        Output("result-rep", "value"), Output("result-run", "options"),
        Output("result-run", "value"), Output("result-error", "children"),
        Input("result-dir", "value"),
    )  # fmt: skip
    def opened(folder: str | None) -> tuple:
        empty = ("", [], None, [], None, [], None)
        if not folder:
            return (*empty, "no comparison yet: run one on the first page")
        try:
            c = open_comparison(chosen(folder))
        except InputError as exc:
            return (*empty, error_text(exc))
        names, rows = c.cells()
        shown = (table(names, rows, "compare-table") if rows
                 else html.Div("no table yet (the comparison has not finished)",
                               className="hint"))  # fmt: skip
        head = html.Div([html.H3(c.name), shown,
                         html.Div(f"baseline: {c.baseline}; {len(c.runs)} runs stored",
                                  className="hint")])  # fmt: skip
        workloads, labels = c.workloads(), c.schedulers()  # the table's order
        reps = sorted({r for _, _, r in c.runs})
        return (head, workloads, workloads[0] if workloads else None, reps,
                reps[0] if reps else None, labels, labels[0] if labels else None, "")  # fmt: skip

    @app.callback(
        Output("result-comparison", "children"),
        Input("result-workload", "value"), Input("result-rep", "value"),
        State("result-dir", "value"),
    )  # fmt: skip
    def compared(workload: str | None, rep: int | None, folder: str | None) -> Any:
        if not folder or workload is None or rep is None:
            return ""
        from ...report.interactive import comparison_figures

        try:
            c = open_comparison(chosen(folder))
            dirs = {lb: c.run_dir(workload, lb, rep) for lb in c.schedulers()
                    if (workload, lb, rep) in c.runs}  # fmt: skip
            if not dirs:
                return ""

            def make() -> list:
                runs = {lb: load_run(d) for lb, d in dirs.items()}
                return comparison_figures(runs, page_axis(runs))

            figs = made(("compare", str(c.out), workload, rep), make, tuple(dirs.values()))
        except InputError as exc:
            return html.Div(error_text(exc), className="error")
        return html.Div([figure(f) for f in figs])

    @app.callback(
        Output("win-from", "value"), Output("win-to", "value"),
        Input("win-reset", "n_clicks"), Input("result-run", "value"),
        prevent_initial_call=True,
    )  # fmt: skip
    def reset(_n: int | None, _run: str | None) -> tuple:
        return "", ""

    @app.callback(
        Output("win-from", "value", allow_duplicate=True),
        Output("win-to", "value", allow_duplicate=True),
        Input("gantt", "relayoutData"), State("gantt", "figure"),
        prevent_initial_call=True,
    )  # fmt: skip
    def zoomed(relayout: dict | None, fig: dict | None) -> tuple:
        """A zoom on the Gantt chart's time axis becomes the time window (so an aggregated
        chart is redrawn job by job once few enough jobs are in view)."""
        try:
            div = float((fig.get("layout", {}).get("meta") or {}).get("div", 1.0))
            lo = max(0.0, float(relayout["xaxis.range[0]"]) * div)
            hi = float(relayout["xaxis.range[1]"]) * div
        except (AttributeError, KeyError, TypeError, ValueError):  # not a zoom of the time axis
            return no_update, no_update
        if not lo < hi < float("inf"):
            return no_update, no_update
        return f"{lo:.0f}s", f"{hi:.0f}s"

    @app.callback(
        Output("result-gantt", "children"), Output("result-extra", "children"),
        Output("window-error", "children"),
        Input("result-run", "value"), Input("win-from", "value"), Input("win-to", "value"),
        State("result-workload", "value"), State("result-rep", "value"),
        State("result-dir", "value"),
    )  # fmt: skip
    def one_run(label, start, end, workload, rep, folder) -> tuple:
        if not folder or label is None or workload is None or rep is None:
            return "", "", ""
        from ...report.interactive import gantt_figure
        from ...report.timeaxis import Window

        try:
            c = open_comparison(chosen(folder))
            where = c.run_dir(workload, label, rep)
            run = load_run(where)
            window = Window.parse(start or None, end or None, ("from", "to"))
            axis = page_axis({label: run}, window)
        except InputError as exc:
            return no_update, no_update, error_text(exc)

        def make() -> tuple:
            names = run.jobs.attrs.get("app_names")
            gantt = gantt_figure(run.jobs, run.cluster, names, axis, max_bars=GANTT_BARS,
                                 image=False)  # fmt: skip
            gantt.update_layout(meta={"div": axis.div})
            extra = [speedups(run, label), _pool_heatmap(c, workload)]
            return gantt, [f for f in extra if f is not None]

        gantt, extra = made(("run", str(where), start, end, GANTT_BARS), make, (where,))
        return (figure(gantt, id="gantt"),
                html.Div([f if isinstance(f, html.Div) else figure(f) for f in extra]),
                "")  # fmt: skip


def page_axis(runs: dict[str, Any], window: Any = None) -> Any:
    """The time axis of the page's figures: hours, the unit of the comparison table above
    them (one unit on the page), unless a time window is typed (then the window's unit, as
    the command line's report chooses it)."""
    from ...report.timeaxis import TimeAxis, Window, report_axis

    axis = report_axis(runs, window)
    if window is None or window.is_open:
        return TimeAxis(3600.0, "h", window or Window())
    return axis


def speedups(run: Any, label: str) -> Any:
    """The run's speedups per application (the box plot, each application in its Gantt
    colour), or a line saying why there is none to draw."""
    import numpy as np
    from dash import html

    from ...report import figures as F
    from ...report import series as S
    from ...report.interactive import speedup_box
    from ...report.style import category_style

    jobs = run.jobs
    if not np.isfinite(S.drawn_speedups(jobs)).any():
        why = "the workload's jobs carry no co-location speedups (a trace, not a pool)"
    elif not F.colocated(jobs):
        why = (f"no job of this run shared a node ({label} placed every job compactly): "
               "every speedup is 1")  # fmt: skip
    else:
        names = jobs.attrs.get("app_names")
        box = speedup_box(jobs, names, run.metrics)
        styled = F.app_styles(jobs)  # as the Gantt chart colours them
        if box is not None and styled is not None:  # the colours of the Gantt chart
            colour = {F._app_label(a, names): category_style(k)[0]
                      for k, a in enumerate(styled[0])}  # fmt: skip
            for trace in box.data:
                if trace.name in colour:
                    trace.marker.color = colour[trace.name]
        if box is not None:
            return box
        why = "no job has a speedup to draw"
    return html.Div(f"Job speedups: none to draw: {why}.", className="hint speedups")


def _pool_heatmap(c: Any, workload: str) -> Any:
    """The speedup heatmap of the pool a workload was drawn from (None for a trace)."""
    import json

    import plotly.graph_objects as go

    try:
        doc = json.loads((c.out / "spec.json").read_text())
        kind = doc["runs"]["workloads"][workload]["kind"]
        path = doc["files"][workload]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if kind != "pool" or not Path(path).is_file():
        return None
    from ...coloc.pool import load_pool

    try:
        pool = load_pool(path)
    except InputError:
        return None
    h = pool.heatmap
    names = list(h.names)
    z = h.values
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, colorscale="RdBu", zmid=1.0,
        colorbar={"title": {"text": "speedup"}},
        hovertemplate="%{y} beside %{x}: speedup %{z:.3f}<extra></extra>",
    ))  # fmt: skip
    fig.update_layout(
        title=f"Pool speedups ({Path(path).name}): row app's speedup beside column app",
        height=max(380, 22 * len(names) + 160), yaxis={"autorange": "reversed"},
        margin={"t": 50},
    )  # fmt: skip
    return fig
