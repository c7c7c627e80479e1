"""The study figures as a reader sees them: run numbers inside their blocks and never over one
another, no zero-width whiskers for one seed."""

from __future__ import annotations

import itertools

import pandas as pd
from matplotlib.figure import Figure

from coschedlab.studies import DesignSpace, parse_scaling
from coschedlab.studies.manager import CONFIGS
from coschedlab.studies.model import WorkModel
from coschedlab.studies.plots import scheduling_graph, table5_figure
from coschedlab.studies.simulate import simulate_study

HELIUM = DesignSpace.of(
    {"prandtl": [0.2, 0.3, 0.4, 0.5, 0.6, 0.7], "velocity": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]}
)


def _saved(monkeypatch) -> dict:
    saved = {}
    real = Figure.savefig

    def keep(fig, path, *a, **k):
        saved["fig"] = fig
        return real(fig, path, *a, **k)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved


def test_run_numbers_sit_in_their_blocks_and_never_overlap(tmp_path, monkeypatch):
    scaling = parse_scaling("4:1.95,8:1.14,16:0.80,32:0.60,64:1.82")
    scale = 34.3 * 60 / (2900 * 0.60)
    model = WorkModel(HELIUM, scaling, time_scale=scale, targets=((0, 0.2), (0.5, 0.8)))
    result = simulate_study(model, CONFIGS["E"], 32, 32, reuse=("velocity",))
    saved = _saved(monkeypatch)
    scheduling_graph(result, tmp_path / "schedule.png")
    fig = saved["fig"]
    fig.canvas.draw()
    ax = fig.axes[0]
    texts = [t for t in ax.texts if t.get_text()]
    assert len(texts) >= result.metrics["runs"] // 2  # most runs numbered
    boxes = [t.get_window_extent() for t in texts]
    assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    numbered = {int(t.get_text()) for t in texts}
    assert numbered <= {s.run for s in result.segments}
    for t, box in zip(texts, boxes, strict=True):  # inside a block of its own run
        x, y = ax.transData.inverted().transform(((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2))
        per = ax.get_xlim()[1] / (max(s.end for s in result.segments) or 1)
        own = [s for s in result.segments if s.run == int(t.get_text())]
        assert any(s.start * per <= x <= s.end * per and s.worker <= y <= s.worker + 1
                   for s in own)  # fmt: skip


def _table5(spread: bool) -> pd.DataFrame:
    rows = []
    for w in (32, 64):
        for k, c in enumerate("OAB"):
            total = 1000.0 / (k + 1) / (w / 32)
            rows.append({"workers": w, "config": c, "total_min": total,
                         "total_min_lo": total - 30 * spread, "total_min_hi": total + 30 * spread,
                         "paper_total_min": total * 1.05})  # fmt: skip
    return pd.DataFrame(rows)


def test_one_seed_draws_no_whiskers_and_says_so(tmp_path, monkeypatch):
    saved = _saved(monkeypatch)
    table5_figure(_table5(spread=False), tmp_path / "t.png")
    ax = saved["fig"].axes[0]
    assert not ax.collections and not any(c for c in ax.containers if hasattr(c, "has_yerr"))
    labels = [t.get_text() for t in saved["fig"].legends[0].get_texts()]
    assert "1 seed" in labels[0]
    table5_figure(_table5(spread=True), tmp_path / "t.png")
    ax = saved["fig"].axes[0]
    assert any(getattr(c, "has_yerr", False) for c in ax.containers)
    labels = [t.get_text() for t in saved["fig"].legends[0].get_texts()]
    assert "range" in labels[0] and "1 seed" not in labels[0]


def test_table5_legend_covers_no_panel_and_the_panels_are_alike(tmp_path, monkeypatch):
    saved = _saved(monkeypatch)
    table5_figure(_table5(spread=True), tmp_path / "t.png")  # the longest legend text
    fig = saved["fig"]
    fig.canvas.draw()
    boxes = [ax.get_window_extent() for ax in fig.axes]
    assert all(ax.get_legend() is None for ax in fig.axes) and len(fig.legends) == 1
    legend = fig.legends[0].get_window_extent()
    assert not any(legend.overlaps(b) for b in boxes)
    assert abs(boxes[0].width - boxes[1].width) < 0.05 * boxes[0].width  # no squeezed panel
    assert boxes[1].x0 - boxes[0].x1 < 0.1 * boxes[0].width  # side by side, no hole between
