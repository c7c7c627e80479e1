"""Building blocks every page uses: labelled fields, sections, one-line errors, tables and
figures, so that pages do not copy layouts."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

__all__ = [
    "error_text", "field", "figure", "on_cancel", "on_upload", "png_src", "png_url", "section",
    "table", "upload_field",
]  # fmt: skip


def field(label: str, control: Any, hint: str | None = None) -> Any:
    """A labelled form control (with an optional hint under it)."""
    from dash import html

    children = [html.Label(label), control]
    if hint:
        children.append(html.Div(hint, className="hint"))
    return html.Div(children, className="field")


def upload_field(label: str, id: str) -> Any:
    """A labelled upload control ``id`` (its file checked and stored by :func:`on_upload`;
    the browser sends any size, the server refuses what is too large)."""
    from dash import dcc, html

    upload = dcc.Upload(id=id, children=html.Div("drop or click"), max_size=-1, className="upload")
    return field(label, upload)


def section(title: str, *children: Any, id: str | None = None) -> Any:
    """A titled block of the page."""
    from dash import html

    kw = {"id": id} if id else {}
    return html.Section([html.H3(title), *children], **kw)


def error_text(exc: BaseException) -> str:
    """The one line the command line would print for ``exc`` (never a traceback)."""
    from ..errors import InputError, OutputError

    if isinstance(exc, (InputError, OutputError)):
        return f"error: {exc}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"error: {type(exc).__name__}: {text}"


def table(columns: list[str], rows: list[list[str]], id: str) -> Any:
    """A plain table of text cells (first two columns left-aligned, numbers right)."""
    from dash import html

    head = html.Thead(html.Tr([html.Th(c) for c in columns]))
    body = html.Tbody([html.Tr([html.Td(c) for c in r]) for r in rows])
    return html.Table([head, body], id=id, className="numbers")


def figure(fig: Any, id: str | None = None) -> Any:
    """A plotly figure as a graph (an HTML string, such as the report's PNG, as is)."""
    from dash import dcc, html

    if isinstance(fig, str):
        return html.Div("figure too large to draw here", className="hint")
    kw = {"id": id} if id else {}
    return dcc.Graph(figure=fig, config={"displaylogo": False}, **kw)


def png_url(data: bytes) -> str:
    """PNG bytes as a data URL (an image's ``src``)."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def png_src(draw: Callable[[io.BytesIO], Any]) -> str:
    """The PNG ``draw(buffer)`` writes, as a data URL (an image's ``src``)."""
    buf = io.BytesIO()
    draw(buf)
    return png_url(buf.getvalue())


def on_upload(
    app: Any,
    ws: Any,
    upload: str,
    kind: str,
    error: str,
    outputs: list[tuple[str, str]] | None = None,
    done: Callable[..., tuple] | None = None,
    states: tuple[tuple[str, str], ...] = (),
    choice: str | None = None,
) -> None:
    """Register the callback of the upload control ``upload``: the file is stored and read
    as the command line would (:meth:`~coschedlab.gui.workspace.Workspace.save_upload`, its
    ``kind``); ``done(path, name, *states)`` (``name``: the cleaned file name it is stored
    under) gives the values of ``outputs``, and a bad
    file's one-line error goes to the children of ``error``. ``choice`` (instead of
    ``outputs`` and ``done``): the dropdown the file is added to, as "NAME (uploaded)", and
    chosen in."""
    from dash import Input, Output, State, no_update

    from ..errors import InputError

    if choice is not None:
        outputs, states = [(choice, "options"), (choice, "value")], ((choice, "options"),)

        def done(path: Any, name: str, options: list) -> tuple:
            return [*options, {"label": f"{name} (uploaded)", "value": str(path)}], str(path)

    @app.callback(
        *[Output(*o) for o in outputs], Output(error, "children", allow_duplicate=True),
        Input(upload, "contents"), State(upload, "filename"), *[State(*x) for x in states],
        prevent_initial_call=True,
    )  # fmt: skip
    def uploaded(contents: str | None, filename: str | None, *state: Any) -> tuple:
        try:
            path = ws.save_upload(filename or f"upload.{kind}", contents or "", kind)
        except InputError as exc:
            return (*[no_update] * len(outputs), error_text(exc))
        return (*done(path, path.name, *state), "")  # the name it is stored under, cleaned


#: what a Cancel button says of a sweep it stops (its finished runs stay stored)
CANCELLING = "cancelling: finished runs stay stored; Run again resumes"


def on_cancel(
    app: Any, ws: Any, button: str, active: str, error: str, said: str = CANCELLING
) -> None:
    """Register the callback of a Cancel ``button``: the command this dashboard started into
    the output folder held by the store ``active`` is stopped as Ctrl-C would stop it
    (:meth:`~coschedlab.gui.launch.Launch.cancel`); ``said`` (or "nothing is running") goes to
    the children of ``error``."""
    from dash import Input, Output, State

    from .launch import launched

    @app.callback(
        Output(error, "children", allow_duplicate=True),
        Input(button, "n_clicks"), State(active, "data"), prevent_initial_call=True,
    )  # fmt: skip
    def cancel(_n: int, folder: str | None) -> str:
        running = launched(ws, folder)
        if running is None or running.code is not None:
            return "nothing is running"
        running.cancel()
        return said
