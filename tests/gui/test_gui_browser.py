"""The dashboard in a real headless Chromium (Debian's chromium and chromium-driver, driven by
selenium), as a user meets it: generate a workload from a pool, run two schedulers, see the
comparison table equal the command line's for the same inputs, open the Gantt chart, upload
a malformed SWF and see the one-line error, type a path-traversal output directory and be
refused, plan an in situ ensemble. Screenshots of every page go to out/gui-screenshots/."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="no browser: Debian's chromium and chromium-driver (installed by scripts/setup.sh "
    "where apt works) are missing",
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _cli import cli_here  # noqa: E402

SHOTS = ROOT / "out" / "gui-screenshots"
BAD_SWF = "; a trace\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 five 100 4\n"
POOL = "coschedlab:pools/lm-aris.compute-NAS.json"
TOKEN = "browser-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    ws = tmp_path_factory.mktemp("ws")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "gui", "--root", str(ws), "--port", str(port),
         "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "COSCHEDLAB_GUI_TOKEN": TOKEN},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}?token={TOKEN}", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the dashboard did not start: {proc.stderr.read()}") from None
            time.sleep(0.3)
    yield url, ws
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser(tmp_path_factory, server):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1300,1100",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):  # fmt: skip
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(60)
    driver.get(f"{server[0]}?token={TOKEN}")  # the address printed at start: sets the cookie
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait(driver, test, timeout=60.0, what="the page"):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(
        lambda d: test(d), message=f"waiting for {what}"
    )


def by_id(driver, id):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, id)


def type_into(driver, id, text):
    from selenium.webdriver.common.keys import Keys

    box = by_id(driver, id)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(str(text))


def open_page(driver, url, ready_id):
    driver.get(url)
    wait(driver, lambda d: d.find_elements("id", ready_id), what=f"#{ready_id}")


def shown_table(driver, id, timeout=60.0):
    """The table ``#id`` once the page shows it: its header cells and rows of cells."""
    wait(driver, lambda d: d.find_elements("id", id), timeout, f"#{id}")
    table = by_id(driver, id)
    head = [th.text for th in table.find_elements("css selector", "thead th")]
    body = [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in table.find_elements("css selector", "tbody tr")]  # fmt: skip
    return head, body


def shot(driver, name):
    """The whole page (the window grown to its height for the picture), for people to look at.

    The picture is not a check: on a loaded machine Chromium's renderer can miss the
    driver's 10 s deadline for a tall picture (a CI run failed so), so a picture that times
    out is tried once more at the window's usual size and otherwise left out.
    """
    from selenium.common.exceptions import TimeoutException

    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1300, min(max(height, 600), 8000))
    time.sleep(0.3)  # plotly redraws at the new size
    try:
        try:
            driver.save_screenshot(str(SHOTS / f"{name}.png"))
        finally:
            driver.set_window_size(1300, 1100)
    except TimeoutException:
        time.sleep(1.0)
        try:
            driver.save_screenshot(str(SHOTS / f"{name}.png"))
        except TimeoutException:
            warnings.warn(f"no screenshot {name}.png: the renderer timed out twice", stacklevel=2)


def test_run_two_schedulers_and_compare_with_the_command_line(server, browser, tmp_path):
    url, ws = server
    open_page(browser, url, "run-btn")
    type_into(browser, "nodes", 20)
    type_into(browser, "jobs", 60)
    type_into(browser, "arrival", "poisson:30")
    type_into(browser, "out", "gui-cmp")
    shot(browser, "1-setup")
    by_id(browser, "run-btn").click()
    wait(browser, lambda d: "done in" in by_id(d, "progress-text").text, 120, "the runs")
    rows = by_id(browser, "run-states").find_elements("css selector", "tbody tr")
    assert len(rows) == 2 and all("done" in r.text for r in rows)
    shot(browser, "2-progress")
    # the same inputs through the command line
    from importlib.resources import files

    from coschedlab.coloc.pool import load_pool

    pool = load_pool(Path(str(files("coschedlab") / "data" / POOL.split(":")[1])))
    fit = sorted({a.procs for a in pool.apps if a.procs <= 400})  # the dashboard's rule
    spec = tmp_path / "same.yaml"
    spec.write_text(
        "cluster: {nodes: 20, sockets_per_node: 2, cores_per_socket: 10}\n"
        f"schedulers: [easy, easy-coloc]\nworkloads:\n  - {{name: pool, pool: '{POOL}', "
        f"jobs: 60, arrival: 'poisson:30', select: {{procs: {fit}}}}}\n"
    )
    done = cli_here("compare", str(spec), "--out", str(tmp_path / "cli"), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    import pandas as pd

    from coschedlab.experiments.compare import table_cells

    expected = table_cells(pd.read_csv(tmp_path / "cli" / "comparison.csv"), "easy")
    open_page(browser, url + "results", "result-dir")
    head, body = shown_table(browser, "compare-table")
    assert head == expected[0] and body == expected[1]
    # the Gantt chart: one bar trace per application, a hover naming the node mates
    wait(browser, lambda d: d.execute_script(
        "const g = document.querySelector('#gantt .js-plotly-plot');"
        "return g && g.data && g.data.length"), 60, "the Gantt chart")  # fmt: skip
    hover = browser.execute_script(
        "const g = document.querySelector('#gantt .js-plotly-plot');"
        "return g.data.map(t => t.hovertemplate + '|' + t.customdata[0][3]);"
    )
    assert all("customdata[3]" in h for h in hover) and any("node mates:" in h for h in hover)
    shot(browser, "3-results")
    # a time window redraws the chart for that window
    type_into(browser, "win-from", "0")
    type_into(browser, "win-to", "10m\n")
    wait(browser, lambda d: "shown" in d.execute_script(
        "const g = document.querySelector('#gantt .js-plotly-plot');"
        "return g ? g.layout.title.text : ''"), 60, "the window")  # fmt: skip


def test_a_malformed_swf_upload_shows_the_one_line_error(server, browser, tmp_path):
    url, _ = server
    open_page(browser, url, "run-btn")
    browser.find_element("css selector", "#kind input[value='upload']").click()
    bad = tmp_path / "bad.swf"
    bad.write_text(BAD_SWF)
    browser.find_element("css selector", "#swf-upload input[type=file]").send_keys(str(bad))
    wait(browser, lambda d: by_id(d, "upload-error").text, 30, "the upload's error")
    text = by_id(browser, "upload-error").text
    from coschedlab.errors import InputError
    from coschedlab.workload.swf import read_swf

    with pytest.raises(InputError) as cli:
        read_swf(bad)
    assert text == f"error: {cli.value}".replace(str(bad), "bad.swf")
    assert text.startswith("error: bad.swf:3:") and "\n" not in text
    shot(browser, "4-bad-upload")


@pytest.mark.slow  # a 70 MB file through the browser: about 10 s
def test_an_upload_over_the_limit_is_said_in_the_page(server, browser, tmp_path):
    """The server refuses the request before any callback reads it (HTTP 413); the page
    says so under the navigation bar instead of failing silently."""
    url, ws = server
    open_page(browser, url, "run-btn")
    browser.find_element("css selector", "#kind input[value='upload']").click()
    big = tmp_path / "big.swf"
    with open(big, "wb") as f:
        f.truncate(70 << 20)
    browser.find_element("css selector", "#swf-upload input[type=file]").send_keys(str(big))
    wait(browser, lambda d: by_id(d, "app-error").text, 90, "the refusal")
    assert "larger than the dashboard accepts (64 MB)" in by_id(browser, "app-error").text
    assert not list((ws / "uploads").rglob("big.swf"))


def test_a_path_traversal_output_directory_is_refused(server, browser):
    url, ws = server
    open_page(browser, url, "run-btn")
    before = sorted(p.name for p in ws.parent.iterdir())
    type_into(browser, "out", "../escaped")
    by_id(browser, "run-btn").click()
    wait(browser, lambda d: by_id(d, "run-error").text, 30, "the refusal")
    assert "outside the workspace" in by_id(browser, "run-error").text
    assert sorted(p.name for p in ws.parent.iterdir()) == before  # nothing written out there
    shot(browser, "5-refused")


def test_the_in_situ_planner_plans_and_draws_the_stages(server, browser):
    url, _ = server
    open_page(browser, url + "insitu", "ins-plan")
    by_id(browser, "ins-plan").click()
    wait(browser, lambda d: d.find_elements("id", "ins-plans"), 60, "the plan table")
    rows = by_id(browser, "ins-plans").find_elements("css selector", "tbody tr")
    assert len(rows) == 32  # 8 scenarios x 4 heuristic pairs
    wait(browser, lambda d: d.find_elements("id", "ins-gantt-img"), 120, "the stage Gantt")
    shot(browser, "6-insitu")


@pytest.mark.slow  # 32 SimGrid runs: about 12 s
def test_simulating_every_plan_runs_the_search_with_progress(server, browser, tmp_path):
    """ "Simulate every plan" runs ``insitu simulate --search`` in its own process, with the
    bar to the end; the ranked table equals what that command prints for the same
    ensemble."""
    url, ws = server
    open_page(browser, url + "insitu", "ins-sim")
    by_id(browser, "ins-sim").click()
    wait(browser, lambda d: "done in" in by_id(d, "ins-status").text, 180, "the search")
    assert by_id(browser, "ins-status").text.startswith("32 of 32 runs")
    head, body = shown_table(browser, "ins-plans")
    assert head[-1] == "simulated (s)"
    ensemble = sorted((ws / "insitu").glob("ensemble-*.yaml"))[-1]
    cli = subprocess.run([sys.executable, "-m", "coschedlab.cli", "insitu", "simulate",
                          str(ensemble), "--search", "--json", "--jobs", "2"],
                         capture_output=True, text=True)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    import json

    expected = [[r["scenario"], r["node_alloc"], r["core_alloc"], f"{r['model_makespan']:.1f}",
                 f"{r['simulated_makespan']:.1f}"]
                for r in json.loads(cli.stdout)["candidates"]]  # fmt: skip
    assert body == expected
    shot(browser, "10-insitu-search")


TINY_SWEEP = (
    "name: tiny\nmachine: 60x24\nworkflows: [A2]\nshares: [0.2, 0.4]\n"
    "window: 14400\nwarmup: 0\ntarget_wait: 600\nseeds: 1\n"
)


@pytest.mark.slow  # 20-35 s; the run page's sweep is compared with the command line by default
def test_a_workflow_sweep_runs_from_its_page_as_the_command_line_runs_it(server, browser, tmp_path):
    """Upload a sweep spec, run it into a workspace folder with the bar to the end, see the
    table; the stored summary equals ``coschedlab workflows compare`` on the same spec; a
    second run into the folder resumes (nothing redone); a folder holding another kind of
    sweep is refused with the command line's message."""
    url, ws = server
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY_SWEEP)
    open_page(browser, url + "workflows", "wf-sweep-run")
    upload = "#wf-sweep-upload input[type=file]"  # dcc components load after the buttons
    wait(browser, lambda d: d.find_elements("css selector", upload), 30, "the upload control")
    browser.find_element("css selector", upload).send_keys(str(spec))
    wait(browser, lambda d: "tiny.yaml" in by_id(d, "wf-sweep-spec").text, 30, "the upload")
    type_into(browser, "wf-sweep-out", "sweeps/tiny")
    by_id(browser, "wf-sweep-run").click()
    wait(browser, lambda d: "done in" in by_id(d, "wf-sweep-status").text, 120, "the sweep")
    assert by_id(browser, "wf-sweep-status").text.startswith("7 of 7 runs")
    head, body = shown_table(browser, "wf-sweep-table")
    assert head[:3] == ["workflow", "share", "mode"] and len(body) == 6
    hint = by_id(browser, "wf-sweep-command").text  # the spec it ran, named as users name it
    (stored,) = (ws / "uploads").rglob("tiny.yaml")
    assert hint == ("at the command line (resumes it): coschedlab workflows compare "
                    f"{stored.relative_to(ws)} --out sweeps/tiny")  # fmt: skip
    shot(browser, "9-workflow-sweep")
    cli = cli_here("workflows", "compare", str(spec), "--out", str(tmp_path / "cli"), "-j", "1")
    assert cli.returncode == 0, cli.stderr
    ours = ws / "sweeps" / "tiny"
    assert (ours / "summary.csv").read_text() == (tmp_path / "cli" / "summary.csv").read_text()
    printed = [[c.strip() for c in line.strip("│").split("│")]
               for line in cli.stdout.splitlines() if line.startswith("│")]  # fmt: skip
    assert body == printed  # the page's cells are the command line's printed table's
    stamps = {p: p.stat().st_mtime_ns for p in (ours / "runs").glob("*.json")}
    (log,) = (ws / "specs").glob("wf-sweep_sweeps_tiny-*.log")
    log.unlink()
    by_id(browser, "wf-sweep-run").click()  # again: resumes, nothing redone
    wait(browser, lambda d: log.is_file() and "wrote" in log.read_text(), 120, "the resumed run")
    assert "7 of 7 runs already stored; 0 to do" in log.read_text()
    assert {p: p.stat().st_mtime_ns for p in (ours / "runs").glob("*.json")} == stamps
    (ws / "sweeps" / "cmp").mkdir()
    (ws / "sweeps" / "cmp" / "runs").mkdir()
    (ws / "sweeps" / "cmp" / "spec.json").write_text('{"sweep": "coupled", "large": "x"}')
    type_into(browser, "wf-sweep-out", "sweeps/cmp")
    by_id(browser, "wf-sweep-run").click()
    wait(browser, lambda d: by_id(d, "wf-sweep-error").text, 30, "the refusal")
    assert by_id(browser, "wf-sweep-error").text == (
        "error: the output folder sweeps/cmp holds a coupled sweep, not a workflow sweep; "
        "choose another output folder"
    )


@pytest.mark.slow  # the other capabilities' pages: about 7 s each
def test_the_studies_page_shows_what_study_run_writes(server, browser, tmp_path):
    url, _ = server
    open_page(browser, url + "studies", "st-run")
    by_id(browser, "st-run").click()
    _, cells = shown_table(browser, "st-table", 120)
    done = subprocess.run([sys.executable, "-m", "coschedlab.cli", "study", "run", "helium",
                           "-c", "O", "-c", "E", "--procs", "32", "--out", str(tmp_path / "h")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    from coschedlab.studies.result import hours_minutes

    for row, cfg in zip(cells, "OE", strict=True):
        m = json.loads((tmp_path / "h" / cfg / "metrics.json").read_text())
        assert row[0] == m["config"] and row[1] == str(m["runs"])
        assert row[2] == hours_minutes(m["total_time"])
    assert len(browser.find_elements("css selector", "img.st-graph")) == 2
    shot(browser, "7-studies")


@pytest.mark.slow  # the other capabilities' pages: about 7 s each
def test_the_workflows_page_equals_workflows_simulate(server, browser, tmp_path):
    url, _ = server
    open_page(browser, url + "workflows", "wf-run")
    by_id(browser, "wf-run").click()
    head, body = shown_table(browser, "wf-table", 300)
    from coschedlab.gui.pages.workflows import DEFAULT_MACHINE

    cli = [sys.executable, "-m", "coschedlab.cli", "workflows"]
    generate = [*cli, "generate", "-w", "cybershake", "--share", "0.1", "--machine",
                DEFAULT_MACHINE, "--seed", "0", "--warmup", "21600", "--window", "86400",
                "--out", str(tmp_path / "wl")]  # fmt: skip
    made = subprocess.run(generate, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([*cli, "simulate", str(tmp_path / "wl"), "--json"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    import json

    from coschedlab.workflows.metrics import summary_cells

    summaries = json.loads(done.stdout)
    assert head == ["metric", *summaries]
    expected = summary_cells(summaries)
    # every row but the simulator's own wall time
    assert body[:-1] == expected[:-1] and body[-1][0] == expected[-1][0] == "simulation (s)"
    # the default machine queues the workflows: the three modes differ, no "alike" note
    turnaround = next(r for r in body if r[0].startswith("median turnaround"))
    assert len(set(turnaround[1:])) == 3 and not by_id(browser, "wf-alike").text
    shot(browser, "8-workflows")


@pytest.mark.slow  # the other capabilities' pages: about 7 s each
def test_the_coupled_page_equals_coupled_simulate(server, browser, tmp_path):
    url, _ = server
    open_page(browser, url + "coupled", "cp-run")
    by_id(browser, "cp-run").click()
    _, body = shown_table(browser, "cp-table", 300)
    from coschedlab.gui.pages.coupled import DEFAULT

    cmd = [sys.executable, "-m", "coschedlab.cli", "coupled", "simulate", "--pairs",
           "vicinity:120", "--out", str(tmp_path / "c")]  # fmt: skip
    for spec in DEFAULT.splitlines():
        cmd += ["--system", spec]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    import json

    from coschedlab.coupled.setup import table_cells

    stored = json.loads((tmp_path / "c" / "coupled.json").read_text())
    assert body == table_cells(stored["metrics"], stored["baseline"]) and len(body) == 2
    notes = by_id(browser, "cp-notes").text  # bundled data named as users name it
    assert "from coschedlab:KTH-SP2-1996-2.1-cln.swf.gz" in notes and "/" not in notes
    shot(browser, "9-coupled")


def test_every_page_opens_with_its_form(server, browser):
    from coschedlab.gui.pages import pages

    url, _ = server
    for page in pages():  # the generated ones too (ELiSE's)
        open_page(browser, url + page.PATH.lstrip("/"), "page")
        wait(browser, lambda d: d.find_elements("css selector", "#page h2"), 30, page.PATH)
        assert not browser.find_elements("css selector", ".dash-fe-error__title")  # no error
        shot(browser, f"page-{page.NAME}")
