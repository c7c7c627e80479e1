"""The WoAS paper's metrics (Rodrigo et al., HPDC'17, Section 4.3; REFERENCE.md section 4).

Per workflow (submit s, first task start b, last task end e, critical path c):
wait = b - s, runtime = e - b (the critical path with the gaps between its tasks),
turnaround = e - s = wait + runtime, stretch = turnaround / c, gaps = runtime - c (the
accumulated intermediate waits; 0 for a pilot job).

System, over the analysis window [t0, t1): actual utilization = (allocated core-seconds of all
jobs inside the window - idle core-seconds inside pilot jobs) / (machine cores x (t1 - t0)),
with a job's allocation = its processors (the tasks' own cores inside a pilot); waste = the
pilots' idle core-seconds (0 in chained and WoAS modes).

Regular jobs submitted in the window and ended by its end (pre-fill excluded): slowdown =
(end - submit) / (end - start), grouped by requested core-hours [0, 48), [48, 960), >= 960,
medians compared.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "SIZE_GROUPS",
    "SUMMARY_ROWS",
    "completed_in_all",
    "regular_slowdowns",
    "summary_cells",
    "system_metrics",
    "workflow_table",
]

#: requested core-hour groups of regular jobs (the paper's Section 4.3.1)
SIZE_GROUPS = (("small", 0.0, 48.0), ("medium", 48.0, 960.0), ("large", 960.0, np.inf))


def _overlap(a: np.ndarray, b: np.ndarray, t0: float, t1: float) -> np.ndarray:
    return np.clip(np.minimum(b, t1) - np.maximum(a, t0), 0.0, None)


def workflow_table(run) -> pd.DataFrame:
    """One row per submitted workflow of a :class:`.simulate.WorkflowRun`: name, submit,
    start, end, wait, runtime, turnaround, stretch, gaps, tasks, critical path, waste (core-s,
    pilot jobs only), completed (ended inside the analysis window)."""
    ww, ex, jobs = run.workload, run.expanded, run.result.jobs
    ids = jobs["job_id"].to_numpy()
    first = ex.first_wf_id
    sel = ids >= first
    k = ids[sel] - first
    w_of = ex.job_wf[k]
    start = jobs["start"].to_numpy()[sel]
    end = jobs["end"].to_numpy()[sel]
    n = ww.n_workflows
    t1 = ww.window[1]
    b = np.full(n, np.inf)
    e = np.full(n, -np.inf)
    np.fmin.at(b, w_of, start)  # fmin/fmax skip the NaN of jobs a stopped run never started
    np.fmax.at(e, w_of, end)
    n_jobs = np.bincount(w_of, minlength=n)
    n_done = np.bincount(w_of, weights=(end <= t1).astype(float), minlength=n)
    done = n_done == n_jobs
    b[~np.isfinite(b)] = np.nan
    e[~done] = np.nan
    s = np.array([t for t, _ in ww.submits], dtype=np.float64)
    wfs = [ww.workflows[i] for _, i in ww.submits]
    cp = np.array([wf.critical_path for wf in wfs])
    waste = np.zeros(n)
    if ex.mode == "pilot":
        waste = np.array([wf.max_cores * (e[i] - b[i]) - wf.usage for i, wf in enumerate(wfs)])
        waste[~done] = np.nan
    frame = pd.DataFrame(
        {
            "workflow": [wf.name for wf in wfs],
            "submit": s,
            "start": b,
            "end": e,
            "wait": b - s,
            "runtime": e - b,
            "turnaround": e - s,
            "critical_path": cp,
            "gaps": np.maximum(0.0, (e - b) - cp),
            "stretch": (e - s) / np.where(cp > 0, cp, np.nan),
            "tasks": [len(wf.tasks) for wf in wfs],
            "waste_core_s": waste,
            "completed": done,
        }
    )
    return frame


def system_metrics(run) -> dict[str, float]:
    """Actual utilization, pilot waste and classic utilization over the analysis window."""
    ww, ex, jobs = run.workload, run.expanded, run.result.jobs
    t0, t1 = ww.window
    cap = ww.cluster.total_cores * (t1 - t0)
    start = jobs["start"].to_numpy()
    end = jobs["end"].to_numpy()
    procs = jobs["procs"].to_numpy().astype(np.float64)
    ran = np.isfinite(start)  # a run stopped at the window's end never started some jobs
    alloc = float((procs * _overlap(start, end, t0, t1))[ran].sum())
    idle = 0.0
    if ex.mode == "pilot":
        ids = jobs["job_id"].to_numpy()
        for row in np.flatnonzero(ids >= ex.first_wf_id):
            b = start[row]
            if not ran[row] or b >= t1 or end[row] <= t0:
                continue
            wf = ww.workflows[ww.submits[ex.job_wf[ids[row] - ex.first_wf_id]][1]]
            inside = wf.within(wf.max_cores)
            used = sum(
                t.cores * max(0.0, min(b + inside.end[t.id], t1) - max(b + inside.start[t.id], t0))
                for t in wf.tasks
            )
            idle += procs[row] * _overlap(start[row : row + 1], end[row : row + 1], t0, t1)[0]
            idle -= used
    return {
        "utilization": alloc / cap,
        "actual_utilization": (alloc - idle) / cap,
        "waste_core_h": idle / 3600.0,
    }


def regular_slowdowns(run) -> pd.DataFrame:
    """Regular jobs submitted inside the analysis window (no pre-fill): requested core-hours,
    size group, slowdown."""
    ww, ex, jobs = run.workload, run.expanded, run.result.jobs
    ids = jobs["job_id"].to_numpy()
    n_fill = int(ww.filler.sum())
    t0, t1 = ww.window
    sub = jobs["submit"].to_numpy()
    end = jobs["end"].to_numpy()
    # jobs that ended inside the simulated period (the paper reads them from Slurm's logs)
    keep = (ids < ex.first_wf_id) & (ids > n_fill) & (sub >= t0) & (sub < t1) & (end <= t1)
    j = jobs[keep]
    req_ch = j["procs"].to_numpy() * j["requested_time"].to_numpy() / 3600.0
    run_t = (j["end"] - j["start"]).to_numpy()
    slow = (j["end"] - j["submit"]).to_numpy() / np.where(run_t > 0, run_t, np.nan)
    group = np.empty(len(j), dtype=object)
    for name, lo, hi in SIZE_GROUPS:
        group[(req_ch >= lo) & (req_ch < hi)] = name
    return pd.DataFrame(
        {"job_id": j["job_id"].to_numpy(), "req_core_h": req_ch, "group": group, "slowdown": slow}
    )


def completed_in_all(tables: dict[str, pd.DataFrame]) -> np.ndarray:
    """The workflows (by submission) completed inside the window in every mode: comparisons
    across modes use these only (the paper's Section 4.3.2: the first workflows completed in
    all three versions)."""
    masks = [t["completed"].to_numpy(bool) for t in tables.values()]
    if not masks:
        return np.zeros(0, bool)
    return np.logical_and.reduce(masks)


#: the rows of a side-by-side summary of the modes: label (with its unit), summary key,
#: scale, decimals (:func:`coschedlab.tables.number`)
SUMMARY_ROWS: tuple[tuple[str, str, float, int], ...] = (
    ("median wait (h)", "median_wait", 1 / 3600, 2),
    ("median runtime (h)", "median_runtime", 1 / 3600, 2),
    ("median turnaround (h)", "median_turnaround", 1 / 3600, 2),
    ("median gaps (h)", "median_gaps", 1 / 3600, 2),
    ("median stretch", "median_stretch", 1, 2),
    ("utilization (%)", "utilization", 100, 1),
    ("actual utilization (%)", "actual_utilization", 100, 1),
    ("pilot waste (core-h)", "waste_core_h", 1, 0),
    ("slowdown small jobs", "median_slowdown_small", 1, 1),
    ("slowdown medium jobs", "median_slowdown_medium", 1, 1),
    ("slowdown large jobs", "median_slowdown_large", 1, 1),
    ("simulation (s)", "wall_time_s", 1, 1),
)


def summary_cells(summaries: dict[str, dict]) -> list[list[str]]:
    """The modes' summaries side by side as text rows (:data:`SUMMARY_ROWS`, in the number
    format of :func:`coschedlab.tables.number`): what ``coschedlab workflows simulate``
    prints and the dashboard shows."""
    from ..tables import number

    return [
        [label, *(number(s.get(key), decimals, scale) for s in summaries.values())]
        for label, key, scale, decimals in SUMMARY_ROWS
    ]
