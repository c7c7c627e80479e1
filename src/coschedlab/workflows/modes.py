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

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..jobs import Workload
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
    inherit: dict[int, tuple[float, int, float]]


def expand(ww: WorkflowWorkload, mode: str) -> Expanded:
    """The jobs of ``ww`` with its workflows submitted as ``mode`` (see the module docstring)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    reg = ww.regular.columns
    n_reg = len(ww.regular)
    first = int(reg["id"].max()) + 1 if n_reg else 1
    sub, run, req, procs, ids = [], [], [], [], []
    job_wf: list[int] = []
    job_task: list[str] = []
    deps: dict[int, tuple[int, ...]] = {}
    inherit: dict[int, tuple[float, int, float]] = {}
    nid = first
    for w, (t, k) in enumerate(ww.submits):
        wf = ww.workflows[k]
        if mode == "pilot":
            ids.append(nid)
            sub.append(t)
            run.append(wf.pilot_runtime)
            req.append(max(wf.critical_path_limit, wf.pilot_runtime))
            procs.append(wf.max_cores)
            job_wf.append(w)
            job_task.append("")
            nid += 1
            continue
        task_id = {}
        for task in wf.tasks:
            task_id[task.id] = nid
            nid += 1
        for task in wf.tasks:
            j = task_id[task.id]
            ids.append(j)
            sub.append(t)
            run.append(task.runtime)
            req.append(task.limit)
            procs.append(task.cores)
            job_wf.append(w)
            job_task.append(task.id)
            if task.deps:
                deps[j] = tuple(task_id[d] for d in task.deps)
            if mode == "woas":
                inherit[j] = (t, wf.max_cores, wf.critical_path_limit)
    cols = {
        "id": np.concatenate([reg["id"], np.asarray(ids, np.int64)]),
        "submit": np.concatenate([reg["submit"], np.asarray(sub, np.float64)]),
        "run": np.concatenate([reg["run"], np.asarray(run, np.float64)]),
        "requested_time": np.concatenate([reg["requested_time"], np.asarray(req, np.float64)]),
        "procs": np.concatenate([reg["procs"], np.asarray(procs, np.int64)]),
    }
    wl = Workload(cols, deps=deps, source=f"{ww.regular.source} as {mode}")
    return Expanded(wl, mode, first, np.asarray(job_wf, np.int64), job_task, inherit)
