"""The dashboard as a desktop window (``coschedlab gui --window``), as ELiSE's GUI also ships:
Chromium's (or Chrome's) application mode shows the page in a window of its own, without the
browser's tabs and address bar, and the dashboard stops when the window closes.

No extra toolkit is needed (Debian's ``chromium`` is what the browser tests use already); the
window uses a profile folder of its own inside the workspace, so it never touches the user's
browser profile.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = ["BROWSERS", "find_browser", "serve_in_window"]

#: browsers with an application mode, tried in this order (COSCHEDLAB_BROWSER overrides)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
            "microsoft-edge")  # fmt: skip
PROFILE = ".window-profile"


def find_browser() -> str:
    """The browser the window opens in (COSCHEDLAB_BROWSER, else the first of
    :data:`BROWSERS` on the PATH); :class:`InputError` when there is none or no display."""
    chosen = os.environ.get("COSCHEDLAB_BROWSER")
    found = shutil.which(chosen) if chosen else next(filter(None, map(shutil.which, BROWSERS)),
                                                     None)  # fmt: skip
    if not found:
        raise InputError(
            f"--window needs {'COSCHEDLAB_BROWSER=' + chosen if chosen else 'Chromium or Chrome'}"
            " (on Debian: apt install chromium); --open uses your default browser instead"
        )
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise InputError("--window needs a display (neither DISPLAY nor WAYLAND_DISPLAY is "
                         "set): open the printed address in a browser instead")  # fmt: skip
    return found


def profile_in_use(profile: Path) -> bool:
    """Whether a live browser on this host holds ``profile`` (Chromium's ``SingletonLock``, a
    link to ``HOST-PID``): a browser started on it then hands the page to that one's window
    and ends at once, without a window of its own."""
    try:
        host, _, pid = os.readlink(profile / "SingletonLock").rpartition("-")
    except OSError:
        return False
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False  # a stale lock: the browser takes it over
    except PermissionError:
        return True
    return True


def serve_in_window(
    server: Any, url: str, browser: str, workspace: Path, say: Any = print, page: str | None = None
) -> int:
    """Serve ``server`` (a WSGI app) at ``url`` while a window of ``browser`` shows it (opened
    on ``page``, default ``url``: a file that sends it on keeps a token off the browser's
    command line); stop when the window closes (or on Ctrl-C), however soon. When a browser
    already holds the window profile (a second ``gui --window`` on the workspace), the page
    goes to that browser's window and this browser ends at once: the dashboard then serves
    until Ctrl-C, and ``say`` tells so. The browser's exit code."""
    from urllib.parse import urlsplit

    from werkzeug.serving import make_server

    where = urlsplit(url)
    http = make_server(where.hostname, where.port, server, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    profile = workspace / PROFILE
    profile.mkdir(exist_ok=True)
    cmd = [browser, f"--app={page or url}", f"--user-data-dir={profile}", "--no-first-run",
           "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
           "--disable-component-update", "--window-size=1300,1000"]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd += ["--no-sandbox", "--test-type"]  # as root: no sandbox, and no infobar about it
    log = profile / "browser.log"
    handed_over = profile_in_use(profile)
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        code = proc.wait()
        if code != 0:
            raise InputError(f"the window's browser stopped with exit code {code} (its log: "
                             f"{log})")  # fmt: skip
        if handed_over:
            say("the browser opened the page in a window it already had open: the dashboard "
                "serves until Ctrl-C")  # fmt: skip
            while thread.is_alive():
                thread.join(1.0)
        return code
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        raise
    finally:
        http.shutdown()
        thread.join(5)
