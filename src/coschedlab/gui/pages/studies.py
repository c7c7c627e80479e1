"""Simulation-collection studies (SimX): a study spec (the bundled helium study or an
uploaded YAML with a work ``model``), the configurations O, A-E to compare and the number of
processors; each configuration simulated (``coschedlab study run``'s simulated executor):
the table ``study run`` prints, and per configuration its scheduling graph and Pareto front."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...bundled import data_path
from ...errors import InputError
from ..components import error_text, field, on_upload, png_src, section, table, upload_field
from ..workspace import form_whole

NAME = "studies"
PATH = "/studies"
TITLE = "Studies"
HELIUM = "helium_study.yaml"


def study_rows(spec_path: Path, configs: list[str], procs: int | None) -> list[Any]:
    """Each configuration of the study simulated: the :class:`StudyResult` list."""
    from ...studies.manager import config_of
    from ...studies.run import run_study
    from ...studies.spec import load_spec

    spec = load_spec(spec_path)
    if spec.model is None:
        raise InputError("the spec has no 'model' to simulate (a real study runs with "
                         "coschedlab study run --executor real)", spec_path.name)  # fmt: skip
    if procs is not None:  # (form_whole's: a whole number from 1)
        spec = spec.with_procs(procs)
    if not configs:
        raise InputError("choose at least one configuration")
    return [run_study(spec, config_of(c)) for c in configs], spec


#: the most processors the page simulates (the paper's study: 32 and 64)
MAX_PROCESSORS = 100_000


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    return html.Div([
        html.H2("Simulation-collection studies"),
        section("Study",
            html.Div(className="row", children=[
                field("configurations", dcc.Checklist(
                    id="st-configs", options=list("OABCDE"), value=["O", "E"], inline=True)),
                field("processors", dcc.Input(id="st-procs", type="number", value=32)),
                upload_field("or upload a study spec (YAML with a model)", "st-upload"),
                html.Div(id="st-file", className="hint",
                         children="the bundled helium plume study (SimX, Section 2)"),
            ]),
            html.Button("Simulate", id="st-run", className="primary"),
            html.Div(id="st-error", className="error"),
            dcc.Store(id="st-path"),
        ),
        dcc.Loading(html.Div(id="st-result")),
    ])  # fmt: skip


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    on_upload(app, ws, "st-upload", "study", "st-error",
              [("st-path", "data"), ("st-file", "children")],
              lambda path, name: (str(path), f"using {name}"))  # fmt: skip

    @app.callback(
        Output("st-result", "children"), Output("st-error", "children"),
        Input("st-run", "n_clicks"), State("st-path", "data"), State("st-configs", "value"),
        State("st-procs", "value"), prevent_initial_call=True,
    )  # fmt: skip
    def simulated(_n, path: str | None, configs: list[str], procs: Any) -> tuple:
        from ...studies.plots import pareto_figure, scheduling_graph
        from ...studies.result import metrics_cells

        try:
            spec_path = data_path(ws.data_file(path or f"coschedlab:{HELIUM}", "study spec"))
            n = None if procs in (None, "") else form_whole(procs, "processors", 1, MAX_PROCESSORS)
            if not isinstance(configs, list) or any(c not in "OABCDE" or not c
                                                    for c in map(str, configs)):  # fmt: skip
                raise InputError(f"configurations are letters of OABCDE, got {configs!r}")
            results, spec = study_rows(spec_path, list(configs or []), n)
        except InputError as exc:
            return no_update, error_text(exc)
        parts = [html.H3(f"{spec.name}: {len(spec.space.designs())} designs, "
                         f"{spec.processors} processors, simulated"),
                 table(*metrics_cells([r.metrics for r in results]), "st-table")]  # fmt: skip
        for r in results:
            parts += [
                html.H3(f"configuration {r.config}"),
                html.Img(src=png_src(lambda b, r=r: scheduling_graph(r, b)),
                         style={"maxWidth": "100%"}, className="st-graph"),
                html.Img(src=png_src(lambda b, r=r: pareto_figure(r, spec.space, b,
                                                                  spec.objectives)),
                         style={"maxWidth": "60%"}),
            ]  # fmt: skip
        return html.Div(parts), ""
