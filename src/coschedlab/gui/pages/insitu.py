"""Plan an in situ ensemble: an ensemble drawn as the paper draws them (S simulations, A
analyses each, V GB per step, N nodes) or an uploaded ensemble YAML; the plan of every
scenario x heuristic pair with its model makespan, then each simulated in SimGrid and ranked
(``coschedlab insitu simulate --search`` in a process of its own: a SimGrid run per plan on
the one runner, with progress, the time left and cancel); the stage Gantt chart of the chosen
plan."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..components import (
    error_text,
    field,
    on_cancel,
    on_upload,
    png_src,
    section,
    table,
    upload_field,
)
from ..workspace import form_number, form_whole

NAME = "insitu"
PATH = "/insitu"
TITLE = "In situ planner"
FOLDER = "insitu"
#: the largest ensemble the page draws: 16 times the paper's 16 simulations x 4 analyses on
#: 64 nodes (planning it takes up to ~6 s on a laptop; a typo of 10**9 nodes or steps would
#: otherwise run for days); larger ensembles are the command line's (coschedlab insitu)
LIMITS = {"S": 256, "A": 64, "N": 4096, "steps": 10_000}
MAX_COMPONENTS = 256  # simulations x analyses
MAX_VOLUME_GB = 1_000_000
#: the kind of the launched search (:func:`~coschedlab.gui.launch.watched`)
SEARCH = "insitu search"
#: the fields of a drawn ensemble (ids ``ins-S`` ...; :func:`ensemble_file`'s form)
FORM = ("S", "A", "V", "N", "steps", "seed", "network")


def ensemble_file(ws: Any, form: dict[str, Any]) -> Path:
    """Write the drawn ensemble of ``form`` (S, A, V, N, steps, seed, network) into the
    workspace; its path (named by its content)."""
    from ...insitu.spec import NETWORKS, dump_ensemble, generate_ensemble

    def whole(key: str, low: int = 1) -> int:
        return form_whole(form.get(key), key, low, LIMITS.get(key, 2**63 - 1))

    network = form.get("network") or "paper"
    if network not in NETWORKS:
        raise InputError(f"network must be one of {', '.join(NETWORKS)}")
    volume = form_number(form.get("V"))
    if not 0 < volume <= MAX_VOLUME_GB:  # NaN too: not a number
        raise InputError(f"V must be a number of GB > 0 and <= {MAX_VOLUME_GB:,}, got "
                         f"{form.get('V')!r}")  # fmt: skip
    if whole("S") * whole("A") > MAX_COMPONENTS:
        raise InputError(f"S x A must be at most {MAX_COMPONENTS} analyses here, got "
                         f"{whole('S') * whole('A'):,} (larger ensembles: coschedlab insitu "
                         "plan at the command line)")  # fmt: skip
    text = dump_ensemble(generate_ensemble(
        whole("S"), whole("A"), volume, whole("N"), steps=whole("steps"),
        seed=whole("seed", 0), network=network,
    ))  # fmt: skip
    path = ws.root / FOLDER / f"ensemble-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def within_limits(path: Path) -> None:
    """An uploaded ensemble the page plans in the request: no larger than a drawn one may be
    (:data:`LIMITS`, :data:`MAX_COMPONENTS`); larger ones are the command line's."""
    from ...insitu.spec import load_ensemble

    e = load_ensemble(path)
    sizes = {"analyses": (len(e.analyses), MAX_COMPONENTS), "simulations": (
        len(e.simulations), LIMITS["S"]), "nodes": (e.platform.nodes, LIMITS["N"]),
        "steps": (e.n_steps, LIMITS["steps"])}  # fmt: skip
    for what, (n, most) in sizes.items():
        if n > most:
            raise InputError(f"the ensemble has {n:,} {what}: this page plans at most {most:,}"
                             " (larger ensembles: coschedlab insitu plan at the command line)",
                             path.name)  # fmt: skip


def plan_rows(path: Path) -> list[dict[str, Any]]:
    """The plan of every scenario x heuristic pair of the ensemble file (model makespans);
    an infeasible plan is a row with its reason."""
    from ...insitu.mapping import SCENARIOS
    from ...insitu.reproduce import HEURISTIC_PAIRS
    from ...insitu.search import plan_file

    rows = []
    for sc in SCENARIOS:
        for n, c in HEURISTIC_PAIRS:
            try:
                p = plan_file(path, sc, n, c)
            except InputError as exc:
                rows.append({"scenario": sc, "node_alloc": n, "core_alloc": c,
                             "infeasible": exc.what})  # fmt: skip
                continue
            d = p.to_dict()
            rows.append({"scenario": sc, "node_alloc": d["node_alloc"],
                         "core_alloc": d["core_alloc"], "model_makespan": p.model_makespan,
                         "pool": len(p.mapping.pool())})  # fmt: skip
    return rows


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    from ..launch import watched

    running = watched(ctx.workspace, SEARCH)  # a reload shows the search going on

    def number(id: str, value: float, step: float = 1) -> Any:
        return dcc.Input(id=id, type="number", value=value, step=step)

    return html.Div([
        html.H2("Plan an in situ ensemble"),
        section("Ensemble",
            html.Div(className="row", children=[
                field("simulations S", number("ins-S", 2)),
                field("analyses per simulation A", number("ins-A", 2)),
                field("data per step V (GB)", number("ins-V", 4, 0.1)),
                field("nodes N", number("ins-N", 16)),
                field("steps", number("ins-steps", 10)),
                field("seed", number("ins-seed", 0)),
                field("network", dcc.Dropdown(id="ins-network", value="paper",
                                              clearable=False, style={"width": "8em"},
                                              options=["paper", "per-node"])),
            ]),
            html.Div(className="row", children=[
                upload_field("or upload an ensemble YAML", "ins-upload"),
                html.Div(id="ins-file", className="hint"),
            ]),
            html.Div(className="row", children=[
                html.Button("Plan", id="ins-plan", className="primary"),
                html.Button("Simulate every plan (SimGrid)", id="ins-sim"),
                html.Button("Cancel", id="ins-cancel"),
            ]),
            html.Div(id="ins-error", className="error"),
            html.Progress(id="ins-bar", value="0", max="1"),
            html.Div(id="ins-status", className="hint"),
            dcc.Interval(id="ins-tick", interval=500, disabled=running is None),
            dcc.Store(id="ins-path"), dcc.Store(id="ins-active", data=running),
        ),
        dcc.Loading(html.Div(id="ins-table")),
        section("Stage Gantt chart",
            html.Div(className="row", children=[
                html.Label("plan"), dcc.Dropdown(id="ins-choice", style={"width": "26em"}),
            ]),
            dcc.Loading(html.Div(id="ins-gantt")),
        ),
    ])  # fmt: skip


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    on_upload(app, ws, "ins-upload", "ensemble", "ins-error",
              [("ins-path", "data"), ("ins-file", "children")],
              lambda path, name: (str(path), f"using {name} (not the fields above)"))  # fmt: skip

    #: the ensemble's fields, as the Plan and Simulate callbacks read them
    ensemble_states = [State("ins-path", "data"), *(State(f"ins-{k}", "value") for k in FORM)]

    def ensemble_path(uploaded_path: str | None, form: dict[str, Any]) -> Path:
        if uploaded_path:
            path = Path(ws.data_file(uploaded_path, "ensemble"))
            within_limits(path)
            return path
        return ensemble_file(ws, form)

    @app.callback(
        Output("ins-table", "children"), Output("ins-choice", "options"),
        Output("ins-choice", "value"), Output("ins-error", "children"),
        Input("ins-plan", "n_clicks"),
        *ensemble_states,
        prevent_initial_call=True,
    )  # fmt: skip
    def planned(_p, uploaded_path, *values) -> tuple:
        try:
            path = ensemble_path(uploaded_path, dict(zip(FORM, values, strict=True)))
            rows = plan_rows(path)
        except InputError as exc:
            return no_update, no_update, no_update, error_text(exc)
        return (*plans_shown(path, rows, simulated=False), "")

    @app.callback(
        Output("ins-active", "data"), Output("ins-error", "children", allow_duplicate=True),
        Output("ins-tick", "disabled", allow_duplicate=True),
        Input("ins-sim", "n_clicks"),
        *ensemble_states,
        prevent_initial_call=True,
    )  # fmt: skip
    def simulate(_s, uploaded_path, *values) -> tuple:
        from ..launch import AlreadyRunning, refuse_running, start

        try:
            path = ensemble_path(uploaded_path, dict(zip(FORM, values, strict=True)))
            plan_rows(path)  # the ensemble's errors now, not from the process
            name = f"insitu-search_{path.stem}"
            out = ws.root / FOLDER / name
            refuse_running(ws, out)  # a second click: show the first one's search
            start(ws, ["insitu", "simulate", str(path), "--search", "--json", "--jobs",
                       str(ctx.jobs or 2)], out, name, plan=str(path), keep_stdout=True,
                  kind=SEARCH, resumes=False)  # fmt: skip
        except AlreadyRunning:  # a second click, or one that lost the race: watch it
            return ws.relative(out), "already running: its progress is below", False
        except InputError as exc:
            return no_update, error_text(exc), no_update
        return ws.relative(out), "", False

    on_cancel(app, ws, "ins-cancel", "ins-active", "ins-error", "cancelling the simulations")

    @app.callback(
        Output("ins-bar", "value"), Output("ins-bar", "max"), Output("ins-status", "children"),
        Output("ins-tick", "disabled"), Output("ins-table", "children", allow_duplicate=True),
        Output("ins-choice", "options", allow_duplicate=True),
        Output("ins-choice", "value", allow_duplicate=True),
        Input("ins-tick", "n_intervals"), State("ins-active", "data"),
        prevent_initial_call=True,
    )  # fmt: skip
    def tick(_n, active: str | None) -> tuple:
        from ..launch import launched, sweep_status

        running = launched(ws, active)
        if running is None:
            return no_update, no_update, "", True, no_update, no_update, no_update
        finished, total, text = sweep_status(running)
        bar = (str(finished), str(max(total, 1)), text)
        if running.code != 0:  # running (None), or it failed
            return (*bar, running.code is not None, no_update, no_update, no_update)
        try:
            rows = searched_rows(running.stdout)
        except InputError as exc:
            return (*bar, True, html.Div(error_text(exc), className="error"), no_update,
                    no_update)  # fmt: skip
        return (*bar, True, *plans_shown(Path(running.plan), rows, simulated=True))

    def plans_shown(path: Path, rows: list[dict[str, Any]], simulated: bool) -> tuple:
        """The plan table, the Gantt chart's choices and the first choice."""
        cols = ["scenario", "nodes", "cores", "model (s)"] + (["simulated (s)"] if simulated
                                                              else ["pool analyses"])  # fmt: skip
        cells = []
        options = []
        for r in rows:
            if "infeasible" in r:
                cells.append([r["scenario"], r["node_alloc"], r["core_alloc"],
                              "infeasible: " + r["infeasible"], ""])  # fmt: skip
                continue
            last = (f"{r['simulated_makespan']:.1f}" if simulated
                    else str(r.get("pool", "")))  # fmt: skip
            cells.append([r["scenario"], r["node_alloc"], r["core_alloc"],
                          f"{r['model_makespan']:.1f}", last])  # fmt: skip
            options.append({"label": f"{r['scenario']} / {r['node_alloc']} / {r['core_alloc']}",
                            "value": f"{path}|{r['scenario']}|{r['node_alloc']}|"
                                     f"{r['core_alloc']}"})  # fmt: skip
        note = ("best first, by simulated makespan" if simulated
                else "Simulate to rank the plans by SimGrid")  # fmt: skip
        shown = html.Div([table(cols, cells, "ins-plans"), html.Div(note, className="hint")])
        return shown, options, options[0]["value"] if options else None

    @app.callback(Output("ins-gantt", "children"), Input("ins-choice", "value"),
                  prevent_initial_call=True)  # fmt: skip
    def gantt(choice: str | None) -> Any:
        if not isinstance(choice, str) or choice.count("|") != 3:
            return ""
        try:
            path, *plan = choice.split("|")
            png, summary = stage_gantt(ws.data_file(path, "ensemble"), *plan)
        except InputError as exc:
            return html.Div(error_text(exc), className="error")
        return html.Div([
            html.Div(f"simulated makespan {summary['makespan']:.1f} s (model "
                     f"{summary['model']:.1f} s)", className="hint"),
            html.Img(src=png, style={"maxWidth": "100%"}, id="ins-gantt-img"),
        ])  # fmt: skip


def searched_rows(stdout: Path | None) -> list[dict[str, Any]]:
    """The plans ``insitu simulate --search --json`` printed (best first)."""
    import json

    try:
        doc = json.loads(Path(stdout).read_text())  # type: ignore[arg-type]
        return list(doc["candidates"])
    except (OSError, TypeError, ValueError, KeyError):
        raise InputError("the search printed no result (see its log in specs/)") from None


def stage_gantt(path: str, scenario: str, node: str, core: str) -> tuple[str, dict[str, float]]:
    """The stage Gantt chart (a PNG data URL) of one plan, simulated in a fresh process (the
    first 20 steps drawn), and its makespans."""
    from ...insitu.plots import plot_gantt
    from ...insitu.search import plan_file
    from ...insitu.simulate import simulate

    plan = plan_file(Path(path), scenario, node, core)
    res = simulate(plan)
    return png_src(lambda b: plot_gantt(res, b, 20)), {
        "makespan": res.makespan,
        "model": plan.model_makespan,
    }
