"""Workflow-aware scheduling (WoAS): a workflow (built in, or an uploaded WfFormat, manifest
or DAX file), its shape (critical path, cores, pilot waste, its profile), and a workload of
regular jobs with the workflow at a share of the core-hours, simulated with the workflows
submitted as chained jobs, pilot jobs and WoAS jobs side by side: the table ``coschedlab
workflows simulate`` prints."""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ..components import error_text, field, on_upload, png_src, section, table, upload_field
from ..workspace import form_number, form_whole

NAME = "workflows"
PATH = "/workflows"
TITLE = "Workflows"
#: the longest window (or warm-up) the page simulates: a year
MAX_HOURS = 24 * 366
#: the machine the page starts with: a quarter of Edison, busy enough for the workflows to
#: queue (on a machine without a queue the three modes look alike); a few seconds to simulate
DEFAULT_MACHINE = "1394x24"


def alike_note(summaries: dict[str, dict]) -> str | None:
    """A line saying why the modes look alike when their median turnarounds are within 1%
    of each other (the workflows did not queue), else None."""
    values = [s.get("median_turnaround") for s in summaries.values()]
    values = [v for v in values if isinstance(v, int | float) and v == v]
    if len(values) < 2 or max(values) > 1.01 * min(values):
        return None
    return ("The modes look alike: on this machine the workflows hardly queue, and the modes "
            "differ in how they queue (pilot jobs wait for the whole allocation, chained jobs "
            f"between tasks). A busier machine, such as {DEFAULT_MACHINE} or a larger share, "
            "shows the difference.")  # fmt: skip


def simulate_modes(form: dict[str, Any]) -> tuple[Any, dict[str, dict]]:
    """The workflow of ``form`` and its three modes simulated: (workflow, summaries by mode
    over the workflows of the analysis window completed in every mode). ``form``: workflow
    (name or path), machine, share, seed, hours (analysed), warmup (hours)."""
    from ...workflows.formats import load_workflow
    from ...workflows.simulate import simulate_modes
    from ...workflows.workload import generate, machine_of

    def number(key: str, low: float, high: float) -> float:
        v = form.get(key)
        x = form_number(v)
        if not low <= x <= high:  # NaN too
            raise InputError(f"{key} must be a number in [{low:g}, {high:g}], got {v!r}")
        return x

    wf = load_workflow(str(form.get("workflow") or ""))
    share = number("share", 1e-6, 1.0)
    seed = form_whole(form.get("seed"), "seed", 0, 2**63 - 1)
    ww = generate(
        [wf], cluster=machine_of(str(form.get("machine") or "")), seed=seed,
        share=share, warmup=number("warmup", 0, MAX_HOURS) * 3600,
        window=number("hours", 1, MAX_HOURS) * 3600,
    )  # fmt: skip
    return wf, simulate_modes(ww)[1]


def layout(ctx: Any) -> Any:
    from dash import dcc, html

    from ...workflows.library import names

    return html.Div([
        html.H2("Workflow-aware scheduling"),
        section("Workflow and workload",
            html.Div(className="row", children=[
                field("workflow", dcc.Dropdown(id="wf-name", options=names(),
                                               value="cybershake", clearable=False,
                                               style={"width": "12em"})),
                upload_field("or upload one (WfFormat .json, manifest, .dax)", "wf-upload"),
                field("machine", dcc.Input(id="wf-machine", type="text",
                                           value=DEFAULT_MACHINE),
                      "edison or NODESxCORES"),
                field("workflows' share of core-hours", dcc.Input(
                    id="wf-share", type="number", value=0.1, step=0.01)),
                field("hours analysed", dcc.Input(id="wf-hours", type="number", value=24)),
                field("warm-up hours", dcc.Input(id="wf-warmup", type="number", value=6)),
                field("seed", dcc.Input(id="wf-seed", type="number", value=0)),
            ]),
            html.Button("Simulate the three modes", id="wf-run", className="primary"),
            html.Div(id="wf-error", className="error"),
            dcc.Store(id="wf-path"),
        ),
        dcc.Loading(html.Div(id="wf-result")),
    ])  # fmt: skip


def register(app: Any, ctx: Any) -> None:
    from dash import Input, Output, State, html, no_update

    ws = ctx.workspace

    on_upload(app, ws, "wf-upload", "workflow", "wf-error", choice="wf-name")

    @app.callback(
        Output("wf-result", "children"), Output("wf-error", "children"),
        Input("wf-run", "n_clicks"), State("wf-name", "value"), State("wf-machine", "value"),
        State("wf-share", "value"), State("wf-hours", "value"), State("wf-warmup", "value"),
        State("wf-seed", "value"), prevent_initial_call=True,
    )  # fmt: skip
    def simulated(_n, name, machine, share, hours, warmup, seed) -> tuple:
        from ...workflows.library import names
        from ...workflows.metrics import compared_title, summary_cells
        from ...workflows.plots import profile_figure

        try:
            if name not in names():  # not a built-in one: an upload, in the workspace
                name = ws.data_file(name, "workflow")
            wf, summaries = simulate_modes({
                "workflow": name, "machine": machine, "share": share, "hours": hours,
                "warmup": warmup, "seed": seed})  # fmt: skip
        except InputError as exc:
            return no_update, error_text(exc)
        s = wf.summary()
        shape = (f"{wf.name}: {len(wf.tasks)} tasks, critical path "
                 f"{wf.critical_path / 3600:.2f} h, {wf.max_cores} cores at most, "
                 f"{s['usage_core_h']:.1f} core-h, pilot waste "
                 f"{s['potential_waste_core_h']:.1f} core-h")  # fmt: skip
        title, note = compared_title(summaries)
        return html.Div([
            html.H3(title),
            table(["metric", *summaries], summary_cells(summaries), "wf-table"),
            html.Div(note or "", className="hint", id="wf-warmup"),
            html.Div(alike_note(summaries) or "", className="hint", id="wf-alike"),
            html.Div(shape, className="hint"),
            html.Img(src=png_src(lambda b: profile_figure(wf).savefig(b, format="png", dpi=100)),
                     style={"maxWidth": "70%"}),
        ]), ""  # fmt: skip
