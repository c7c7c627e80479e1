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
#: each scenario's colour and line style, in the order the figures list them
SCENARIO_STYLE = {
    "ideal": ("k", "-"),
    "increasing-25": ("tab:blue", "-"),
    "decreasing-25": ("tab:blue", "--"),
    "increasing-50": ("tab:green", "-"),
    "decreasing-50": ("tab:green", "--"),
    "increasing-75": ("tab:orange", "-"),
    "decreasing-75": ("tab:orange", "--"),
    "in-transit": ("tab:red", "-"),
}
SCENARIO_ORDER = tuple(SCENARIO_STYLE)


def _ordered(values, order):
    present = list(dict.fromkeys(values))
    return [v for v in order if v in present] + [v for v in present if v not in order]


SWEEP_LABEL = {
    "nodes": "nodes N",
    "simulations": "simulations S",
    "analyses": "analyses per simulation",
    "data": "data per step V (GB)",
}


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


#: the heuristic pairs of Fig. 5, spelled out (``n:`` node level, ``c:`` core level)
HEURISTIC = {"co": "co-allocated", "ev": "even"}
#: the smallest y-span of a normalised panel: noise of 0.1% is not drawn as a trend
MIN_SPAN = 0.1
#: Table II's bandwidths B' of the model (Eq. 3's remote term V/(B' n))
BANDWIDTHS = {
    "B": "B: per node",
    "B1": "B'1 = B / |A_NC|",
    "B2": "B'2 = B T / (N T_NC)",
    "B3": "B'3 = B'2 / |A_NC|",
}


def pair_label(pair: str) -> str:
    """``"n:co,c:ev"`` -> ``"nodes co-allocated, cores even"``."""
    parts = dict(p.split(":", 1) for p in str(pair).split(",") if ":" in p)
    if set(parts) != {"n", "c"}:
        return str(pair)
    nodes, cores = (HEURISTIC.get(parts[k], parts[k]) for k in ("n", "c"))
    return f"nodes {nodes}, cores {cores}"


def _log2_x(ax, values) -> None:
    """A log2 x-axis with a plain tick at each swept value (``8``, not ``2^3``)."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted({float(v) for v in values}))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _log_y(ax) -> None:
    """A log y-axis with plain-number ticks for the data drawn."""
    from ..report.style import plain_log_ticks

    ax.set_yscale("log")
    ax.autoscale_view()
    plain_log_ticks(ax)


def _min_span(ax, span: float = MIN_SPAN) -> None:
    """Widen the y-range to at least ``span`` around its middle."""
    lo, hi = ax.get_ylim()
    if hi - lo < span:
        mid = (lo + hi) / 2
        ax.set_ylim(mid - span / 2, mid + span / 2)


def _grid(n: int, height: float = 2.5):
    """A figure of ``n`` panels, two per row (a page's aspect, not a strip)."""
    from ..report.style import figure

    cols = min(2, n)
    rows = -(-n // cols)
    fig = figure(height * rows + 0.9)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def _trials_note(trials) -> str:
    """``"3 trials (3 seeds)"``, or ``"3-5 trials (3-5 seeds)"`` when the points differ."""
    lo, hi = (int(min(trials)), int(max(trials))) if len(trials) else (0, 0)
    n = str(lo) if lo == hi else f"{lo}-{hi}"
    return f"{n} trial{'s' * (hi != 1)} ({n} seed{'s' * (hi != 1)})"


def plot_fig4(fig4: pd.DataFrame, out: Path) -> list[str]:
    """Fig. 4: makespan and makespan normalised to IDEAL per sweep, a 2 x 2 grid each; the
    makespan's error bars are the standard deviation over the trials (none with one trial,
    which the title says)."""
    files = []
    sweeps = _ordered(fig4["sweep"], SWEEP_ORDER)
    trials = fig4["trials"].to_numpy() if "trials" in fig4 else []
    several = len(trials) and min(trials) > 1
    for col, name, ylabel in (
        ("makespan", "fig4_makespan.png", "simulated makespan (s)"),
        ("normalised", "fig4_normalised.png", "makespan / IDEAL"),
    ):
        fig, axes = _grid(len(sweeps))
        for ax, sw in zip(axes, sweeps, strict=True):
            d = fig4[fig4["sweep"] == sw]
            for sc in _ordered(d["scenario"], SCENARIO_ORDER):
                e = d[d["scenario"] == sc].sort_values("value")
                color, ls = SCENARIO_STYLE.get(sc, (None, "-"))
                err = e["makespan_std"] if col == "makespan" and several else None
                ax.errorbar(e["value"], e[col], yerr=err, marker="o", ms=3, color=color, ls=ls,
                            lw=1, capsize=2, elinewidth=0.7, label=sc)  # fmt: skip
            _log2_x(ax, d["value"])
            _log_y(ax)
            ax.set_xlabel(SWEEP_LABEL.get(sw, sw), fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
        bars = "; bars: ± std over the trials" if col == "makespan" and several else ""
        fig.suptitle(f"Fig. 4: {ylabel} per sweep, mean of {_trials_note(trials)}{bars}",
                     fontsize=9)  # fmt: skip
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4,
                   fontsize=8, frameon=False, title="scenario", title_fontsize=8)  # fmt: skip
        fig.savefig(out / name)
        files.append(name)
    return files


def plot_fig5(fig5: pd.DataFrame, out: Path) -> list[str]:
    """Fig. 5: (node, core) heuristic pairs normalised to (co-allocated, co-allocated), per
    sweep (columns), for IDEAL and IN-TRANSIT (rows); every panel spans at least
    :data:`MIN_SPAN`, so that rounding noise is not drawn as a trend."""
    from ..report.style import figure

    sweeps = _ordered(fig5["sweep"], SWEEP_ORDER)
    scen = [s for s in ("ideal", "in-transit") if s in set(fig5["scenario"])]
    if not scen:
        return []
    fig = figure(2.3 * len(scen) + 1.2, width=max(6.5, 2.3 * len(sweeps)))
    axes = fig.subplots(len(scen), len(sweeps), squeeze=False)
    pairs = list(dict.fromkeys(fig5["pair"]))
    for i, sc in enumerate(scen):
        for j, sw in enumerate(sweeps):
            ax = axes[i][j]
            d = fig5[(fig5["sweep"] == sw) & (fig5["scenario"] == sc)]
            for k, pair in enumerate(pairs):
                e = d[d["pair"] == pair].sort_values("value")
                ax.plot(e["value"], e["normalised"], marker="o", ms=3, lw=1,
                        color=f"C{k}", label=pair_label(pair))  # fmt: skip
            _log2_x(ax, d["value"])
            _min_span(ax)
            ax.set_title(sc.upper(), fontsize=8)
            ax.set_xlabel(SWEEP_LABEL.get(sw, sw), fontsize=8)
            if j == 0:
                ax.set_ylabel("makespan / (co, co)", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="outside lower center", ncols=2,
               fontsize=8, frameon=False,
               title="heuristics: co-allocated = Theorems 3-4, even = split evenly; "
               "(co, co) = nodes and cores co-allocated", title_fontsize=8)  # fmt: skip
    fig.suptitle("Fig. 5: makespan of each heuristic pair / nodes and cores co-allocated",
                 fontsize=9)  # fmt: skip
    fig.savefig(out / "fig5.png")
    return ["fig5.png"]


def plot_table2(t2: pd.DataFrame, out: Path) -> list[str]:
    """Table II calibration: simulated / model makespan (median over the runs) by scenario,
    the model computed with each bandwidth B' of Table II (the legend says which). ``t2``:
    the runs (``table2_runs.csv``: ``ratio_B``...) or their medians (``table2.csv``:
    ``ratio_B_median``...)."""
    from ..report.style import PALETTE, figure

    cols = ["ratio_B", "ratio_B1", "ratio_B2", "ratio_B3"]
    if not set(cols) <= set(t2) and {f"{c}_median" for c in cols} <= set(t2):
        t2 = t2.rename(columns={f"{c}_median": c for c in cols})  # one median per scenario
    scen = _ordered(t2["scenario"], SCENARIO_ORDER)
    fig = figure(3.6)
    ax = fig.add_subplot()
    width = 0.2
    for i, c in enumerate(cols):
        med = [t2[t2["scenario"] == s][c].median() for s in scen]
        ax.bar([x + i * width for x in range(len(scen))], med, width, color=PALETTE[i],
               label=BANDWIDTHS[c.removeprefix("ratio_")])  # fmt: skip
    ax.set_xticks([x + 1.5 * width for x in range(len(scen))], scen, rotation=30, fontsize=7,
                  ha="right")  # fmt: skip
    _log_y(ax)
    ax.tick_params(axis="y", labelsize=7)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_ylabel("simulated / model makespan\n(median over the runs)", fontsize=8)
    ax.set_title("Table II: the model (Eq. 3) with each bandwidth B' of its remote transfers",
                 fontsize=9)  # fmt: skip
    fig.legend(loc="outside lower center", ncols=2, fontsize=7, frameon=False,
               title="B': bandwidth of the model; A_NC: the pool analyses; N nodes; "
               "T, T_NC: all / the pool's work", title_fontsize=7)  # fmt: skip
    fig.savefig(out / "table2.png")
    return ["table2.png"]


def redraw(folder: Path) -> list[str]:
    """Draw Fig. 4, Fig. 5 and Table II again from the tables a reproduction stored in
    ``folder`` (``fig4.csv``, ``fig5.csv``, ``table2_runs.csv`` or else ``table2.csv``),
    without its runs; returns the PNGs written into ``folder``."""
    folder = Path(folder)
    files = []
    for name, plot in (("fig4.csv", plot_fig4), ("fig5.csv", plot_fig5)):
        if (folder / name).is_file():
            files += plot(pd.read_csv(folder / name), folder)
    for name in ("table2_runs.csv", "table2.csv"):
        if (folder / name).is_file():
            files += plot_table2(pd.read_csv(folder / name), folder)
            break
    if not files:
        raise InputError("no fig4.csv, fig5.csv or table2.csv to draw", str(folder))
    return files
