"""The dashboard without a browser: the workspace's path rules, uploads read by the command
line's readers, the form -> spec translation, and a comparison started by the dashboard equal
to the command line's (the same table cells)."""

from __future__ import annotations

import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coschedlab.errors import InputError
from coschedlab.experiments.spec import spec_from_dict
from coschedlab.gui import Workspace
from coschedlab.gui import workspace as W
from coschedlab.gui.launch import (
    AlreadyRunning,
    launch,
    progress,
    refuse_running,
    spec_yaml,
    watched,
)
from coschedlab.gui.pages.run import spec_document
from coschedlab.gui.results import open_comparison

BAD_SWF = "; a trace\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 five 100 4\n"


def data_url(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


@pytest.mark.parametrize("bad", ["../out", "/etc", "a/../../out", "", "  ", ".", "a/.."])
def test_paths_outside_the_workspace_are_refused(tmp_path, bad):
    ws = Workspace.at(tmp_path / "ws")
    with pytest.raises(InputError):
        ws.inside(bad)


def test_a_symbolic_link_pointing_out_is_refused(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    (ws.root / "link").symlink_to(tmp_path)
    with pytest.raises(InputError, match="outside the workspace"):
        ws.inside("link/out")
    assert ws.inside("a/b") == ws.root / "a" / "b"
    assert ws.inside(str(ws.root / "c")) == ws.root / "c"


def test_a_malformed_swf_upload_gives_the_command_lines_error(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    with pytest.raises(InputError) as got:
        ws.save_upload("bad.swf", data_url(BAD_SWF), "swf")
    from coschedlab.workload.swf import read_swf

    (tmp_path / "bad.swf").write_text(BAD_SWF)
    with pytest.raises(InputError) as cli:
        read_swf(tmp_path / "bad.swf")
    assert got.value.what == cli.value.what
    assert got.value.where == cli.value.where.replace(str(tmp_path / "bad.swf"), "bad.swf")
    assert str(got.value).startswith("bad.swf:3:") and "\n" not in str(got.value)
    assert not list((ws.root / "uploads").rglob("bad.swf"))  # not kept


def test_uploads_are_size_limited_and_must_be_files(tmp_path, monkeypatch):
    ws = Workspace.at(tmp_path / "ws")
    monkeypatch.setattr(W, "MAX_UPLOAD_BYTES", 1000)
    with pytest.raises(InputError, match="larger than"):
        ws.save_upload("big.swf", data_url(b"1" * 5000), "swf")
    with pytest.raises(InputError, match="not a file"):
        ws.save_upload("x.swf", "data:;base64,***", "swf")
    with pytest.raises(InputError, match="empty"):
        ws.save_upload("x.swf", "data:;base64,", "swf")
    with pytest.raises(InputError, match="Python file"):
        ws.save_upload("policy.txt", data_url("x = 1\n"), "policy")
    good = ws.save_upload("../../evil name.swf", data_url(BAD_SWF.splitlines()[1] + "\n"), "swf")
    assert ws.root in good.parents and good.name == "evil_name.swf"


FORM = {"nodes": 20, "sockets": 2, "cores": 10, "kind": "pool",
        "pool": "coschedlab:pools/lm-aris.compute-NAS.json", "jobs": 40,
        "arrival": "poisson:30", "schedulers": ["easy", "easy-coloc"], "extra": "fcfs",
        "repetitions": 1, "seed": 3, "kill": True, "name": "t"}  # fmt: skip


def test_the_form_is_a_spec_the_command_line_accepts(tmp_path):
    doc = spec_document(FORM)
    spec = spec_from_dict(doc, tmp_path / "x.yaml")
    assert [s.label for s in spec.schedulers] == ["easy", "easy-coloc", "fcfs"]
    assert spec.workloads[0].jobs == 40 and spec.kill_at_walltime and spec.seed == 3
    for key, value, match in (("schedulers", [], "at least one"), ("jobs", "x", "whole"),
                              ("nodes", None, "give the number"), ("extra", "easy", "twice"),
                              ("pool", "", "choose an application pool")):  # fmt: skip
        form = dict(FORM, **{key: value})
        if key == "schedulers":
            form["extra"] = ""
        with pytest.raises(InputError, match=match):
            spec_document(form)
    with pytest.raises(InputError, match="unknown scheduler|no scheduler"):
        spec_from_dict(spec_document(dict(FORM, extra="nosuch")), tmp_path / "x.yaml")


@pytest.mark.slow  # the browser test compares the same through the page
def test_a_dashboard_comparison_equals_the_command_lines(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    doc = spec_document(dict(FORM, extra=""))
    started = launch(ws, doc, ws.inside("mine"), jobs=1)
    deadline = time.monotonic() + 120
    while started.code is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert started.code == 0, started.log.read_text()
    states = progress(started.out, started.plan)
    assert [s.state for s in states] == ["done", "done"]
    # the same comparison written by hand and run by the command line
    spec = tmp_path / "by_hand.yaml"
    spec.write_text(spec_yaml(doc))
    done = subprocess.run([sys.executable, "-m", "coschedlab.cli", "compare", str(spec), "--out",
                           str(tmp_path / "cli"), "--jobs", "1"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "120"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    ours, theirs = open_comparison(started.out), open_comparison(tmp_path / "cli")
    assert ours.cells() == theirs.cells() and ours.cells()[1]
    assert ours.baseline == "easy" and ws.outputs() == ["mine"]
    # a second start into the same folder resumes (nothing redone), and the spec is refused
    # when it changes what the stored runs were made from
    with pytest.raises(InputError, match="different spec"):
        launch(ws, dict(doc, seed=4), ws.inside("mine"), jobs=1)
    assert not Path(tmp_path / "ws" / "specs" / "mine.log").read_text().count("Traceback")


@pytest.mark.parametrize(("name", "text", "kind", "says"), [
    ("pool.json", "{not json", "pool", "pool.json"),
    ("pool.json", '{"machine": "m", "loads": [{"load_name": "a"}]}', "pool", "pool.json"),
    ("ens.yaml", "platform: {nodes: 4, core_sped: 9}\n", "ensemble", "ens.yaml:1"),
    ("ens.yaml", "[unclosed\n", "ensemble", "ens.yaml"),
    ("mine.py", "def broken(:\n", "policy", "mine.py"),
    ("mine.py", "x = 1\n", "policy", "mine.py"),
    ("trace.swf", "\n\n", "swf", "trace.swf"),
    ("trace.swf.gz", "not gzip but named so", "swf", "trace.swf.gz"),
])  # fmt: skip
def test_bad_uploads_are_one_line_naming_the_file(tmp_path, name, text, kind, says):
    ws = Workspace.at(tmp_path / "ws")
    with pytest.raises(InputError) as got:
        ws.save_upload(name, data_url(text), kind)
    message = str(got.value)
    assert says in message and "\n" not in message and str(ws.root) not in message


#: FCFS that takes ~0.1 ms more per pass (~2 s on 8,000 KTH jobs): the built-in schedulers
#: now run such a workload in ~0.05 s, and all three runs could end before the cancel
SLOW_FCFS = """import time
from coschedlab.schedulers import Scheduler, start_in_order


class Slow(Scheduler):
    name = "slow"

    def schedule(self, view):
        time.sleep(0.0001)
        return start_in_order(view, view.queue, view.free)
"""


def test_cancel_keeps_the_finished_runs_and_run_again_resumes(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    kth = {"name": "kth", "trace": "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz", "limit": 8000}
    slow = [str(ws.save_upload(f"slow{k}.py", data_url(SLOW_FCFS), "policy")) for k in (1, 2)]
    doc = {"schedulers": ["fcfs", *slow], "workloads": [kth]}
    out = ws.inside("long")
    started = launch(ws, doc, out, jobs=1)
    spec = started.plan
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # cancel once a run is stored, before the last
        if any(s.state == "done" for s in progress(out, spec)):
            break
        time.sleep(0.1)
    assert watched(ws, "comparison") == "long"  # a reloaded page finds it running
    with pytest.raises(AlreadyRunning):  # a second click starts nothing
        launch(ws, doc, out, jobs=1)
    with pytest.raises(AlreadyRunning, match="already going into long"):  # (nor checks)
        refuse_running(ws, out)
    started.cancel()
    assert started.proc.wait(60) == 130  # as after Ctrl-C
    assert watched(ws, "comparison") is None
    refuse_running(ws, out)  # ended: a click starts it again
    kept = [s for s in progress(out, spec) if s.state == "done"]
    assert 1 <= len(kept) < 3
    counts = started.counts()  # the runner's own report agrees with the stored runs
    assert counts["interrupted"] and counts["finished"] and counts["total"] == 3
    assert counts["done"] - counts["failed"] == len(kept) and counts["eta"] is not None
    mtimes = {s.scheduler: (started.out / "kth" / s.scheduler / "rep0" / "metrics.json")
              .stat().st_mtime_ns for s in kept}  # fmt: skip
    again = launch(ws, doc, out, jobs=1)
    assert again.proc.wait(300) == 0, again.log.read_text()
    assert all(s.state == "done" for s in progress(out, spec))
    for label, stamp in mtimes.items():  # not redone
        assert (out / "kth" / label / "rep0" / "metrics.json").stat().st_mtime_ns == stamp
    # running it again with fewer schedulers would silently shrink its table: refused
    with pytest.raises(InputError, match="holds runs of slow1, slow2 that this comparison leaves"):
        launch(ws, {**doc, "schedulers": ["fcfs"]}, out, jobs=1)


def test_data_files_the_browser_names_are_bundled_or_in_the_workspace(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    (tmp_path / "secret.json").write_text("{}")
    for bad in (str(tmp_path / "secret.json"), "../secret.json", "coschedlab:../../x",
                "coschedlab:/etc/passwd", "coschedlab:pools/nosuch.json", "nosuch.json",
                ""):  # fmt: skip
        with pytest.raises(InputError):
            ws.data_file(bad, "pool")
    assert ws.data_file(" coschedlab:pools/lm-aris.compute-NAS.json ") == (
        "coschedlab:pools/lm-aris.compute-NAS.json"
    )
    (ws.root / "uploads").mkdir()
    (ws.root / "uploads" / "p.json").write_text("{}")
    assert ws.data_file("uploads/p.json") == str(ws.root / "uploads" / "p.json")


def _fake_browser(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in browser: fetches the page it is given with --app=, records its arguments
    and the HTTP status, stays open FAKE_WINDOW_OPEN_S seconds (3.2) and exits."""
    fake = tmp_path / "bin" / "fakebrowser"
    fake.parent.mkdir(exist_ok=True)
    record = tmp_path / "browser.txt"
    fake.write_text(f"""#!{sys.executable}
import html, os, re, sys, time, urllib.parse, urllib.request
url = next(a for a in sys.argv if a.startswith("--app=")).removeprefix("--app=")
if url.startswith("file://"):  # the page that sends the browser on to the address
    text = open(urllib.parse.urlparse(url).path).read()
    url = html.unescape(re.search('url=([^"]+)"', text).group(1))
page = urllib.request.urlopen(url, timeout=20)
open({str(record)!r}, "w").write(" ".join(sys.argv[1:]) + "\\n" + str(page.status))
time.sleep(float(os.environ.get("FAKE_WINDOW_OPEN_S", "3.2")))
""")
    fake.chmod(0o755)
    return fake, record


def test_the_window_shows_the_dashboard_and_closing_it_stops_the_server(tmp_path):
    """``gui --window``: the browser is started in application mode on the dashboard's
    address with a profile of its own in the workspace; when it exits (the window closed),
    the command stops by itself."""
    fake, record = _fake_browser(tmp_path)
    env = {**os.environ, "COSCHEDLAB_BROWSER": str(fake), "DISPLAY": ":99"}
    done = subprocess.run([sys.executable, "-m", "coschedlab.cli", "gui", "--root",
                           str(tmp_path / "ws"), "--port", "0", "--window"],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    args, status = record.read_text().splitlines()
    # the browser is sent to the address (token included) by a file only this user reads:
    # the token never on its command line; the file is gone with the dashboard
    token = re.search(r"\?token=(\S+)", done.stderr).group(1)
    opening = tmp_path / "ws" / ".dashboard-open.html"
    assert status == "200" and f"--app={opening.as_uri()}" in args and token not in args
    assert not opening.exists()
    assert f"--user-data-dir={tmp_path / 'ws' / '.window-profile'}" in args
    assert "the window closed" in done.stderr


def test_the_window_needs_a_browser_and_a_display(monkeypatch):
    from coschedlab.gui.window import find_browser

    monkeypatch.setenv("COSCHEDLAB_BROWSER", "nosuchbrowser")
    with pytest.raises(InputError, match="--window needs COSCHEDLAB_BROWSER=nosuchbrowser"):
        find_browser()
    monkeypatch.setenv("COSCHEDLAB_BROWSER", sys.executable)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(InputError, match="needs a display"):
        find_browser()
    monkeypatch.setenv("DISPLAY", ":99")
    assert find_browser() == sys.executable


def test_a_window_closed_at_once_stops_the_dashboard(tmp_path):
    """Closing the window right after it opened is closing it (no browser held the profile
    before): the command stops, it does not take it for a hand-off."""
    fake, record = _fake_browser(tmp_path)
    env = {**os.environ, "COSCHEDLAB_BROWSER": str(fake), "DISPLAY": ":99",
           "FAKE_WINDOW_OPEN_S": "0"}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "coschedlab.cli", "gui", "--root",
                           str(tmp_path / "ws"), "--port", "0", "--window"],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the window closed" in done.stderr and "already had open" not in done.stderr


def test_the_profile_lock_tells_a_hand_off(tmp_path):
    from coschedlab.gui.window import profile_in_use

    lock = tmp_path / "SingletonLock"
    assert not profile_in_use(tmp_path)  # no lock
    lock.symlink_to(f"{socket.gethostname()}-{os.getpid()}")
    assert profile_in_use(tmp_path)  # a live browser holds it
    lock.unlink()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock.symlink_to(f"{socket.gethostname()}-{dead.pid}")
    assert not profile_in_use(tmp_path)  # stale: its process is gone
    lock.unlink()
    lock.symlink_to(f"another-host-{os.getpid()}")
    assert not profile_in_use(tmp_path)


@pytest.mark.slow  # two dashboards and a hand-off: about 10 s
def test_a_browser_that_hands_the_page_over_leaves_the_dashboard_serving(tmp_path):
    """A browser started on a profile that a live browser holds hands the page to that one's
    window and ends at once: the dashboard goes on serving until Ctrl-C, and says so."""
    fake, record = _fake_browser(tmp_path)
    env = {**os.environ, "COSCHEDLAB_BROWSER": str(fake), "DISPLAY": ":99",
           "FAKE_WINDOW_OPEN_S": "0"}  # fmt: skip
    profile = tmp_path / "ws" / ".window-profile"
    profile.mkdir(parents=True)
    (profile / "SingletonLock").symlink_to(f"{socket.gethostname()}-{os.getpid()}")
    handed = subprocess.Popen([sys.executable, "-m", "coschedlab.cli", "gui", "--root",
                               str(tmp_path / "ws"), "--port", "0", "--window"],
                              stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    deadline = time.monotonic() + 60
    while not record.is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(4.0)
    assert handed.poll() is None  # still serving
    handed.send_signal(signal.SIGINT)
    handed.wait(30)
    assert "a window it already had open" in handed.stderr.read()


@pytest.mark.slow  # a real Chromium window on a virtual screen: about 10 s
@pytest.mark.skipif(not all(map(shutil.which, ("Xvfb", "xdotool", "chromium"))),
                    reason="no Xvfb, xdotool or chromium (scripts/setup.sh installs them "
                    "where apt works)")  # fmt: skip
def test_a_real_window_opens_on_a_screen_and_closing_it_stops_the_dashboard(tmp_path):
    display = f":{100 + os.getpid() % 800}"
    screen = subprocess.Popen(["Xvfb", display, "-screen", "0", "1400x1100x24"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    env = {**os.environ, "DISPLAY": display}
    env.pop("COSCHEDLAB_BROWSER", None)
    try:
        time.sleep(1.0)
        gui = subprocess.Popen([sys.executable, "-m", "coschedlab.cli", "gui", "--root",
                                str(tmp_path / "ws"), "--port", "0", "--window"],
                               stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
        deadline = time.monotonic() + 60
        found = ""
        while not found and time.monotonic() < deadline:  # the page's title names the window
            found = subprocess.run(["xdotool", "search", "--name", "coschedlab"], env=env,
                                   capture_output=True, text=True).stdout.strip()  # fmt: skip
            time.sleep(0.5)
        assert found, "no window titled coschedlab appeared"
        for _ in range(3):  # a key pressed while the page still loads may be lost: again
            time.sleep(1.0)
            subprocess.run(["xdotool", "key", "--window", found.split()[0], "ctrl+w"], env=env)
            try:
                gui.wait(10)
                break
            except subprocess.TimeoutExpired:
                continue
        assert gui.wait(10) == 0  # closing the window stopped the dashboard
        assert "the window closed" in gui.stderr.read()
    finally:
        screen.terminate()
        screen.wait(10)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 2.5, True, "x",
                                   None, [3], 0, 101])  # fmt: skip
def test_form_whole_refuses_what_is_not_a_whole_number_in_range(value):
    with pytest.raises(InputError, match=r"^the seed must be a whole number from 1 to 100, got "):
        W.form_whole(value, "the seed", 1, 100)


def test_form_whole_and_form_text_give_the_value():
    assert W.form_whole("7", "n") == 7 and W.form_whole(4.0, "n", 0, 4) == 4
    assert W.form_whole(10**15, "n") == 10**15  # no upper bound: >= 1 only
    with pytest.raises(InputError, match=r"^n must be a whole number >= 0, got -1$"):
        W.form_whole(-1, "n", 0)
    assert W.form_text(None, "x") == "" and W.form_text("  a b ", "x") == "a b"
    with pytest.raises(InputError, match=r"^the x must be text, got list$"):
        W.form_text(["a"], "x")
