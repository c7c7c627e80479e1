"""Analysis of a comparison: per-run metrics, the workload x scheduler table and its plots.

:func:`run_metrics` reads every finished run of a spec (one row per run), :func:`comparison_table`
averages them over the repetitions (mean and standard deviation) and adds the makespan
improvement over the baseline scheduler, computed per repetition (the runs of one repetition
share the same workload, so the comparison is paired) and then averaged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Group

from ..sweeps.store import RunKey, completed, run_dir
from .spec import Spec

__all__ = [
    "METRICS",
    "comparison_table",
    "report",
    "rich_table",
    "run_metrics",
    "shown",
    "table_cells",
    "write_analysis",
]

#: Per-run metrics: column -> key in the run's metrics.json (the one definition of each is
#: :mod:`coschedlab.metrics`: :func:`~coschedlab.metrics.summary` and
#: :func:`~coschedlab.metrics.colocation_summary`). wait, turnaround, bounded_slowdown and
#: speedup are the run's means over its jobs; slower_share is the share of its jobs slower than
#: compact (both NaN without co-location). A key the stored run lacks (a run written before
#: the metric existed) is NaN: nothing is recomputed from jobs.parquet.
METRICS: dict[str, str] = {
    "makespan": "makespan",
    "wait": "wait_mean",
    "turnaround": "response_mean",
    "bounded_slowdown": "bounded_slowdown_mean",
    "utilization": "utilization",
    "speedup": "speedup_mean",
    "slower_share": "slower_than_compact",
}


def run_metrics(spec: Spec, out: Path) -> pd.DataFrame:
    """One row per finished run of ``spec`` in ``out``: workload, scheduler, rep and METRICS.

    Rows follow the spec's order (workloads, then schedulers, then repetitions).
    """
    done = completed(out)
    rows = []
    for w in spec.workloads:
        for s in spec.schedulers:
            for rep in range(spec.repetitions):
                key = RunKey(w.name, s.slug, rep)
                if key not in done:
                    continue
                d = run_dir(out, key)
                m = json.loads((d / "metrics.json").read_text())["metrics"]
                row = {"workload": w.name, "scheduler": s.label, "rep": rep}
                for col, name in METRICS.items():
                    v = m.get(name)
                    row[col] = math.nan if v is None else float(v)
                row["n_jobs"] = int(m.get("n_jobs", 0))
                rows.append(row)
    columns = ["workload", "scheduler", "rep", *METRICS, "n_jobs"]
    return pd.DataFrame(rows, columns=columns)


def _improvements(runs: pd.DataFrame, baseline: str) -> pd.Series:
    """Makespan improvement (%) of each run over the baseline run of the same repetition."""
    base = runs[runs["scheduler"] == baseline].set_index(["workload", "rep"])["makespan"]
    idx = pd.MultiIndex.from_frame(runs[["workload", "rep"]])
    b = base.reindex(idx).to_numpy(dtype=float)
    m = runs["makespan"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        imp = np.where(b > 0, 100.0 * (b - m) / b, np.nan)
    return pd.Series(imp, index=runs.index, name="makespan_improvement")


def comparison_table(runs: pd.DataFrame, spec: Spec) -> pd.DataFrame:
    """Mean and std over repetitions per workload x scheduler, plus ``makespan_improvement``
    (% over ``spec.baseline``, paired per repetition; positive = shorter makespan)."""
    runs = runs.copy()
    runs["makespan_improvement"] = _improvements(runs, spec.baseline)
    values = [*METRICS, "makespan_improvement"]
    order = {s.label: i for i, s in enumerate(spec.schedulers)}
    rows = []
    for (workload, scheduler), g in runs.groupby(["workload", "scheduler"], sort=False):
        row = {"workload": workload, "scheduler": scheduler, "runs": len(g)}
        for col in values:
            v = g[col].to_numpy(dtype=float)
            v = v[np.isfinite(v)]
            row[f"{col}_mean"] = float(v.mean()) if len(v) else math.nan
            row[f"{col}_std"] = float(v.std(ddof=1)) if len(v) > 1 else math.nan
        row["_order"] = order.get(scheduler, len(order))
        rows.append(row)
    wl = {w.name: i for i, w in enumerate(spec.workloads)}
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["_w"] = table["workload"].map(wl)
    table = table.sort_values(["_w", "_order"], kind="stable").drop(columns=["_w", "_order"])
    return table.reset_index(drop=True)


# -- presentation ------------------------------------------------------------------------------
def _pm(mean: float, std: float, scale: float = 1.0, digits: int = 2) -> str:
    from ..tables import number

    if not math.isfinite(mean):
        return "-"
    text = number(mean, digits, scale)
    if math.isfinite(std):
        text += f"±{number(std, digits, scale)}"
    return text


def rich_table(table: pd.DataFrame, spec: Spec, width: int = 80) -> Group:
    """The comparison as rich tables fitting ``width`` columns (times in hours, shares in %)."""
    from ..tables import Col, fit_table

    names, rows, sections = table_cells(table, spec.baseline)
    cols = [Col("workload", "left", wrap=True), Col("scheduler", "left", wrap=True)]
    cols += [Col(n) for n in names[2:]]
    title = f"{spec.name}: mean ± std over {spec.repetitions} repetition(s)"
    return fit_table(title, cols, rows, width, keep=2, sections=sections)


def table_cells(table: pd.DataFrame, baseline: str) -> tuple[list[str], list[list[str]], list[int]]:
    """The comparison's column names, rows of text cells (times in hours, shares in %; the
    workload named on its first row only) and the rows where a new workload starts: what
    the command line prints and the dashboard shows."""
    has_speedup = "speedup_mean" in table and table["speedup_mean"].notna().any()
    names = ["workload", "scheduler", "runs", "makespan h", f"vs {baseline} %", "wait h",
             "turnaround h", "bsld", "util %"]  # fmt: skip
    if has_speedup:
        names += ["speedup", "slower %"]
    rows: list[list[str]] = []
    sections: list[int] = []
    last = None
    for _, r in table.iterrows():
        if last is not None and r["workload"] != last:
            sections.append(len(rows))
        imp = r["makespan_improvement_mean"]
        cells = [
            r["workload"] if r["workload"] != last else "",
            r["scheduler"],
            str(r["runs"]),
            _pm(r["makespan_mean"], r["makespan_std"], 1 / 3600),
            "" if r["scheduler"] == baseline else _pm(imp, r["makespan_improvement_std"]),
            _pm(r["wait_mean"], r["wait_std"], 1 / 3600),
            _pm(r["turnaround_mean"], r["turnaround_std"], 1 / 3600),
            _pm(r["bounded_slowdown_mean"], r["bounded_slowdown_std"]),
            _pm(r["utilization_mean"], r["utilization_std"], 100, 1),
        ]
        if has_speedup:
            cells += [
                _pm(r["speedup_mean"], r["speedup_std"], 1, 3),
                _pm(r["slower_share_mean"], r["slower_share_std"], 100, 1),
            ]
        rows.append(cells)
        last = r["workload"]
    return names, rows, sections


def report(spec: Spec, out: Path, rows: list) -> list[Path]:
    """The comparison's report (:func:`write_analysis`): the files written."""
    return write_analysis(spec, out)[1]


def shown(spec: Spec, out: Path, width: int) -> Group | None:
    """The comparison table of the runs in ``out`` fitting ``width`` columns (None: no run
    finished)."""
    table = comparison_table(run_metrics(spec, out), spec)
    return rich_table(table, spec, width) if len(table) else None


def write_analysis(spec: Spec, out: Path) -> tuple[pd.DataFrame, list[Path]]:
    """Write ``runs.csv``, ``comparison.csv`` and the plots; return the table and the paths
    (listed in the folder's manifest: ``--fresh`` may replace them)."""
    from ..outputs import record
    from .plots import write_plots

    out = Path(out)
    runs = run_metrics(spec, out)
    table = comparison_table(runs, spec)
    paths = [out / "runs.csv", out / "comparison.csv"]
    record(paths)
    runs.to_csv(paths[0], index=False, float_format="%.10g")
    table.to_csv(paths[1], index=False, float_format="%.10g")
    if spec.plots != "none" and len(runs):
        plots = write_plots(spec, out, table)
        record(p for p in plots if p.is_file())
        paths += plots
    return table, paths
