"""The Python API: ``coschedlab.simulate(workload, cluster, scheduler, **options) -> Result``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _core  # noqa: F401 (first: a compiled module older than its source is said)
from .engine.result import Result
from .engine.speed import SpeedModel
from .errors import InputError
from .jobs import Workload
from .platform import Cluster
from .schedulers import Scheduler, get_scheduler
from .simulation import run_simulation


def simulate(
    workload: Workload | str | Path,
    cluster: Cluster | None = None,
    scheduler: str | Scheduler | type[Scheduler] = "easy",
    *,
    kill_at_walltime: bool = False,
    pool: Any = None,
    speed_model: SpeedModel | None = None,
    shared_nodes: bool | None = None,
    dependencies: bool = False,
    progress: Callable[[int, int], None] | None = None,
    pass_timeout: float | None = None,
    wake_limit: int | None = None,
    **options: Any,
) -> Result:
    """Simulate ``workload`` on ``cluster`` under ``scheduler`` and return the :class:`Result`.

    ``workload`` may be a path to an SWF file; ``cluster`` then defaults to the size its header
    gives (MaxNodes/MaxProcs). ``scheduler`` is a name with options (``"easy:depth=50"``), a
    path to a ``.py`` file, a Scheduler class or instance; extra keyword ``options`` go to it.

    ``pool`` turns on node co-location: an application pool (:class:`coschedlab.coloc.Pool`, or
    a path to an ELiSE pool JSON) or a :class:`coschedlab.coloc.Heatmap`; jobs then run at the
    speed its heatmap gives beside their neighbours (ELiSE 3.5) and nodes are shared.

    ``pass_timeout`` (seconds): a scheduling pass that takes longer stops the run with an
    :class:`~coschedlab.errors.InputError` (a policy that never returns); ``wake_limit``: the
    most passes in a row the policy's wake-ups alone bring, starting nothing, under 1 ms apart
    on average, before the run stops with one (a livelock; None: 10^6; 0: no limit);
    ``progress(done, total)`` is called as jobs complete.
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
    sched = get_scheduler(scheduler, **options)  # a bad policy is said before the pool is read
    if pool is not None:
        from .coloc.heatmap import Heatmap
        from .coloc.pool import Pool, load_pool
        from .coloc.speed import ColocationSpeed

        if isinstance(pool, (str, Path)):
            pool = load_pool(pool)
        if isinstance(pool, Pool):
            speed_model = ColocationSpeed.from_pool(pool)
        elif isinstance(pool, Heatmap):
            speed_model = ColocationSpeed(pool)
        else:
            raise InputError(f"pool must be a Pool, a Heatmap or a path, not {type(pool).__name__}")
        if shared_nodes is None:
            shared_nodes = True
    return run_simulation(
        workload, cluster, sched, kill_at_walltime=kill_at_walltime, speed_model=speed_model,
        shared_nodes=bool(shared_nodes), dependencies=dependencies, progress=progress,
        pass_timeout=pass_timeout, wake_limit=wake_limit,
    )  # fmt: skip
