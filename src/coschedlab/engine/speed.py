"""Speed models: how fast a started job runs (the engine's only hook into job durations).

The kernel asks the speed model for a job's end time when it starts and, after every start and
end, for the running jobs whose end time changed. The identity model (the batch core) runs every
job at its trace speed; the co-location capability plugs in a model where a job's speed depends
on its neighbours (the ELiSE paper, Section 3.5), without touching the kernel.
"""

from __future__ import annotations

from typing import Any


class SpeedModel:
    """Identity speed model: a job started at ``now`` ends at ``now + duration``.

    Subclasses override :meth:`on_start`/:meth:`on_end` and return the running jobs whose end
    changed, as ``{job_index: new_end}``; the kernel reschedules their completions.
    ``dynamic = False`` lets the kernel skip the calls entirely.
    """

    dynamic = False

    def bind(self, sim: Any) -> None:
        """Called once before the run with the kernel's :class:`~.kernel.Simulation` (speed
        models, unlike policies, see actual run times: ``sim.duration``, ``sim.run_time``)."""
        self.sim = sim

    def end_time(self, j: int, now: float) -> float:
        """End time of job ``j`` started at ``now`` (trace duration, cut at walltime if asked)."""
        return now + self.sim.duration[j]

    def on_start(self, j: int, now: float) -> dict[int, float]:
        """Job ``j`` started; return changed end times of other running jobs."""
        return {}

    def on_end(self, j: int, now: float) -> dict[int, float]:
        """Job ``j`` ended; return changed end times of other running jobs."""
        return {}

    def result_columns(self) -> dict:
        """Extra per-job columns for the result table (in queue order)."""
        return {}

    def speed_range(self) -> tuple[Any, Any] | None:
        """``(slowest, fastest)``: the least and greatest speedup each job (queue order) may
        have run at, from the model's inputs alone (the validator bounds each run time with
        them); None: every job ran at its trace speed (speedup 1)."""
        return None
