"""The dashboard's speed, in a real headless Chromium (issue 15).

    .venv/bin/python benchmarks/bench_gui.py [--jobs-in-gantt 10000] [--repeat 5]

1. Pages of finished runs: the results page of a comparison (KTH-SP2, the first
   ``--jobs-in-gantt`` jobs, EASY and FCFS) opened ``--repeat`` times; for each, the server
   time of every callback the page makes (the browser's resource timing of its
   ``_dash-update-component`` requests: request sent to response received) and the time until
   the table and the Gantt chart are drawn. Target: every answer within 200 ms.
2. The Gantt chart of ``--jobs-in-gantt`` jobs drawn by the browser (``Plotly.newPlot`` of
   the figure the page shows), as the dashboard draws it (aggregated beyond GANTT_BARS jobs
   in view) and forced to one bar per job (the baseline it is measured against). Target:
   under 2 s.
3. Pages of stored sweeps: the workflows and coupled-systems pages opened ``--repeat``
   times on the bundled small sweeps (``coschedlab:sweeps/woas_small.yaml``,
   ``coupled_small.yaml``, run by the command line beforehand); the server time of every
   callback (the stored table read with the command's own cells, the figures it wrote sent
   as data URLs) and the time until the table and every figure are drawn. Target: every
   answer within 200 ms; the baseline is the first opening after the server started
   (nothing cached).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(ws: Path, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    import os

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "coschedlab.cli", "gui", "--root", str(ws), "--port", str(port),
         "--no-token"],  # a benchmark on this machine: no token to carry
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})},
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return proc, url
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the dashboard did not start")


def browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1300,1100",
                f"--user-data-dir={profile}"):  # fmt: skip
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)


GANTT_DRAWN = """
const done = arguments[arguments.length - 1];
const t0 = performance.now();
const poll = () => {
  const g = document.querySelector('#gantt .js-plotly-plot');
  if (g && g._fullLayout && g.data && g.data.length && g.querySelector('.main-svg')) {
    done(performance.now() - t0);
  } else { setTimeout(poll, 10); }
};
poll();
"""


def callback_times(driver) -> list[float]:
    """The server time (ms: request sent to response received) of every callback request
    the page made (the browser's resource timing)."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('_dash-update-component'))"
        ".map(e => e.responseEnd - e.requestStart);"
    )


def results_page(driver, url: str) -> tuple[float, list[float]]:
    """Open the results page: ms until the table and the Gantt chart are drawn, and the
    server time (ms) of each callback request the page made."""
    driver.get("about:blank")
    t0 = time.perf_counter()
    driver.get(url + "results")
    driver.set_script_timeout(60)
    driver.execute_async_script(GANTT_DRAWN)
    while not driver.find_elements("id", "compare-table"):
        time.sleep(0.01)
    total = (time.perf_counter() - t0) * 1000
    return total, callback_times(driver)


def gantt_time(driver) -> float:
    """ms for the browser to draw the page's Gantt chart anew (``Plotly.newPlot`` on the
    figure the page shows: the drawing alone, the server's part is in the callbacks)."""
    driver.set_script_timeout(120)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const g = document.querySelector('#gantt .js-plotly-plot');"
        "const t0 = performance.now();"
        "Plotly.newPlot(g, g.data, g.layout).then(() => done(performance.now() - t0));"
    )


SWEEP_PAGES = (
    ("workflows", "wf", "coschedlab:sweeps/woas_small.yaml"),
    ("coupled", "cp", "coschedlab:sweeps/coupled_small.yaml"),
)


def sweep_page(driver, url: str, page: str, prefix: str) -> tuple[float, list[float]]:
    """Open a capability's page with a stored sweep: ms until its table and figures are
    drawn, and the server time (ms) of each callback request."""
    driver.get("about:blank")
    t0 = time.perf_counter()
    driver.get(url + page)
    table = f"{prefix}-sweep-table"
    while True:
        done = driver.execute_script(
            f"const t = document.getElementById('{table}');"
            "const imgs = [...document.querySelectorAll('.figures img')];"
            "return !!t && imgs.length > 0 && imgs.every(i => i.complete && i.naturalWidth);"
        )
        if done:
            break
        time.sleep(0.01)
    total = (time.perf_counter() - t0) * 1000
    return total, callback_times(driver)


def bench_sweeps(driver, ws: Path, repeat: int) -> None:
    for page, _, spec in SWEEP_PAGES:
        cmd = [sys.executable, "-m", "coschedlab.cli", page, "compare", spec, "--out",
               str(ws / "sweeps" / page), "--jobs", "2"]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
    proc, url = start(ws)
    try:
        for page, prefix, spec in SWEEP_PAGES:
            pages, server, cold = [], [], []
            for i in range(repeat + 1):
                total, calls = sweep_page(driver, url, page, prefix)
                if i == 0:
                    cold = (total, calls)
                    continue
                pages.append(total)
                server += calls
            figures = len(list((ws / "sweeps" / page).glob("*.png")))
            print(f"{page} page with its stored sweep ({spec}, {figures} figures): drawn in "
                  f"{statistics.median(pages):.0f} ms (median of {repeat}); callbacks: median "
                  f"{statistics.median(server):.0f} ms, max {max(server):.0f} ms "
                  f"({len(server)} requests); first opening after the server started "
                  f"(baseline): drawn in {cold[0]:.0f} ms, callbacks max {max(cold[1]):.0f} ms",
                  flush=True)  # fmt: skip
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs-in-gantt", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only-sweeps", action="store_true", help="part 3 only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        ws = Path(d) / "ws"
        ws.mkdir()
        spec = ws / "kth.yaml"
        spec.write_text(
            "schedulers: [easy, fcfs]\nworkloads:\n  - {name: kth, trace: "
            f"'coschedlab:KTH-SP2-1996-2.1-cln.swf.gz', limit: {args.jobs_in_gantt}}}\n"
        )
        cmd = [sys.executable, "-m", "coschedlab.cli", "compare", str(spec), "--out",
               str(ws / "kth"), "--jobs", "2"]  # fmt: skip
        driver = browser(Path(d) / "profile")
        if args.only_sweeps:
            try:
                bench_sweeps(driver, ws, args.repeat)
            finally:
                driver.quit()
            return
        subprocess.run(cmd, check=True, capture_output=True)
        try:
            bars = {"COSCHEDLAB_GUI_GANTT_BARS": "1000000"}
            for label, env in (("as drawn", {}), ("one bar per job (baseline)", bars)):
                proc, url = start(ws, env)
                try:
                    pages, server, cold = [], [], []
                    for i in range(args.repeat + 1):  # the first: a server just started
                        total, calls = results_page(driver, url)
                        if i == 0:
                            cold = calls
                            continue
                        pages.append(total)
                        server += calls
                    gantts = [gantt_time(driver) for _ in range(args.repeat)]
                    kind = driver.execute_script(
                        "return document.querySelector('#gantt .js-plotly-plot').data[0].type"
                    )
                finally:
                    proc.terminate()
                    proc.wait()
                print(f"{label}: results page of {args.jobs_in_gantt:,} jobs x 2 runs drawn in "
                      f"{statistics.median(pages):.0f} ms (median of {args.repeat}); callbacks: "
                      f"median {statistics.median(server):.0f} ms, max {max(server):.0f} ms "
                      f"({len(server)} requests; the first load after the server started: "
                      f"max {max(cold):.0f} ms); Gantt chart of {args.jobs_in_gantt:,} jobs "
                      f"({kind}) drawn in {statistics.median(gantts):.0f} ms (median), max "
                      f"{max(gantts):.0f} ms",
                      flush=True)  # fmt: skip
            bench_sweeps(driver, ws, args.repeat)
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
