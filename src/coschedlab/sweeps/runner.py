"""The one resumable sweep runner: every sweep of every capability runs through it.

A sweep is a list of :class:`~.tasks.Task` and a store (:class:`~.store.Store`: where
finished runs live). :func:`run_tasks` runs the tasks whose key the store does not hold yet:

* on a local process pool (``jobs`` workers; ``jobs=1`` runs them in this process, unless
  ``fresh_process``), or with ``fresh_process=True`` each run in a process of its own
  (:mod:`.pool`), or on a Dask cluster (:mod:`.cluster`);
* the **client stores every finished run** (atomically), so workers need no shared file
  system and a killed client leaves no half-written run; on restart the finished runs are
  skipped and leftovers removed;
* a run that raises is recorded as failed and the others go on; a worker process that dies
  fails its run with a clear message;
* Ctrl-C stops the workers; everything finished before stays stored;
* ``on_start(todo, total)`` and ``on_done(outcome)`` drive a progress bar with an ETA; each
  :class:`~.tasks.Outcome` records where (host, process) and how long the run took.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import InputError
from .cluster import run_dask
from .executors import ExecutorSpec
from .pool import run_pool, run_serial
from .progress import SweepReport
from .tasks import Callback, Outcome, Summary, Task

if TYPE_CHECKING:
    from .store import Store

__all__ = ["run_tasks"]


def run_tasks(
    tasks: Iterable[Task],
    store: Store,
    *,
    jobs: int | None = None,
    fresh_process: bool = False,
    quiet: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callback | None = None,
    executor: ExecutorSpec | None = None,
    on_info: Callable[[str], None] | None = None,
) -> Summary:
    """Run the tasks ``store`` does not hold yet and store each as it finishes.

    ``jobs``: worker processes (default ``os.cpu_count()``; 1 = in this process unless
    ``fresh_process``). ``quiet`` silences the workers' stderr. ``executor``: where the runs
    execute (:mod:`.executors`: the local pool by default, or a Dask cluster; ``on_info``
    gets its scheduler and dashboard address). Ctrl-C stops the runs: the summary says
    ``interrupted`` and every run finished before stays stored.
    """
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    tasks = list(tasks)
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise InputError(f"two runs of the sweep share the key {dup}")
    store.clean()
    done = store.done()
    summary = Summary(total=len(tasks))
    todo = []
    for t in tasks:
        if t.key in done:
            summary.skipped.append(t.key)
        else:
            todo.append(t)
    if on_start is not None:
        on_start(len(todo), len(tasks))
    by_key = {t.key: t for t in todo}
    report = SweepReport.here(summary)

    def record(outcome: Outcome) -> None:
        task = by_key[outcome.key]
        # counted once stored: an interrupt (Ctrl-C) while a result is being written leaves
        # neither the run (atomic writes) nor its count, so the report agrees with the store
        if outcome.error is None:
            store.save(task, outcome)
        else:
            store.save_error(task, outcome)
            summary.failed[outcome.key] = outcome.error
        summary.executed.append(outcome.key)
        if report is not None:
            report.write()
        if on_done is not None:
            on_done(outcome)

    workers = min(jobs or os.cpu_count() or 1, max(len(todo), 1))
    try:
        if executor is not None and executor.distributed:
            if todo:
                run_dask(todo, executor, quiet, fresh_process, record, on_info)
        elif workers == 1 and not fresh_process:
            run_serial(todo, record)
        elif todo:
            run_pool(todo, workers, fresh_process, quiet, record)
    except KeyboardInterrupt:
        summary.interrupted = True
    if report is not None:
        report.write(final=True)
    return summary
