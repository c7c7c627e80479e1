"""Report files: PNGs and the self-contained HTML are written, non-empty, also for big frames
(their rendering time is a figure of benchmarks/bench_report.py, not a test)."""

from __future__ import annotations

import numpy as np
import pytest
from _frames import big_frame, fcfs_schedule, run

from coschedlab.errors import InputError
from coschedlab.platform import Cluster
from coschedlab.report import figures, interactive, write_report

CLUSTER = Cluster(nodes=16, sockets_per_node=2, cores_per_socket=10)
NAMES = {0: "lu.E.2048", 1: "cg.D.64", 2: "ft.E.512", 3: "bt.D.256", 4: "mg.E.128"}
PNG = b"\x89PNG\r\n\x1a\n"


def test_write_report_two_schedulers(tmp_path):
    plain = fcfs_schedule(200, CLUSTER, seed=1)
    coloc = fcfs_schedule(200, CLUSTER, seed=1, coloc=True)
    paths = write_report(
        {"EASY": run(plain, CLUSTER), "EASY co-scheduler": run(coloc, CLUSTER)}, tmp_path, NAMES
    )
    names = sorted(p.name for p in paths)
    assert "comparison.png" in names and "report.html" in names
    assert "EASY_gantt.png" in names and "EASY_co-scheduler_speedup.png" in names
    assert "EASY_speedup.png" not in names  # no speedup column without co-location
    assert len(paths) == 5 + 6 + 2
    for p in paths:
        assert p.exists() and p.stat().st_size > 5000
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG
    html = (tmp_path / "report.html").read_text()
    assert "<script src=" not in html  # plotly.js embedded, not from a CDN
    assert html.count("Plotly.newPlot") >= 8
    assert "EASY co-scheduler" in html and "lu.E.2048" in html


def test_a_second_report_in_a_folder_replaces_the_first_whole(tmp_path, monkeypatch):
    plain = fcfs_schedule(60, CLUSTER, seed=1)
    first = write_report({"A": run(plain, CLUSTER), "B": run(plain, CLUSTER)}, tmp_path, NAMES)
    mine = tmp_path / "notes.txt"
    mine.write_text("the user's own file\n")
    second = write_report({"C": run(plain, CLUSTER)}, tmp_path, NAMES)
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {p.name for p in second} | {"notes.txt", ".coschedlab"}
    assert not any(p.exists() for p in first if p.name.startswith(("A_", "B_")))
    assert mine.read_text() == "the user's own file\n"
    # a report that fails while drawing leaves the earlier one whole
    before = {p.name: p.read_bytes() for p in second}
    monkeypatch.setattr(interactive, "write_html", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        write_report({"D": run(plain, CLUSTER)}, tmp_path, NAMES)
    assert {p.name: p.read_bytes() for p in second} == before
    assert {p.name for p in tmp_path.iterdir()} == left


def test_html_gantt_falls_back_to_png(tmp_path, monkeypatch):
    monkeypatch.setattr(interactive, "MAX_GANTT_BARS", 10)
    frame = fcfs_schedule(50, CLUSTER, seed=3)
    html = interactive.report_html({"FCFS": run(frame, CLUSTER)})
    assert 'src="data:image/png;base64,' in html


def test_gantt_without_alloc_uses_cores_view(tmp_path):
    frame = fcfs_schedule(50, CLUSTER, seed=3).drop(columns=["alloc"])
    fig = figures.gantt(frame, CLUSTER)
    assert "no node allocation" in fig.axes[0].get_title()
    paths = write_report({"x": run(frame, CLUSTER)}, tmp_path)
    assert all(p.stat().st_size > 0 for p in paths)


def test_bad_results(tmp_path):
    with pytest.raises(InputError, match="at least one"):
        write_report({}, tmp_path)
    good = fcfs_schedule(5, CLUSTER)
    frame = good.drop(columns=["start"])
    with pytest.raises(InputError, match="start"):
        write_report({"x": (frame, CLUSTER, {})}, tmp_path)
    with pytest.raises(InputError, match="Cluster"):
        write_report({"x": (good, 16, {})}, tmp_path)
    # no metrics: refused, the report does not compute them
    with pytest.raises(InputError, match="metrics"):
        write_report({"x": (good, CLUSTER)}, tmp_path)
    with pytest.raises(InputError, match="metrics"):
        figures.comparison({"x": (good, CLUSTER, None)})
    with pytest.raises(InputError, match="got int"):
        interactive.report_html({"x": 3})
    assert not any(tmp_path.iterdir())  # checked before anything is written


def test_missing_and_null_metrics_are_blank():
    # metrics.json stores NaN as null; an old run may lack a key: blank cells, no error
    frame = fcfs_schedule(20, CLUSTER, seed=2)
    html = interactive.report_html(
        {"a": (frame, CLUSTER, {"n_jobs": 20, "makespan": None}), "b": (frame, CLUSTER, {})}
    )
    table = html[html.index("<table>") : html.index("</table>")]
    assert "<th>jobs</th>" in table and "makespan" in table
    assert "<tr><td>a</td><td>20</td><td></td></tr>" in table
    assert "<tr><td>b</td><td></td><td></td></tr>" in table
    assert "mean wait" not in table  # a metric no run has gets no column
    fig = figures.comparison({"a": (frame, CLUSTER, {"makespan": None})})
    assert np.isnan(fig.axes[0].patches[0].get_width())  # no bar


def test_utilization_mean_line_is_the_stored_value():
    frame = fcfs_schedule(20, CLUSTER, seed=2)
    fig = figures.utilization_figure(frame, CLUSTER, metrics={"utilization": 0.4321})
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["run mean 43.2%"]
    assert figures.utilization_figure(frame, CLUSTER).axes[0].get_legend() is None


def test_big_frame_renders(tmp_path):
    cluster = Cluster(nodes=128, sockets_per_node=2, cores_per_socket=16)
    frame = big_frame(100_000, cluster)
    paths = figures.save_figures(frame, cluster, tmp_path)
    assert len(paths) == 5 and all(p.stat().st_size > 10_000 for p in paths)


@pytest.mark.slow
def test_big_report_with_html(tmp_path):
    cluster = Cluster(nodes=128, sockets_per_node=2, cores_per_socket=16)
    frame = big_frame(100_000, cluster)
    r = run(frame, cluster)
    paths = write_report({"a": r, "b": r}, tmp_path)
    assert (tmp_path / "report.html").stat().st_size < 30_000_000
    assert len(paths) == 2 * 5 + 2  # no speedup figures
