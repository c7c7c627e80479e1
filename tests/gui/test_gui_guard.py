"""Who may use the dashboard and which requests it answers: the token every request must
carry (refused with 403 without it: the page, Dash's callbacks, its scripts and the assets),
malformed requests answered 400 or 404 without a server traceback, and a sweep the dashboard
started ending when the dashboard is killed."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from coschedlab.gui import Workspace
from coschedlab.gui.app import Context, make_app
from coschedlab.gui.guard import COOKIE, MAX_DEPTH

TOKEN = "s3cret-Token_value"


@pytest.fixture
def client(tmp_path):
    app = make_app(Context(Workspace.at(tmp_path / "ws")), token=TOKEN)
    return app.server.test_client()


def _suite(client, query: str = "") -> str:
    """The address of a script of Dash's component suites, as the page names it."""
    page = client.get("/" + query).get_data(as_text=True)
    return re.search(r'src="(/_dash-component-suites/[^"]+)"', page).group(1)


def _route_body() -> dict:
    """The request the page sends when it opens (the router's callback)."""
    return {"output": "..page.children...app-error.children..",
            "outputs": [{"id": "page", "property": "children"},
                        {"id": "app-error", "property": "children"}],
            "inputs": [{"id": "url", "property": "pathname", "value": "/results"}],
            "changedPropIds": ["url.pathname"]}  # fmt: skip


def _requests(client, suite: str, query: str = "") -> dict[str, int]:
    sep = "&" if "?" in suite else "?"
    return {
        "page": client.get("/" + query).status_code,
        "other page": client.get("/results" + query).status_code,
        "layout": client.get("/_dash-layout" + query).status_code,
        "callbacks": client.get("/_dash-dependencies" + query).status_code,
        "callback": client.post(
            "/_dash-update-component" + query, json=_route_body()
        ).status_code,  # fmt: skip
        "asset": client.get("/assets/style.css" + query).status_code,
        "component suite": client.get(suite + (sep + query[1:] if query else "")).status_code,
    }


def test_every_request_without_the_token_is_refused(client):
    with_query = _requests(client, _suite(client, f"?token={TOKEN}"), f"?token={TOKEN}")
    assert set(with_query.values()) == {200}, with_query
    client.delete_cookie(f"{COOKIE}-80")
    suite = "/_dash-component-suites/dash/deps/react@18.3.1.min.js"
    refused = _requests(client, suite)
    assert set(refused.values()) == {403}, refused
    page = client.get("/").get_data(as_text=True)
    assert "needs its token" in page and "?token=" in page and TOKEN not in page
    for wrong in ("?token=nope", f"?token={TOKEN[:-1]}", "?token=", f"?token={TOKEN}x"):
        assert client.get("/" + wrong).status_code == 403


def test_the_first_request_with_the_token_sets_the_cookie_later_ones_carry(client):
    answer = client.get(f"/?token={TOKEN}")
    assert answer.status_code == 200
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}-80={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    # the browser sends the cookie: the page's requests need no ?token= any more
    ok = _requests(client, _suite(client))
    assert set(ok.values()) == {200}, ok
    client.set_cookie(f"{COOKIE}-80", "forged")
    assert client.get("/").status_code == 403
    client.set_cookie(f"{COOKIE}-81", TOKEN)  # another port's dashboard: not this one's
    assert client.get("/").status_code == 403


def test_no_token_asked_lets_requests_in(tmp_path):
    client = make_app(Context(Workspace.at(tmp_path / "ws"))).server.test_client()
    assert client.get("/").status_code == 200
    assert "Set-Cookie" not in client.get("/").headers


ROUTE = "..page.children...app-error.children.."
ONE_OUT = [{"id": "page", "property": "children"}, {"id": "app-error", "property": "children"}]


@pytest.mark.parametrize(("body", "says"), [
    (b"[]", "not a JSON object"),
    (b"null", "not a JSON object"),
    (b"5", "not a JSON object"),
    (b"{}", "names no callback"),
    (b"not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b'{"a": ' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), "nested deeper"),
    (json.dumps({"output": "nope.children", "outputs": {"id": "nope", "property": "children"},
                 "inputs": []}).encode(), "names no callback"),  # fmt: skip
    (json.dumps({"output": 5}).encode(), "names no callback"),
    (json.dumps({"output": ["x"]}).encode(), "names no callback"),
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT, "inputs": "x"}).encode(),
     "inputs must be a list"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT, "inputs": [5]}).encode(),
     "not an {id, property}"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT,
                 "inputs": [{"id": "url", "property": 5}]}).encode(),
     "not an {id, property}"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT, "inputs": []}).encode(),
     "wrong number of inputs"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT[:1],
                 "inputs": [{"id": "url", "property": "pathname"}]}).encode(),
     "wrong number of outputs"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": "x",
                 "inputs": [{"id": "url", "property": "pathname"}]}).encode(),
     "outputs must be a list"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT, "state": {"a": 1},
                 "inputs": [{"id": "url", "property": "pathname"}]}).encode(),
     "state must be a list"),  # fmt: skip
    (json.dumps({"output": ROUTE, "outputs": ONE_OUT, "changedPropIds": [5],
                 "inputs": [{"id": "url", "property": "pathname"}]}).encode(),
     "changedPropIds"),  # fmt: skip
])  # fmt: skip
def test_malformed_callback_requests_are_400_without_a_traceback(tmp_path, caplog, body, says):
    client = make_app(Context(Workspace.at(tmp_path / "ws"))).server.test_client()
    with caplog.at_level(logging.DEBUG):
        got = client.post("/_dash-update-component", data=body,
                          content_type="application/json")  # fmt: skip
    assert got.status_code == 400, got.data[:200]
    assert says in got.get_data(as_text=True)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("value", [[["deep"]], {"a": [1]}, 5, None, "/results"])
def test_values_of_the_wrong_type_reach_no_traceback(tmp_path, caplog, value):
    """A well-formed request whose value the page never sends: answered (the router shows
    "No such page" for what is not a path), nothing logged as a failure."""
    client = make_app(Context(Workspace.at(tmp_path / "ws"))).server.test_client()
    body = _route_body()
    body["inputs"][0]["value"] = value
    with caplog.at_level(logging.DEBUG):
        got = client.post("/_dash-update-component", json=body)
    assert got.status_code == 200, got.data[:200]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("path", [
    "/_dash-component-suites/dash/../../../etc/passwd",
    "/_dash-component-suites/dash/deps/..%2f..%2f__init__.py",
    "/_dash-component-suites/dash/%2e%2e/%2e%2e/__init__.py",
    "/_dash-component-suites/../dash/dash.py",
    "/_dash-component-suites/nosuchpackage/x.js",
    "/_dash-component-suites/dash/nosuch.js",
    "/_dash-component-suites/os/__init__.py",
])  # fmt: skip
def test_component_suite_paths_outside_what_dash_serves_are_404(tmp_path, caplog, path):
    client = make_app(Context(Workspace.at(tmp_path / "ws"))).server.test_client()
    with caplog.at_level(logging.DEBUG):
        got = client.get(path)
    assert got.status_code == 404, got.data[:200]
    assert b"root:" not in got.data and b"import" not in got.data
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def _sent_to(page: str) -> str:
    """The address a page the dashboard gives a browser leads to (the page itself when it
    is an address); a file must be this user's alone (mode 600)."""
    import html
    from urllib.parse import urlparse

    if not page.startswith("file://"):
        return page
    path = Path(urlparse(page).path)
    assert path.stat().st_mode & 0o777 == 0o600
    return html.unescape(re.search('url=([^"]+)"', path.read_text()).group(1))


def test_gui_open_opens_the_address_with_the_token(tmp_path, monkeypatch, capsys):
    """``gui --open`` opens the printed address, token included, and that address lets the
    browser in; the browser is given it through a file only this user reads (never the token
    on a command line, which other users read), removed when the dashboard stops;
    ``--no-token`` prints and opens the bare address."""
    import webbrowser

    from dash import Dash

    from coschedlab.cli.main import main

    opened: list[str] = []
    served: list[int] = []

    def run(self, **kw):  # instead of serving: the opened address, asked of the app
        url = _sent_to(opened[-1])
        client = self.server.test_client()
        served.append(client.get(url.split(str(kw["port"]), 1)[1]).status_code)
        served.append(client.get("/_dash-layout").status_code)  # the cookie it set

    monkeypatch.setattr(Dash, "run", run)
    monkeypatch.setattr(webbrowser, "open", opened.append)
    for extra in ([], ["--token", "mine"], ["--no-token"]):
        monkeypatch.setattr(sys, "argv", ["coschedlab", "gui", "--root", str(tmp_path),
                                          "--port", "8123", "--open", *extra])  # fmt: skip
        with pytest.raises(SystemExit) as ended:
            main()
        assert ended.value.code == 0
        printed = capsys.readouterr().err
        url = re.search(r"coschedlab dashboard: (\S+) ", printed).group(1)
        if extra == ["--no-token"]:
            assert opened[-1] == url == "http://127.0.0.1:8123/"
            assert "--no-token: every user" in printed
        else:
            assert opened[-1].startswith("file://") and "token" not in opened[-1]
            token = url.split("?token=")[1]
            assert len(token) >= 40 if not extra else token == "mine"
            assert not list(tmp_path.glob(".dashboard-open*"))  # gone with the dashboard
        assert served[-2:] == [200, 200]


def _processes() -> dict[int, tuple[int, int]]:
    """Every process: pid -> (parent pid, process group)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            found[int(stat.parent.name)] = (int(fields[1]), int(fields[2]))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_killing_the_dashboard_ends_the_sweep_it_started(tmp_path):
    """The dashboard (token asked) starts a sweep with two workers from a request carrying
    the cookie; SIGKILL of the dashboard leaves none of the sweep's processes running."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gui = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "gui", "--root", str(tmp_path / "ws"),
         "--port", str(port), "--jobs", "2"], stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    sweep: set[int] = set()
    try:
        line = gui.stderr.readline()
        url = re.search(r"(http://\S+)", line).group(1)
        base = url.split("?")[0]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        deadline = time.monotonic() + 60
        while True:
            try:
                with pytest.raises(urllib.error.HTTPError, match="403"):
                    urllib.request.urlopen(base, timeout=5)
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline and gui.poll() is None, "not started"
                time.sleep(0.3)
        assert opener.open(url, timeout=10).status == 200  # sets the cookie
        deps = json.loads(opener.open(base + "_dash-dependencies", timeout=10).read())
        run = next(d for d in deps if d["output"].startswith("..wf-sweep-active.data"))
        body = {
            "output": run["output"],
            "outputs": [{"id": o.split(".")[0], "property": o.split(".")[1].split("@")[0]}
                        for o in run["output"].strip(".").split("...")],
            "inputs": [{"id": "wf-sweep-run", "property": "n_clicks", "value": 1}],
            "state": [{"id": "wf-sweep-spec", "property": "value",
                       "value": "coschedlab:sweeps/woas_small.yaml"},
                      {"id": "wf-sweep-out", "property": "value", "value": "sweeps/w"}],
            "changedPropIds": ["wf-sweep-run.n_clicks"],
        }  # fmt: skip
        request = urllib.request.Request(base + "_dash-update-component",
                                         json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})  # fmt: skip
        answer = json.loads(opener.open(request, timeout=120).read())
        assert answer["response"]["wf-sweep-active"]["data"] == "sweeps/w", answer
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:  # the command, its forkserver and 2 workers
            procs = _processes()
            command = [p for p, (pp, _) in procs.items() if pp == gui.pid]
            sweep = {p for p, (_, g) in procs.items() if command and g == command[0]}
            if len(sweep) >= 4:
                break
            time.sleep(0.3)
        assert len(sweep) >= 4, f"the sweep's processes did not start: {sweep}"
        os.kill(gui.pid, signal.SIGKILL)
        gui.wait(10)
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and sweep & set(_processes()):
            time.sleep(0.2)
        left = sweep & set(_processes())
        assert not left, f"the sweep's processes outlived the dashboard: {left}"
    finally:
        for pid in [gui.pid, *sweep]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        gui.wait(10)
