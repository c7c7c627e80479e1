"""ELiSE's clock, for ``--compat clock``: time advanced as ELiSE's ``ComputeEngine`` does.

coschedlab's kernel computes each job's end once, from its start and speed (``end = t +
work / speed``), so jobs whose ends coincide end at the same instant, in one pass. ELiSE keeps
each running job's *remaining time* and, at every step, subtracts the step from all of them
(``goto_next_sim_state``): the step is the smallest remaining time (or the next arrival), a
job ends when its remaining time is exactly 0, and the clock is the running sum of the steps.
Rounding makes ends that coincide differ by a few units in the last place: ELiSE then ends one
job, runs a pass, and ends the other a step of 1e-12 s later, after another pass. Such a pass
can start a job on nodes that are still busy in coschedlab's instant (and the reverse): the
schedules part there. :class:`EliseClockSimulation` is the kernel with ELiSE's clock:

1. load the jobs submitted by now; one scheduling pass (the same policies and accounting);
2. every running job's speedup (compact: unchanged; spread: the worst of its neighbours'
   heatmap speedups, from its spread-alone speedup), remaining *= old / new where it changed;
3. step = smallest remaining time, or the next submit time minus now if smaller and > 0, or
   the next wake-up the policy asked for (``view.wake_at``: Slurm's ticks; ELiSE's own
   schedulers ask for none) if sooner; now += step; every remaining time -= step; a job whose
   start + requested time <= now is aborted (ELiSE's late kill), unless the step was to a
   wake-up alone (ELiSE has no timers: a late kill comes at a submission or an end, as the
   kernel's ``kill_at_walltime="next-event"``); jobs at 0 (or aborted) end now.

It is ELiSE's arithmetic, kept for exact reproduction: every step costs a pass over the
running jobs (ELiSE's cost), where the kernel pays for the jobs that change.
"""

from __future__ import annotations

import math

from ...engine.kernel import SchedulerError, Simulation

__all__ = ["EliseClockSimulation"]

INF = math.inf


class EliseClockSimulation(Simulation):
    """A :class:`~coschedlab.engine.kernel.Simulation` on ELiSE's clock (module doc); the
    speed model must be a :class:`~coschedlab.coloc.speed.ColocationSpeed`. Jobs are killed
    at the first step at or after their requested time, as ELiSE does."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["kill_at_walltime"] = "next-event"
        super().__init__(*args, **kwargs)

    def _loop(self, stepped: bool):  # noqa: ANN202  (the kernel's generator protocol)
        if stepped:
            raise ValueError("ELiSE's clock drives a single simulation only")
        self._prepare()
        sm = self.speed_model
        n, submit, req, start = self.n, self.submit, self.req, self.start
        run_time, end, killed = self.run_time, self.end, self.killed
        queue, joined, queued = self.queue, self.joined, self._queued
        cores, cpn = self.acct.cores, self.cluster.cores_per_node
        finished = self._finished = bytearray(n)
        remaining: dict[int, float] = {}  # running jobs, in the order they started
        speed: dict[int, float] = {}
        now = 0.0
        arr = 0
        while True:
            # 1. ELiSE's sim_step: arrivals submitted by now, then one pass
            while arr < n and submit[arr] <= now:
                list.append(queue, arr)
                list.append(joined, arr)
                queued[arr] = 1
                self._arrived[arr] = 1
                arr += 1
            self.now = now
            if queue:
                self._one_pass(now)
            for j in self.start_order[len(remaining) + self.completed :]:
                remaining[j] = run_time[j]
                speed[j] = 1.0
            # 2. speedups of the running jobs (calculate_job_rem_time)
            step = INF
            for j in remaining:
                if cores[j] != cpn:
                    s = sm.target(j)
                    if s != speed[j]:
                        remaining[j] *= speed[j] / s
                        speed[j] = s
                if remaining[j] < step:
                    step = remaining[j]
            if arr < n:
                show = submit[arr] - now
                if 0 < show < step:
                    step = show
            # a wake-up the policy asked for (Slurm's clocks: its main and backfill ticks);
            # a step to a wake-up alone is no event of ELiSE's: no late kill there
            wake = self._timer_after(now) - now
            event = True
            if wake < step:
                step = wake
                event = False
            if step == INF:
                if queue:
                    j = queue[0]
                    raise SchedulerError(
                        f"scheduler {self.scheduler.describe()} left {len(queue)} jobs "
                        f"waiting on an idle machine (first: job {self.ids[j]})"
                    )
                break
            if not step > 0:
                raise SchedulerError(f"ELiSE's clock would stand still at t={now}")
            # 3. the step: every remaining time shrinks; ends and late kills now
            now += step
            self.now = now
            done = []
            for j in remaining:
                remaining[j] -= step
                if event and start[j] + req[j] <= now:
                    remaining[j] = 0.0
                    killed[j] = 1
                if remaining[j] == 0:
                    done.append(j)
            for j in done:
                del remaining[j], speed[j]
                end[j] = now
                self._finish(j, now)
                finished[j] = 1
        return
        yield  # a generator, as the kernel's loop is
