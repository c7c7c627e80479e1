"""Set up and run a comparison: the cluster, a workload (generated from an application pool,
a bundled trace or an uploaded SWF), the schedulers with their options (and a policy file of
your own), repetitions, and the output directory; then run it with a live progress bar and
ETA, each run's state, and cancel.

The form becomes the comparison spec a user would write (:func:`spec_document`); the run is
``coschedlab compare`` on it (:mod:`coschedlab.gui.launch`)."""

from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..components import error_text, field, on_cancel, on_upload, section, upload_field
from ..launch import (
    AlreadyRunning,
    launch,
    launched,
    progress,
    refuse_running,
    status_line,
    watched,
)
from ..workspace import form_text, form_whole, scheduler_text

NAME = "run"
PATH = "/"
TITLE = "Set up and run"

#: bundled data: label -> the spec's ``coschedlab:`` name
BUNDLED_POOLS = {
    "ARIS NAS (ELiSE, 2 x 10 cores)": "pools/lm-aris.compute-NAS.json",
    "ARIS SPEC (ELiSE)": "pools/lm-aris.compute-SPEC.json",
    "Grid'5000 grvingt NAS (ELiSE)": "pools/lm-remake-g5k.nancy.grvingt-NAS.json",
    "Grid'5000 grvingt large NAS (ELiSE)": "pools/lm-remake-g5k.nancy.grvingt-LARGENAS.json",
}
BUNDLED_TRACES = {
    "KTH-SP2 1996 (PWA, 100 nodes)": "KTH-SP2-1996-2.1-cln.swf.gz",
    "Theta 2022 (ALCF)": "theta_2022.swf.gz",
}
DEFAULT_SCHEDULERS = ["easy", "easy-coloc"]


def scheduler_choices() -> list[dict[str, str]]:
    """Every registered scheduler, with the first line of its description."""
    from ...schedulers.registry import available

    out = []
    for name, cls in available().items():
        doc = (cls.__doc__ or "").strip().splitlines()
        out.append({"label": name, "value": name, "title": doc[0] if doc else ""})
    return out


def pool_sizes(pool: str, cores: int) -> list[int]:
    """The process counts of a pool's applications that fit in ``cores`` (a pool given as
    the spec gives it: ``coschedlab:NAME`` or a path)."""
    from ...bundled import data_path
    from ...coloc.pool import load_pool

    path = data_path(pool)
    return sorted({a.procs for a in load_pool(path).apps if a.procs <= cores})


def spec_document(form: dict[str, Any]) -> dict[str, Any]:
    """The comparison spec (as YAML would give it) of the page's form values (a pool
    workload draws only the applications that fit the cluster): ``nodes``,
    ``sockets``, ``cores``, ``kind`` (pool, trace or upload), ``pool``, ``jobs``, ``arrival``,
    ``trace``, ``limit``, ``upload`` (a stored SWF path), ``schedulers`` (names),
    ``extra`` (comma-separated scheduler specs), ``policies`` (stored .py paths),
    ``repetitions``, ``seed``, ``kill``, ``name``."""

    def number(key: str, what: str, minimum: int = 1) -> int:
        v = form.get(key)
        if v is None or v == "":
            raise InputError(f"give the {what}")
        return form_whole(v, f"the {what}", minimum)

    kind = form.get("kind") or "pool"
    cluster = {
        "nodes": number("nodes", "number of nodes"),
        "sockets_per_node": number("sockets", "sockets per node"),
        "cores_per_socket": number("cores", "cores per socket"),
    }
    if kind == "pool":
        pool = form.get("pool")
        if not pool:
            raise InputError("choose an application pool (or upload one)")
        workload = {
            "name": "pool",
            "pool": pool,
            "jobs": number("jobs", "number of jobs"),
            "arrival": form_text(form.get("arrival"), "arrival") or "constant:0",
        }
        cores = cluster["nodes"] * cluster["sockets_per_node"] * cluster["cores_per_socket"]
        fit = pool_sizes(pool, cores)
        if not fit:
            raise InputError(f"no application of the pool fits in {cores} cores: "
                             "choose a larger cluster")  # fmt: skip
        workload["select"] = {"procs": fit}
    elif kind == "trace":
        if not form.get("trace"):
            raise InputError("choose a trace")
        workload = {"name": "trace", "trace": form["trace"]}
    elif kind == "upload":
        if not form.get("upload"):
            raise InputError("upload an SWF trace first")
        workload = {"name": Path(form["upload"]).name.split(".")[0] or "trace",
                    "trace": form["upload"]}  # fmt: skip
    else:
        raise InputError(f"unknown workload kind {kind!r}")
    if kind != "pool" and form.get("limit") not in (None, ""):
        workload["limit"] = number("limit", "number of jobs to read")
    schedulers = [form_text(x, "scheduler") for x in _items(form.get("schedulers"), "schedulers")]
    extra = form_text(form.get("extra"), "more schedulers")
    schedulers += [s.strip() for s in extra.split(",") if s.strip()]
    schedulers += [form_text(x, "policy") for x in _items(form.get("policies"), "policies")]
    if not schedulers:
        raise InputError("choose at least one scheduler")
    if len(set(schedulers)) != len(schedulers):
        dup = next(s for s in schedulers if schedulers.count(s) > 1)
        raise InputError(f"scheduler {dup!r} is chosen twice")
    return {
        "name": form.get("name") or "comparison",
        "cluster": cluster,
        "repetitions": number("repetitions", "number of repetitions"),
        "seed": number("seed", "seed", minimum=0),
        "kill_at_walltime": bool(form.get("kill")),
        "schedulers": schedulers,
        "workloads": [workload],
        "plots": "none",
    }


#: the form's fields as the Run button sends them (:func:`spec_document`'s keys and the
#: output folder): the value of the control of that id, an upload's path from its store
FORM = (
    "nodes", "sockets", "cores", "kind", "pool", "jobs", "arrival", "trace", "limit", "upload",
    "schedulers", "extra", "policies", "repetitions", "seed", "kill", "out",
)  # fmt: skip
STORES = {"upload": "upload-path", "policies": "policies"}


def _items(v: Any, what: str) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise InputError(f"the {what} must be a list, got {type(v).__name__}")
    return v


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    pools = [{"label": k, "value": f"coschedlab:{v}"} for k, v in BUNDLED_POOLS.items()]
    traces = [{"label": k, "value": f"coschedlab:{v}"} for k, v in BUNDLED_TRACES.items()]
    outputs = ctx.workspace.outputs()
    running = watched(ctx.workspace, "comparison")  # a reload shows the run going on
    return html.Div([
        html.H2("Set up and run a comparison"),
        section("Cluster", html.Div([
            field("nodes", dcc.Input(id="nodes", type="number", value=100)),
            field("sockets per node", dcc.Input(id="sockets", type="number", value=2)),
            field("cores per socket", dcc.Input(id="cores", type="number", value=10)),
        ], className="row")),
        section("Workload",
            dcc.RadioItems(id="kind", value="pool", inline=True, options=[
                {"label": "generate from an application pool", "value": "pool"},
                {"label": "a bundled trace", "value": "trace"},
                {"label": "upload an SWF trace", "value": "upload"},
            ]),
            html.Div(id="pool-box", className="row", children=[
                field("pool", dcc.Dropdown(id="pool", options=pools, value=pools[0]["value"],
                                           clearable=False, style={"width": "26em"})),
                upload_field("or upload a pool (ELiSE JSON)", "pool-upload"),
                field("jobs", dcc.Input(id="jobs", type="number", value=200)),
                field("arrival", dcc.Input(id="arrival", type="text", value="poisson:60"),
                      "constant:S, uniform:LO,HI, poisson:MEAN or weibull:K,S (seconds)"),
            ]),
            html.Div(id="trace-box", className="row", children=[
                field("trace", dcc.Dropdown(id="trace", options=traces,
                                            value=traces[0]["value"], clearable=False,
                                            style={"width": "22em"})),
            ]),
            html.Div(id="upload-box", className="row", children=[
                upload_field("SWF trace (plain or .gz)", "swf-upload"),
                html.Div(id="swf-name", className="hint"),
            ]),
            html.Div(className="row", children=[
                field("jobs to read (traces)", dcc.Input(id="limit", type="number",
                                                          value=2000)),
            ], id="limit-box"),
            html.Div(id="upload-error", className="error"),
            dcc.Store(id="upload-path"),
        ),
        section("Schedulers",
            dcc.Checklist(id="schedulers", options=scheduler_choices(),
                          value=DEFAULT_SCHEDULERS, inline=True),
            html.Div(className="row", children=[
                field("more, with options", dcc.Input(
                    id="extra", type="text", placeholder="easy:depth=50, filler",
                    style={"width": "22em"}),
                    "scheduler specs as for coschedlab simulate -s, comma-separated"),
                upload_field("your policy (.py)", "policy-upload"),
                html.Div(id="policy-names", className="hint"),
            ]),
            dcc.Store(id="policies", data=[]),
        ),
        section("Runs", html.Div(className="row", children=[
            field("repetitions", dcc.Input(id="repetitions", type="number", value=1)),
            field("seed", dcc.Input(id="seed", type="number", value=0)),
            field("", dcc.Checklist(id="kill", options=[
                {"label": "kill jobs at their walltime", "value": "kill"}], value=[])),
            field("output directory (in the workspace)", dcc.Input(
                id="out", type="text", value=_free_name(outputs), list="outputs",
                style={"width": "18em"})),
            html.Datalist(id="outputs", children=[html.Option(value=o) for o in outputs]),
        ])),
        html.Div(className="row", children=[
            html.Button("Run", id="run-btn", className="primary"),
            html.Button("Cancel", id="cancel-btn"),
            dcc.Link("see the results", href="/results", id="to-results"),
        ]),
        html.Div(id="run-error", className="error"),
        section("Progress",
            html.Progress(id="bar", value="0", max="1"),
            html.Div(id="progress-text"),
            html.Div(id="runs-table"),
            id="progress-box",
        ),
        dcc.Store(id="active", data=running),
        dcc.Interval(id="tick", interval=500, disabled=running is None),
    ])  # fmt: skip


def _free_name(outputs: list[str]) -> str:
    return next(f"comparison{k}" for k in count(1) if f"comparison{k}" not in outputs)


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    @app.callback(
        Output("pool-box", "style"), Output("trace-box", "style"),
        Output("upload-box", "style"), Output("limit-box", "style"), Input("kind", "value"),
    )  # fmt: skip
    def show_kind(kind: str) -> tuple:
        shown, hidden = {}, {"display": "none"}
        return (
            shown if kind == "pool" else hidden,
            shown if kind == "trace" else hidden,
            shown if kind == "upload" else hidden,
            hidden if kind == "pool" else shown,
        )

    on_upload(app, ws, "swf-upload", "swf", "upload-error",
              [("upload-path", "data"), ("swf-name", "children")],
              lambda path, name: (str(path), f"uploaded {name}"))  # fmt: skip
    on_upload(app, ws, "pool-upload", "pool", "upload-error", choice="pool")

    def policy_added(path: Path, name: str, have: list | None) -> tuple:
        have = [*(have or []), str(path)]
        return have, "your policies: " + ", ".join(Path(p).name for p in have)

    on_upload(app, ws, "policy-upload", "policy", "upload-error",
              [("policies", "data"), ("policy-names", "children")], policy_added,
              states=(("policies", "data"),))  # fmt: skip

    @app.callback(
        Output("active", "data"), Output("run-error", "children"),
        Output("tick", "disabled", allow_duplicate=True), Input("run-btn", "n_clicks"),
        *(State(STORES[k], "data") if k in STORES else State(k, "value") for k in FORM),
        prevent_initial_call=True,
    )  # fmt: skip
    def run(_n: int, *values: Any) -> tuple:
        form = dict(zip(FORM, values, strict=True))
        kind = form["kind"]
        try:
            target = ws.output(form["out"])
            refuse_running(ws, target)  # a second click: show the first one's run
            if kind == "upload" and not form["upload"]:
                raise InputError("upload an SWF trace first")
            # what the browser sends back is checked again: bundled data or workspace files
            for key, what in (("pool", "pool"), ("trace", "trace"), ("upload", "trace")):
                form[key] = ws.data_file(form[key], what) if kind == key else None
            form["policies"] = [ws.data_file(p, "policy") for p in form["policies"] or []]
            for text in form_text(form["extra"], "more schedulers").split(","):
                scheduler_text(text)
            form.update(kill=bool(form["kill"]), name=ws.relative(target))
            launch(ws, spec_document(form), target, jobs=ctx.jobs, executor=ctx.executor)
        except AlreadyRunning:  # a second click, or one that lost the race: watch it
            return ws.relative(target), "already running: its progress is below", False
        except InputError as exc:
            return no_update, error_text(exc), no_update
        return ws.relative(target), "", False

    on_cancel(app, ws, "cancel-btn", "active", "run-error")

    @app.callback(
        Output("bar", "value"), Output("bar", "max"), Output("progress-text", "children"),
        Output("runs-table", "children"), Output("tick", "disabled"),
        Input("tick", "n_intervals"), State("active", "data"), prevent_initial_call=True,
    )  # fmt: skip
    def tick(_n, active: str | None) -> tuple:
        running = launched(ws, active)
        if running is None:
            return no_update, no_update, "", no_update, True
        states = progress(running.out, running.plan, running.live)
        done = sum(s.state == "done" for s in states)
        failed = sum(s.state == "failed" for s in states)
        code = running.code
        finished = done + failed
        text = status_line(running, finished, len(states), failed)
        rows = [html.Tr([html.Td(s.workload), html.Td(s.scheduler), html.Td(str(s.rep)),
                         html.Td(_state(s, code)), html.Td(_bar(s, code)), html.Td(
                             "" if s.seconds is None else f"{s.seconds:.2f} s")],
                        className=s.state) for s in states]  # fmt: skip
        table = html.Table(
            [html.Thead(html.Tr([html.Th(c) for c in
                                 ("workload", "scheduler", "rep", "state", "jobs", "took")])),
             html.Tbody(rows)], id="run-states", className="numbers")  # fmt: skip
        return str(finished), str(max(len(states), 1)), text, table, code is not None


def _bar(s: Any, code: int | None) -> Any:
    """A run's own progress bar: its jobs done while it runs, full once done."""
    from dash import html

    if s.state == "done":
        return html.Progress(value="1", max="1", className="run")
    if s.jobs is not None and code is None:
        done, total = s.jobs
        return html.Span([html.Progress(value=str(done), max=str(max(total, 1)),
                                        className="run"), f" {done:,}/{total:,}"])  # fmt: skip
    return ""


def _state(s: Any, code: int | None) -> str:
    if s.state == "waiting":
        return "queued or running" if code is None else "not run"
    return s.state
