"""Who may use the dashboard, and which requests it answers.

**The token.** The dashboard listens on 127.0.0.1, but on a shared machine (an HPC login
node) every local user can reach that port, and the dashboard runs simulations, reads the
workspace and loads uploaded policy files as its user. So, as Jupyter does, ``coschedlab gui``
makes a random token at start (:func:`new_token`) and prints the address with it
(``http://127.0.0.1:8050/?token=...``); :class:`TokenGate` refuses every request without it
(HTTP 403 and a short page saying to use that address). The first request carrying
``?token=`` sets a cookie (HttpOnly, SameSite=Strict, named by the port so that two dashboards
on one machine keep theirs), which the page's later requests (Dash's callbacks, its scripts,
the assets) carry. ``--no-token`` opts out (a machine of one's own), ``--token`` chooses it. A
browser the dashboard opens (``--open``, ``--window``) is given a file only this user reads
that sends it on to the address (:func:`opening_page`): never the token on its command line.

**Malformed requests.** A request the page never sends (callback JSON that is not Dash's
shape, names no callback of the app or nests too deep; a component-suite path with ``..`` or
naming nothing served) is answered 400 or 404 with one line, never a server traceback
(:func:`install_request_checks`).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

__all__ = [
    "COOKIE", "MAX_DEPTH", "OPENING_PAGE", "TokenGate", "install_request_checks", "new_token",
    "opening_page",
]  # fmt: skip

#: the cookie that carries the token (``-PORT`` added: cookies are not kept apart by port)
COOKIE = "coschedlab-token"
#: the page that sends a browser opened by the dashboard on to the address with the token
OPENING_PAGE = ".dashboard-open.html"
#: how deep a callback request's JSON may nest (the page's values nest a few levels)
MAX_DEPTH = 64
UPDATE = "/_dash-update-component"
SUITES = "/_dash-component-suites/"

_FORBIDDEN = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>coschedlab: token needed</title></head>
<body style="font-family:system-ui,sans-serif;margin:3em;max-width:40em">
<h2>This dashboard needs its token</h2>
<p>Open the address <code>coschedlab gui</code> printed when it started (it ends with
<code>?token=...</code>). The token keeps the other users of this machine out.</p>
</body></html>
"""

log = logging.getLogger("coschedlab.gui")


def new_token() -> str:
    """A fresh random token (as Jupyter's: 32 random bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


def opening_page(url: str, folder: Path) -> str:
    """A page in ``folder`` that only this user can read (mode 600) and that sends the
    browser on to ``url`` (the address with the token), as a ``file://`` address: what
    ``--open`` and ``--window`` give the browser, so that the token is never on a command
    line, which every user of the machine can read (``ps``). Written anew at each start."""
    import html

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / OPENING_PAGE
    shown = html.escape(url, quote=True)
    text = (f'<!doctype html><html><head><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0;url={shown}">'
            f"<title>coschedlab</title></head><body>"
            f'<a href="{shown}">open the coschedlab dashboard</a></body></html>\n')  # fmt: skip
    path.unlink(missing_ok=True)  # a file another user made cannot be written through
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path.as_uri()


def _same(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token (a comparison whose time does not depend on where
    they differ)."""
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


class TokenGate:
    """WSGI middleware: a request passes with ``?token=TOKEN`` (which also sets the cookie)
    or with the cookie; any other request gets HTTP 403 and a page saying to use the
    address printed at start."""

    def __init__(self, app: Callable[..., Iterable[bytes]], token: str) -> None:
        if not token:
            raise ValueError("an empty token lets everyone in: use no gate instead")
        self.app = app
        self.token = token

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        from werkzeug.http import dump_cookie, parse_cookie

        name = f"{COOKIE}-{environ.get('SERVER_PORT', '')}"  # this port's dashboard
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        if _same((query.get("token") or [None])[-1], self.token):

            def with_cookie(status: str, headers: list, exc_info: Any = None) -> Any:
                headers.append(("Set-Cookie", dump_cookie(
                    name, self.token, path="/", httponly=True, samesite="Strict")))  # fmt: skip
                return start_response(status, headers, exc_info)

            return self.app(environ, with_cookie)
        if _same(parse_cookie(environ).get(name), self.token):
            return self.app(environ, start_response)
        start_response("403 Forbidden", [("Content-Type", "text/html; charset=utf-8"),
                                         ("Content-Length", str(len(_FORBIDDEN))),
                                         ("Cache-Control", "no-store")])  # fmt: skip
        return [_FORBIDDEN]


def _depth(value: Any) -> int:
    """How deep ``value`` (parsed JSON) nests, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _items(value: Any, what: str) -> int:
    """The number of Dash dependency items in ``value`` (a list of ``{id, property, ...}``,
    an item a list of them for a pattern-matching dependency); ValueError when it is not."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list")
    for item in value:
        for one in item if isinstance(item, list) else [item]:
            if not (isinstance(one, dict) and isinstance(one.get("id"), str | dict)
                    and isinstance(one.get("property"), str)):  # fmt: skip
                raise ValueError(f"{what} holds something that is not an {{id, property}}")
    return len(value)


def callback_problem(body: Any, callbacks: dict[str, Any]) -> str | None:
    """What is wrong with a callback request's parsed JSON ``body`` for an app whose
    callbacks are ``callbacks`` (Dash's ``callback_map``), or None when it has Dash's shape
    and names one of them with the right numbers of inputs, states and outputs."""
    if _depth(body) > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    if not isinstance(body, dict):
        return "not a JSON object"
    output = body.get("output")
    if not isinstance(output, str) or output not in callbacks:
        return "names no callback of this dashboard"
    cb = callbacks[output]
    try:
        given = _items(body.get("inputs"), "inputs") + _items(body.get("state", []), "state")
        outputs = body.get("outputs", [])
        n_out = _items([outputs] if isinstance(outputs, dict) else outputs, "outputs")
    except ValueError as exc:
        return str(exc)
    if given != len(cb.get("inputs", [])) + len(cb.get("state", [])):
        return "the wrong number of inputs and states for its callback"
    declared = cb.get("output")
    n_declared = len(declared) if isinstance(declared, list | tuple) else 1
    if not cb.get("no_output") and n_out != n_declared:
        return "the wrong number of outputs for its callback"
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(x, str) for x in changed):
        return "changedPropIds must be a list of texts"
    return None


def install_request_checks(app: Any) -> None:
    """Answer malformed requests to the Dash app ``app`` with 400 or 404 and one line:
    callback requests (:func:`callback_problem`) and component-suite paths (``..``, or a
    file Dash does not serve); what still escapes Dash's handling of a callback request
    (its callbacks' own failures go to the page: ``on_error``) is a 400 and one log line."""
    from dash.exceptions import DependencyException, PreventUpdate
    from flask import request
    from werkzeug.exceptions import HTTPException

    server = app.server

    def plain(text: str, status: int) -> Any:
        return server.response_class(text + "\n", status=status, mimetype="text/plain")

    @server.before_request
    def checked() -> Any:
        path = request.path
        if path.startswith(SUITES) and ".." in path.split("/"):
            return plain("not found", 404)
        if path != UPDATE or request.method != "POST":
            return None
        try:
            body = json.loads(request.get_data(cache=True) or b"null")
        except RecursionError:
            return plain(f"bad callback request: nested deeper than {MAX_DEPTH} levels", 400)
        except ValueError:
            return plain("bad callback request: not JSON", 400)
        problem = callback_problem(body, app.callback_map)
        if problem is not None:
            return plain(f"bad callback request: {problem}", 400)
        return None

    server.register_error_handler(DependencyException, lambda _e: plain("not found", 404))
    view = server.view_functions[UPDATE]

    def dispatch(*args: Any, **kwargs: Any) -> Any:
        try:
            return view(*args, **kwargs)
        except (HTTPException, PreventUpdate):  # PreventUpdate: Dash answers 204
            raise
        except Exception as exc:  # the request's shape, past the checks: one line, no trace
            text = " ".join(str(exc).split())[:200]
            log.warning("bad callback request: %s: %s", type(exc).__name__, text)
            return plain(f"bad callback request: {type(exc).__name__}", 400)

    server.view_functions[UPDATE] = dispatch
