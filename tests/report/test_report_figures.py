"""What a reader of the figures sees: log scales, readable labels, distinguishable
applications, no rounding noise drawn as a speedup spread, an honest in situ Gantt title."""

from __future__ import annotations

import itertools
import re

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from _frames import fcfs_schedule, run

from coschedlab.errors import InputError
from coschedlab.insitu.plots import plot_gantt
from coschedlab.insitu.simulate import SimResult
from coschedlab.metrics import SPEEDUP_TOLERANCE, colocation_summary, summary
from coschedlab.platform import Cluster
from coschedlab.report import figures, interactive
from coschedlab.report import series as S
from coschedlab.report.style import (
    MAX_CATEGORIES,
    PALETTE,
    category_style,
    needs_log_scale,
    wrap_label,
)

CLUSTER = Cluster(nodes=16, sockets_per_node=2, cores_per_socket=10)


def test_log_scale_rule():
    assert not needs_log_scale([1.0, 50.0, 100.0])  # 100x exactly: linear
    assert needs_log_scale([1.0, 100.5])
    assert needs_log_scale([0.0, 5.0, 1000.0])  # zeros are not positive: 5..1000
    assert not needs_log_scale([float("nan"), None, 3.0, 200.0])
    assert not needs_log_scale([7.0]) and not needs_log_scale([])


def _with(metrics: dict, frame: pd.DataFrame):
    return (frame, CLUSTER, {**summary(frame, CLUSTER.total_cores), **metrics})


def test_comparison_uses_log_scale_when_slowdowns_span_orders():
    frame = fcfs_schedule(20, CLUSTER, seed=1)
    far = {"fcfs": _with({"bounded_slowdown_mean": 14033.0}, frame),
           "easy": _with({"bounded_slowdown_mean": 103.4}, frame)}  # fmt: skip
    ax = figures.comparison(far).axes[2]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_title()
    assert ax.get_xlim()[1] > 14033  # room for the value label
    near = {"a": _with({"bounded_slowdown_mean": 18.5}, frame),
            "b": _with({"bounded_slowdown_mean": 26.7}, frame)}  # fmt: skip
    assert figures.comparison(near).axes[2].get_xscale() == "linear"
    html = interactive.report_html(far)
    assert "mean bounded slowdown (log scale)" in html and '"type":"log"' in html


def test_wrap_label():
    assert wrap_label("easy") == "easy"
    lines = wrap_label("easy:depth=50,interval=30").split("\n")
    assert lines == ["easy:depth=50,", "interval=30"]
    assert wrap_label("examples/best_fit_coloc.py", 18) == "examples/\nbest_fit_coloc.py"
    assert all(len(ln) <= 10 for ln in wrap_label("a:b,c/d=efgh,ijkl:mnopq", 10).split("\n"))
    assert wrap_label("a" * 30).replace("\n", "") == "a" * 30


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_long_scheduler_labels_do_not_overlap():
    frame = fcfs_schedule(20, CLUSTER, seed=1)
    names = ["easy:depth=50,interval=30", "examples/best_fit_coloc.py", "conservative",
             "easy-coloc:fallback=true", "easy"]  # fmt: skip
    fig = figures.comparison({n: run(frame, CLUSTER) for n in names})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ticks = [t for t in fig.axes[0].get_yticklabels() if t.get_text()]
    assert len(ticks) == len(names)
    boxes = [t.get_window_extent(renderer) for t in ticks]
    assert not any(_overlap(a, b) for a, b in itertools.combinations(boxes, 2))
    for ax in fig.axes[:3]:  # no label runs into a bar panel
        panel = ax.get_window_extent(renderer)
        assert not any(_overlap(b, panel) for b in boxes)
    assert fig.get_size_inches()[0] == pytest.approx(6.5)


def test_many_applications_get_distinct_styles_and_an_outside_legend():
    styles = [category_style(k) for k in range(MAX_CATEGORIES)]
    assert len(set(styles)) == MAX_CATEGORIES  # 20 colours x 4 hatches
    assert len(set(PALETTE)) == 20 and styles[20] == (PALETTE[0], "////")
    frame = fcfs_schedule(200, CLUSTER, seed=5)
    frame["app"] = np.arange(len(frame)) % 33
    names = {k: f"bench.{k}" for k in range(33)}
    fig = figures.gantt(frame, CLUSTER, app_names=names)
    ax = fig.axes[0]
    # the PNG's legend is capped: the 11 largest applications, then "other"
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == figures.MAX_LEGEND_APPS and texts[-1] == "other (22 applications)"
    assert (
        all(t.startswith("bench.") for t in texts[:-1])
        and "top 11" in legend.get_title().get_text()
    )
    assert {c.get_hatch() for c in ax.collections} == {None}  # 11 colours need no hatch
    faces = np.concatenate([c.get_facecolors() for c in ax.collections])
    assert len({tuple(f) for f in faces}) == figures.MAX_LEGEND_APPS  # 11 colours + the grey
    area = {}  # the kept ones hold the most node-time
    for k, (a, b) in enumerate(zip(frame["start"], frame["end"], strict=True)):
        area[frame["app"].iat[k]] = (
            area.get(frame["app"].iat[k], 0) + (b - a) * frame["nodes"].iat[k]
        )
    top = sorted(area, key=lambda k: -area[k])[:11]
    assert texts[:-1] == [names[k] for k in top]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert not _overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
    few = frame[frame["app"] < 12]  # 12 applications: each named
    texts = [t.get_text() for t in figures.gantt(few, CLUSTER).axes[0].get_legend().get_texts()]
    assert len(texts) == 12 and not any(t.startswith("other") for t in texts)
    bars = interactive.gantt_figure(frame, CLUSTER, names, figures._frame_axis(frame, None)[2])
    shapes = [t.marker.pattern.shape for t in bars.data]
    assert len(bars.data) == 33 and shapes.count("/") == 13 and shapes.count("") == 20
    assert bars.data[32].name == "bench.32" and "customdata[2]" in bars.data[32].hovertemplate
    assert len({(t.marker.color, t.marker.pattern.shape) for t in bars.data}) == 33


def _noisy_speedups() -> pd.DataFrame:
    """A plain EASY run with a pool: every speedup is 1 up to the rounding of end - start."""
    n = 40
    rng = np.random.default_rng(3)
    frame = fcfs_schedule(n, CLUSTER, seed=3)
    frame["speedup"] = 1.0 + rng.choice([0.0, -1e-13, 1e-13, -1e-16], n)
    frame["placement"] = "compact"
    frame["cores"] = frame["procs"]
    return frame


def test_rounding_noise_is_no_speedup_spread():
    frame = _noisy_speedups()
    assert (frame["speedup"] != 1.0).any()
    assert np.all(S.drawn_speedups(frame) == 1.0)
    mixed = pd.DataFrame({"speedup": [1.0, 1 - 1e-13, 0.99, 1.3, 1 + 0.5 * SPEEDUP_TOLERANCE,
                                      1 - 2 * SPEEDUP_TOLERANCE, np.nan]})  # fmt: skip
    drawn = S.drawn_speedups(mixed)
    assert drawn[:5].tolist() == [1.0, 1.0, 0.99, 1.3, 1.0]
    assert drawn[5] == 1 - 2 * SPEEDUP_TOLERANCE and np.isnan(drawn[6])

    metrics = colocation_summary(frame)
    fig = figures.speedup_boxplot(frame, metrics=metrics)
    ax = fig.axes[0]
    fig.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "1e-13+1" axis
    assert ax.get_ylim() == (0.9, 1.1)
    assert all(np.all(np.asarray(line.get_ydata()) == 1.0) for line in ax.lines)
    assert "0.0% slower than compact" in ax.get_title()

    html = interactive.report_html({"easy": (frame, CLUSTER, {**metrics, "n_jobs": 40})})
    assert metrics["slower_than_compact"] == 0.0
    assert "slowed" not in html
    row = re.search(r"<tr><td>easy</td>(.*?)</tr>", html).group(1)
    assert re.findall(r"<td>(.*?)</td>", row)[-1] == "0.0"  # slower than compact (%)
    box = interactive.speedup_box(frame, None, metrics)
    assert all(set(np.asarray(t.y).tolist()) == {1.0} for t in box.data)
    assert "0.0% of jobs slower than compact" in box.layout.title.text


def test_insitu_gantt_says_what_is_drawn(monkeypatch, tmp_path):
    from matplotlib.figure import Figure

    records = [(c, k, "S", 10.0 * (k - 1), 10.0 * k - 1) for k in range(1, 101) for c in "ab"]
    res = SimResult(999.0, "paper", "ptask", 0.1, records, {"a": "simulation", "b": "analysis"})
    path = plot_gantt(res, tmp_path / "g.png", max_steps=10)
    width = matplotlib.image.imread(path).shape[1]
    assert width == 975  # 6.5 in at 150 dpi: a paper's text width
    titles = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: titles.append(
        self.axes[0].get_title()))  # fmt: skip
    plot_gantt(res, tmp_path / "g.png", max_steps=10)
    plot_gantt(res, tmp_path / "h.png")
    assert titles[0].startswith("Stages, steps 1-10 of 100 (0-99 s shown); makespan 999 s")
    assert titles[1].startswith("Stages, all 100 steps (0-16.65 min shown); makespan 16.65 min")
    with pytest.raises(InputError, match="--gantt-steps: must be at least 1"):
        plot_gantt(res, tmp_path / "g.png", max_steps=0)
