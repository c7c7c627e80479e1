"""The WoAS paper's metrics (Rodrigo et al., HPDC'17, Section 4.3; REFERENCE.md section 4).

Only the workflows submitted inside the analysis window [t0, t1) count: the 1-day warm-up
before it is simulated, not analysed, for workflows as for regular jobs. The per-workflow
table still lists every workflow (column ``in_window``) but every summary uses window ones.
A workflow or job counts once it has ended by the run's stop (``run.stop``): the window's end
plus the drain (:data:`.simulate.DRAIN`, 6 h, in which nothing is submitted), as the authors'
ScSF analysed the workflows submitted in the window that completed in its simulation.

Per workflow (submit s, first task start b, last task end e, critical path c):
wait = b - s, runtime = e - b (the critical path with the gaps between its tasks),
turnaround = e - s = wait + runtime, stretch = turnaround / c, gaps = runtime - c (the
accumulated intermediate waits; 0 for a pilot job).

System, over the analysis window [t0, t1), in allocated cores: a job holds whole nodes
(Edison's whole-node allocation: ceil(procs / cores per node) nodes x cores per node), as the
authors' ScSF counts Slurm's allocated CPUs (``cpus_alloc``; its
``ResultTrace.calculate_utilization``). utilization = allocated core-seconds inside the window
/ (machine cores x (t1 - t0)); **actual utilization** (the paper's Section 4.3.1) = (allocated
core-seconds - idle core-seconds inside pilot jobs) / the same capacity. A pilot's idle part
at an instant is its allocation minus the node-cores its running tasks would hold as jobs of
their own (capped at the allocation), so a task's work counts the same in every mode and
WoAS's gain over pilot jobs is the pilots' idle nodes; waste = the pilots' idle core-seconds
(0 in chained and WoAS modes). ``requested_core_utilization``: the same with every job at
its requested processors (a pilot: its tasks' own cores), what this module reported before
whole-node allocation (issue 28).

Regular jobs submitted in the window and ended by the run's stop (pre-fill excluded): slowdown =
(end - submit) / (end - start), the unbounded slowdown of :mod:`coschedlab.metrics` (NaN for a
run of 0 s), grouped by requested core-hours [0, 48), [48, 960), >= 960, medians compared.

The utilization here differs from :func:`coschedlab.metrics.summary`'s on purpose: the paper's
counts allocated whole nodes inside the analysis window (ScSF's ``cpus_alloc``), the core's
each job's processors (or assigned cores) from the first submit to the last end; only this
one has an actual utilization (pilot jobs' idle cores taken out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..metrics import job_columns, percentiles

if TYPE_CHECKING:  # pragma: no cover (pandas is imported when a table is asked for)
    import pandas as pd

__all__ = [
    "SIZE_GROUPS",
    "SUMMARY_ROWS",
    "completed_in_all",
    "compared_title",
    "counted",
    "in_window",
    "held_cores",
    "pilot_steps",
    "median",
    "size_groups",
    "slowdown_columns",
    "summary_cells",
    "system_metrics",
    "workflow_columns",
]

#: requested core-hour groups of regular jobs (the paper's Section 4.3.1)
SIZE_GROUPS = (("small", 0.0, 48.0), ("medium", 48.0, 960.0), ("large", 960.0, np.inf))


def _overlap(a: np.ndarray, b: np.ndarray, t0: float, t1: float) -> np.ndarray:
    return np.clip(np.minimum(b, t1) - np.maximum(a, t0), 0.0, None)


def held_cores(cluster, procs):
    """The cores jobs of ``procs`` processors hold on ``cluster`` (a :class:`Cluster`) under
    whole-node allocation: ceil(procs / cores per node) x cores per node."""
    return cluster.nodes_for(procs) * cluster.cores_per_node


def pilot_steps(wf, cluster) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tasks' use of a pilot job of ``wf`` (:meth:`.model.Workflow.within` its max cores)
    as steps from the pilot's start: edges ``(k + 1,)``, then per step the node-cores the
    running tasks would hold as jobs of their own (capped at the pilot's node-cores) and the
    tasks' own cores."""
    inside = wf.within(wf.max_cores)
    events: dict[float, list[int]] = {}
    for t in wf.tasks:
        if t.runtime <= 0:
            continue
        nc = held_cores(cluster, t.cores)
        for when, sign in ((inside.start[t.id], 1), (inside.end[t.id], -1)):
            d = events.setdefault(float(when), [0, 0])
            d[0] += sign * nc
            d[1] += sign * t.cores
    edges = np.array(sorted(events), dtype=np.float64)
    if len(edges) < 2:
        return np.zeros(1), np.zeros(0), np.zeros(0)
    steps = np.array([events[e] for e in edges[:-1]], dtype=np.float64).cumsum(axis=0)
    cap = float(held_cores(cluster, wf.max_cores))
    return edges, np.minimum(steps[:, 0], cap), steps[:, 1]


def in_window(run) -> np.ndarray:
    """Per submitted workflow: submitted inside the analysis window [t0, t1) (not during the
    warm-up); only these count in the workflow metrics."""
    t0, t1 = run.workload.window
    s = np.array([t for t, _ in run.workload.submits], dtype=np.float64)
    return (s >= t0) & (s < t1)


def workflow_columns(run) -> dict[str, Any]:
    """One row per submitted workflow of a :class:`.simulate.WorkflowRun`, the warm-up's too,
    as columns (arrays; lists for names and task counts; ``WorkflowRun.workflows`` is their
    DataFrame): name, submit, start, end, wait, runtime, turnaround, stretch, gaps, tasks,
    critical path, waste (core-s of whole nodes, pilot jobs only), completed (ended by the
    run's stop: the window's end plus the drain), in_window (submitted inside the window: the
    only ones the summaries count)."""
    ww, ex, jobs = run.workload, run.expanded, _columns(run)
    ids = jobs["job_id"]
    first = ex.first_wf_id
    sel = ids >= first
    k = ids[sel] - first
    w_of = ex.job_wf[k]
    start = jobs["start"][sel]
    end = jobs["end"][sel]
    n = ww.n_workflows
    stop = run.stop
    b = np.full(n, np.inf)
    e = np.full(n, -np.inf)
    np.fmin.at(b, w_of, start)  # fmin/fmax skip the NaN of jobs a stopped run never started
    np.fmax.at(e, w_of, end)
    n_jobs = np.bincount(w_of, minlength=n)
    n_done = np.bincount(w_of, weights=(end <= stop).astype(float), minlength=n)
    done = n_done == n_jobs
    b[~np.isfinite(b)] = np.nan
    e[~done] = np.nan
    s = np.array([t for t, _ in ww.submits], dtype=np.float64)
    wfs = [ww.workflows[i] for _, i in ww.submits]
    cp = np.array([wf.critical_path for wf in wfs])
    waste = np.zeros(n)
    if ex.mode == "pilot":
        used = {}
        for i in dict.fromkeys(i for _, i in ww.submits):
            edges, level, _ = pilot_steps(ww.workflows[i], ww.cluster)
            used[i] = float((level * np.diff(edges)).sum())
        width = np.array([wf.max_cores for wf in wfs], dtype=np.int64)
        held = held_cores(ww.cluster, width).astype(float)
        waste = held * (e - b) - np.array([used[i] for _, i in ww.submits])
        waste[~done] = np.nan
    return {
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
        "in_window": in_window(run),
    }


def system_metrics(run) -> dict[str, float]:
    """Utilization, actual utilization, pilot waste (allocated whole nodes) and the actual
    utilization in requested cores, over the analysis window (see the module docstring)."""
    ww, ex, jobs = run.workload, run.expanded, _columns(run)
    t0, t1 = ww.window
    cap = ww.cluster.total_cores * (t1 - t0)
    start = jobs["start"]
    end = jobs["end"]
    procs = jobs["procs"]
    held = held_cores(ww.cluster, procs).astype(np.float64)
    ran = np.isfinite(start)  # a run stopped at a time never started some jobs
    span = np.where(ran, _overlap(start, end, t0, t1), 0.0)
    alloc = float((held * span).sum())
    requested = float((procs * span).sum())
    idle = idle_requested = 0.0
    if ex.mode == "pilot":
        ids = jobs["job_id"]
        rows = np.flatnonzero((ids >= ex.first_wf_id) & (span > 0))
        ks = np.array([k for _, k in ww.submits], np.int64)[ex.job_wf[ids[rows] - ex.first_wf_id]]
        used = np.zeros(len(rows))  # per pilot job: node-cores and cores its tasks use
        used_own = np.zeros(len(rows))
        # the pilot jobs of each workflow, at once (workflow indices, ascending; np.unique
        # would load numpy.ma)
        for k in np.flatnonzero(np.bincount(ks)).tolist():
            edges, level, own = pilot_steps(ww.workflows[k], ww.cluster)
            mine = np.flatnonzero(ks == k)
            r = rows[mine]
            at = np.minimum(start[r, None] + edges[None, :], end[r, None])
            seg = _overlap(at[:, :-1], at[:, 1:], t0, t1)
            used[mine] = (level * seg).sum(axis=1)
            used_own[mine] = (own * seg).sum(axis=1)
        # summed job by job, as they come (the same float sums)
        for i, row in enumerate(rows.tolist()):
            idle += held[row] * span[row] - float(used[i])
            idle_requested += procs[row] * span[row] - float(used_own[i])
    return {
        "utilization": alloc / cap,
        "actual_utilization": (alloc - idle) / cap,
        "waste_core_h": idle / 3600.0,
        "requested_core_utilization": (requested - idle_requested) / cap,
    }


def slowdown_columns(run) -> dict[str, np.ndarray]:
    """Regular jobs submitted inside the analysis window (no pre-fill), as columns
    (``WorkflowRun.slowdowns`` is their DataFrame): requested core-hours, size group,
    slowdown."""
    ww, ex, jobs = run.workload, run.expanded, _columns(run)
    ids = jobs["job_id"]
    n_fill = int(ww.filler.sum())
    t0, t1 = ww.window
    sub = jobs["submit"]
    end = jobs["end"]
    # jobs that ended inside the simulated period (the paper reads them from Slurm's logs)
    keep = (ids < ex.first_wf_id) & (ids > n_fill) & (sub >= t0) & (sub < t1) & (end <= run.stop)
    req_ch = jobs["procs"][keep] * jobs["requested_time"][keep] / 3600.0
    table = run.result.table
    if "slowdown" in table:  # the result's own column (the same job_columns, made once)
        slow = np.asarray(table["slowdown"], dtype=np.float64)[keep]
    else:
        times = (jobs[c][keep].astype(np.float64) for c in ("submit", "start", "end"))
        slow = job_columns(*times)["slowdown"]  # the core's: NaN for a run of 0 s
    group = np.empty(len(req_ch), dtype=object)
    for name, mask in size_groups(req_ch):
        group[mask] = name
    return {"job_id": ids[keep], "req_core_h": req_ch, "group": group, "slowdown": slow}


def size_groups(req_core_h: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Each size group of :data:`SIZE_GROUPS` and the mask of the jobs in it, from their
    requested core-hours (what a summary selects by, rather than comparing the group names
    of an object column job by job)."""
    return [(name, (req_core_h >= lo) & (req_core_h < hi)) for name, lo, hi in SIZE_GROUPS]


def median(values: np.ndarray) -> float:
    """The median of the values that are not NaN (NaN when none): pandas' ``Series.median``,
    which computes it the same way, without a Series."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    # np.median's value without its import of numpy.ma (~10 ms at a process's first median)
    return percentiles(values, ())[0] if len(values) else float("nan")


def _columns(run) -> dict[str, np.ndarray]:
    """The run's per-job columns the metrics read, as NumPy arrays (the result's own arrays
    while its pandas table has not been made: no table, no string columns, for a summary)."""
    table = run.result.table
    names = ("job_id", "submit", "start", "end", "procs", "requested_time")
    return {c: np.asarray(table[c]) for c in names}


def counted(table: Any) -> np.ndarray:
    """The workflows of a :func:`workflow_columns` (or its stored columns, lists by name) that
    count in one mode's metrics: submitted inside the analysis window (not during the
    warm-up) and completed by the run's stop."""
    return np.asarray(table["completed"], bool) & np.asarray(table["in_window"], bool)


def completed_in_all(tables: dict[str, pd.DataFrame]) -> np.ndarray:
    """The workflows (by submission) submitted inside the analysis window and completed by the
    run's stop in every mode: comparisons across modes use these only (the paper's Section
    4.3.2: the first workflows completed in all three versions; warm-up workflows never
    count)."""
    masks = [counted(t) for t in tables.values()]
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
    ("actual, requested cores (%)", "requested_core_utilization", 100, 1),
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


def compared_title(summaries: dict[str, dict]) -> tuple[str, str | None]:
    """What a side-by-side summary compares, as a title and a note (or None): the workflows
    submitted in the analysis window, how many completed in every mode, and the warm-up's,
    left out (``summaries``: by mode, of :func:`.simulate.simulate_modes`): what ``coschedlab
    workflows simulate`` and the dashboard print over :func:`summary_cells`."""
    from ..tables import count

    summary = next(iter(summaries.values()))  # the counts are every mode's
    head = (f"{count(summary['workflows_submitted'], 'workflow')} in the window, "
            f"{summary['workflows_compared']:,} completed in every mode (compared)")  # fmt: skip
    warm = summary.get("workflows_warmup", 0)
    note = f"not counted: {count(warm, 'workflow')} submitted in the warm-up" if warm else None
    return head, note
