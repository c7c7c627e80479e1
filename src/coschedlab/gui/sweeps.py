"""A capability's stored sweep on its page: pick or upload the sweep spec, choose the output
folder, run the command line's sweep command on it (progress with the time left, cancel,
resume), and open any stored sweep of that kind in the workspace (its table, as the command
line prints it, and its figures).

Everything comes from the capability's registration (:mod:`coschedlab.sweeps.capability`):
which command, which spec reader, which table. :func:`sweep_section` builds the layout and
:func:`register_sweep` its callbacks, so every page shows its sweep the same way; a
capability without a page of its own gets one (:func:`sweep_page`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from .components import error_text, field, png_url, section, table, upload_field

__all__ = [
    "SweepPage", "register_sweep", "resume_hint", "sweep_name", "sweep_page", "sweep_section",
    "sweep_view",
]  # fmt: skip


def _id(cap: Any, name: str) -> str:
    """The id of the sweep section's component ``name`` on the page of ``cap``."""
    return f"{cap.prefix or cap.name}-sweep-{name}"


def sweep_section(kind: Any, ws: Any) -> Any:
    """The section of a page that runs and opens sweeps of the capability ``kind``."""
    from dash import dcc, html

    from .launch import watched

    i = functools.partial(_id, kind)
    specs = [{"label": label, "value": value} for label, value in kind.bundled]
    stored = ws.outputs(kind.what)
    running = watched(ws, kind.what)  # a reload shows the sweep going on
    return section(kind.title,
        html.Div(className="row", children=[
            field("sweep spec", dcc.Dropdown(id=i("spec"), options=specs,
                                             value=specs[0]["value"] if specs else None,
                                             clearable=False, style={"width": "22em"})),
            upload_field("or upload one (YAML)", i("upload")),
            field("output folder", dcc.Input(id=i("out"), type="text",
                                             value=kind.default_out, style={"width": "16em"}),
                  "inside the workspace; an existing sweep folder resumes"),
        ]),
        html.Div(className="row", children=[
            html.Button("Run the sweep", id=i("run"), className="primary"),
            html.Button("Cancel", id=i("cancel")),
        ]),
        html.Div(id=i("error"), className="error"),
        html.Progress(id=i("bar"), value="0", max="1"),
        html.Div(id=i("status"), className="hint"),
        dcc.Interval(id=i("tick"), interval=500, disabled=running is None),
        dcc.Store(id=i("active"), data=running),
        html.Div(className="row", children=[
            field("open a stored sweep", dcc.Dropdown(
                id=i("open"), options=stored, value=stored[0] if stored else None,
                style={"width": "22em"})),
        ]),
        dcc.Loading(html.Div(id=i("result"))),
    )  # fmt: skip


def register_sweep(app: Any, ctx: Any, kind: Any) -> None:
    """The callbacks of :func:`sweep_section`."""
    from dash import Input, Output, State, no_update

    from .components import on_cancel, on_upload
    from .launch import CHECK_S, AlreadyRunning, launched, refuse_running, start, sweep_status

    ws = ctx.workspace
    i = functools.partial(_id, kind)

    on_upload(app, ws, i("upload"), kind.upload, i("error"), choice=i("spec"))

    @app.callback(
        Output(i("active"), "data"), Output(i("error"), "children", allow_duplicate=True),
        Output(i("tick"), "disabled", allow_duplicate=True),
        Input(i("run"), "n_clicks"), State(i("spec"), "value"), State(i("out"), "value"),
        prevent_initial_call=True,
    )  # fmt: skip
    def run(_n: int, spec: str | None, out: str | None) -> tuple:
        from ..bundled import data_path, is_bundled
        from ..sweeps.capability import check_sweep
        from .isolated import call_isolated, dotted
        from .workspace import check_spec_paths

        try:
            target = ws.output(out)
            refuse_running(ws, target)  # a second click: show the first one's sweep
            chosen = ws.data_file(spec, "sweep spec")
            spec_path = data_path(chosen)
            if not is_bundled(chosen):  # an upload: it reaches nothing outside the workspace
                call_isolated(dotted(check_spec_paths), str(spec_path), str(ws.root),
                              cwd=ws.root, timeout=CHECK_S, where=str(spec_path))  # fmt: skip
            # the spec is read as the command will read it, in a process of its own (a
            # scheduler file it names runs module code when loaded)
            call_isolated(dotted(check_sweep), kind.name, str(spec_path), str(target),
                          cwd=ws.root, timeout=CHECK_S, where=str(spec_path))  # fmt: skip
            name = sweep_name(kind, ws, target)
            start(ws, kind.command_args(str(spec_path), str(target)), target, name,
                  jobs=ctx.jobs, executor=ctx.executor, kind=kind.what)  # fmt: skip
        except AlreadyRunning:  # a second click, or one that lost the race: watch it
            return ws.relative(target), "already running: its progress is below", False
        except InputError as exc:
            text = ws.words(error_text(exc))
            text = text.replace("give another --out", "choose another output folder")
            return no_update, text.replace("--out ", "the output folder "), no_update
        return ws.relative(target), "", False

    on_cancel(app, ws, i("cancel"), i("active"), i("error"))

    @app.callback(
        Output(i("bar"), "value"), Output(i("bar"), "max"), Output(i("status"), "children"),
        Output(i("tick"), "disabled"), Output(i("open"), "options"), Output(i("open"), "value"),
        Input(i("tick"), "n_intervals"), State(i("active"), "data"), prevent_initial_call=True,
    )  # fmt: skip
    def tick(_n: int, active: str | None) -> tuple:
        running = launched(ws, active)
        if running is None:
            return no_update, no_update, "", True, no_update, no_update
        finished, total, text = sweep_status(running)
        if running.code is None:
            return str(finished), str(max(total, 1)), text, False, no_update, no_update
        return str(finished), str(max(total, 1)), text, True, ws.outputs(kind.what), active

    @app.callback(
        Output(i("result"), "children"), Input(i("open"), "value"), Input(i("tick"), "disabled"),
    )  # fmt: skip
    def opened(folder: str | None, _ticking: bool) -> Any:
        if not folder:
            return ""
        try:
            return sweep_view(kind, ws, ws.inside(folder, "sweep folder"))
        except InputError as exc:
            from dash import html

            return html.Div(error_text(exc), className="error")


def sweep_view(kind: Any, ws: Any, out: Path) -> Any:
    """A stored sweep of ``kind``: how to resume it at the command line, its table and its
    figures (the PNG files the command wrote, largest first)."""
    from dash import html

    from ..sweeps.sweep import sweep_kind

    if sweep_kind(out) != kind.what:
        raise InputError(f"{ws.relative(out)} holds no {kind.what} sweep")
    try:
        shown = kind.table(out)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError("damaged table (a value of the wrong kind): run the sweep again to "
                         "rewrite it", ws.relative(out)) from None  # fmt: skip
    parts = [html.Div(resume_hint(kind, ws, out), className="hint", id=_id(kind, "command"))]
    if shown is None:
        parts.append(html.Div("no table yet: the sweep has not finished", className="hint"))
    else:
        title, columns, rows = shown
        parts += [html.H3(title), table(columns, rows, _id(kind, "table"))]
    figures = []
    for png in sorted(out.glob("*.png")):
        data = _png_data(png, png.stat().st_mtime_ns)
        shown_as = (html.Img(src=data, style={"maxWidth": "100%"}) if data
                    else html.Div("not shown: not a PNG the command wrote, or over 8 MB",
                                  className="error"))  # fmt: skip
        figures.append(html.Div([html.Div(png.name, className="hint"), shown_as],
                                className="figure"))  # fmt: skip
    parts.append(html.Div(figures, className="row figures"))
    return html.Div(parts)


def sweep_name(kind: Any, ws: Any, out: Path) -> str:
    """The name of the spec, log and progress files of a sweep of ``kind`` into ``out``."""
    from .launch import launch_name

    return f"{kind.prefix or kind.name}-sweep_{launch_name(ws, out)}"


def resume_hint(kind: Any, ws: Any, out: Path) -> str:
    """How to resume the sweep in ``out`` at the command line: the command the dashboard ran
    (its spec named as the user names it), or, for a sweep the command line made, the command
    with the place of its spec said in words."""
    from .launch import SPECS

    try:
        said = (ws.root / SPECS / f"{sweep_name(kind, ws, out)}.command").read_text().strip()
    except (OSError, UnicodeDecodeError):
        said = ""
    if said.startswith("coschedlab "):
        return f"at the command line (resumes it): {said}"
    command = " ".join(["coschedlab", *kind.command_args("SPEC.yaml", ws.relative(out))])
    return (f"at the command line (resumes it): {command}, SPEC.yaml being the spec that "
            "made it (the command line made this sweep: its spec is not recorded)")  # fmt: skip


#: the largest figure a page inlines (a sweep's figures are ~50-200 kB)
MAX_FIGURE_BYTES = 8 << 20


@functools.lru_cache(maxsize=64)
def _png_data(path: Path, _stamp: int) -> str | None:
    """A PNG file as a data URL (kept while the file is unchanged); None for a file that is
    not a PNG or is too large to inline."""
    try:
        if path.stat().st_size > MAX_FIGURE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    return png_url(data)


@dataclass(frozen=True)
class SweepPage:
    """A page ending with the sweep section of the capability ``cap``: the page module ``own``
    followed by the section, or (no module) the section alone (what a page module has:
    ``NAME``, ``PATH``, ``TITLE``, ``layout(ctx)``, ``register(app, ctx)``)."""

    cap: Any
    NAME: str  # noqa: N815 (a page module's names)
    PATH: str  # noqa: N815
    TITLE: str  # noqa: N815
    own: Any = None

    def layout(self, ctx: Any) -> Any:
        from dash import html

        page = html.Div([html.H2(self.TITLE)]) if self.own is None else self.own.layout(ctx)
        kept = page.children if isinstance(page.children, list | tuple) else [page.children]
        page.children = [*kept, sweep_section(self.cap, ctx.workspace)]
        return page

    def register(self, app: Any, ctx: Any) -> None:
        if self.own is not None:
            self.own.register(app, ctx)
        register_sweep(app, ctx, self.cap)


def sweep_page(cap: Any, own: Any = None) -> SweepPage:
    """The page of the capability ``cap``: the page module ``own`` and its sweep section, or
    a generated page (the section alone)."""
    if own is not None:
        return SweepPage(cap, own.NAME, own.PATH, own.TITLE, own)
    return SweepPage(cap, cap.name, f"/{cap.name}",
                     cap.label or cap.name.replace("_", " ").capitalize())  # fmt: skip
