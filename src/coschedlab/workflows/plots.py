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
    job's allocation (max cores x its runtime) drawn around it: the gap is the pilot waste."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.2))
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
    ax.set_ylim(0, wf.max_cores * 1.15)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig


# -- the reproduction figures -----------------------------------------------------------------
MODE_COLOURS = {"pilot": "#4c72b0", "chained": "#dd8452", "woas": "#55a868"}


def group_figures(df) -> Figure | None:
    """The seed's Figs 5-7 in one figure: median wait, runtime and turnaround (columns) per
    mode versus n for the synthetic groups A, B and C (rows). None without group workflows."""
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
    fig = Figure(figsize=(10, 2.8 * len(kinds)))
    axes = fig.subplots(len(kinds), 3, squeeze=False)
    modes = [m for m in ("pilot", "chained", "woas") if m in set(df["mode"])]
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
                ax.bar(x + (k - 1) * 0.27, vals, 0.27, label=mode, color=MODE_COLOURS[mode])
            ax.set_xticks(x, [str(n) for n in ns])
            ax.set_title(f"group {kind}: median {label}", fontsize=9)
            ax.set_ylabel("hours", fontsize=8)
            if r == len(kinds) - 1:
                ax.set_xlabel("n")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _grid(names: list) -> tuple[Figure, list]:
    """A figure of one panel per name, three per row (unused panels hidden)."""
    from matplotlib.figure import Figure

    cols = min(3, len(names))
    nrows = -(-len(names) // cols)
    fig = Figure(figsize=(3.6 * cols, 2.6 * nrows))
    axes = fig.subplots(nrows, cols, squeeze=False).ravel()
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    return fig, list(zip(names, axes, strict=False))


def speedup_figure(df, key: str = "share") -> Figure | None:
    """The seed's Fig. 8 (Fig. 9 for periods): WoAS's median turnaround speedup over pilot
    and over chained jobs, per workflow and share (or period); > 1: WoAS is faster."""
    import numpy as np

    w = df[df["mode"] == "woas"]
    if w.empty or "speedup_over_pilot" not in w:
        return None
    names = list(dict.fromkeys(w["workflow"]))
    fig, panels = _grid(names)
    for name, ax in panels:
        sub = w[w["workflow"] == name].sort_values(key)
        x = np.arange(len(sub))
        ax.bar(
            x - 0.2, sub["speedup_over_pilot"], 0.4, color=MODE_COLOURS["pilot"], label="over pilot"
        )
        ax.bar(x + 0.2, sub["speedup_over_chained"], 0.4, color="#c44e87", label="over chained")
        ax.axhline(1.0, ls="--", color="k", lw=0.8)
        vals = np.concatenate([sub["speedup_over_pilot"], sub["speedup_over_chained"]])
        vals = vals[np.isfinite(vals) & (vals > 0)]
        if len(vals) and vals.max() / vals.min() > 5:
            from matplotlib.ticker import FormatStrFormatter

            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
            ax.tick_params(axis="y", which="minor", labelsize=6)
        labels = (
            [f"{100 * v:g}%" for v in sub[key]] if key == "share" else [f"{v:g}" for v in sub[key]]
        )
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(
            "workflow share of core-hours" if key == "share" else "period (s)", fontsize=7
        )
    panels[0][1].set_ylabel("turnaround speedup of WoAS", fontsize=8)
    panels[0][1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def slowdown_figure(df, key: str = "share", group: str = "small") -> Figure | None:
    """The seed's Fig. 10: median slowdown of regular jobs of ``group`` size (requested
    core-hours [0, 48) for small) relative to the no-workflow run, per workflow and mode."""
    import numpy as np

    col = f"slowdown_{group}_ratio"
    if col not in df or df[col].isna().all():
        return None
    names = list(dict.fromkeys(df["workflow"]))
    fig, panels = _grid(names)
    for name, ax in panels:
        sub = df[df["workflow"] == name]
        values = sorted(sub[key].unique())
        x = np.arange(len(values))
        for k, mode in enumerate(m for m in ("pilot", "chained", "woas") if m in set(sub["mode"])):
            s = sub[sub["mode"] == mode].set_index(key).reindex(values)
            ax.bar(x + (k - 1) * 0.27, s[col], 0.27, color=MODE_COLOURS[mode], label=mode)
        ax.axhline(1.0, ls="--", color="k", lw=0.8)
        labels = [f"{100 * v:g}%" for v in values] if key == "share" else [f"{v:g}" for v in values]
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_title(name, fontsize=9)
    panels[0][1].set_ylabel(f"slowdown ratio, {group} jobs", fontsize=8)
    panels[0][1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def gain_table(df, key: str = "share") -> str:
    """The seed's Table 3: WoAS's actual-utilization gain over pilot jobs (percentage points),
    workflows x shares, as Markdown."""
    w = df[(df["mode"] == "woas")]
    if w.empty or "utilization_gain_over_pilot" not in w:
        return ""
    t = w.pivot_table(index="workflow", columns=key, values="utilization_gain_over_pilot")
    head = [f"{100 * v:g}%" if key == "share" else f"{v:g}" for v in t.columns]
    lines = ["| gain (points) | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for name, row in t.iterrows():
        lines.append(f"| {name} | " + " | ".join(f"{v:.2f}" for v in row) + " |")
    return "\n".join(lines) + "\n"
