"""The in situ reproduction figures as a reader sees them: a page's aspect, plain-number ticks,
heuristics and bandwidths spelled out, noise not magnified, error bars only over several
trials (seeds)."""

from __future__ import annotations

import itertools

import matplotlib.image
import pandas as pd
import pytest

from coschedlab.insitu import plots
from coschedlab.insitu.plots import MIN_SPAN, pair_label, plot_fig4, plot_fig5, plot_table2

SWEEPS = {"nodes": (8, 16, 32), "simulations": (1, 2, 4), "analyses": (1, 2), "data": (1, 2)}


def _fig4(trials: int) -> pd.DataFrame:
    rows = []
    for sweep, values in SWEEPS.items():
        for v in values:
            for k, sc in enumerate(("ideal", "increasing-25", "in-transit")):
                rows.append({"sweep": sweep, "value": v, "scenario": sc,
                             "makespan": 10.0 * (k + 1) * v,
                             "makespan_std": 1.0 if trials > 1 else float("nan"),
                             "normalised": 1.0 + k, "trials": trials})  # fmt: skip
    return pd.DataFrame(rows)


def _fig5() -> pd.DataFrame:
    rows = []
    for sweep, values in SWEEPS.items():
        for v in values:
            for sc in ("ideal", "in-transit"):
                for k, pair in enumerate(("n:co,c:co", "n:co,c:ev", "n:ev,c:co", "n:ev,c:ev")):
                    noise = 1.0 + 0.001 * k * (v % 2) if sc == "in-transit" else 1.0 + 0.2 * k
                    rows.append({"sweep": sweep, "value": v, "scenario": sc, "pair": pair,
                                 "makespan": 100.0, "normalised": noise})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.fixture
def figs(monkeypatch):
    """The figures the plot functions save, by file name (and saved, to check the PNG)."""
    saved = {}
    from matplotlib.figure import Figure

    real = Figure.savefig

    def keep(fig, path, *a, **k):
        saved[getattr(path, "name", str(path))] = fig
        return real(fig, path, *a, **k)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved


def _ticks(ax, axis="y"):
    labels = ax.get_yticklabels() if axis == "y" else ax.get_xticklabels()
    return [t.get_text() for t in labels if t.get_text()]


def _plain(texts) -> bool:
    try:
        [float(t.replace("−", "-")) for t in texts]
    except ValueError:
        return False
    return bool(texts)


def test_fig4_is_a_grid_with_plain_ticks_and_honest_error_bars(tmp_path, figs):
    plot_fig4(_fig4(trials=1), tmp_path)
    h, w = matplotlib.image.imread(tmp_path / "fig4_makespan.png").shape[:2]
    assert w / h < 1.6  # not a 2160 x 480 strip
    fig = figs["fig4_makespan.png"]
    fig.canvas.draw()
    ax = fig.axes[0]
    assert _plain(_ticks(ax, "x")) and _plain(_ticks(ax, "y"))  # 8 16 32, not 2^3
    assert "1 trial (1 seed)" in fig._suptitle.get_text()
    assert not any(c.has_yerr for c in ax.containers)  # no zero-width error bars
    plot_fig4(_fig4(trials=3), tmp_path)
    fig = figs["fig4_makespan.png"]
    assert "3 trials (3 seeds)" in fig._suptitle.get_text()
    assert "± std" in fig._suptitle.get_text()
    assert all(c.has_yerr for c in fig.axes[0].containers)


def test_fig5_spells_out_the_heuristics_and_does_not_magnify_noise(tmp_path, figs):
    assert pair_label("n:ev,c:co") == "nodes even, cores co-allocated"
    plot_fig5(_fig5(), tmp_path)
    fig = figs["fig5.png"]
    legend = fig.legends[0]
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts[0] == "nodes co-allocated, cores co-allocated" and len(texts) == 4
    assert legend.get_texts()[0].get_fontsize() >= 8
    assert "co-allocated =" in legend.get_title().get_text()
    for ax in fig.axes:
        lo, hi = ax.get_ylim()
        assert hi - lo >= MIN_SPAN - 1e-12  # in-transit's 0.1% noise stays flat
    fig.canvas.draw()
    for ax in fig.axes:
        boxes = [t.get_window_extent() for t in ax.get_xticklabels() if t.get_text()]
        assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_table2_explains_the_bandwidths_with_plain_ticks(tmp_path, figs):
    t2 = pd.DataFrame({"scenario": ["ideal", "in-transit"], "ratio_B": [1.1, 6.0],
                       "ratio_B1": [1.1, 5.3], "ratio_B2": [1.1, 5.5],
                       "ratio_B3": [1.1, 0.95]})  # fmt: skip
    plot_table2(t2, tmp_path)
    fig = figs["table2.png"]
    fig.canvas.draw()
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == list(plots.BANDWIDTHS.values()) and "B'3 = B'2 / |A_NC|" in labels
    assert "A_NC" in fig.legends[0].get_title().get_text()
    ticks = _ticks(fig.axes[0])
    assert _plain(ticks) and len(ticks) >= 3  # 1, 2, 5...: not one 10^0


def test_fig4_title_gives_the_range_of_trials_when_points_differ(tmp_path, figs):
    fig4 = _fig4(trials=3)
    fig4.loc[fig4["value"] == 8, "trials"] = 5  # the largest configurations: more trials
    plot_fig4(fig4, tmp_path)
    assert "mean of 3-5 trials (3-5 seeds)" in figs["fig4_makespan.png"]._suptitle.get_text()


def _reproduction(tmp_path):
    """A small reproduction's outputs written by reproduce.write_outputs (two trials of the
    nodes sweep, made-up makespans that differ per trial, pair and bandwidth)."""
    from coschedlab.insitu.reproduce import build_tasks, results_frame, write_outputs

    tasks, member = build_tasks(trials=2, sweeps=("nodes",), scenarios=("ideal", "in-transit"))
    rows = []
    for i, cfg in enumerate(tasks.values()):
        sim = 100.0 + 7.0 * (i % 11) + cfg["N"]
        model = {f"model_{m}": sim / (1.0 + 0.1 * k + 0.01 * (i % 5))
                 for k, m in enumerate(("B", "B1", "B2", "B3"))}  # fmt: skip
        rows.append({**cfg, "simulated_makespan": sim, "model_makespan": model["model_B3"],
                     **model})  # fmt: skip
    out = tmp_path / "reproduction"
    write_outputs(results_frame(rows, member), out)
    return out


def test_redraw_from_the_stored_tables_gives_the_same_figures(tmp_path):
    import shutil

    out = _reproduction(tmp_path)
    names = ["fig4_makespan.png", "fig4_normalised.png", "fig5.png", "table2.png"]
    for keep_runs in (True, False):  # table2.png from the runs, or from table2.csv's medians
        stored = tmp_path / f"stored-{keep_runs}"
        stored.mkdir()
        tables = ["fig4.csv", "fig5.csv", "table2.csv"] + ["table2_runs.csv"] * keep_runs
        for name in tables:
            shutil.copy(out / name, stored / name)
        assert sorted(plots.redraw(stored)) == sorted(names)
        for name in names:
            a = matplotlib.image.imread(out / name)
            b = matplotlib.image.imread(stored / name)
            assert a.shape == b.shape and (a == b).all(), name


def test_redraw_without_tables_is_one_clear_error(tmp_path):
    from coschedlab.errors import InputError

    with pytest.raises(InputError, match="no fig4.csv"):
        plots.redraw(tmp_path)
