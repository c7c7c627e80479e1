"""The Dask executor: a scheduler at an address, a ``LocalCluster``, or a dask-jobqueue
batch-system cluster (:mod:`.executors` parses which); at most a window of runs in flight,
results streamed back as they finish, a run that kills its worker retried alone."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import signal
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from .executors import ExecutorSpec
from .pool import run_fresh
from .shipping import Shipped, input_files, local_copy, localize, shared_args, ship_file, unship
from .tasks import Callback, Outcome, Task, call

__all__ = ["QUIET_DASK", "dask_env", "jobqueue_cluster", "run_dask"]

#: how long a client waits for a Dask scheduler before giving up (COSCHEDLAB_DASK_TIMEOUT, s)
CONNECT_TIMEOUT = f"{float(os.environ.get('COSCHEDLAB_DASK_TIMEOUT', '10'))}s"


def _dask_call(
    key: Any, fn: Callable[..., Any], quiet: bool, fresh: bool, files: list, *args: Any
) -> Outcome:
    """:func:`call` on a Dask worker (the arguments at top level, so that inputs scattered
    once per worker arrive as their values; ``files``: the :class:`ShippedFile` the run
    reads, its arguments pointed at their local copies); ``fresh``: in a child process of its
    own (a SimGrid run needs a process to itself: :func:`run_fresh`)."""
    args = tuple(unship(a) for a in args)
    where = {f.path: local_copy(f) for f in files}
    task = Task(key, fn, tuple(localize(a, where) for a in args) if where else args)
    outcome = call(task, quiet) if not fresh else run_fresh(task, quiet)
    if not where:
        return outcome
    # the run's value and messages name the files as the client knows them
    back = {local: path for path, local in where.items()}

    def named(text: str | None) -> str | None:
        for local, path in back.items():
            text = text.replace(local, path) if text else text
        return text

    return replace(outcome, value=localize(outcome.value, back), error=named(outcome.error),
                   detail=named(outcome.detail))  # fmt: skip


def _dask_call_packed(packed: list) -> Outcome:
    """:func:`_dask_call` of one run of a batch submitted with ``Client.map``."""
    key, fn, quiet, fresh, files, args = packed
    return _dask_call(key, fn, quiet, fresh, files, *args)


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


def run_dask(
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
        shared = shared_args(tasks)
        scattered: dict[int, Any] = {}
        for t in tasks:
            for a in t.args:
                if id(a) in shared and id(a) not in scattered:
                    blob = Shipped(uuid.uuid4().hex, pickle.dumps(a, protocol=5))
                    # in a list of one: scatter() would split a list into its items
                    scattered[id(a)] = client.scatter([blob], broadcast=True, hash=False)[0]
        needs: dict[Any, list[str]] = {}  # a run's key -> the input files it reads by path
        shipped: dict[str, Any] = {}  # a file -> its future, scattered once to every worker
        for t in tasks:
            found: set[str] = set()
            for a in t.args:
                if id(a) not in shared:
                    input_files(a, found)
            needs[t.key] = sorted(found)
            for path in needs[t.key]:
                if path not in shipped:
                    shipped[path] = client.scatter([ship_file(path)], broadcast=True,
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
