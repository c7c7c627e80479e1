"""Figures of a study: the scheduling graph (SimX, Figures 5-7: worker x time, one colour per
experiment, experiment numbers written on the blocks) and the Pareto figure (Figure 2: the
design space with the runs made and the front circled, and the performance space)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgb

from ..report.style import category_style, figure
from .result import StudyResult
from .sampling import DesignSpace

__all__ = ["pareto_figure", "scheduling_graph", "table5_figure"]


def _unit(span: float) -> tuple[float, str]:
    """Seconds per unit and its name for a time axis of ``span`` seconds."""
    if span < 120:
        return 1.0, "seconds"
    if span < 2 * 3600:
        return 60.0, "minutes"
    return 3600.0, "hours"


def scheduling_graph(result: StudyResult, path: str | Path, title: str | None = None) -> Path:
    """Worker x time: each worker's runs as bars coloured by run (numbered where the number
    fits, never over another number); a move to a larger group starts a new bar; gaps are
    idle workers."""
    procs = max(1, result.procs)
    fig = figure(min(7.5, 1.6 + 0.11 * procs) if procs <= 64 else 5.0)
    ax = fig.add_subplot()
    end = max((s.end for s in result.segments), default=1.0)
    per, unit = _unit(end)  # seconds per axis unit
    span = end / per or 1.0
    blocks: dict[tuple[int, float], list] = {}
    groups: dict[str, tuple[list, list]] = {}  # hatch -> (polygons, colours)
    for s in result.segments:
        color, hatch = category_style(s.run)
        x0, x1 = s.start / per, s.end / per
        polys, colors = groups.setdefault(hatch, ([], []))
        polys.append([(x0, s.worker), (x1, s.worker), (x1, s.worker + 1), (x0, s.worker + 1)])
        colors.append(color)
        blocks.setdefault((s.run, s.start), []).append(s)
    for hatch, (polys, colors) in groups.items():
        ax.add_collection(PolyCollection(polys, facecolors=colors, hatch=hatch or None,
                                         edgecolors="face",
                                         linewidths=0.3))  # fmt: skip
    ax.set_xlim(0, span)
    ax.set_ylim(0, procs)
    ax.invert_yaxis()
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("worker")
    if procs <= 16:
        ax.set_yticks([w + 0.5 for w in range(procs)], [str(w) for w in range(procs)])
    m = result.metrics
    ax.set_title(
        title
        or (
            f"configuration {result.config}, {procs} workers: {m['runs']} runs, "
            f"{m['total_time'] / per:.3g} {unit}, utilization {m.get('utilization', 0):.0%}"
        ),
        fontsize=9,
    )
    if procs <= 128:
        _label_blocks(fig, ax, blocks, per)
    return _save(fig, path)


def _label_blocks(fig: Any, ax: Any, blocks: dict, per: float) -> None:
    """Write each run's number on its block: on the largest contiguous range of workers of the
    block, when the number fits inside it and clears every number already written (a block
    too small for its number stays unnumbered; its colour still tells it; ``per``: seconds per
    unit of the time axis). Call it once the axes' limits and title are set: it measures the
    drawn figure."""
    fig.canvas.draw()  # the layout, for the sizes on paper
    renderer = fig.canvas.get_renderer()
    placed: list = []
    for (run, start), all_segs in sorted(blocks.items(), key=lambda kv: -len(kv[1])):
        segs = [s for s in all_segs if s.end > s.start]  # a zero-length segment draws nothing
        if not segs:
            continue
        workers = sorted(s.worker for s in segs)
        ranges, lo = [], workers[0]
        for a, b in zip(workers, [*workers[1:], None], strict=True):
            if b != a + 1:
                ranges.append((lo, a + 1))
                lo = b
        lo, hi = max(ranges, key=lambda r: r[1] - r[0])
        x0, x1 = start / per, min(s.end for s in segs if lo <= s.worker < hi) / per
        corners = ax.transData.transform([(x0, lo), (x1, hi)])
        (bx0, by0), (bx1, by1) = corners.min(axis=0), corners.max(axis=0)
        r, g, b = to_rgb(category_style(run)[0])
        ink = "#222222" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else "white"  # contrast
        text = ax.text((x0 + x1) / 2, (lo + hi) / 2, str(run), ha="center", va="center",
                       fontsize=7 if hi - lo >= 3 else 6, color=ink,
                       fontweight="bold")  # fmt: skip
        box = text.get_window_extent(renderer).expanded(1.1, 1.1)
        inside = bx0 <= box.x0 and box.x1 <= bx1 and by0 <= box.y0 and box.y1 <= by1
        if not inside or any(box.overlaps(other) for other in placed):
            text.remove()
        else:
            placed.append(box)


def pareto_figure(
    result: StudyResult,
    space: DesignSpace,
    path: str | Path,
    objectives: tuple[str, ...] = ("objective 1", "objective 2"),
) -> Path:
    """Left: the design grid, runs made as dots, the Pareto front circled; right: the
    runs' first two objectives, the front circled (SimX, Figure 2)."""
    fig = figure(3.2)
    left, right = fig.subplots(1, 2)
    front = {tuple(d) for d in result.front}
    names = space.names
    all_d = np.array(space.designs())
    if len(names) >= 2:
        left.scatter(all_d[:, 0], all_d[:, 1], s=12, facecolor="none", edgecolor="#bbbbbb",
                     label="not run")  # fmt: skip
        ran = np.array([r["design"] for r in result.records])
        if len(ran):
            left.scatter(ran[:, 0], ran[:, 1], s=14, color="#0067a5", label="run")
        fr = np.array(sorted(front)) if front else np.empty((0, 2))
        if len(fr):
            left.scatter(fr[:, 0], fr[:, 1], s=70, facecolor="none", edgecolor="#be0032",
                         linewidth=1.2, label="Pareto front")  # fmt: skip
        for axis, setter in ((0, left.set_xticks), (1, left.set_yticks)):
            vals = space.values[axis]
            ticks = range(0, len(vals), max(1, len(vals) // 6))
            setter(list(ticks), [f"{vals[i]:g}" for i in ticks])
        left.set_xlabel(names[0])
        left.set_ylabel(names[1])
        left.set_title("design space", fontsize=9)
        left.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    objs = [r["objectives"] for r in result.records if r.get("objectives")]
    if objs and len(objs[0]) >= 2:
        f = np.array([o[:2] for o in objs])
        right.scatter(f[:, 0], f[:, 1], s=14, color="#0067a5")
        on = np.array([list(r["objectives"][:2]) for r in result.records
                       if tuple(r["design"]) in front])  # fmt: skip
        if len(on):
            right.scatter(on[:, 0], on[:, 1], s=70, facecolor="none", edgecolor="#be0032",
                          linewidth=1.2)  # fmt: skip
        right.set_xlabel(objectives[0] + " (lower is better)")
        right.set_ylabel(objectives[1] if len(objectives) > 1 else "objective 2")
        right.set_title("performance space", fontsize=9)
    return _save(fig, path)


def table5_figure(df: Any, path: str | Path) -> Path:
    """Total time per configuration, ours beside the paper's, one panel per machine size
    (the rows of :func:`~coschedlab.studies.reproduce.table5`; whiskers: the seeds' range, none
    with one seed, which the legend says)."""
    sizes = sorted(set(df.workers))
    # whiskers only when the seeds differ: one seed's range is a zero-width bar
    spread = "total_min_lo" in df and bool((df.total_min_hi > df.total_min_lo).any())
    seeds = "mean of the seeds; whiskers: their range" if spread else "1 seed"
    fig = figure(3.1)
    axes = fig.subplots(1, len(sizes), sharey=True, squeeze=False)[0]
    for ax, p in zip(axes, sizes, strict=True):
        rows = df[df.workers == p]
        x = np.arange(len(rows))
        ours = rows.total_min.to_numpy() / 60
        ax.bar(x - 0.2, ours, 0.4, color="#0067a5", label=f"coschedlab (simulated, {seeds})")
        if spread:
            lo = rows.total_min_lo.to_numpy() / 60
            hi = rows.total_min_hi.to_numpy() / 60
            ax.errorbar(x - 0.2, ours, yerr=[ours - lo, hi - ours], fmt="none", ecolor="black",
                        elinewidth=0.8, capsize=2)  # fmt: skip
        ax.bar(x + 0.2, rows.paper_total_min.to_numpy() / 60, 0.4, color="#f38400",
               label="paper (measured)")  # fmt: skip
        ax.set_xticks(x, list(rows.config))
        ax.set_title(f"{p} workers", fontsize=9)
        ax.set_xlabel("configuration")
    axes[0].set_ylabel("total time (hours)")
    # under the panels: off the bars, whatever the length of its text
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2,
               fontsize=7, frameon=False)  # fmt: skip
    return _save(fig, path)


def _save(fig: Any, path: Any) -> Any:
    """Save ``fig`` as PNG to a path (returned as a Path) or a binary file object."""
    fig.savefig(path, format="png")
    return Path(path) if isinstance(path, str | Path) else path
