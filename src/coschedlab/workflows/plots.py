"""Figures of the workflow capability: a workflow's core profile (the seed's Tables 1-2
"profile" column) and the reproduction figures (Figs 5-10 and Table 3 of the seed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .model import Workflow

__all__ = ["profile_figure"]


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def profile_figure(wf: Workflow) -> Figure:
    """Cores in use over time, as soon as possible with actual run times, with the pilot
    job's allocation (max cores x its runtime) drawn around it: the gap is the pilot waste.
    The legend sits under the plot, off the data."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.4), layout="constrained")
    ax = fig.add_subplot()
    prof = wf.profile()
    span = wf.pilot_runtime
    unit, div = ("h", 3600.0) if span >= 7200 else ("min", 60.0) if span >= 120 else ("s", 1.0)
    xs = [t / div for t, _ in prof]
    ys = [c for _, c in prof]
    ax.fill_between(xs, ys, step="post", alpha=0.6, label="tasks (ASAP)")
    ax.step(xs, ys, where="post", color="C0")
    end = span / div
    ax.plot(
        [0, 0, end, end],
        [0, wf.max_cores, wf.max_cores, 0],
        "k--",
        lw=1,
        label=f"pilot job: {wf.max_cores} cores x {end:.3g} {unit}",
    )
    ax.set_xlabel(f"time since the workflow starts ({unit})")
    ax.set_ylabel("cores")
    ax.set_title(
        f"{wf.name}: {len(wf.tasks)} tasks, critical path {wf.critical_path / 3600:.2f} h, "
        f"pilot waste {_num(wf.potential_waste / 3600)} core-h",
        fontsize=10,
    )
    ax.set_ylim(0, wf.max_cores * 1.05)
    fig.legend(loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    return fig


# -- the reproduction figures -----------------------------------------------------------------
#: the modes' colours: :func:`coschedlab.report.style.scheduler_color`, as in every figure
MODES = ("pilot", "chained", "woas")
#: the note under a panel with a missing bar (no value to draw)
NA = "n/a"


def natural_key(name: object) -> tuple:
    """Sort key putting A2 before A16 (numbers in a name compare as numbers)."""
    import re

    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", str(name))
        if part
    )


def _mode_color(mode: str) -> str:
    from ..report.style import scheduler_color

    return scheduler_color(mode)


def _value_labels(key: str, values) -> list[str]:
    return [f"{100 * v:g}%" if key == "share" else f"{v:g}" for v in values]


def _mark_missing(ax, xs, vals, y: float, zeros: bool = False) -> int:
    """Write :data:`NA` where a bar has no value (NaN) at height ``y`` (and ``0`` on a bar of
    height 0 with ``zeros``, which would otherwise look missing); returns how many NaN."""
    import math

    n = 0
    for x, v in zip(xs, vals, strict=True):
        if v is None or not math.isfinite(float(v)):
            ax.text(x, y, NA, ha="center", va="bottom", fontsize=6.5, color="#555555",
                    rotation=90)  # fmt: skip
            n += 1
        elif zeros and v == 0:
            ax.text(x, y, "0", ha="center", va="bottom", fontsize=6.5, color="#555555")
    return n


def _log_axis(ax, values) -> None:
    """A log y-axis over ``values`` (and 1) with plain-number ticks."""
    import numpy as np

    from ..report.style import plain_log_ticks

    v = np.asarray([x for x in values if x == x and x > 0] + [1.0], dtype=float)
    ax.set_yscale("log")
    ax.set_ylim(float(v.min()) / 1.3, float(v.max()) * 1.3)
    plain_log_ticks(ax)


def group_figures(df) -> Figure | None:
    """The seed's Figs 5-7 in one figure: median wait, runtime and turnaround (columns) per
    mode versus n for the synthetic groups A, B and C (rows). None without group workflows;
    a bar without a value (no workflow completed in every mode) is marked n/a."""
    import re

    import numpy as np
    from matplotlib.figure import Figure

    rows = []
    for name in df["workflow"].unique():
        m = re.fullmatch(r"([ABC])(\d+)", str(name))
        if m:
            rows.append((m.group(1), int(m.group(2)), name))
    if not rows:
        return None
    kinds = sorted({k for k, _, _ in rows})
    fig = Figure(figsize=(10, 2.6 * len(kinds) + 0.6), layout="constrained")
    axes = fig.subplots(len(kinds), 3, squeeze=False)
    modes = [m for m in MODES if m in set(df["mode"])]
    width = 0.8 / max(1, len(modes))
    missing = 0
    for r, kind in enumerate(kinds):
        ns = sorted(n for k, n, _ in rows if k == kind)
        for c, (col, label) in enumerate(
            (
                ("median_wait_h", "wait"),
                ("median_runtime_h", "runtime"),
                ("median_turnaround_h", "turnaround"),
            )
        ):
            ax = axes[r][c]
            x = np.arange(len(ns))
            for k, mode in enumerate(modes):
                vals = []
                for n in ns:
                    sel = df[(df["workflow"] == f"{kind}{n}") & (df["mode"] == mode)]
                    vals.append(float(sel[col].mean()) if len(sel) else np.nan)
                pos = x + (k - (len(modes) - 1) / 2) * width
                ax.bar(pos, vals, width, label=mode, color=_mode_color(mode))
                missing += _mark_missing(ax, pos, vals, 0.0, zeros=True)
            ax.set_xticks(x, [str(n) for n in ns])
            ax.set_xlim(-0.5, len(ns) - 0.5)  # every n's slot, even one with no bar (n/a)
            ax.set_title(f"group {kind}: median {label}", fontsize=9)
            ax.set_ylabel("hours", fontsize=8)
            if r == len(kinds) - 1:
                ax.set_xlabel(f"n (workflow {kind}n)" if len(kinds) == 1 else "n")
    note = f"; {NA}: no workflow completed in every mode" if missing else ""
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="outside lower center",
               ncols=len(modes), fontsize=8, frameon=False,
               title=f"mode{note}", title_fontsize=8)  # fmt: skip
    return fig


def _grid(names: list, sharey: bool = False) -> tuple[Figure, list]:
    """A figure of one panel per name, three per row (unused panels hidden)."""
    from matplotlib.figure import Figure

    cols = min(3, len(names))
    nrows = -(-len(names) // cols)
    fig = Figure(figsize=(3.6 * cols, 2.5 * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, cols, squeeze=False, sharey=sharey).ravel()
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    return fig, list(zip(names, axes, strict=False))


def _bars(
    df, key: str, series: list[tuple[str, str, str]], ylabel: str, log: bool
) -> tuple[Figure, list, int]:
    """Grouped bars of ``series`` (column, label, colour) per workflow and ``key`` value: one
    panel per workflow on a shared y-scale, or one panel with the workflows on x when each
    has a single ``key`` value. Missing values are marked n/a; returns the figure, its
    ``(name, axes)`` panels and how many values are missing."""
    import numpy as np

    names = sorted(dict.fromkeys(df["workflow"]), key=natural_key)
    values = sorted(df[key].unique())
    width = 0.8 / len(series)
    allv = np.concatenate([df[c].to_numpy(dtype=float) for c, _, _ in series])
    floor = 0.0
    if len(values) == 1:  # one panel, the workflows side by side
        from ..report.style import figure

        fig = figure(3.0, width=max(6.5, 0.45 * len(names) * len(series) ** 0.5 + 1.5))
        ax = fig.add_subplot()
        panels = [(None, ax)]
    else:
        fig, panels = _grid(names, sharey=True)
    missing = 0
    for name, ax in panels:
        sub = df if name is None else df[df["workflow"] == name]
        cats = names if name is None else values
        x = np.arange(len(cats))
        col_of = "workflow" if name is None else key
        if log:
            _log_axis(ax, allv)
            floor = ax.get_ylim()[0]
        for k, (col, label, color) in enumerate(series):
            s = sub.groupby(col_of)[col].mean().reindex(cats)
            pos = x + (k - (len(series) - 1) / 2) * width
            ax.bar(pos, s.to_numpy(dtype=float), width, color=color, label=label)
            missing += _mark_missing(ax, pos, s.to_numpy(dtype=float), floor * 1.05)
        ax.axhline(1.0, ls="--", color="k", lw=0.8)
        labels = [str(c) for c in cats] if name is None else _value_labels(key, cats)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_xlim(-0.5, len(cats) - 0.5)  # every slot, even one with no bar (its n/a marks)
        ax.tick_params(axis="y", labelsize=7)
        if name is None:
            unit = " s" if key == "period" else ""
            ax.set_xlabel(f"workflow ({key} {_value_labels(key, values)[0]}{unit})", fontsize=8)
        else:
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("workflow share of core-hours" if key == "share" else f"{key} (s)",
                          fontsize=7)  # fmt: skip
        ax.grid(axis="y", alpha=0.3, which="major")
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(ylabel, fontsize=8)
    return fig, panels, missing


def speedup_figure(df, key: str = "share") -> Figure | None:
    """The seed's Fig. 8 (Fig. 9 for periods): WoAS's median turnaround speedup over pilot
    and over chained jobs, per workflow and share (or period); > 1: WoAS is faster. Every
    panel shares one log y-scale with plain-number ticks."""
    w = df[df["mode"] == "woas"]
    if w.empty or "speedup_over_pilot" not in w:
        return None
    series = [("speedup_over_pilot", "over pilot", _mode_color("pilot")),
              ("speedup_over_chained", "over chained", _mode_color("chained"))]  # fmt: skip
    fig, panels, missing = _bars(w, key, series, "turnaround speedup\nof WoAS", log=True)
    note = f"; {NA}: no workflow completed in every mode" if missing else ""
    fig.legend(*panels[0][1].get_legend_handles_labels(), loc="outside lower center",
               ncols=2, fontsize=8, frameon=False,
               title=f"WoAS's speedup (log scale; > 1: WoAS faster){note}",
               title_fontsize=8)  # fmt: skip
    return fig


def slowdown_figure(df, key: str = "share", group: str = "small") -> Figure | None:
    """The seed's Fig. 10: median slowdown of regular jobs of ``group`` size (requested
    core-hours [0, 48) for small) relative to the no-workflow run, per workflow and mode, on
    one shared log y-scale. A missing bar (no such regular job submitted and finished in the
    window, e.g. at a 100% share where every job is a workflow's) is marked n/a."""
    col = f"slowdown_{group}_ratio"
    if col not in df or df[col].isna().all():
        return None
    modes = [m for m in MODES if m in set(df["mode"])]
    wide = df.pivot_table(index=["workflow", key], columns="mode", values=col, dropna=False)
    wide = wide.reindex(columns=modes).reset_index()
    series = [(m, m, _mode_color(m)) for m in modes]
    fig, panels, missing = _bars(wide, key, series, f"slowdown ratio,\n{group} jobs", log=True)
    note = ""
    if missing:
        note = f"\n{NA}: no {group} regular job submitted in the window and ended by the stop"
    fig.legend(*panels[0][1].get_legend_handles_labels(), loc="outside lower center",
               ncols=len(modes), fontsize=8, frameon=False,
               title=f"mode (median slowdown / no-workflow run's; log scale){note}",
               title_fontsize=8)  # fmt: skip
    return fig


def gain_table(df, key: str = "share") -> str:
    """The seed's Table 3: WoAS's actual-utilization gain over pilot jobs (percentage points),
    workflows x shares, as Markdown."""
    w = df[(df["mode"] == "woas")]
    if w.empty or "utilization_gain_over_pilot" not in w:
        return ""
    t = w.pivot_table(index="workflow", columns=key, values="utilization_gain_over_pilot")
    head = _value_labels(key, t.columns)
    lines = ["| gain (points) | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for name, row in t.iterrows():
        lines.append(f"| {name} | " + " | ".join(f"{v:.2f}" for v in row) + " |")
    return "\n".join(lines) + "\n"
