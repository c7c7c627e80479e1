"""Figures of the coupled-systems study, laid out like Tang et al. (2011) Figs 3-10: per metric,
one panel per system, grouped bars per scheme combination (HH, HY, YH, YY) against the small
system's load or the paired proportion, with the no-pairing baseline where it exists."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["FIGURES", "study_figure"]

#: (file stem, metric column, y label, scale, baseline column or None)
FIGURES = (
    ("wait", "wait_mean", "mean wait (min)", 1 / 60, "base_wait_mean"),
    ("slowdown", "bounded_slowdown_mean", "mean bounded slowdown", 1.0,
     "base_bounded_slowdown_mean"),
    ("sync", "sync_mean", "paired jobs' mean sync time (min)", 1 / 60, None),
    ("su_loss", "su_loss_share", "service-unit loss (% of node-hours)", 100.0, None),
)  # fmt: skip


def study_figure(
    df: pd.DataFrame, study: str, metric: str, label: str, scale: float, base: str | None
) -> Figure | None:
    """One figure: ``metric`` per system (panels) and scheme combination (bars) against the
    study's x (load or paired proportion); the baseline as a black tick per group."""
    from matplotlib.figure import Figure

    from ..report.style import scheduler_color  # each scheme pair's colour in every figure

    d = df[df["study"] == study]
    if d.empty:
        return None
    systems = list(dict.fromkeys(d["system"]))
    xs = sorted(d["x"].unique())
    combos = [c for c in ("HH", "HY", "YH", "YY") if c in set(d["combo"])]
    fig = Figure(figsize=(9.5, 3.6), layout="constrained")
    axes = fig.subplots(1, len(systems), squeeze=False)[0]
    width = 0.8 / max(1, len(combos))
    for ax, system in zip(axes, systems, strict=True):
        ds = d[d["system"] == system]
        for k, combo in enumerate(combos):
            dc = ds[ds["combo"] == combo].set_index("x")
            vals = [float(dc.loc[x, metric]) * scale if x in dc.index else math.nan for x in xs]
            pos = [i - 0.4 + width * (k + 0.5) for i in range(len(xs))]
            ax.bar(pos, vals, width=width, color=scheduler_color(combo), label=combo)
        if base is not None and base in ds:
            for i, x in enumerate(xs):
                b = ds[ds["x"] == x][base]
                if len(b) and b.iloc[0] == b.iloc[0]:
                    y = float(b.iloc[0]) * scale
                    ax.plot([i - 0.45, i + 0.45], [y, y], color="black", lw=1.5)
            ax.plot([], [], color="black", lw=1.5, label="no pairing")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([f"{x:g}" if study == "load" else f"{100 * x:g}%" for x in xs])
        ax.set_xlabel("small system's utilization" if study == "load" else "paired jobs")
        ax.set_title(f"{system} system")
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center", fontsize=8)
    what = "by the small system's load" if study == "load" else "by paired-job proportion"
    fig.suptitle(f"{label.split(' (')[0]} {what}", fontsize=11)
    return fig
