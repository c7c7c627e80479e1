"""Where a sweep's runs execute: the local process pool (the default) or a Dask cluster.

Every sweep command takes ``--executor`` (and a sweep spec an ``executor:`` key) with one of:

* ``local`` (default): the runner's process pool, ``--jobs`` workers;
* ``dask:ADDRESS``: an existing ``dask.distributed`` scheduler, ``tcp://HOST:8786`` or a
  scheduler file (``dask scheduler --scheduler-file FILE``);
* ``dask-local:N``: a ``LocalCluster`` of ``N`` worker processes (one thread each) on this
  machine, bound to 127.0.0.1;
* ``slurm:key=value,...`` / ``pbs:key=value,...``: a batch-system cluster of dask-jobqueue
  (``SLURMCluster`` / ``PBSCluster``) built from the options (``cores``, ``memory``,
  ``queue``, ``account``, ``walltime``, ``processes``, ``interface``, ``job_extra`` (``;``-
  separated lines to add), ``skip`` (``;``-separated directives to leave out, e.g. ``--mem``
  where the site refuses memory requests), ``jobs``: how many batch jobs to ask for); its
  workers start as batch jobs.

The client (this process) stores every finished run, so workers need no shared file system;
runs are pure functions of their task, so a run lost with a worker is simply run again on
another one (Dask's own rescheduling, up to ``retries`` times on a ``dask-local`` cluster,
the scheduler's ``allowed-failures`` elsewhere); a run Dask gives up on is run once more
alone, and fails with a clear message (the sweep goes on) only if it kills its worker then
too, so runs that merely sat beside a crashing run are not blamed (:mod:`.cluster`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["KINDS", "ExecutorSpec", "checked_executor", "parse_executor"]

KINDS = ("local", "dask", "dask-local", "slurm", "pbs")
JOBQUEUE_KEYS = ("cores", "memory", "queue", "account", "walltime", "processes", "interface",
                 "job_extra", "skip", "jobs", "local_directory", "log_directory")  # fmt: skip
MOST_WORKERS = 4096


@dataclass(frozen=True)
class ExecutorSpec:
    """A parsed ``--executor`` (module doc)."""

    kind: str = "local"
    address: str | None = None
    workers: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    retries: int = 3

    @property
    def distributed(self) -> bool:
        return self.kind != "local"

    def __str__(self) -> str:
        if self.kind == "dask":
            return f"dask:{self.address}"
        if self.kind == "dask-local":
            return f"dask-local:{self.workers}"
        if self.kind in ("slurm", "pbs"):
            return f"{self.kind}:" + ",".join(f"{k}={v}" for k, v in self.options.items())
        return "local"


def parse_executor(text: str | None, where: str = "--executor") -> ExecutorSpec:
    """``local``, ``dask:ADDRESS``, ``dask-local:N``, ``slurm:k=v,...`` or ``pbs:k=v,...``."""
    if text is None:
        return ExecutorSpec()
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where} must be one of {', '.join(KINDS)} (with options), got {text!r}")
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    rest = rest.strip()
    if kind == "local":
        if rest:
            raise InputError(f"{where} local takes no options (use --jobs N), got {text!r}")
        return ExecutorSpec()
    if kind == "dask":
        if not rest:
            raise InputError(
                f"{where} dask needs a scheduler address: dask:tcp://HOST:8786 or "
                "dask:SCHEDULER_FILE.json"
            )
        return ExecutorSpec("dask", address=rest)
    if kind == "dask-local":
        try:
            n = int(rest or "2")
        except ValueError:
            raise InputError(
                f"{where} dask-local:N needs a whole number of workers, got {rest!r}"
            ) from None
        if not 1 <= n <= MOST_WORKERS:
            raise InputError(f"{where} dask-local:N needs 1 to {MOST_WORKERS} workers, got {n}")
        return ExecutorSpec("dask-local", workers=n)
    if kind in ("slurm", "pbs"):
        options: dict[str, Any] = {}
        for item in filter(None, (s.strip() for s in rest.split(","))):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq or not value.strip():
                raise InputError(f"{where} {kind}: expected key=value, got {item!r}")
            if key not in JOBQUEUE_KEYS:
                raise InputError(
                    f"{where} {kind}: unknown option {key!r} (known: {', '.join(JOBQUEUE_KEYS)})"
                )
            options[key] = value.strip()
        for key in ("cores", "processes", "jobs"):
            if key in options:
                try:
                    options[key] = int(options[key])
                except ValueError:
                    raise InputError(
                        f"{where} {kind}: {key} must be a whole number, got {options[key]!r}"
                    ) from None
                if not 1 <= options[key] <= MOST_WORKERS:
                    raise InputError(f"{where} {kind}: {key} must be 1 to {MOST_WORKERS}")
        if "cores" not in options or "memory" not in options:
            raise InputError(f"{where} {kind}: give at least cores=N and memory=SIZE (e.g. 4GB)")
        _check_batch_options(options, f"{where} {kind}")
        return ExecutorSpec(kind, options=options)
    raise InputError(f"{where} must be one of {', '.join(KINDS)}, got {text!r}")


def _check_batch_options(options: dict[str, Any], where: str) -> None:
    """The values a batch system would refuse later, checked now (one line each)."""
    import re

    from dask.utils import parse_bytes

    try:
        if parse_bytes(options["memory"]) <= 0:
            raise ValueError
    except (ValueError, TypeError):
        raise InputError(
            f"{where}: memory must be a size such as 4GB or 512MiB, got {options['memory']!r}"
        ) from None
    if options.get("processes", 1) > options["cores"]:
        raise InputError(
            f"{where}: processes ({options['processes']}) must be at most cores "
            f"({options['cores']}): each worker process takes a core"
        )
    walltime = options.get("walltime")
    if walltime is not None and not re.fullmatch(r"(\d+-)?\d+(:\d{1,2}){0,2}", walltime):
        raise InputError(
            f"{where}: walltime must be HH:MM:SS (or D-HH:MM:SS, MM), got {walltime!r}"
        )


def checked_executor(ck: Any, v: Any, path: str = "executor") -> ExecutorSpec:
    """A spec file's ``executor:`` value, checked (``FILE:LINE`` in the message;
    ``ck``: the spec's :class:`~coschedlab.schema.Checker`)."""
    try:
        return parse_executor(ck.string(v, path), f"'{path}'")
    except InputError as exc:
        if exc.where:
            raise
        raise ck.fail(exc.what, path) from None
