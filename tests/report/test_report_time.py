"""The report's time: one unit per report, the --from/--to window, binned long series."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from _frames import fcfs_schedule, run
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.metrics import Series
from coschedlab.platform import Cluster
from coschedlab.report import figures, interactive, write_report
from coschedlab.report import series as S
from coschedlab.report.timeaxis import TimeAxis, Window, parse_duration, report_axis

CLUSTER = Cluster(nodes=16, sockets_per_node=2, cores_per_socket=10)


@pytest.mark.parametrize(
    "text, seconds",
    [("3600", 3600), ("90m", 5400), ("90min", 5400), ("12h", 43200), ("2d", 172800),
     ("1.5h", 5400), ("30s", 30), (" 2D ", 172800), ("0", 0), ("1e3", 1000)],
)  # fmt: skip
def test_parse_duration(text, seconds):
    assert parse_duration(text, "--from") == seconds


@pytest.mark.parametrize(
    "text, what",
    [("abc", "not a time"), ("", "not a time"), ("5x", "not a time"), ("h", "not a time"),
     ("nan", "not a time"), ("inf", "not a time"), ("1e400", "not a finite time"),
     ("-5", "negative"), ("-2h", "negative"), ("3 h 5", "not a time")],
)  # fmt: skip
def test_parse_duration_errors_name_the_option(text, what):
    with pytest.raises(InputError, match=what) as err:
        parse_duration(text, "--to")
    assert str(err.value).startswith("--to: ")


def test_window_checks():
    assert Window.parse(None, None).is_open
    w = Window.parse("1h", "3h")
    assert (w.start, w.end) == (3600, 10800) and w.bounds(1e6) == (3600, 10800)
    assert Window.parse("1h", None).bounds(7200) == (3600, 7200)
    assert Window.parse(None, "2h").bounds(100) == (0, 7200)
    with pytest.raises(InputError, match=r"^--to: 1h is not after --from 2h"):
        Window.parse("2h", "1h")
    with pytest.raises(InputError, match=r"^--to: 0 s is not after the first submission"):
        Window.parse(None, "0")
    with pytest.raises(InputError, match="window end: .* not after"):
        Window(5.0, 5.0).checked()
    # outside every run: refused, naming the option and the longest run
    with pytest.raises(
        InputError, match=r"^--from: 30 days is after the end of every run .*4 days"
    ):
        Window.parse("30d", None).check_inside([86400.0, 4 * 86400.0])
    Window.parse("3d", None).check_inside([86400.0, 4 * 86400.0])  # inside the longer run


def test_time_axis_unit_and_description():
    assert TimeAxis.for_span(100).unit == "s"
    assert TimeAxis.for_span(10 * 86400).unit == "days"
    # a window sets the unit by its length; the description quotes the whole run
    ax = TimeAxis.for_span(10 * 86400, Window(86400, 86400 + 7200))
    assert (ax.div, ax.unit) == (60.0, "min") and ax.limits(10 * 86400) == (1440, 1560)
    assert ax.describe(10 * 86400) == "1,440-1,560 min of 14,400 min"
    assert TimeAxis.for_span(100).describe(100) == ""
    assert ax.label == "time since first submission (min)"


def test_one_unit_per_report(tmp_path):
    # a 40-minute run and a ~day-long run: every figure and the HTML say hours
    short = fcfs_schedule(5, CLUSTER, seed=1)
    long = fcfs_schedule(120, CLUSTER, seed=2)
    runs = {"short": run(short, CLUSTER), "long": run(long, CLUSTER)}
    assert short["end"].max() - short["submit"].min() < 3 * 3600
    axis = report_axis(interactive.as_runs(runs))
    assert axis.unit == "h"
    assert figures.time_unit(short["end"].max() - short["submit"].min())[1] != "h"
    fig = figures.utilization_figure(short, CLUSTER, axis=axis)
    assert fig.axes[0].get_xlabel() == "time since first submission (h)"
    for ax in figures.comparison(runs).axes:
        assert ax.get_xlabel() in ("", "time since first submission (h)")
    html = interactive.report_html(runs)
    assert "makespan (h)" in html and "mean wait (h)" in html
    for unit in ("(s)", "(min)", "(days)"):
        assert f"time since first submission {unit}" not in html
    assert "time since first submission (h)" in html


def test_report_window(tmp_path):
    frame = fcfs_schedule(80, CLUSTER, seed=1)
    r = run(frame, CLUSTER)
    w = Window(3600.0, 4 * 3600.0)
    axis = report_axis({"a": r}, w)
    fig = figures.gantt(frame, CLUSTER, axis=axis)
    ax = fig.axes[0]
    assert ax.get_xlim() == (1.0, 4.0) and ax.get_xlabel().endswith("(h)")
    t0 = frame["submit"].min()
    inside = ((frame["end"] > t0 + 3600) & (frame["start"] < t0 + 4 * 3600)).sum()
    assert f"{inside} of 80 jobs, 1-4 h of" in ax.get_title()
    drawn = sum(len(c.get_paths()) for c in ax.collections)
    assert 0 < drawn < len(figures.gantt_rectangles(frame, CLUSTER)[0])
    html = interactive.report_html({"a": r}, axis=axis)
    assert "time figures show 1-4 h of" in html and '"range":[1.0,4.0]' in html
    paths = write_report({"a": r}, tmp_path, window=w)
    assert len(paths) == 7
    with pytest.raises(InputError, match="after the end of every run"):
        write_report({"a": r}, tmp_path / "late", window=Window(1e9, None))
    assert not (tmp_path / "late").exists()


def test_report_command_window_errors(tmp_path, monkeypatch, capsys):
    from coschedlab.cli.main import main

    for opts, msg in (
        (["--from", "abc"], "error: --from: 'abc' is not a time"),
        (["--from", "2h", "--to", "1h"], "error: --to: 1h is not after --from 2h"),
    ):
        monkeypatch.setattr(sys, "argv", ["coschedlab", "report", str(tmp_path), *opts])
        with pytest.raises(SystemExit) as exit_:
            main()
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.startswith(msg), err
        assert len(err.strip().splitlines()) == 1


# --- binning -----------------------------------------------------------------------------------

steps = st.lists(
    st.tuples(st.floats(0, 1000, allow_nan=False), st.floats(-50, 50, allow_nan=False)),
    min_size=1,
    max_size=60,
)


def _series(points: list[tuple[float, float]]) -> Series:
    t, v = zip(*sorted(dict(points).items()), strict=True)
    return Series(np.array(t), np.array(v))


@settings(max_examples=150, deadline=None)
@given(steps, st.floats(-100, 900), st.floats(1, 1200), st.integers(1, 40))
def test_binned_mean_preserves_the_time_weighted_mean(points, t0, length, bins):
    s = _series(points)
    t1 = t0 + length
    b = S.binned(s, t0, t1, bins, "mean")
    assert len(b) == bins + 1 and b.t[0] == t0 and b.t[-1] == t1
    tol = 1e-9 * max(1.0, np.abs(s.v).max()) * max(1.0, np.abs(b.t).max())
    assert np.isclose(b.v[:-1].mean(), s.mean(t0, t1), rtol=1e-9, atol=tol)
    for k in range(bins):  # and each bin is the mean over that bin
        assert np.isclose(b.v[k], s.mean(b.t[k], b.t[k + 1]), rtol=1e-9, atol=tol)


@settings(max_examples=150, deadline=None)
@given(steps, st.floats(-100, 900), st.floats(1, 1200), st.integers(1, 40))
def test_binned_max_is_the_largest_value_in_each_bin(points, t0, length, bins):
    s = _series(points)
    t1 = t0 + length
    b = S.binned(s, t0, t1, bins, "max")
    for k in range(bins):
        lo, hi = b.t[k], b.t[k + 1]
        taken = [float(s.at(lo))] + [float(v) for t, v in zip(s.t, s.v, strict=True) if lo < t < hi]
        assert b.v[k] == max(taken)
        assert b.v[k] >= S.binned(s, t0, t1, bins, "mean").v[k] - 1e-9 * (1 + abs(b.v[k]))


def test_for_drawing_exact_or_binned():
    s = S.step_sum(np.arange(100.0), np.arange(100.0) + 0.5)  # 200 steps
    [exact], width = S.for_drawing([s], 0, 100, 500)
    assert width is None and exact.t[0] == 0 and exact.t[-1] == 100
    assert exact.v.tolist()[:4] == [1, 0, 1, 0]
    [binned], width = S.for_drawing([s], 0, 100, 50, "mean")
    assert width == 2.0 and len(binned) == 51 and np.allclose(binned.v, 0.5)
    [peak], _ = S.for_drawing([s], 0, 100, 50, "max")
    assert np.all(peak.v == 1)
    # several series: one grid for all (stacked areas)
    both, width = S.for_drawing([s, Series(np.array([50.0]), np.array([3.0]))], 0, 100, 500)
    assert width is None and both[0].t.tolist() == both[1].t.tolist()


def test_long_series_are_binned_and_labelled():
    frame = fcfs_schedule(1500, CLUSTER, seed=4)  # ~3000 steps > MAX_BINS
    fig = figures.utilization_figure(frame, CLUSTER)
    line = fig.axes[0].lines[0]
    assert len(line.get_xdata()) == figures.MAX_BINS + 1
    assert "mean per" in fig.axes[0].get_ylabel()
    assert "max per" in figures.queue_figure(frame).axes[0].get_ylabel()
    short = fcfs_schedule(20, CLUSTER, seed=4)
    assert "per" not in figures.utilization_figure(short, CLUSTER).axes[0].get_ylabel()
