"""``coschedlab gui``: the browser dashboard, served on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .options import ExecutorOpt, JobsOpt, executor_of

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def gui(
    root: Annotated[
        Path,
        typer.Option(
            "--root",
            help="the workspace: every file the dashboard reads or writes "
            "is inside it (default: the current directory)",
        ),
    ] = Path("."),
    port: Annotated[int, typer.Option("--port", help="port (0: a free one)")] = 8050,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="address to listen on (default 127.0.0.1: this machine "
            "only; anything else lets other machines in)",
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[bool, typer.Option("--open", help="open it in the browser")] = False,
    window: Annotated[
        bool,
        typer.Option(
            "--window",
            help="show it in a window of its own (Chromium's application mode) and stop "
            "when the window closes",
        ),
    ] = False,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="COSCHEDLAB_GUI_TOKEN",
            show_envvar=False,
            help="the token every request must carry (default: a random one, in the address "
            "printed at start); other users see a command line (ps): prefer the "
            "COSCHEDLAB_GUI_TOKEN variable",
        ),
    ] = None,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="ask for no token: every user who can reach the port can use the dashboard "
            "(only on a machine of your own)",
        ),
    ] = False,
    jobs: JobsOpt = None,
    executor: ExecutorOpt = None,
) -> None:
    """Set up, run, watch and compare simulations, and plan in situ ensembles, in the
    browser. Comparisons are `coschedlab compare` runs stored in the workspace: the command
    line reads what the dashboard makes and the other way round."""
    import logging
    import signal
    import socket
    import webbrowser

    from ..gui import Context, Workspace, make_app
    from .progress import text_console

    err = text_console(stderr=True)
    if not 0 <= port <= 65535:
        raise InputError(f"--port must be 0-65535, got {port}")
    executor_of(jobs, executor)  # a bad value is refused now, not at the first run
    if window and open_browser:
        raise InputError("--window and --open: choose one")
    if token is not None and no_token:
        raise InputError("--token and --no-token: choose one")
    if token is not None and (not token.strip() or not token.isprintable()):
        raise InputError("--token must be printable text, not empty")
    browser = None
    if window:
        from ..gui.window import find_browser

        browser = find_browser()  # missing browser or display: refused now
    ws = Workspace.at(root)
    # the address is proved before anything is said about it (999.1.1.1, a port in use)
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            s.bind((host, port))
            port = s.getsockname()[1]
    except socket.gaierror as exc:
        why = exc.strerror
        raise InputError(f"--host {host}: not an address of this machine ({why})") from None
    except (OSError, OverflowError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot listen on {host}:{port} ({why})") from None
    if host not in LOCAL_HOSTS:
        err.print(
            f"[yellow]warning: listening on {host}: anyone who can reach this machine "
            "can run simulations and read the workspace[/yellow]",
            soft_wrap=True,
        )
    from urllib.parse import quote

    from ..gui.guard import OPENING_PAGE, new_token, opening_page

    key = None if no_token else (token or new_token())
    app = make_app(Context(ws, jobs, executor), token=key)
    # what the pages of finished runs use, imported now rather than at the first request
    import coschedlab.engine.result  # noqa: F401
    import coschedlab.report.interactive  # noqa: F401

    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    if key is not None:  # the address to open: the first request sets the token's cookie
        url += f"?token={quote(key, safe='')}"
    else:
        err.print("[yellow]warning: --no-token: every user who can reach this port can run "
                  "simulations and read the workspace[/yellow]", soft_wrap=True)  # fmt: skip
    err.print(f"coschedlab dashboard: {url}  (workspace {ws.root}; Ctrl-C stops it)",
              soft_wrap=True)  # fmt: skip
    # a browser this command starts gets the address through a file only this user reads:
    # never the token on its command line, which other users read (ps)
    page = opening_page(url, ws.root) if key is not None and (open_browser or window) else url
    if open_browser:
        webbrowser.open(page)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    app.logger.setLevel(logging.WARNING)  # not Dash's own address line, without the token
    # Cancel stops a run as Ctrl-C would: its process must not inherit an ignored SIGINT
    # (a shell starts background jobs that way), so the server takes Python's own handler
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if browser is not None:
            from ..gui.window import serve_in_window

            serve_in_window(app.server, url, browser, ws.root,
                            lambda text: err.print(text, soft_wrap=True), page=page)  # fmt: skip
            err.print("the window closed: dashboard stopped")
        else:
            app.run(host=host, port=port, debug=False)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    finally:
        if page != url:  # the file holding the token: gone with the dashboard
            (ws.root / OPENING_PAGE).unlink(missing_ok=True)
