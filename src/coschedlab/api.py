"""The Python API: ``coschedlab.simulate(workload, cluster, scheduler, **options) -> Result``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .engine.kernel import Simulation
from .engine.result import Result
from .engine.speed import SpeedModel
from .errors import InputError
from .jobs import Workload
from .platform import Cluster
from .schedulers import Scheduler, get_scheduler


def simulate(
    workload: Workload | str | Path,
    cluster: Cluster | None = None,
    scheduler: str | Scheduler | type[Scheduler] = "easy",
    *,
    kill_at_walltime: bool = False,
    speed_model: SpeedModel | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> Result:
    """Simulate ``workload`` on ``cluster`` under ``scheduler`` and return the :class:`Result`.

    ``workload`` may be a path to an SWF file; ``cluster`` then defaults to the size its header
    gives (MaxNodes/MaxProcs). ``scheduler`` is a name with options (``"easy:depth=50"``), a
    path to a ``.py`` file, a Scheduler class or instance; extra keyword ``options`` go to it.
    """
    if not isinstance(workload, Workload):
        from .workload.swf import cluster_from_header, read_swf

        path = Path(workload)
        if cluster is None:
            probe = read_swf(path)
            cluster = cluster_from_header(probe.header)
            if cluster is None:
                raise InputError(f"{path}: no MaxNodes/MaxProcs header; give the cluster size")
        workload = read_swf(path, cluster=cluster)
    if cluster is None:
        raise InputError("give the cluster (coschedlab.Cluster(nodes, sockets, cores))")
    sched = get_scheduler(scheduler, **options)
    sim = Simulation(
        workload,
        cluster,
        sched,
        kill_at_walltime=kill_at_walltime,
        speed_model=speed_model,
        progress=progress,
    )
    sim.run()
    return Result.from_simulation(sim)
