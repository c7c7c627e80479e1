"""The workflow figures as a reader sees them: natural panel order, one shared log scale with
plain ticks, missing bars explained, the profile's legend off the data, the modes' colours."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from matplotlib.colors import to_hex

from coschedlab.report.style import scheduler_color
from coschedlab.workflows import library
from coschedlab.workflows.plots import (
    NA,
    natural_key,
    profile_figure,
    slowdown_figure,
    speedup_figure,
)


def test_natural_sort_of_group_names():
    names = ["A16", "A2", "B1", "A32", "A1", "C8", "B16", "longwide", "A4"]
    assert sorted(names, key=natural_key) == [
        "A1", "A2", "A4", "A16", "A32", "B1", "B16", "C8", "longwide"
    ]  # fmt: skip


def _shares() -> pd.DataFrame:
    """Two workflows x two shares x three modes; one spans 0.9-40x, the other 1-2x; the
    small-job slowdown is missing at the 100% share (no regular job)."""
    rows = []
    for name, sp in (("floodplain", (1.2, 2.0)), ("sipht", (0.9, 40.0))):
        for share, s in zip((0.5, 1.0), sp, strict=True):
            for mode in ("pilot", "chained", "woas"):
                rows.append({
                    "workflow": name, "share": share, "mode": mode,
                    "speedup_over_pilot": s if mode == "woas" else np.nan,
                    "speedup_over_chained": 1.1 if mode == "woas" else np.nan,
                    "slowdown_small_ratio": np.nan if share == 1.0 else 2.0,
                })  # fmt: skip
    return pd.DataFrame(rows)


def _texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_speedup_panels_share_one_log_scale_with_plain_ticks():
    fig = speedup_figure(_shares())
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["floodplain", "sipht"]
    assert {ax.get_yscale() for ax in axes} == {"log"}  # floodplain too
    assert len({ax.get_ylim() for ax in axes}) == 1  # one scale
    fig.canvas.draw()
    labels = [t.get_text() for t in axes[0].get_yticklabels() if t.get_text()]
    assert labels and all(re_plain(t) for t in labels)  # "2", "10", not "2x10^0"
    boxes = [t.get_window_extent() for t in axes[0].get_yticklabels() if t.get_text()]
    assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    bars = {c.get_label(): to_hex(c.patches[0].get_facecolor()) for c in axes[0].containers}
    assert bars == {"over pilot": scheduler_color("pilot"),
                    "over chained": scheduler_color("chained")}  # fmt: skip


def re_plain(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_missing_slowdown_bars_are_marked_and_explained():
    fig = slowdown_figure(_shares())
    assert _texts(fig).count(NA) == 2 * 3  # two workflows x three modes at 100%
    title = fig.legends[0].get_title().get_text()
    assert "n/a: no small regular job" in title
    complete = _shares()
    complete["slowdown_small_ratio"] = 2.0
    fig = slowdown_figure(complete)
    assert NA not in _texts(fig) and "n/a" not in fig.legends[0].get_title().get_text()


def test_a_last_slot_with_no_bar_keeps_its_n_a_marks_inside_the_panel():
    fig = slowdown_figure(_shares())  # the 100% share, the last slot, has no bar at all
    fig.canvas.draw()
    for ax in (ax for ax in fig.axes if ax.get_visible()):
        lo, hi = ax.get_xlim()
        marks = [t for t in ax.texts if t.get_text() == NA]
        assert marks and all(lo < t.get_position()[0] < hi for t in marks)
        frame = ax.get_window_extent()
        boxes = [t.get_window_extent() for t in marks]
        assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 for b in boxes)
        assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_one_period_is_one_panel_in_natural_order():
    df = pd.DataFrame({"workflow": ["A16", "A2", "A1"], "period": 7200, "mode": "woas",
                       "speedup_over_pilot": [1.1, 1.2, 1.0],
                       "speedup_over_chained": [1.5, 1.3, 1.0]})  # fmt: skip
    fig = speedup_figure(df, "period")
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A1", "A2", "A16"]
    assert "7200 s" in ax.get_xlabel()


def test_profile_legend_is_off_the_data():
    fig = profile_figure(library.builtin("cybershake"))
    fig.canvas.draw()
    (ax,) = fig.axes
    assert ax.get_legend() is None and fig.legends
    assert not fig.legends[0].get_window_extent().overlaps(ax.get_window_extent())
