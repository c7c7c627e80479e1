"""The one resumable sweep runner: every sweep of every capability runs through it.

A sweep is a list of :class:`Task` (a stable key, a top-level function and its arguments: a run
is a pure function of them) and a :class:`Store` (where finished runs live). :func:`run_tasks`
runs the tasks whose key the store does not hold yet:

* on a local process pool (``jobs`` workers; ``jobs=1`` runs them in this process, unless
  ``fresh_process``), or with ``fresh_process=True`` each run in a process of its own (SimGrid
  allows one engine per process);
* the **client stores every finished run** (:meth:`Store.save`, atomically: a temporary file or
  directory renamed into place), so workers need no shared file system and a killed client
  leaves no half-written run; on restart the finished runs are skipped and leftovers removed;
* a run that raises is recorded as failed (:meth:`Store.save_error`) and the others go on; a
  worker process that dies fails its run with a clear message;
* Ctrl-C stops the workers; everything finished before stays stored;
* ``on_start(todo, total)`` and ``on_done(outcome)`` drive a progress bar with an ETA; each
  :class:`Outcome` records where (host, process) and how long the run took.

The comparison of :mod:`.compare` (``coschedlab compare``) and the in situ reproduction
(:mod:`coschedlab.insitu.sweep`, ``coschedlab insitu reproduce``) are two sweeps on it.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import pickle
import signal
import socket
import sys
import threading
import time
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError
from .executors import ExecutorSpec

__all__ = [
    "PROGRESS_DIR", "SWEEP_FILE", "MemoryStore", "Outcome", "Store", "Summary", "Task",
    "run_tasks", "sweep_progress",
]  # fmt: skip

#: how long a client waits for a Dask scheduler before giving up (COSCHEDLAB_DASK_TIMEOUT, s)
CONNECT_TIMEOUT = f"{float(os.environ.get('COSCHEDLAB_DASK_TIMEOUT', '10'))}s"

#: a directory (an environment variable naming it) where a sweep reports how far it is, for
#: a watcher such as the dashboard: :data:`SWEEP_FILE` there holds the sweep's counts, and the
#: runs of a comparison add one file each with their jobs done
PROGRESS_DIR = "COSCHEDLAB_PROGRESS_DIR"
#: the sweep's counts in :data:`PROGRESS_DIR`: ``{"total", "stored", "done", "failed",
#: "started", "updated", "interrupted"}`` (runs; ``stored``: found stored when it started;
#: ``done``: finished since, failed ones included; times: seconds since the epoch)
SWEEP_FILE = "sweep.json"


@dataclass(frozen=True)
class Task:
    """One run: ``fn(*args)`` (``fn`` a top-level function, so that it pickles)."""

    key: Any
    fn: Callable[..., Any]
    args: tuple = ()


@dataclass(frozen=True)
class Outcome:
    """What one run gave: its value (None when it failed), the error (one line) and its
    traceback, how long it took, and where (host, process id)."""

    key: Any
    value: Any = None
    error: str | None = None
    detail: str | None = None
    seconds: float = 0.0
    host: str = ""
    pid: int = 0


class Store(Protocol):
    """Where a sweep's finished runs live."""

    def done(self) -> set:
        """Keys of the runs stored as finished."""
        ...

    def clean(self) -> None:
        """Remove what killed runs left (temporary files)."""
        ...

    def save(self, task: Task, outcome: Outcome) -> None:
        """Store a finished run, atomically."""
        ...

    def save_error(self, task: Task, outcome: Outcome) -> None:
        """Record a failed run (it does not count as finished)."""
        ...


class MemoryStore:
    """A store that keeps the runs' values in memory (a sweep whose results are not files)."""

    def __init__(self) -> None:
        self.values: dict = {}
        self.errors: dict = {}

    def done(self) -> set:
        return set(self.values)

    def clean(self) -> None:
        """Nothing is left behind in memory."""

    def save(self, task: Task, outcome: Outcome) -> None:
        self.values[task.key] = outcome.value

    def save_error(self, task: Task, outcome: Outcome) -> None:
        self.errors[task.key] = outcome.error


@dataclass
class Summary:
    """What :func:`run_tasks` did."""

    total: int = 0
    skipped: list = field(default_factory=list)
    executed: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    interrupted: bool = False

    @property
    def stored(self) -> int:
        """How many runs of the sweep are now stored."""
        return len(self.skipped) + len(self.executed) - len(self.failed)

    @property
    def ok(self) -> bool:
        """True when every run of the sweep is stored."""
        return not self.failed and not self.interrupted


def call(task: Task, quiet: bool = False) -> Outcome:
    """Run one task (in a worker or here); never raises for a failing run."""
    t0 = time.perf_counter()
    where = {"host": socket.gethostname(), "pid": os.getpid()}
    if quiet:  # e.g. SimGrid's banner on stderr, from a worker process
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    try:
        value = task.fn(*task.args)
    except Exception as exc:  # reported, the sweep goes on
        return Outcome(
            task.key,
            error=f"{type(exc).__name__}: {exc}",
            detail="".join(traceback.format_exception(exc)),
            seconds=time.perf_counter() - t0,
            **where,
        )
    return Outcome(task.key, value, seconds=time.perf_counter() - t0, **where)


def _worker_init(parent: int) -> None:
    """Worker initializer: Ctrl-C is the parent's business (it stops the workers), and a
    worker exits within a second when the sweep's process dies (killed, even with SIGKILL),
    leaving no orphan computing for nobody."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), name="parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else: our parent's pid was reused
        return False
    return True


def _exit_with(parent: int) -> None:
    ppid = os.getppid()
    while True:
        time.sleep(0.5)
        if not _alive(parent) or os.getppid() != ppid:
            os._exit(1)


def _context(tasks: Iterable[Task] = ()) -> multiprocessing.context.BaseContext:
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
    return ctx


Callback = Callable[[Outcome], None]


def _run_serial(tasks: Iterable[Task], on_done: Callback) -> None:
    for task in tasks:
        on_done(call(task))


def _run_pool(tasks: list[Task], jobs: int, fresh: bool, quiet: bool, on_done: Callback) -> None:
    executor = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=_context(tasks),
        initializer=_worker_init,
        initargs=(os.getpid(),),
        max_tasks_per_child=1 if fresh else None,
    )
    futures: dict[Future, Task] = {}
    try:
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
        _stop(executor)
        raise
    executor.shutdown(wait=True)


@dataclass(frozen=True)
class _Shipped:
    """An input several runs share, pickled once by the client and scattered to every worker
    (Dask serialises a pickled blob at memory speed, where it walks a large list item by
    item); each worker unpickles it once (:data:`_SHIPPED`)."""

    token: str
    blob: bytes


_SHIPPED: dict[str, Any] = {}  # on a worker: token -> the unpickled input

#: files larger than this are not shipped (the workers must then see them at the same path)
MOST_SHIPPED_BYTES = 1 << 30


@dataclass(frozen=True)
class _ShippedFile:
    """An input file a sweep's runs read by path (a trace, a pool, a workflow), read once by
    the client and scattered to every worker, where it is written once to a local cache and
    the runs' arguments are pointed at that copy (:func:`_localize`): workers need neither a
    shared file system nor the client's paths."""

    path: str
    digest: str
    data: bytes


def _input_files(a: Any, found: set[str]) -> None:
    """Add to ``found`` the absolute paths of existing regular files among the strings and
    paths of ``a`` (:func:`_rewrite_paths` walks it)."""

    def note(text: str) -> str:
        if os.path.isabs(text) and len(text) < 4096 and os.path.isfile(text):
            found.add(text)
        return text

    _rewrite_paths(a, note)


def _ship_file(path: str) -> _ShippedFile:
    import hashlib

    size = os.path.getsize(path)
    if size > MOST_SHIPPED_BYTES:
        raise InputError(
            f"{path}: {size / 2**20:.0f} MiB is too large to ship to the Dask workers; "
            "put it where every worker sees it at the same path"
        )
    data = Path(path).read_bytes()
    return _ShippedFile(path, hashlib.sha256(data).hexdigest(), data)


def _local_copy(f: _ShippedFile) -> str:
    """This worker's copy of a shipped file (written once, atomically)."""
    import tempfile

    folder = Path(tempfile.gettempdir()) / "coschedlab-inputs" / f.digest[:32]
    local = folder / Path(f.path).name
    if not local.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f".{local.name}.{uuid.uuid4().hex}.part"
        part.write_bytes(f.data)
        os.replace(part, local)
    return str(local)


def _localize(a: Any, where: dict[str, str]) -> Any:
    """``a`` with every string or path naming a key of ``where`` replaced by its value."""
    return _rewrite_paths(a, lambda text: where.get(text, text))


def _rewrite_paths(a: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    """``a`` with every string (or path) ``t`` in it replaced by ``fn(t)``, walking
    dataclasses, tuples, lists and dicts a few levels down; the very same objects wherever
    ``fn`` changed nothing (``fn`` returns its argument itself when it keeps it)."""
    if isinstance(a, str):
        return fn(a)
    if isinstance(a, Path):
        text = str(a)
        new = fn(text)
        return a if new is text else Path(new)
    if depth >= 6:
        return a
    if is_dataclass(a) and not isinstance(a, type):
        changed = {}
        for f in fields(a):
            old = getattr(a, f.name)
            new = _rewrite_paths(old, fn, depth + 1)
            if new is not old:
                changed[f.name] = new
        return replace(a, **changed) if changed else a
    if isinstance(a, dict):
        new_items = {k: _rewrite_paths(v, fn, depth + 1) for k, v in a.items()}
        return a if all(new_items[k] is a[k] for k in a) else new_items
    if isinstance(a, tuple | list) and len(a) <= 1000:
        items = [_rewrite_paths(x, fn, depth + 1) for x in a]
        if all(x is y for x, y in zip(items, a, strict=True)):
            return a
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
    return a


def _unship(a: Any) -> Any:
    if not isinstance(a, _Shipped):
        return a
    if a.token not in _SHIPPED:
        if len(_SHIPPED) >= 16:  # inputs of an older sweep
            _SHIPPED.clear()
        _SHIPPED[a.token] = pickle.loads(a.blob)
    return _SHIPPED[a.token]


def _dask_call(
    key: Any, fn: Callable[..., Any], quiet: bool, fresh: bool, files: list, *args: Any
) -> Outcome:
    """:func:`call` on a Dask worker (the arguments at top level, so that inputs scattered
    once per worker arrive as their values; ``files``: the :class:`_ShippedFile` the run
    reads, its arguments pointed at their local copies); ``fresh``: in a child process of its
    own (a SimGrid run needs a process to itself: :func:`_run_fresh`)."""
    args = tuple(_unship(a) for a in args)
    where = {f.path: _local_copy(f) for f in files}
    task = Task(key, fn, tuple(_localize(a, where) for a in args) if where else args)
    outcome = call(task, quiet) if not fresh else _run_fresh(task, quiet)
    if not where:
        return outcome
    # the run's value and messages name the files as the client knows them
    back = {local: path for path, local in where.items()}

    def named(text: str | None) -> str | None:
        for local, path in back.items():
            text = text.replace(local, path) if text else text
        return text

    return replace(outcome, value=_localize(outcome.value, back), error=named(outcome.error),
                   detail=named(outcome.detail))  # fmt: skip


def _dask_call_packed(packed: list) -> Outcome:
    """:func:`_dask_call` of one run of a batch submitted with ``Client.map``."""
    key, fn, quiet, fresh, files, args = packed
    return _dask_call(key, fn, quiet, fresh, files, *args)


def _fresh_main(conn: Any, task: Task, quiet: bool, parent: int) -> None:
    """A one-run process: run ``task``, send the outcome, exit (and exit early if the
    process that started it dies)."""
    _worker_init(parent)
    conn.send(call(task, quiet))
    conn.close()


def _run_fresh(task: Task, quiet: bool) -> Outcome:
    """Run ``task`` in a process of its own, forked by the forkserver (as the local pool's
    fresh mode). A Dask worker is a daemon process, which multiprocessing forbids to have
    children lest they outlive it; this child ends with its run (or with this process), so the
    flag is lifted while it starts."""
    ctx = _context([task])
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


#: Dask settings for workers that share their cores with runs computing flat out. Dask's own
#: timers take a share of the same cores, which stretches the runs: each server's event-loop
#: tick every 20 ms, memory monitors every 100 ms and the system monitor every 500 ms (in the
#: scheduler, each nanny and each worker), and the statistical profiler sampling every
#: worker's threads each 10 ms. With Dask's defaults, 100-step in situ runs on a 2-worker
#: LocalCluster of this 2-core machine took 17% longer than on the local pool; with these, 4%
#: (benchmarks/bench_dask.py). The tick is only Dask's "event loop unresponsive" diagnostic.
QUIET_DASK: dict[str, Any] = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.tick.limit": "4s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.profile.enabled": False,
}


def dask_env(settings: dict[str, Any]) -> dict[str, str]:
    """Dask settings as the environment variables that set them in a process Dask starts
    later (``distributed.admin.tick.interval`` -> ``DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL``)."""
    return {
        "DASK_" + "__".join(part.upper().replace("-", "_") for part in key.split(".")): str(v)
        for key, v in settings.items()
    }


def jobqueue_cluster(spec: ExecutorSpec) -> tuple[Any, int]:
    """The dask-jobqueue cluster of a ``slurm:``/``pbs:`` executor (not started: its
    ``job_script()`` shows the batch script) and how many batch jobs to ask for."""
    # importing dask_jobqueue replaces the process's SIGINT handler with sys.exit() (its
    # runner module does so at import): keep ours (Ctrl-C, the policy watchdog)
    previous = signal.getsignal(signal.SIGINT)
    try:
        import dask_jobqueue
    finally:
        if threading.current_thread() is threading.main_thread() and previous is not None:
            signal.signal(signal.SIGINT, previous)

    opts = dict(spec.options)
    jobs = int(opts.pop("jobs", 1))
    # one single-threaded worker process per core: runs are CPU-bound Python, so threads of
    # one process would take turns on its GIL (dask-jobqueue's default is about sqrt(cores)
    # processes of several threads)
    opts.setdefault("processes", opts["cores"])
    if "job_extra" in opts:
        opts["job_extra_directives"] = [x.strip() for x in str(opts.pop("job_extra")).split(";")]
    if "skip" in opts:
        opts["job_directives_skip"] = [x.strip() for x in str(opts.pop("skip")).split(";")]
    # the batch job's workers compute beside the runs: Dask's timers less often there too
    opts["job_script_prologue"] = [f"export {k}={v}" for k, v in dask_env(QUIET_DASK).items()]
    make = dask_jobqueue.SLURMCluster if spec.kind == "slurm" else dask_jobqueue.PBSCluster
    with warnings.catch_warnings():  # "port 8787 is in use": the link printed says which
        warnings.simplefilter("ignore", UserWarning)
        return make(**opts), jobs


def _check_scheduler_file(path: Path, where: str) -> None:
    """``path`` is a Dask scheduler file: a JSON object naming the scheduler's ``address``
    (what ``dask scheduler --scheduler-file FILE`` writes); else one line saying so."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        doc = None
    address = doc.get("address") if isinstance(doc, dict) else None
    if not isinstance(address, str) or "://" not in address:
        raise InputError(
            f"{where}: {path} is not a Dask scheduler file (a JSON file with the scheduler's "
            "'address', as 'dask scheduler --scheduler-file FILE' writes)"
        )


@contextmanager
def _dask_client(spec: ExecutorSpec, on_info: Callable[[str], None] | None) -> Iterator[Any]:
    """A ``distributed.Client`` for ``spec``, and the cluster it started (closed after)."""
    import logging

    import dask
    from distributed import Client

    cluster = None
    where = f"--executor {spec}"
    quiet = ExitStack()  # loggers silenced while the cluster lives, restored after
    try:
        if spec.kind == "dask":
            address = spec.address or ""
            if address.endswith(".json") or Path(address).is_file():
                if not Path(address).is_file():
                    raise InputError(f"{where}: no scheduler file {address}")
                _check_scheduler_file(Path(address), where)
                client = Client(scheduler_file=address, timeout=CONNECT_TIMEOUT)
            else:
                client = Client(address, timeout=CONNECT_TIMEOUT)
        elif spec.kind == "dask-local":
            from distributed import LocalCluster

            settings = {"distributed.scheduler.allowed-failures": spec.retries, **QUIET_DASK}
            with dask.config.set(settings):
                cluster = LocalCluster(
                    n_workers=spec.workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address="127.0.0.1:0",
                    silence_logs=logging.ERROR,
                )  # fmt: skip
            client = Client(cluster, timeout=CONNECT_TIMEOUT)
        else:  # slurm, pbs: dask-jobqueue
            cluster, jobs = jobqueue_cluster(spec)
            # a refused job is reported once, here: not again by tornado and asyncio
            quiet.enter_context(_silenced("tornado.application", "asyncio",
                                          "distributed.deploy.spec"))  # fmt: skip
            _submit_worker_jobs(cluster, jobs, where)
            client = Client(cluster, timeout=CONNECT_TIMEOUT)
    except InputError:
        if cluster is not None:
            with suppress(Exception):  # its refused batch jobs fail an assertion of close()
                cluster.close()
        quiet.close()
        raise
    except (OSError, TimeoutError, ValueError, RuntimeError) as exc:
        if cluster is not None:
            cluster.close()
        quiet.close()
        message = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise InputError(f"{where}: cannot reach a Dask scheduler ({message})") from None
    try:
        if on_info is not None:
            link = getattr(client, "dashboard_link", None)
            on_info(f"Dask scheduler {client.scheduler.address}"
                    + (f", dashboard {link}" if link else ""))  # fmt: skip
        _wait_for_a_worker(client, spec, where, on_info)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        quiet.close()


@contextmanager
def _silenced(*names: str) -> Iterator[None]:
    """The loggers ``names`` silenced (CRITICAL only) within the block, as they were after."""
    import logging

    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _submit_worker_jobs(cluster: Any, jobs: int, where: str) -> None:
    """Submit the batch jobs of a dask-jobqueue cluster and wait until the batch system has
    taken them (not until they run): a refused job script (a memory request the partition
    cannot satisfy, an unknown queue or account) is one line, not a log of tracebacks."""
    import shutil

    command = cluster.job_cls.submit_command
    if command and not shutil.which(command):
        raise InputError(f"{where}: {command} not found: run the sweep where the batch system's "
                         "commands are (a login node)")  # fmt: skip
    # scale(jobs=...) without its fire-and-forget submission: one worker spec per batch job,
    # then the submission awaited here, so that its failure reaches us
    while len(cluster.worker_spec) < jobs:
        cluster.worker_spec.update(cluster.new_worker_spec())
    try:
        cluster.sync(cluster._correct_state)
    except Exception as exc:
        text = " ".join(str(exc).split())
        refusal = text.partition("stderr:")[2].strip() or text
        hint = " (skip=--mem leaves the memory request out)" if "emory" in refusal else ""
        raise InputError(f"{where}: the batch system did not take the worker job: "
                         f"{refusal[:300]}{hint}") from None  # fmt: skip


#: how long a sweep waits for the first worker of a running scheduler (s); batch-system
#: workers are waited for as long as their jobs queue
WORKER_TIMEOUT = float(os.environ.get("COSCHEDLAB_DASK_WORKER_TIMEOUT", "60"))


def _wait_for_a_worker(
    client: Any, spec: ExecutorSpec, where: str, on_info: Callable[[str], None] | None
) -> None:
    """Return once the cluster has a worker (the shared inputs are scattered to the workers
    present; later ones fetch them from those)."""
    if client.scheduler_info().get("workers"):
        return
    batch = spec.kind in ("slurm", "pbs")
    if on_info is not None:
        on_info("waiting for a worker" + (" (the worker jobs are queued)" if batch else ""))
    try:
        client.wait_for_workers(1, timeout=None if batch else WORKER_TIMEOUT)
    except TimeoutError:
        raise InputError(
            f"{where}: the scheduler has no worker (waited {WORKER_TIMEOUT:.0f} s; "
            "COSCHEDLAB_DASK_WORKER_TIMEOUT sets how long)"
        ) from None


def _shared(tasks: list[Task]) -> set[int]:
    """Ids of the argument objects that several tasks share (inputs to ship once)."""
    seen: dict[int, int] = {}
    for t in tasks:
        for a in t.args:
            if not isinstance(a, str | int | float | bool | type(None)):
                seen[id(a)] = seen.get(id(a), 0) + 1
    return {i for i, n in seen.items() if n > 1}


def _run_dask(
    tasks: list[Task],
    spec: ExecutorSpec,
    quiet: bool,
    fresh: bool,
    on_done: Callback,
    on_info: Callable[[str], None] | None,
) -> None:
    """Run ``tasks`` on a Dask cluster: at most a window of runs in flight (memory flat in
    the number of runs), results streamed to ``on_done`` as they finish, inputs that several
    runs share scattered once to every worker.

    A worker that dies takes every run it held with it, the guilty one and the bystanders
    queued beside it, and Dask counts the death against all of them (``KilledWorker`` once
    a run's count passes the scheduler's ``allowed-failures``). So a run that comes back
    ``KilledWorker`` is only a suspect: it is run again alone, one suspect at a time with
    nothing else in flight, after the other runs; it fails (with a clear message, the sweep
    goes on) only if it kills its worker again when alone."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    with _dask_client(spec, on_info) as client:
        shared = _shared(tasks)
        scattered: dict[int, Any] = {}
        for t in tasks:
            for a in t.args:
                if id(a) in shared and id(a) not in scattered:
                    blob = _Shipped(uuid.uuid4().hex, pickle.dumps(a, protocol=5))
                    # in a list of one: scatter() would split a list into its items
                    scattered[id(a)] = client.scatter([blob], broadcast=True, hash=False)[0]
        needs: dict[Any, list[str]] = {}  # a run's key -> the input files it reads by path
        shipped: dict[str, Any] = {}  # a file -> its future, scattered once to every worker
        for t in tasks:
            found: set[str] = set()
            for a in t.args:
                if id(a) not in shared:
                    _input_files(a, found)
            needs[t.key] = sorted(found)
            for path in needs[t.key]:
                if path not in shipped:
                    shipped[path] = client.scatter([_ship_file(path)], broadcast=True,
                                                   hash=False)[0]  # fmt: skip
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        window = max(64, 4 * workers)
        queue = iter(tasks)
        # with_results: the results are fetched by the client's event loop as the runs end,
        # many at once, not by one blocking round trip per run
        flying = as_completed(with_results=True, raise_errors=False)
        owner: dict[Any, tuple[Task, Any]] = {}  # the runs in flight, by future key

        def submit(batch: list[Task]) -> list[Any]:
            """Submit ``batch`` in one message to the scheduler (one per run costs the client
            a round trip each: the bottleneck of a sweep of many short runs)."""
            if not batch:
                return []
            packed = [
                [t.key, t.fn, quiet, fresh, [shipped[p] for p in needs[t.key]],
                 [scattered.get(id(a), a) for a in t.args]]
                for t in batch
            ]  # fmt: skip
            keys = [f"coschedlab-run-{uuid.uuid4().hex}" for _ in batch]
            futs = client.map(_dask_call_packed, packed, key=keys, pure=False)
            for task, fut in zip(batch, futs, strict=True):
                owner[fut.key] = (task, fut)
            flying.update(futs)
            return futs

        def outcome_of(task: Task, fut: Any, value: Any, alone: bool) -> Outcome | None:
            """The run's outcome, or None for a suspect (``KilledWorker`` beside others)."""
            fut.release()
            if isinstance(value, Outcome):
                return value
            if isinstance(value, tuple) and len(value) == 3:  # an error: (type, value, traceback)
                value = value[1]
            if isinstance(value, KilledWorker):
                if not alone:
                    return None
                return Outcome(
                    task.key,
                    error="the run killed every Dask worker it was sent to, also when it "
                    "ran alone (the scheduler's allowed-failures limit); it is not retried",
                )
            # a worker could not unpickle or run the task
            return Outcome(task.key, error=f"{type(value).__name__}: {value}")

        suspects: list[Task] = []
        try:
            submit(list(itertools.islice(queue, window)))
            for fut, value in flying:
                task, _ = owner.pop(fut.key)
                outcome = outcome_of(task, fut, value, alone=False)
                if outcome is None:
                    suspects.append(task)
                else:
                    on_done(outcome)
                if len(owner) <= window // 2:  # refill in batches
                    submit(list(itertools.islice(queue, window - len(owner))))
            for task in suspects:  # alone: a death now is the suspect's own
                (fut,) = submit([task])
                fut_done, value = next(flying)
                outcome = outcome_of(task, fut_done, value, alone=True)
                owner.pop(fut.key)
                on_done(outcome)
        except BaseException:  # Ctrl-C, a store that failed: no run left computing for nobody
            client.cancel([f for _, f in owner.values()])
            raise


def _stop(executor: ProcessPoolExecutor) -> None:
    """Cancel the queued runs and stop the worker processes this executor started."""
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)


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
    report = _SweepReport.here(summary)

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
                _run_dask(todo, executor, quiet, fresh_process, record, on_info)
        elif workers == 1 and not fresh_process:
            _run_serial(todo, record)
        elif todo:
            _run_pool(todo, workers, fresh_process, quiet, record)
    except KeyboardInterrupt:
        summary.interrupted = True
    if report is not None:
        report.write(final=True)
    return summary


@dataclass
class _SweepReport:
    """Writes a sweep's counts to :data:`SWEEP_FILE` in :data:`PROGRESS_DIR` (atomically)."""

    path: str
    summary: Summary
    started: float = field(default_factory=time.time)

    @classmethod
    def here(cls, summary: Summary) -> _SweepReport | None:
        """The report of ``summary`` when :data:`PROGRESS_DIR` names a directory, else None."""
        folder = os.environ.get(PROGRESS_DIR)
        if not folder or not os.path.isdir(folder):
            return None
        report = cls(os.path.join(folder, SWEEP_FILE), summary)
        report.write()
        return report

    def write(self, final: bool = False) -> None:
        import json

        s = self.summary
        doc = {
            "total": s.total, "stored": len(s.skipped), "done": len(s.executed),
            "failed": len(s.failed), "started": self.started, "updated": time.time(),
            "interrupted": s.interrupted, "finished": final,
        }  # fmt: skip
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(doc, f)
            os.replace(tmp, self.path)
        except OSError:  # progress is a courtesy: never fail a sweep for it
            pass


def sweep_progress(folder: str | Path) -> dict[str, Any] | None:
    """The counts a sweep reports in ``folder`` (:data:`SWEEP_FILE`), with ``eta`` (seconds
    left, estimated from the runs finished so far; None before the first) and ``elapsed``;
    None when there is no readable report."""
    import json

    try:
        doc = json.loads((Path(folder) / SWEEP_FILE).read_text())
        total, stored, done = int(doc["total"]), int(doc["stored"]), int(doc["done"])
        started, updated = float(doc["started"]), float(doc["updated"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = updated if doc.get("finished") else time.time()
    doc["elapsed"] = max(now - started, 0.0)
    left = max(total - stored - done, 0)
    doc["eta"] = doc["elapsed"] / done * left if done else None
    return doc
