"""The dashboard's shell: one Dash app, a navigation bar and one module per page.

Why Dash: it is what ELiSE's GUI is built on, it is Plotly's maintained framework for
exactly this (forms, uploads, interactive plotly figures, callbacks) and it ships every
asset in the wheel: with ``serve_locally`` (the default) the page loads React, the Dash
renderer and plotly.js from this server, never from a CDN, so it works offline. The
alternative, a small ASGI app with hand-written JavaScript around plotly.js, would make us
maintain a front end.

Pages are modules of :mod:`coschedlab.gui.pages`, each with ``PATH``, ``TITLE``,
``layout(ctx)`` and ``register(app, ctx)`` (its callbacks); a registered capability without
a module gets a generated page (:func:`~coschedlab.gui.pages.pages`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .workspace import MAX_UPLOAD_BYTES, Workspace

__all__ = ["Context", "make_app", "shown_error"]

ASSETS = Path(__file__).parent / "assets"
#: the one-line error of a callback that failed unexpectedly, under the navigation bar
ERROR_BANNER = "app-error"


@dataclass(frozen=True)
class Context:
    """What every page is given: the workspace, and how comparisons run (``jobs`` worker
    processes, ``executor``: a ``--executor`` value, None for the local pool)."""

    workspace: Workspace
    jobs: int | None = None
    executor: str | None = None


def make_app(ctx: Context, token: str | None = None) -> Any:
    """The dashboard as a Dash app (its Flask server is ``app.server``): every request must
    carry ``token`` (:class:`~.guard.TokenGate`; None: no token asked), and malformed
    requests are answered 400 or 404 (:func:`~.guard.install_request_checks`)."""
    from dash import Dash, Input, Output, dcc, html

    from .guard import TokenGate, install_request_checks
    from .pages import pages

    every = pages()
    app = Dash(
        __name__,
        title="coschedlab",
        assets_folder=str(ASSETS),
        serve_locally=True,
        suppress_callback_exceptions=True,  # the pages' components come and go
        update_title=None,
        on_error=shown_error,
    )
    # an upload larger than this is refused by the server before any callback reads it
    app.server.config["MAX_CONTENT_LENGTH"] = (MAX_UPLOAD_BYTES * 4) // 3 + (1 << 20)
    nav = html.Nav(
        [html.Span("coschedlab", className="brand")]
        + [dcc.Link(p.TITLE, href=p.PATH, id=f"nav-{p.NAME}", className="nav") for p in every]
        + [html.Span(f"workspace: {ctx.workspace.root}", className="where")],
        className="bar",
    )
    app.layout = html.Div(
        [dcc.Location(id="url"), nav,
         html.Div(id=ERROR_BANNER, className="error banner"), html.Main(id="page")],
    )  # fmt: skip
    by_path = {p.PATH: p for p in every}

    @app.callback(Output("page", "children"), Output(ERROR_BANNER, "children"),
                  Input("url", "pathname"))  # fmt: skip
    def route(pathname: str | None) -> Any:
        page = by_path.get(pathname or "/") if isinstance(pathname, str | None) else None
        if page is None:
            return html.Div([html.H2("No such page"), dcc.Link("back to the start", href="/")]), ""
        return page.layout(ctx), ""

    @app.callback(Output(ERROR_BANNER, "children", allow_duplicate=True),
                  Input(ERROR_BANNER, "n_clicks"), prevent_initial_call=True)  # fmt: skip
    def dismissed(_n: int | None) -> str:
        return ""

    for page in every:
        page.register(app, ctx)
    install_request_checks(app)
    if token is not None:
        app.server.wsgi_app = TokenGate(app.server.wsgi_app, token)
    return app


def shown_error(exc: Exception) -> None:
    """Every callback's last resort (Dash's ``on_error``): a value the page should have
    refused, or a failure of ours, becomes the command line's one-line error under the
    navigation bar (never a traceback in the page), the callback's outputs unchanged; the
    traceback goes to the server's log for a bug report."""
    import logging

    from dash import set_props

    from .components import error_text

    logging.getLogger("coschedlab.gui").error("a dashboard callback failed", exc_info=exc)
    set_props(ERROR_BANNER, {"children": error_text(exc), "title": "click to dismiss"})
