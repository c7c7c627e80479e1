"""Simulate a workload with workflows in one submission mode, on the core engine, under a
Slurm-like scheduler (:class:`coschedlab.schedulers.Slurm`), and summarise it.

The engine enforces the task dependencies (chained and WoAS task jobs wait for their parents);
the scheduler gets the WoAS priority inheritance table; the run's schedule is checked by the
validator (:meth:`WorkflowRun.validate`, dependencies and run times included: the command and
the sweep call it) and pilots never exceed their allocation by construction
(:meth:`.model.Workflow.within`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.kernel import Simulation
from ..engine.result import Result
from ..engine.watchdog import check_limit, pass_time_limit
from ..errors import InputError
from ..schedulers import Scheduler, Slurm, get_scheduler
from .metrics import (
    completed_in_all,
    counted,
    median,
    size_groups,
    slowdown_columns,
    system_metrics,
    workflow_columns,
)
from .modes import MODES, Expanded, expand
from .workload import WorkflowWorkload

if TYPE_CHECKING:  # pragma: no cover (pandas is imported when a table is asked for)
    import pandas as pd

__all__ = [
    "DEFAULT_SCHEDULER",
    "DRAIN",
    "WorkflowRun",
    "check_woas",
    "simulate_mode",
    "simulate_modes",
]

#: the WoAS experiments' Slurm: multifactor priority, backfill every 30 s over 50 jobs
DEFAULT_SCHEDULER = "slurm"
#: seconds the simulation runs past the analysis window (nothing is submitted then) so the
#: window's last workflows and jobs can end: the authors' ScSF ran its simulator to the
#: workload's end plus ``ExperimentRunner``'s ``drain_time``, 6 h
DRAIN = 6 * 3600.0


@dataclass
class WorkflowRun:
    """One simulated mode: the workload, its expansion, the engine's :class:`Result`."""

    workload: WorkflowWorkload
    expanded: Expanded
    result: Result
    events: dict[str, Any] = field(default_factory=dict)
    #: when the simulation stopped (the window's end plus the drain; inf: when all ended)
    stop: float = math.inf

    @property
    def mode(self) -> str:
        return self.expanded.mode

    def validate(self) -> list[str]:
        """The run's violations of the schedule invariants, run times included
        (:meth:`Result.validate`; empty when every invariant holds). The command and the
        sweep call it, as ``simulate``'s do: :func:`simulate_mode` alone does not validate."""
        return self.result.validate()

    @cached_property
    def workflows(self) -> pd.DataFrame:
        """One row per workflow (:func:`.metrics.workflow_columns`)."""
        import pandas as pd

        return pd.DataFrame(self._workflow_columns)

    @cached_property
    def slowdowns(self) -> pd.DataFrame:
        """Regular jobs of the analysis window (:func:`.metrics.slowdown_columns`)."""
        import pandas as pd

        return pd.DataFrame(self._slowdown_columns)

    @cached_property
    def _workflow_columns(self) -> dict[str, Any]:
        return workflow_columns(self)

    @cached_property
    def _slowdown_columns(self) -> dict[str, np.ndarray]:
        return slowdown_columns(self)

    def summary(self, only: np.ndarray | None = None) -> dict[str, Any]:
        """Medians of the workflow metrics (over ``only``: a mask of workflows, default those
        submitted in the analysis window and completed by the run's stop; warm-up workflows never
        count), the system metrics and the regular jobs' median slowdowns. Workflow counts
        are of window workflows; ``workflows_warmup``: those submitted before it."""
        wf = self._workflow_columns  # arrays: no DataFrame for a summary
        inside = np.asarray(wf["in_window"], bool)
        mask = counted(wf) if only is None else np.asarray(only, bool) & inside
        out: dict[str, Any] = {
            "mode": self.mode,
            "workflows_submitted": int(inside.sum()),
            "workflows_warmup": int((wf["submit"] < self.workload.window[0]).sum()),
            "workflows_completed": int(counted(wf).sum()),
            "workflows_compared": int(mask.sum()),
        }
        for col in ("wait", "runtime", "turnaround", "stretch", "gaps"):
            out[f"median_{col}"] = median(wf[col][mask])
        out.update(system_metrics(self))
        sd = self._slowdown_columns
        for name, mask in size_groups(sd["req_core_h"]):
            g = sd["slowdown"][mask]
            out[f"median_slowdown_{name}"] = median(g)
            out[f"jobs_{name}"] = int(len(g))
        out.update({k: v for k, v in self.events.items() if isinstance(v, int | float | str)})
        return out


def check_woas(scheduler: str | Scheduler) -> None:
    """WoAS is a priority mechanism: its task jobs take the priority of their workflow job,
    which only :class:`Slurm` with multifactor priority (a non-zero age or size weight)
    reads. Under another scheduler, or slurm with priority=fifo, a "woas" run would be the
    chained one under another name: refused in one line."""
    sched = get_scheduler(scheduler)
    if not isinstance(sched, Slurm):
        raise InputError(
            f"mode woas needs the slurm scheduler, not {sched.describe()}: WoAS gives a "
            "workflow's task jobs its workflow job's priority, which only slurm's multifactor "
            "priority reads (under another scheduler woas would run as chained)"
        )
    if sched.priority != "multifactor" or not (
        sched.priority_weight_age or sched.priority_weight_job_size
    ):
        raise InputError(
            f"mode woas needs slurm's multifactor priority with an age or job-size weight, "
            f"not {sched.describe()}: WoAS gives a workflow's task jobs its workflow job's "
            "priority factors, which this configuration never reads (woas would run as chained)"
        )


def simulate_mode(
    ww: WorkflowWorkload,
    mode: str,
    scheduler: str | Scheduler = DEFAULT_SCHEDULER,
    progress: Callable[[int, int], None] | None = None,
    drain: float | None = DRAIN,
    pass_timeout: float | None = None,
    wake_limit: int | None = None,
) -> WorkflowRun:
    """Simulate ``ww`` with its workflows submitted as ``mode`` (chained, pilot or woas).
    ``scheduler`` is any core scheduler spec; mode woas needs a :class:`Slurm`, which gets
    the WoAS priority inheritance (:func:`check_woas`). The run stops ``drain`` seconds after
    the end of the analysis window (:data:`DRAIN`, ScSF's 6 h; None: when every job has
    ended): what has not ended by then is not counted. ``pass_timeout`` (s): a scheduling
    pass that takes longer stops the run with an :class:`InputError` (as ``simulate
    --pass-timeout``), as do more than ``wake_limit`` passes of a livelock (``simulate
    --wake-limit``)."""
    check_limit(pass_timeout)
    if drain is not None and not (isinstance(drain, int | float) and 0 <= drain < math.inf):
        raise InputError(f"drain must be a time >= 0 in seconds, got {drain!r}")
    ex = expand(ww, mode)  # (an unknown mode refused)
    sched = get_scheduler(scheduler)
    if mode == "woas":
        check_woas(sched)
        params = {k: getattr(sched, k) for k in sched.params()}
        sched = Slurm(**params, inherit=ex.inherit)
    until = None if drain is None else ww.window[1] + float(drain)
    sim = Simulation(
        ex.workload, ww.cluster, sched, progress=progress, until=until, wake_limit=wake_limit
    )
    with pass_time_limit(sched, pass_timeout, sched.describe):
        sim.run()
    result = Result.from_simulation(sim)
    events = {
        "jobs": sim.n,
        "jobs_started": int(np.isfinite(np.asarray(result.table["start"], dtype=float)).sum()),
        "passes": sim.passes,
        "wall_time_s": sim.wall_time,
        "scheduler": sched.describe(),
    }
    if isinstance(sched, Slurm):
        events["backfill_passes"] = sched.backfill_passes
    return WorkflowRun(ww, ex, result, events, math.inf if until is None else until)


def simulate_modes(
    ww: WorkflowWorkload,
    modes: tuple[str, ...] = MODES,
    scheduler: str | Scheduler = DEFAULT_SCHEDULER,
    progress: Any = None,
    pass_timeout: float | None = None,
    wake_limit: int | None = None,
) -> tuple[dict[str, WorkflowRun], dict[str, dict[str, Any]]]:
    """Each of ``modes`` simulated (:func:`simulate_mode`, each pass within ``pass_timeout``
    s, no more than ``wake_limit`` passes of a livelock; ``progress.phase(mode, None)`` as
    each starts, if it has one) and summarised over the workflows completed in every mode
    (:func:`.metrics.completed_in_all`): the runs and their summaries, by mode."""
    runs = {}
    for m in modes:
        if hasattr(progress, "phase"):
            progress.phase(m, None)
        runs[m] = simulate_mode(
            ww, m, scheduler, progress=progress, pass_timeout=pass_timeout, wake_limit=wake_limit
        )
    mask = completed_in_all({m: r.workflows for m, r in runs.items()})
    return runs, {m: r.summary(mask) for m, r in runs.items()}
