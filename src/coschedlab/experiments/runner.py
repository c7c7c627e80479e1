"""Run a comparison: every workload x scheduler x repetition, skipping the finished runs.

Runs execute on a :class:`concurrent.futures.ProcessPoolExecutor` (``jobs`` workers; ``jobs=1``
runs them in this process). Each worker rebuilds its workload and scheduler from a picklable
:class:`RunTask`, simulates, validates and stores the run as soon as it ends
(:func:`~.store.save_run`), so an interrupted comparison resumes where it stopped. A run that
fails leaves ``error.txt`` in its directory and the others go on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..platform import Cluster
from . import store
from .spec import SchedulerSpec, Spec, WorkloadSpec
from .store import RunKey

__all__ = ["RunOutcome", "RunTask", "Summary", "execute", "plan", "run_comparison"]


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs to make one run (picklable)."""

    key: RunKey
    workload: WorkloadSpec
    scheduler: SchedulerSpec
    seed: int
    kill_at_walltime: bool
    out: Path

    @property
    def cluster(self) -> Cluster:
        return self.workload.cluster


@dataclass(frozen=True)
class RunOutcome:
    """What a worker reports back: the key, the error (None when stored) and the wall time."""

    key: RunKey
    error: str | None
    seconds: float


@dataclass
class Summary:
    """What :func:`run_comparison` did."""

    total: int = 0
    skipped: list[RunKey] = field(default_factory=list)
    executed: list[RunKey] = field(default_factory=list)
    failed: dict[RunKey, str] = field(default_factory=dict)
    interrupted: bool = False

    @property
    def stored(self) -> int:
        """How many runs of the spec are now stored."""
        return len(self.skipped) + len(self.executed) - len(self.failed)

    @property
    def ok(self) -> bool:
        """True when every run of the spec is stored."""
        return not self.failed and not self.interrupted


def plan(spec: Spec, out: Path) -> list[RunTask]:
    """All runs of ``spec``, in a stable order: repetition, workload, scheduler."""
    tasks = []
    for rep in range(spec.repetitions):
        for w in spec.workloads:
            seed = spec.seed + rep
            for s in spec.schedulers:
                key = RunKey(w.name, s.slug, rep)
                tasks.append(RunTask(key, w, s, seed, spec.kill_at_walltime, Path(out)))
    return tasks


def simulate_task(task: RunTask) -> Any:
    """Simulate one run and return its :class:`~coschedlab.engine.result.Result`."""
    from ..api import simulate
    from .workloads import build_workload

    workload, pool = build_workload(task.workload, seed=task.seed)
    options: dict[str, Any] = {"kill_at_walltime": task.kill_at_walltime}
    if pool is not None and task.workload.colocation:
        options["pool"] = pool
    return simulate(workload, task.cluster, task.scheduler.spec, **options)


def execute(task: RunTask) -> RunOutcome:
    """Make one run and store it (or its error); never raises for a failing run."""
    t0 = time.perf_counter()
    try:
        result = simulate_task(task)
        violations = result.validate()
        if violations:
            shown = "\n".join(violations[:20])
            raise RuntimeError(f"the schedule breaks {len(violations)} invariant(s):\n{shown}")
        info = {
            "key": str(task.key),
            "workload": task.workload.name,
            "scheduler": task.scheduler.label,
            "scheduler_spec": task.scheduler.spec,
            "rep": task.key.rep,
            "seed": task.seed,
            "kill_at_walltime": task.kill_at_walltime,
            "colocation": task.workload.kind == "pool" and task.workload.colocation,
            "seconds": round(time.perf_counter() - t0, 3),
        }
        store.save_run(task.out, task.key, result, info)
    except Exception as exc:
        detail = "".join(traceback.format_exception(exc))
        store.save_error(task.out, task.key, detail)
        return RunOutcome(task.key, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
    return RunOutcome(task.key, None, time.perf_counter() - t0)


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's business (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _context() -> multiprocessing.context.BaseContext:
    """Start workers with forkserver where available (safe beside the progress thread)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


Callback = Callable[[RunOutcome], None]


def _run_serial(tasks: Iterable[RunTask], on_done: Callback) -> None:
    for task in tasks:
        on_done(execute(task))


def _run_parallel(tasks: list[RunTask], jobs: int, on_done: Callback) -> None:
    executor = ProcessPoolExecutor(
        max_workers=jobs, mp_context=_context(), initializer=_ignore_sigint
    )
    futures: dict[Future, RunTask] = {}
    try:
        futures = {executor.submit(execute, t): t for t in tasks}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: futures[f].key):
                task = futures[fut]
                try:
                    on_done(fut.result())
                except BrokenProcessPool as exc:
                    message = f"the worker process died ({exc})"
                    store.save_error(task.out, task.key, message)
                    on_done(RunOutcome(task.key, message, 0.0))
    except BaseException:
        _stop(executor)
        raise
    executor.shutdown(wait=True)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Cancel the queued runs and stop the worker processes this executor started."""
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)


def run_comparison(
    spec: Spec,
    out: Path,
    *,
    jobs: int | None = None,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callback | None = None,
) -> Summary:
    """Run the missing runs of ``spec`` into ``out``.

    ``jobs``: worker processes (default ``os.cpu_count()``, 1 = in this process). ``fresh``
    removes the old runs first; otherwise a directory made from a different spec is refused
    (:func:`~.store.check_spec`). ``on_start(todo, total)`` is called once before the runs and
    ``on_done(outcome)`` after each. Ctrl-C stops the runs: the summary says ``interrupted``
    and every run finished before stays stored.
    """
    out = Path(out)
    if jobs is not None and jobs < 1:
        from ..errors import InputError

        raise InputError(f"--jobs must be at least 1, got {jobs}")
    if fresh:
        store.clear(out, spec)
    store.check_spec(out, spec)
    store.remove_leftovers(out)
    tasks = plan(spec, out)
    done = store.completed(out)
    summary = Summary(total=len(tasks))
    todo = []
    for t in tasks:
        (summary.skipped if t.key in done else todo).append(t.key if t.key in done else t)
    if on_start is not None:
        on_start(len(todo), len(tasks))

    def record(outcome: RunOutcome) -> None:
        summary.executed.append(outcome.key)
        if outcome.error is not None:
            summary.failed[outcome.key] = outcome.error
        if on_done is not None:
            on_done(outcome)

    workers = min(jobs or os.cpu_count() or 1, max(len(todo), 1))
    try:
        if workers == 1:
            _run_serial(todo, record)
        else:
            _run_parallel(todo, workers, record)
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary
