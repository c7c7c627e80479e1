"""The local executor: runs in this process, on a process pool, or each in a fresh process
(SimGrid allows one engine per process); workers ignore Ctrl-C (the sweep stops them) and
exit with the sweep's process, even when it is killed."""

from __future__ import annotations

import concurrent.futures.process as _futures_process
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from . import PARENT
from .tasks import Callback, Outcome, Task, call

__all__ = [
    "context", "exit_with", "run_fresh", "run_pool", "run_serial", "stop", "watch_parent",
    "worker_init",
]  # fmt: skip


#: the signals that stop a sweep (Ctrl-C; SIGTERM, which the command turns into Ctrl-C)
HELD = {signal.SIGINT, signal.SIGTERM}


def worker_init(parent: int) -> None:
    """Worker initializer: Ctrl-C and SIGTERM are the parent's business (it stops the
    workers, and a worker that died of a SIGTERM sent to the process group was a failed run
    stored as such), and a
    worker exits within a second when the sweep's process dies (killed, even with SIGKILL),
    leaving no orphan computing for nobody."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # sent to the whole group by timeout, Slurm
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)  # held at the forkserver's start
    threading.Thread(target=exit_with, args=(parent,), name="parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # PermissionError: its pid was reused
        return False
    return True


def exit_with(parent: int) -> None:
    ppid = os.getppid()
    while True:
        time.sleep(0.5)
        if not _alive(parent) or os.getppid() != ppid:
            os._exit(1)


def watch_parent() -> None:
    """Exit within a second once the process :data:`~coschedlab.sweeps.PARENT` names is gone
    (the dashboard that started this command: a sweep started in a session of its own would
    go on computing, with its workers, for nobody); its workers then exit as they do when
    the command dies. Nothing when it names none."""
    pid = os.environ.get(PARENT)
    if pid:
        threading.Thread(target=exit_with, args=(int(pid),), name="dashboard-watch",
                         daemon=True).start()  # fmt: skip


def context(tasks: Iterable[Task] = ()) -> multiprocessing.context.BaseContext:
    """Start workers with forkserver where available (safe beside the progress thread).

    The forkserver imports the modules of the runs' functions once (and this one), so that
    a process started for one run does not import them again: 2.2 s against 0.05 s per
    process in a Dask worker, whose ``__main__`` (the only module the forkserver imports by
    default) is not the sweep's. Only the first call of a process decides: the forkserver
    starts once."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    modules = {getattr(t.fn, "__module__", None) for t in tasks} - {None, "__main__"}
    for name in list(modules):  # and what they declare their runs import first
        modules.update(getattr(sys.modules.get(name), "PRELOAD", ()))
    ctx.set_forkserver_preload(["__main__", __name__, *sorted(modules)])  # type: ignore[list-item]
    _start_forkserver()
    return ctx


def _start_forkserver() -> None:
    """Start the forkserver with Ctrl-C ignored: it imports the runs' modules for seconds
    before it ignores Ctrl-C itself, and a Ctrl-C meanwhile (it is in the terminal's process
    group) printed its KeyboardInterrupt traceback under the sweep's "interrupted" line. The
    ignored signal is inherited by the process it starts. Here Ctrl-C is also blocked for
    that time, so that one that comes meanwhile stays pending (Linux keeps a blocked signal
    even while ignored) and acts once this process's handler is back (ignored alone, it was
    lost and the sweep ran on). SIGTERM likewise: the forkserver ignores it (``timeout`` and
    Slurm send it to every process of the job; a forkserver killed by it took its workers,
    and their runs, with it)."""
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()  # only the main thread may change a signal's handler
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        previous = {s: signal.signal(s, signal.SIG_IGN) for s in HELD}
        try:
            forkserver.ensure_running()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def run_serial(tasks: Iterable[Task], on_done: Callback) -> None:
    for task in tasks:
        on_done(call(task))


def run_pool(tasks: list[Task], jobs: int, fresh: bool, quiet: bool, on_done: Callback) -> None:
    executor = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context(tasks),
        initializer=worker_init,
        initargs=(os.getpid(),),
        max_tasks_per_child=1 if fresh else None,
    )
    futures: dict[Future, Task] = {}
    try:
        with _interrupt_held():  # a worker being started is a worker stop() knows of
            futures = {executor.submit(call, t, quiet): t for t in tasks}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: str(futures[f].key)):
                task = futures[fut]
                try:
                    outcome = fut.result()
                except BrokenProcessPool as exc:
                    outcome = Outcome(task.key, error=f"the worker process died ({exc})")
                on_done(outcome)
    except BaseException:
        stop(executor)
        raise
    executor.shutdown(wait=True)


@contextmanager
def _interrupt_held() -> Iterator[None]:
    """Hold Ctrl-C until the block ends, then act on it. Submitting starts the workers, and
    starting one waits for the forkserver (seconds, the first time): a Ctrl-C inside that wait
    left a worker the forkserver then forked, unknown to :func:`stop`, which printed a
    traceback once this process had exited."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives Ctrl-C
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)  # Python's default handler: KeyboardInterrupt
    elif signal.SIGTERM in caught:  # SIGTERM, Ctrl-C ignored (started in the background)
        raise KeyboardInterrupt


def _fresh_main(conn: Any, task: Task, quiet: bool, parent: int) -> None:
    """A one-run process: run ``task``, send the outcome, exit (and exit early if the
    process that started it dies)."""
    worker_init(parent)
    conn.send(call(task, quiet))
    conn.close()


def run_fresh(task: Task, quiet: bool) -> Outcome:
    """Run ``task`` in a process of its own, forked by the forkserver (as the local pool's
    fresh mode). A Dask worker is a daemon process, which multiprocessing forbids to have
    children lest they outlive it; this child ends with its run (or with this process), so the
    flag is lifted while it starts."""
    ctx = context([task])
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_fresh_main, args=(send, task, quiet, os.getpid()))
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    daemon = config.pop("daemon", None)
    try:
        proc.start()
    finally:
        if daemon is not None:
            config["daemon"] = daemon
    send.close()
    try:
        outcome = receive.recv()
    except EOFError:
        proc.join()
        outcome = Outcome(task.key, error=f"the run's process died (exit code {proc.exitcode})")
    finally:
        receive.close()
    # the run is over once its outcome is here: the process's own exit (freeing a large heap
    # takes a fraction of a second) is awaited beside the next run, as the local pool does
    threading.Thread(target=proc.join, name="reap-run", daemon=True).start()
    return outcome


def stop(executor: ProcessPoolExecutor) -> None:
    """Cancel the queued runs and stop the worker processes this executor started."""
    processes = list(getattr(executor, "_processes", {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)  # shutdown forgets it
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.kill()  # they ignore SIGTERM (it is the parent's)
    for p in processes:
        p.join(timeout=5)
    # the executor's manager thread closes its wake-up pipe when it sees the workers gone; at
    # exit Python writes to every such pipe without the executor's lock (Python 3.11's
    # concurrent.futures.process._python_exit), so a close in between printed "OSError: Bad
    # file descriptor" after a Ctrl-C (CI of stop 46: the wait below read the thread after
    # shutdown had set it to None, so it never waited). The shutdown above has woken the
    # thread; it also leaves the exit-time wake-ups (the interpreter still waits for it at
    # exit: it is not a daemon)
    if manager is not None and manager is not threading.current_thread():
        manager.join(timeout=5)
        getattr(_futures_process, "_threads_wakeups", {}).pop(manager, None)
