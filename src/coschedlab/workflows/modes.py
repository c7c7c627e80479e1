"""The three ways to submit a workflow (Rodrigo et al., HPDC'17, Sections 2.1 and 3):

* ``chained``: one job per task, all submitted with the workflow, each held until its parents
  end (Slurm's ``afterok``); its priority age counts from then (eligibility), its size is its
  own;
* ``pilot``: one job of the workflow's max cores for its critical path (time limits); the
  tasks run inside it (:meth:`.model.Workflow.within`), the rest of its cores idle;
* ``woas``: the chained task jobs, but every task takes its priority factors from the
  workflow job, a pilot-shaped job submitted with the workflow (Algorithm 1: same submit
  time for the age, same geometry for the size factor); while no task has started, the
  priority view holds that one job, and its tasks get exactly its priority.

:func:`expand` turns a :class:`.workload.WorkflowWorkload` into the jobs of one mode: the
regular jobs first (the same ids in every mode), then the workflow jobs, and the table that
ties each job to its workflow and task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..jobs import Dependencies, Workload
from ..schedulers.slurm import Inheritance
from .model import Workflow
from .workload import WorkflowWorkload

__all__ = ["MODES", "Expanded", "expand"]

MODES = ("chained", "pilot", "woas")


@dataclass
class Expanded:
    """The jobs of one mode. ``job_wf[k]`` / ``job_task[k]``: the workflow submission (index
    into ``ww.submits``) and task id of job id ``first_wf_id + k`` (pilot jobs: task ``""``).
    ``inherit``: WoAS priority factors per job id ``(age origin, cpus, limit)``."""

    workload: Workload
    mode: str
    first_wf_id: int
    job_wf: np.ndarray
    job_task: list[str]
    inherit: Mapping[int, tuple[float, int, float]]


def expand(ww: WorkflowWorkload, mode: str) -> Expanded:
    """The jobs of ``ww`` with its workflows submitted as ``mode`` (see the module docstring)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    reg = ww.regular.columns
    n_reg = len(ww.regular)
    first = int(reg["id"].max()) + 1 if n_reg else 1
    m = len(ww.submits)
    ts = np.fromiter((t for t, _ in ww.submits), np.float64, m)
    ks = np.fromiter((k for _, k in ww.submits), np.int64, m)
    wfs = ww.workflows
    deps: Mapping[int, tuple[int, ...]] = {}
    inherit: Mapping[int, tuple[float, int, float]] = {}
    if mode == "pilot":  # one job per workflow
        pilot_run = np.array([wf.pilot_runtime for wf in wfs], np.float64)
        pilot_req = np.array(
            [max(wf.critical_path_limit, wf.pilot_runtime) for wf in wfs], np.float64
        )
        width = np.array([wf.max_cores for wf in wfs], np.int64)
        ids = first + np.arange(m, dtype=np.int64)
        sub, run, req, procs = ts, pilot_run[ks], pilot_req[ks], width[ks]
        job_wf = np.arange(m, dtype=np.int64)
        job_task = [""] * m
    else:  # one job per task, numbered in task order from the workflow's first
        tpl = [_Template(wf) for wf in wfs]
        sizes = np.array([len(wf.tasks) for wf in wfs], np.int64)[ks]
        base = first + np.concatenate([[0], np.cumsum(sizes)])[:-1].astype(np.int64)
        total = int(sizes.sum())
        ids = first + np.arange(total, dtype=np.int64)
        sub = np.repeat(ts, sizes)
        job_wf = np.repeat(np.arange(m, dtype=np.int64), sizes)
        # every distinct workflow's tasks in one table; each job's row in it
        toff = np.concatenate([[0], np.cumsum([len(t.ids) for t in tpl])]).astype(np.int64)
        row = np.arange(total, dtype=np.int64) + np.repeat(toff[ks] - (base - first), sizes)
        run = np.concatenate([np.zeros(0), *(t.runtime for t in tpl)])[row]
        req = np.concatenate([np.zeros(0), *(t.limit for t in tpl)])[row]
        procs = np.concatenate([np.zeros(0, np.int64), *(t.cores for t in tpl)])[row]
        names = np.array([tid for t in tpl for tid in t.ids] or [""], dtype=object)
        job_task = names[row].tolist()
        deps = _dependencies(tpl, ks, base)
        if mode == "woas":
            width = np.array([wf.max_cores for wf in wfs], np.int64)[ks]
            cpl = np.array([wf.critical_path_limit for wf in wfs], np.float64)[ks]
            inherit = Inheritance(ids, sub, np.repeat(width, sizes), np.repeat(cpl, sizes))
    cols = {
        "id": np.concatenate([reg["id"], ids]),
        "submit": np.concatenate([reg["submit"], np.asarray(sub, np.float64)]),
        "run": np.concatenate([reg["run"], np.asarray(run, np.float64)]),
        "requested_time": np.concatenate([reg["requested_time"], np.asarray(req, np.float64)]),
        "procs": np.concatenate([reg["procs"], np.asarray(procs, np.int64)]),
    }
    wl = Workload(cols, deps=deps, source=f"{ww.regular.source} as {mode}")
    return Expanded(wl, mode, first, job_wf, job_task, inherit)


def _dependencies(tpl: list[_Template], ks: np.ndarray, base: np.ndarray) -> Dependencies:
    """The task jobs' dependencies, submission by submission (``ks``: each one's workflow,
    ``base``: its first job id), each in its workflow's task order, as arrays: every
    workflow's dependent tasks and their parents in one table, gathered per submission."""

    def gather(off: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Row numbers of each submission's block (``off[k]``, ``sizes[k]`` rows)."""
        total = int(sizes.sum())
        start = np.repeat(np.cumsum(sizes) - sizes, sizes)
        return np.arange(total, dtype=np.int64) - start + np.repeat(off, sizes)

    nc = np.array([len(t.child) for t in tpl], np.int64)
    npar = np.array([len(t.parents) for t in tpl], np.int64)
    child = np.concatenate([np.zeros(0, np.int64), *(t.child for t in tpl)])
    lens = np.concatenate([np.zeros(0, np.int64), *(t.lens for t in tpl)])
    parents = np.concatenate([np.zeros(0, np.int64), *(t.parents for t in tpl)])
    coff = np.concatenate([[0], np.cumsum(nc)[:-1]]).astype(np.int64)
    poff = np.concatenate([[0], np.cumsum(npar)[:-1]]).astype(np.int64)
    rows = gather(coff[ks], nc[ks])
    prow = gather(poff[ks], npar[ks])
    ptr = np.concatenate([[0], np.cumsum(lens[rows])]).astype(np.int64)
    return Dependencies(
        child[rows] + np.repeat(base, nc[ks]), ptr, parents[prow] + np.repeat(base, npar[ks])
    )


class _Template:
    """A workflow's task jobs as arrays (in task order), and its dependencies as places in
    that order (CSR: the dependent tasks, how many parents each, the parents): the jobs of
    each of its submissions."""

    __slots__ = ("child", "cores", "ids", "lens", "limit", "parents", "runtime")

    def __init__(self, wf: Workflow) -> None:
        tasks = wf.tasks
        place = {t.id: k for k, t in enumerate(tasks)}
        self.ids = [t.id for t in tasks]
        self.runtime = np.array([t.runtime for t in tasks], np.float64)
        self.limit = np.array([t.limit for t in tasks], np.float64)
        self.cores = np.array([t.cores for t in tasks], np.int64)
        dependent = [(k, t) for k, t in enumerate(tasks) if t.deps]
        self.child = np.array([k for k, _ in dependent], np.int64)
        self.lens = np.array([len(t.deps) for _, t in dependent], np.int64)
        self.parents = np.array([place[d] for _, t in dependent for d in t.deps], np.int64)
