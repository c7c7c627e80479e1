"""A sweep's runs: a :class:`Task` is one run (a stable key, a top-level function and its
arguments: a run is a pure function of them), an :class:`Outcome` what it gave, a
:class:`Summary` what :func:`~.runner.run_tasks` did; :func:`call` runs one task, wherever."""

from __future__ import annotations

import os
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Callback", "Outcome", "Summary", "Task", "call", "check_valid"]


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


Callback = Callable[[Outcome], None]


def check_valid(result: Any) -> None:
    """A sweep's run that breaks an invariant is an error (the validator's first 20 lines)."""
    violations = result.validate()
    if violations:
        shown = "\n".join(violations[:20])
        raise RuntimeError(f"the schedule breaks {len(violations)} invariant(s):\n{shown}")
