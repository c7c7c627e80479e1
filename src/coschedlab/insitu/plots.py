"""Figures: stage Gantt chart of one simulation, Fig. 4, Fig. 5 and Table II plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from matplotlib.patches import Patch

from ..errors import InputError

if TYPE_CHECKING:
    from .simulate import SimResult

COLORS = {"S": "#1f77b4", "W": "#ff7f0e", "R": "#d62728", "A": "#2ca02c"}
SWEEP_ORDER = ("nodes", "simulations", "analyses", "data")
SCENARIO_ORDER = (
    "ideal",
    "increasing-25",
    "decreasing-25",
    "increasing-50",
    "decreasing-50",
    "increasing-75",
    "decreasing-75",
    "in-transit",
)
SCENARIO_STYLE = {
    "ideal": ("k", "-"),
    "in-transit": ("tab:red", "-"),
    "increasing-25": ("tab:blue", "-"),
    "decreasing-25": ("tab:blue", "--"),
    "increasing-50": ("tab:green", "-"),
    "decreasing-50": ("tab:green", "--"),
    "increasing-75": ("tab:orange", "-"),
    "decreasing-75": ("tab:orange", "--"),
}


def _ordered(values, order):
    present = list(dict.fromkeys(values))
    return [v for v in order if v in present] + [v for v in present if v not in order]


SWEEP_LABEL = {
    "nodes": "nodes N",
    "simulations": "simulations S",
    "analyses": "analyses per simulation",
    "data": "data per step V (GB)",
}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_gantt(result: SimResult, path: Path, max_steps: int | None = None) -> Path:
    """Stage Gantt chart: one row per component, S/W/R/A bars coloured by stage.

    ``max_steps``: draw only steps 1..K (all when None); the title says which steps and which
    time span are drawn, beside the whole run's makespan. Times are in the unit that fits the
    drawn span (:func:`coschedlab.report.timeaxis.time_unit`)."""
    from ..report.style import figure
    from ..report.timeaxis import format_number, time_unit

    if max_steps is not None and max_steps < 1:
        raise InputError(f"must be at least 1, got {max_steps}", where="--gantt-steps")
    n_steps = max((k for _, k, _, _, _ in result.records), default=0)
    drawn = [r for r in result.records if max_steps is None or r[1] <= max_steps]
    last = max((b for *_, b in drawn), default=0.0)
    div, unit = time_unit(last)
    comps = list(result.kinds)
    fig = figure(0.22 * len(comps) + 1.7)
    ax = fig.add_subplot()
    for row, c in enumerate(comps):
        for st, col in COLORS.items():
            bars = [(a / div, (b - a) / div) for cc, k, s, a, b in drawn if cc == c and s == st]
            if bars:
                ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=col, linewidth=0)
    ax.set_yticks(range(len(comps)), comps, fontsize=7 if len(comps) > 12 else 8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(last / div, 1e-9))
    ax.set_xlabel(f"simulated time ({unit})")
    shown = min(max_steps or n_steps, n_steps)
    steps = f"steps 1-{shown} of {n_steps}" if shown < n_steps else f"all {n_steps} steps"
    ax.set_title(
        f"Stages, {steps} (0-{format_number(last / div)} {unit} shown); makespan "
        f"{format_number(result.makespan / div)} {unit}\n"
        f"{result.network} network, {result.engine} engine",
        fontsize=9,
    )
    handles = [Patch(color=c) for c in COLORS.values()]
    fig.legend(handles, ["S compute", "W write", "R read", "A analyze"], ncols=4,
               loc="outside lower center", fontsize=8, frameon=False)  # fmt: skip
    fig.savefig(path)
    return path


def plot_fig4(fig4: pd.DataFrame, out: Path) -> list[str]:
    """Fig. 4: makespan and makespan normalised to IDEAL, per sweep."""
    plt = _plt()
    files = []
    for col, name, ylabel in (
        ("makespan", "fig4_makespan.png", "simulated makespan (s)"),
        ("normalised", "fig4_normalised.png", "makespan / IDEAL"),
    ):
        sweeps = _ordered(fig4["sweep"], SWEEP_ORDER)
        fig, axes = plt.subplots(1, len(sweeps), figsize=(4.5 * len(sweeps), 4), squeeze=False)
        for ax, sw in zip(axes[0], sweeps, strict=True):
            d = fig4[fig4["sweep"] == sw]
            for sc in _ordered(d["scenario"], SCENARIO_ORDER):
                e = d[d["scenario"] == sc].sort_values("value")
                color, ls = SCENARIO_STYLE.get(sc, (None, "-"))
                ax.plot(e["value"], e[col], marker="o", ms=3, color=color, ls=ls, label=sc)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel(SWEEP_LABEL.get(sw, sw))
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        axes[0][-1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / name, dpi=120)
        plt.close(fig)
        files.append(name)
    return files


def plot_fig5(fig5: pd.DataFrame, out: Path) -> list[str]:
    """Fig. 5: (node, core) heuristic pairs normalised to (CO-ALLOC, CO-ALLOC), per sweep,
    for IDEAL and IN-TRANSIT."""
    plt = _plt()
    sweeps = _ordered(fig5["sweep"], SWEEP_ORDER)
    scen = [s for s in ("ideal", "in-transit") if s in set(fig5["scenario"])]
    if not scen:
        return []
    fig, axes = plt.subplots(
        len(scen), len(sweeps), figsize=(4.5 * len(sweeps), 3.5 * len(scen)), squeeze=False
    )
    for i, sc in enumerate(scen):
        for j, sw in enumerate(sweeps):
            ax = axes[i][j]
            d = fig5[(fig5["sweep"] == sw) & (fig5["scenario"] == sc)]
            for pair in dict.fromkeys(d["pair"]):
                e = d[d["pair"] == pair].sort_values("value")
                ax.plot(e["value"], e["normalised"], marker="o", label=pair)
            ax.set_xscale("log", base=2)
            ax.set_title(f"{sc}", fontsize=9)
            ax.set_xlabel(SWEEP_LABEL.get(sw, sw))
            ax.set_ylabel("makespan / (n:co, c:co)")
            ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "fig5.png", dpi=120)
    plt.close(fig)
    return ["fig5.png"]


def plot_table2(t2: pd.DataFrame, out: Path) -> list[str]:
    """Table II calibration: simulated / model makespan for B, B'1, B'2, B'3 by scenario."""
    plt = _plt()
    cols = ["ratio_B", "ratio_B1", "ratio_B2", "ratio_B3"]
    scen = _ordered(t2["scenario"], SCENARIO_ORDER)
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.2
    for i, c in enumerate(cols):
        med = [t2[t2["scenario"] == s][c].median() for s in scen]
        ax.bar([x + i * width for x in range(len(scen))], med, width, label=c.replace("ratio_", ""))
    ax.set_xticks([x + 1.5 * width for x in range(len(scen))], scen, rotation=30, fontsize=8)
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_ylabel("simulated / model makespan (median)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "table2.png", dpi=120)
    plt.close(fig)
    return ["table2.png"]
