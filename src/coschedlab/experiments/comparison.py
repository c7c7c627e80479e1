"""Run a comparison: every workload x scheduler x repetition of a spec, on the one runner.

Each run rebuilds its workload and scheduler from a picklable :class:`RunTask`, simulates and
validates (:func:`simulate_task`); the one driver (:data:`SWEEP`) stores it as soon as it ends
(in the comparison's :data:`.store.RESULT_DIRS`), so an interrupted comparison resumes where
it stopped. A run that fails leaves ``error.txt`` in its directory and the others go on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..platform import Cluster
from ..sweeps.progress import progress_file, put
from ..sweeps.store import RunKey
from ..sweeps.sweep import Sweep
from ..sweeps.tasks import Outcome, Summary, Task, check_valid
from . import store
from .spec import SchedulerSpec, Spec, WorkloadSpec
from .store import RESULT_DIRS

__all__ = [
    "SWEEP", "RunTask", "plan", "run_comparison", "simulate_task", "tasks_of",
]  # fmt: skip


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs to make one run (picklable)."""

    key: RunKey
    workload: WorkloadSpec
    scheduler: SchedulerSpec
    seed: int
    kill_at_walltime: bool

    @property
    def cluster(self) -> Cluster:
        return self.workload.cluster


def plan(spec: Spec) -> list[RunTask]:
    """All runs of ``spec``, in a stable order: repetition, workload, scheduler."""
    tasks = []
    for rep in range(spec.repetitions):
        for w in spec.workloads:
            seed = spec.seed + rep
            for s in spec.schedulers:
                key = RunKey(w.name, s.slug, rep)
                tasks.append(RunTask(key, w, s, seed, spec.kill_at_walltime))
    return tasks


def simulate_task(task: RunTask) -> tuple[Any, dict[str, Any]]:
    """Simulate and validate one run: its :class:`~coschedlab.engine.result.Result` and the
    facts for ``run.json``. A schedule that breaks an invariant is an error."""
    from ..simulation import run_simulation
    from .workloads import build_workload

    workload, pool = build_workload(task.workload, seed=task.seed)
    speed = None
    if pool is not None and task.workload.colocation:
        from ..coloc.speed import ColocationSpeed

        speed = ColocationSpeed.from_pool(pool)
    result = run_simulation(
        workload, task.cluster, task.scheduler.spec, kill_at_walltime=task.kill_at_walltime,
        speed_model=speed, shared_nodes=speed is not None, progress=_progress_callback(task),
    )  # fmt: skip
    check_valid(result)
    info = {
        "key": str(task.key),
        "workload": task.workload.name,
        "scheduler": task.scheduler.label,
        "scheduler_spec": task.scheduler.spec,
        "rep": task.key.rep,
        "seed": task.seed,
        "kill_at_walltime": task.kill_at_walltime,
        "colocation": task.workload.kind == "pool" and task.workload.colocation,
    }
    return result, info


def progress_name(key: RunKey) -> str:
    """The file in :data:`~coschedlab.sweeps.progress.PROGRESS_DIR` where run ``key`` reports
    its progress (the dashboard's live bar per run): ``{"done": jobs, "total": jobs}``."""
    return f"{key.workload}__{key.scheduler}__rep{key.rep}.json"


def _progress_callback(task: RunTask) -> Callable[[int, int], None] | None:
    """The kernel's progress callback writing the run's progress file (at most 4 times a
    second; :func:`~coschedlab.sweeps.progress.progress_file`), or None."""
    import time

    path = progress_file(progress_name(task.key))
    if path is None:
        return None
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.25 and done < total:
            return
        last[0] = now
        put(path, {"done": done, "total": total})

    return report


def tasks_of(spec: Spec) -> list[Task]:
    """The runs of ``spec`` as the runner's tasks (:func:`plan`'s order)."""
    return [Task(t.key, simulate_task, (t,)) for t in plan(spec)]


#: the comparison as a sweep of the one driver: its runs in directories under ``OUT``, its
#: spec.json the merged definitions of its runs (:func:`~.store.check_spec`)
SWEEP = Sweep(
    "comparison", simulate_task, layout=RESULT_DIRS, runs="", quiet=False,
    check=store.check_spec_compatible, record=store.check_spec, legacy_key="runs",
    plan=tasks_of, clear=store.clear,
)  # fmt: skip


def run_comparison(
    spec: Spec,
    out: Path,
    *,
    jobs: int | None = None,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callable[[Outcome], None] | None = None,
    executor: Any = None,
    on_info: Callable[[str], None] | None = None,
) -> Summary:
    """Run the missing runs of ``spec`` into ``out``.

    ``jobs``: worker processes (default ``os.cpu_count()``, 1 = in this process). ``fresh``
    removes the old runs first; otherwise a directory made from a different spec is refused
    (:func:`~.store.check_spec`). ``executor``: where the runs execute (default: the spec's,
    else the local pool). See :func:`~coschedlab.sweeps.runner.run_tasks` for the callbacks
    and Ctrl-C.
    """
    if fresh:
        store.clear(Path(out), spec)
    summary, _ = SWEEP.run(spec, Path(out), jobs=jobs, on_start=on_start, on_done=on_done,
                           executor=executor, on_info=on_info)  # fmt: skip
    return summary
