"""Coupled systems: two or more machines (bundled traces or uploaded SWF files, each with its
options: nodes, hold or yield, load, release, ...), paired jobs that must start at the same
instant, and the coupled run against the same systems without pairing: the table
``coschedlab coupled simulate`` prints, and each system's waits and synchronization times."""

from __future__ import annotations

from typing import Any

from ...coupled.setup import DEFAULT_SYSTEMS
from ...errors import InputError
from ..components import error_text, field, figure, on_upload, section, table, upload_field
from ..workspace import form_text, form_whole, scheduler_text

NAME = "coupled"
PATH = "/coupled"
TITLE = "Coupled systems"

#: the command line's default: ALCF Theta (January 2022) and KTH-SP2 stretched to load 0.5
DEFAULT = "\n".join(DEFAULT_SYSTEMS)


def system_specs(ws: Any, text: str | None) -> list[str]:
    """The system specs of the page's text (one per line), a trace that is not bundled
    (``theta``, ``kth``) named by its path: it must be a file of the workspace (an upload,
    written relative to the workspace)."""
    from ...coupled.setup import parse_system

    specs = []
    for line in form_text(text, "systems").splitlines():
        spec = line.strip()
        if not spec:
            continue
        trace, _ = parse_system(spec)
        if trace not in ("theta", "kth"):
            rest = spec[len(trace) :]
            spec = ws.data_file(trace, "trace") + rest
        specs.append(spec)
    return specs


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    return html.Div([
        html.H2("Co-scheduling across coupled systems"),
        section("Systems",
            html.Div(className="row", children=[
                field("one system per line: TRACE[:key=value,...]", dcc.Textarea(
                    id="cp-systems", value=DEFAULT, style={"width": "34em", "height": "5em"}),
                    "TRACE: theta (ALCF Theta, January 2022), kth (KTH-SP2) or an uploaded "
                    "file; keys: name, nodes, scheme (hold|yield), hold_cap, release, "
                    "release_age, max_yields, month, load, calibrate (paper: the stand-ins "
                    "for Intrepid and Eureka, docs/coupled.md)"),
                upload_field("upload a trace (SWF)", "cp-upload"),
            ]),
            html.Div(className="row", children=[
                field("pairs", dcc.Input(id="cp-pairs", type="text", value="vicinity:120"),
                      "vicinity:SECONDS, every:K, proportion:P or none"),
                field("scheduler (all systems)", dcc.Input(id="cp-sched", type="text",
                                                           placeholder="easy:order=wfp")),
                field("seed", dcc.Input(id="cp-seed", type="number", value=0)),
            ]),
            html.Button("Simulate", id="cp-run", className="primary"),
            html.Div(id="cp-error", className="error"),
        ),
        dcc.Loading(html.Div(id="cp-result")),
    ])  # fmt: skip


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    def added(path: Any, name: str, text: str | None) -> tuple:
        stem = "".join(c if c.isalnum() else "_" for c in name.split(".")[0]) or "upload"
        return ((text or "").rstrip() + f"\n{ws.relative(path)}:name={stem},scheme=hold",)

    on_upload(app, ws, "cp-upload", "swf", "cp-error", [("cp-systems", "value")], added,
              states=(("cp-systems", "value"),))  # fmt: skip

    @app.callback(
        Output("cp-result", "children"), Output("cp-error", "children"),
        Input("cp-run", "n_clicks"), State("cp-systems", "value"), State("cp-pairs", "value"),
        State("cp-sched", "value"), State("cp-seed", "value"), prevent_initial_call=True,
    )  # fmt: skip
    def simulated(_n, text, pairs, sched, seed) -> tuple:
        import plotly.graph_objects as go

        from ...coupled.setup import COLUMNS, build_systems, run_coupled, table_cells
        from ...report.style import scheduler_colors

        try:
            specs = system_specs(ws, text)
            n = form_whole(seed, "seed", 0, 2**63 - 1) if seed not in (None, "") else 0
            sched = scheduler_text(sched or "", "scheduler")
            systems, notes = build_systems(specs, [sched] if sched else [], n)
            r, metrics, base, p, shares = run_coupled(systems, (pairs or "none").strip())
        except (InputError, ValueError, ArithmeticError, TypeError) as exc:
            return no_update, ws.words(error_text(exc))
        waits = go.Figure()
        colors = scheduler_colors(metrics)  # a system's colour, as in every figure
        for name, m in metrics.items():
            waits.add_trace(go.Bar(name=name, x=["mean wait (min)", "mean sync (min)"],
                                   y=[m["wait_mean"] / 60, m["sync_mean"] / 60],
                                   marker_color=colors[name]))  # fmt: skip
        waits.update_layout(barmode="group", height=330, title="waits and synchronization",
                            margin={"t": 50})  # fmt: skip
        pairs_line = f"{len(p)} pairs: " + ", ".join(
            f"{s.name} {100 * x:.1f}% of {len(s.workload)} jobs"
            for s, x in zip(systems, shares, strict=True))  # fmt: skip
        return html.Div([
            html.H3("coupled run (in brackets: change against no pairing)"),
            table(list(COLUMNS), table_cells(metrics, base), "cp-table"),
            html.Div(ws.words("; ".join([pairs_line, *notes])), className="hint",
                     id="cp-notes"),
            figure(waits),
        ]), ""  # fmt: skip
