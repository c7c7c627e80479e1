"""One simulated run below the interfaces: :func:`run_simulation` wires a scheduler (a name
with options, a ``.py`` file, a class or an instance), a speed model and the pass time limit to
the kernel, and checks the policy's declared guarantees first. The capabilities' runs (a
comparison's, ELiSE's) and the Python API (:func:`coschedlab.simulate`, which adds SWF paths
and co-location pools) all run through it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._core.swf_parse import trim_heap
from .engine.accounting import check_shared
from .engine.kernel import Simulation
from .engine.result import Result
from .engine.speed import SpeedModel
from .engine.watchdog import pass_time_limit
from .errors import InputError
from .jobs import Workload
from .platform import Cluster
from .schedulers import Scheduler, get_scheduler

__all__ = ["run_simulation"]


def run_simulation(
    workload: Workload,
    cluster: Cluster,
    scheduler: str | Scheduler | type[Scheduler] = "easy",
    *,
    kill_at_walltime: bool | str = False,
    speed_model: SpeedModel | None = None,
    shared_nodes: bool = False,
    dependencies: bool = False,
    progress: Callable[[int, int], None] | None = None,
    pass_timeout: float | None = None,
    wake_limit: int | None = None,
    **options: Any,
) -> Result:
    """Simulate ``workload`` on ``cluster`` under ``scheduler`` (extra keyword ``options`` go
    to it) and return the :class:`~coschedlab.engine.result.Result`; ``pass_timeout`` (s): a
    scheduling pass that takes longer stops the run with an :class:`InputError`, as do more than
    ``wake_limit`` passes of a livelock (:class:`~.engine.kernel.Simulation`); ``progress(
    done, total)`` is called as jobs complete."""
    sched = get_scheduler(scheduler, **options)
    _check_guarantees(sched)
    if shared_nodes:
        check_shared(cluster.nodes, cluster.cores_per_node)
    sim = Simulation(
        workload,
        cluster,
        sched,
        kill_at_walltime=kill_at_walltime,
        speed_model=speed_model,
        progress=progress,
        shared_nodes=shared_nodes,
        dependencies=dependencies,
        wake_limit=wake_limit,
    )
    with pass_time_limit(sched, pass_timeout, sched.describe):
        sim.run()
    result = Result.from_simulation(sim, metrics_later=True)
    sim.release()  # the kernel's memory goes now, not at the next garbage collection
    del sim
    # and its pages go back to the system: the result's arrays, made last, keep the heap's top,
    # so glibc would keep the kernel's freed arrays (a million jobs: ~100 MB)
    trim_heap()
    result.narrow_counts()  # (the kernel's int64 nodes and passes go with it)
    result.fill_job_metrics()  # (not on top of the kernel's memory)
    return result


def _check_guarantees(sched: Scheduler) -> None:
    """A policy's declared guarantees are known names (checked before the run, not after)."""
    from .validator import GUARANTEES

    declared = sched.guarantees
    for g in (declared,) if isinstance(declared, str) else tuple(declared or ()):
        if g not in GUARANTEES:
            raise InputError(
                f"scheduler {sched.describe()} declares unknown guarantee {g!r}; known "
                f"guarantees: {', '.join(GUARANTEES)}"
            )
