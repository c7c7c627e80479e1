"""What a reviewer reads off the report's PNGs: the scheduler named in every per-run title,
one colour per scheduler in every figure, a window's own y-range, readable value ticks, no
empty speedup figure, smoothed comparison curves."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
from _frames import fcfs_schedule, finish, run
from matplotlib.colors import to_hex

from coschedlab.experiments.plots import improvement_figure
from coschedlab.platform import Cluster
from coschedlab.report import figures, interactive, write_report
from coschedlab.report.style import SCHEDULER_COLORS, scheduler_color, scheduler_colors
from coschedlab.report.timeaxis import TimeAxis, Window

CLUSTER = Cluster(nodes=16, sockets_per_node=2, cores_per_socket=10)


def test_every_per_run_title_names_the_scheduler():
    frame = fcfs_schedule(30, CLUSTER, seed=1, coloc=True)
    figs = figures.run_figures(frame, CLUSTER, name="easy-coloc:fallback=true")
    assert [w for w, _ in figs] == [
        "gantt", "utilization", "queue", "throughput", "unused_cores", "speedup"
    ]  # fmt: skip
    for _what, fig in figs:
        assert fig.axes[0].get_title().startswith("easy-coloc:fallback=true: ")
    plain = figures.run_figures(frame, CLUSTER)
    assert not any(f.axes[0].get_title().startswith("easy") for _w, f in plain)


def test_a_scheduler_has_one_colour_in_every_figure():
    names = ["fcfs", "easy:depth=50", "easy", "easy-coloc", "my_policy.py"]
    one = scheduler_colors(names)
    assert len(set(one.values())) == len(names)  # told apart within a figure
    assert one["easy"] == SCHEDULER_COLORS["easy"] and one["fcfs"] == SCHEDULER_COLORS["fcfs"]
    assert scheduler_colors(reversed(names)) == one  # whatever the figure's order
    other = scheduler_colors(["easy-coloc", "fcfs", "easy"])  # another figure
    assert all(other[n] == one[n] == scheduler_color(n) for n in other)
    # two hashed names sharing a colour: the alphabetically later one moves, in any order
    assert scheduler_color("my_policy.py") == scheduler_color("easy:depth=50")
    assert one["easy:depth=50"] == scheduler_color("easy:depth=50") != one["my_policy.py"]
    assert scheduler_color("easy:depth=50") not in set(SCHEDULER_COLORS.values())

    frame = fcfs_schedule(20, CLUSTER, seed=2)
    runs = {n: run(frame, CLUSTER) for n in names}
    comp = figures.comparison(runs)
    bars = [to_hex(p.get_facecolor()) for p in comp.axes[0].patches]
    lines = {ln.get_label(): to_hex(ln.get_color()) for ln in comp.axes[3].lines}
    assert bars == [one[n] for n in names] and lines == one
    html = interactive.comparison_figures(runs, TimeAxis.for_span(1e4))
    assert list(html[0].data[0].marker.color) == [one[n] for n in names]
    (_, util), *_ = [f for f in figures.run_figures(frame, CLUSTER, name="easy") if f[0] != "gantt"]
    assert to_hex(util.axes[0].lines[0].get_color()) == one["easy"]


def test_the_improvement_figure_colours_like_the_comparison():
    spec = SimpleNamespace(  # what the figure reads of a comparison spec
        name="t", baseline="easy", repetitions=1, workloads=[SimpleNamespace(name="w")],
        schedulers=[SimpleNamespace(label=n) for n in ("easy", "fcfs", "easy:depth=5")],
    )  # fmt: skip
    table = pd.DataFrame(
        {"workload": ["w", "w"], "scheduler": ["fcfs", "easy:depth=5"],
         "makespan_improvement_mean": [-3.0, 2.0], "makespan_improvement_std": [0.0, 0.0]}
    )  # fmt: skip
    ax = improvement_figure(table, spec).axes[0]
    got = {t.get_label(): to_hex(t.patches[0].get_facecolor()) for t in ax.containers}
    want = scheduler_colors(["easy", "fcfs", "easy:depth=5"])
    assert got == {"fcfs": want["fcfs"], "easy:depth=5": want["easy:depth=5"]}


def test_no_speedup_figure_without_co_location(tmp_path):
    plain = fcfs_schedule(30, CLUSTER, seed=3)
    plain["speedup"], plain["placement"] = 1.0, "compact"  # a pool run that spread nothing
    coloc = fcfs_schedule(30, CLUSTER, seed=3, coloc=True)
    assert not figures.colocated(plain) and figures.colocated(coloc)
    names = {p.name for p in write_report({"easy": run(plain, CLUSTER),
                                           "filler": run(coloc, CLUSTER)}, tmp_path)}  # fmt: skip
    assert "filler_speedup.png" in names and "easy_speedup.png" not in names
    assert "easy_gantt.png" in names


def _long_run(n: int = 400) -> pd.DataFrame:
    """Back-to-back one-node jobs over many days (a long trace)."""
    t = np.arange(n) * 3600.0
    return finish(pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit": t, "start": t, "end": t + 3000.0,
        "requested_time": 3600.0, "procs": 20, "nodes": 1, "alloc": "0", "app": 0,
    }))  # fmt: skip


def test_a_window_gets_its_own_y_range():
    frame = _long_run()
    axis = TimeAxis.for_span(400 * 3600.0, Window(100 * 3600.0, 110 * 3600.0))
    ax = figures.throughput_figure(frame, axis=axis).axes[0]
    lo, hi = ax.get_ylim()
    assert lo >= 90 and hi <= 115  # ~100-110 jobs finished: not 0-400
    whole = figures.throughput_figure(frame).axes[0].get_ylim()
    assert whole[0] == 0 and whole[1] >= 400
    comp = figures.comparison({"easy": run(frame, CLUSTER)}, axis=axis)
    lo, hi = comp.axes[-1].get_ylim()  # finished jobs
    assert lo >= 90 and hi <= 115


def _overlapping(labels) -> bool:
    boxes = [t.get_window_extent() for t in labels if t.get_text()]
    return any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_bar_panel_ticks_do_not_touch():
    frame = fcfs_schedule(20, CLUSTER, seed=2)
    runs = {n: run(frame, CLUSTER) for n in ("easy", "fcfs")}
    for r, makespan in zip(runs.values(), (28_763_000.0, 28_776_000.0), strict=True):
        r.metrics["makespan"] = makespan  # ~8,000 h: five-digit ticks before
    fig = figures.comparison(runs, axis=TimeAxis(3600.0, "h"))  # a 2-day window's unit
    fig.canvas.draw()
    for ax in fig.axes[:3]:
        labels = ax.get_xticklabels()
        assert 2 <= len([t for t in labels if t.get_text()]) <= 4
        assert not _overlapping(labels)
    assert any("," in t.get_text() for t in fig.axes[0].get_xticklabels())  # 4,000 not 4000


def test_comparison_utilization_is_smoothed_over_a_stated_bin():
    rng = np.random.default_rng(0)
    n = 600
    submit = np.sort(rng.uniform(0, 3 * 86400, n))
    run_t = rng.uniform(60, 1800, n)
    frame = finish(pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit": submit, "start": submit, "end": submit + run_t,
        "requested_time": 3600.0, "procs": 10, "nodes": 1, "alloc": "0", "app": 0,
    }))  # fmt: skip
    fig = figures.comparison({"a": run(frame, CLUSTER), "b": run(frame, CLUSTER)})
    ax = fig.axes[3]
    assert "mean per 120 min bin" in ax.get_ylabel()  # 72 h / 60 bins -> round 2 h bins
    steps = len(ax.lines[0].get_xdata())
    assert steps <= figures.COMPARISON_UTILIZATION_BINS + 1
