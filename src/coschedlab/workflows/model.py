"""A workflow: tasks with cores, actual run time, requested time and dependencies.

Plain data (the model layer of the workflow capability). :class:`Workflow` checks itself when
made (duplicate or unknown task ids, cycles, impossible sizes: one :class:`InputError` naming
the file and the task) and derives what the WoAS paper tabulates (Rodrigo et al., HPDC'17,
Tables 1 and 2): the critical path, the as-soon-as-possible (ASAP) core profile, the pilot-job
geometry (its widest instant) and the potential waste of a pilot job.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import InputError

__all__ = ["Task", "TaskTimes", "Workflow", "kahn"]

MAX_SECONDS = 1e10  # beyond 317 years a time is a corrupt value
MAX_CORES = 2**31 - 1


def kahn(deps: Mapping[str, Iterable[str]]) -> tuple[list[str], dict[str, int]]:
    """Kahn's algorithm over ``deps`` (node -> the nodes it depends on), ties by the order of
    ``deps``: the nodes in a topological order, and how many parents each node still waits
    for (not 0: on a dependency cycle, or after one). The one topological sort of workflows:
    a workflow's task order, its cycle check and :func:`.formats.coarsen`'s."""
    rank = {k: i for i, k in enumerate(deps)}
    names = list(deps)
    left = {k: 0 for k in deps}
    children: dict[str, list[str]] = {k: [] for k in deps}
    for k, parents in deps.items():
        for p in dict.fromkeys(parents):
            children[p].append(k)
            left[k] += 1
    ready = [rank[k] for k, n in left.items() if n == 0]
    out: list[str] = []
    while ready:
        k = names[heapq.heappop(ready)]
        out.append(k)
        for c in children[k]:
            left[c] -= 1
            if left[c] == 0:
                heapq.heappush(ready, rank[c])
    return out, left


@dataclass(frozen=True, slots=True)
class Task:
    """One task job of a workflow: ``cores`` for ``runtime`` seconds (actual), ``limit``
    seconds requested (Slurm's time limit), after every task in ``deps`` has ended."""

    id: str
    cores: int
    runtime: float
    limit: float
    deps: tuple[str, ...] = ()
    #: the program or stage the task belongs to (a DAX job's ``name``); coarsening fuses by it
    stage: str = ""


@dataclass(frozen=True, slots=True)
class TaskTimes:
    """Start and end of every task in a schedule, by task id."""

    start: dict[str, float]
    end: dict[str, float]

    @property
    def makespan(self) -> float:
        return max(self.end.values(), default=0.0)


@dataclass(frozen=True)
class Workflow:
    """A DAG of :class:`Task` (``source`` names the file it came from, for error messages)."""

    name: str
    tasks: tuple[Task, ...]
    source: str | None = None
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    #: task ids in a topological order (Kahn's algorithm, ties by task order)
    order: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = self.source or f"workflow {self.name}"
        if not self.tasks:
            raise InputError(f"workflow {self.name} has no tasks", where)
        index: dict[str, int] = {}
        for k, t in enumerate(self.tasks):
            what = f"workflow {self.name}: task {t.id}"
            if t.id in index:
                raise InputError(f"{what} is defined twice", where)
            index[t.id] = k
            if (
                isinstance(t.cores, bool)
                or not isinstance(t.cores, int)
                or not 1 <= t.cores <= MAX_CORES
            ):
                raise InputError(f"{what} has cores {t.cores!r} (an integer from 1)", where)
            for name, v in (("runtime", t.runtime), ("time limit", t.limit)):
                if (
                    isinstance(v, bool)
                    or not isinstance(v, int | float)
                    or not (-MAX_SECONDS <= v <= MAX_SECONDS)  # no NaN, inf or corrupt size
                ):
                    shown = repr(v) if len(repr(v)) < 30 else repr(v)[:20] + "..."
                    raise InputError(
                        f"{what} has {name} {shown} (a number of seconds up to 1e10)", where
                    )
                if v < 0:
                    raise InputError(f"{what} has a negative {name} {v!r}", where)
            if t.limit <= 0:
                raise InputError(f"{what} has time limit {t.limit!r}; it must be > 0", where)
            if t.runtime > t.limit:
                raise InputError(
                    f"{what} runs {t.runtime:g} s, longer than its time limit {t.limit:g} s "
                    "(a batch system would kill it)",
                    where,
                )
        for t in self.tasks:
            for d in t.deps:
                if d not in index:
                    raise InputError(
                        f"workflow {self.name}: task {t.id} depends on unknown task {d!r}", where
                    )
                if d == t.id:
                    raise InputError(f"workflow {self.name}: task {t.id} depends on itself", where)
        object.__setattr__(self, "_index", index)
        order, left = kahn({t.id: t.deps for t in self.tasks})
        if len(order) < len(self.tasks):  # walk up from the first stuck task to its cycle
            path, tid = [], next(t.id for t in self.tasks if left[t.id])
            while tid not in path:
                path.append(tid)
                tid = next(d for d in self.task(tid).deps if left[d])
            cycle = [tid, *reversed(path[path.index(tid) :])]
            raise InputError(
                f"workflow {self.name}: tasks {' -> '.join(cycle)} form a dependency cycle", where
            )
        object.__setattr__(self, "order", tuple(order))

    # -- structure ------------------------------------------------------------------------------
    def task(self, task_id: str) -> Task:
        """The task named ``task_id``."""
        return self.tasks[self._index[task_id]]

    @cached_property
    def children(self) -> dict[str, tuple[str, ...]]:
        """Task id -> the tasks that depend on it (in task order)."""
        out: dict[str, list[str]] = {t.id: [] for t in self.tasks}
        for t in self.tasks:
            for d in t.deps:
                out[d].append(t.id)
        return {k: tuple(v) for k, v in out.items()}

    # -- schedules ------------------------------------------------------------------------------
    def asap(self, limits: bool = False) -> TaskTimes:
        """Every task as soon as its parents end, on unlimited cores (``limits``: durations are
        the time limits, else the actual run times)."""
        start: dict[str, float] = {}
        end: dict[str, float] = {}
        for tid in self.order:
            t = self.task(tid)
            s = max((end[d] for d in t.deps), default=0.0)
            start[tid] = s
            end[tid] = s + (t.limit if limits else t.runtime)
        return TaskTimes(start, end)

    def within(self, cores: int) -> TaskTimes:
        """The tasks run inside a pilot job of ``cores`` cores (actual run times): at every
        instant a task ends, the ready tasks start in topological order while they fit (a
        workflow engine's greedy list scheduling). With ``cores`` >= :attr:`max_cores` this is
        :meth:`asap`."""
        if cores < max(t.cores for t in self.tasks):
            raise InputError(f"workflow {self.name}: a pilot of {cores} cores is too small")
        rank = {tid: k for k, tid in enumerate(self.order)}
        left = {t.id: len(set(t.deps)) for t in self.tasks}
        ready = sorted((rank[k] for k, v in left.items() if v == 0))
        start: dict[str, float] = {}
        end: dict[str, float] = {}
        running: list[tuple[float, str]] = []
        free, now = cores, 0.0
        order, children = self.order, self.children
        while ready or running:
            waiting = []
            for r in ready:
                t = self.task(order[r])
                need = t.cores if t.runtime > 0 else 0  # an instant task holds no cores
                if need <= free:
                    free -= need
                    start[t.id], end[t.id] = now, now + t.runtime
                    heapq.heappush(running, (end[t.id], t.id))
                else:
                    waiting.append(r)
            ready = waiting
            now = running[0][0]
            while running and running[0][0] == now:
                tid = heapq.heappop(running)[1]
                if self.task(tid).runtime > 0:
                    free += self.task(tid).cores
                for c in dict.fromkeys(children[tid]):
                    left[c] -= 1
                    if left[c] == 0:
                        ready.append(rank[c])
            ready.sort()
        return TaskTimes(start, end)

    def profile(self, times: TaskTimes | None = None) -> list[tuple[float, int]]:
        """Cores in use as steps ``(time, cores from then on)`` for a schedule (default: ASAP
        with actual run times), ending with ``(makespan, 0)``."""
        times = times or self.asap()
        delta: dict[float, int] = {}
        for t in self.tasks:
            delta[times.start[t.id]] = delta.get(times.start[t.id], 0) + t.cores
            delta[times.end[t.id]] = delta.get(times.end[t.id], 0) - t.cores
        out: list[tuple[float, int]] = []
        level = 0
        for when in sorted(delta):
            level += delta[when]
            if out and out[-1][1] == level:
                continue
            out.append((when, level))
        return out

    # -- the seed's derived values (Tables 1 and 2) ----------------------------------------------
    @cached_property
    def critical_path(self) -> float:
        """Minimum runtime: the longest chain of actual run times (seconds)."""
        return self.asap().makespan

    @cached_property
    def critical_path_limit(self) -> float:
        """The longest chain of time limits: the pilot and WoAS job's time limit (seconds)."""
        return self.asap(limits=True).makespan

    @cached_property
    def critical_tasks(self) -> tuple[str, ...]:
        """The tasks of the critical path (actual run times), first to last."""
        times = self.asap()
        tid = max(self.order, key=lambda k: (times.end[k], -self._index[k]))
        path = [tid]
        while self.task(tid).deps:
            tid = max(self.task(tid).deps, key=lambda d: (times.end[d], -self._index[d]))
            path.append(tid)
        return tuple(reversed(path))

    @cached_property
    def max_cores(self) -> int:
        """The pilot job's width: the widest instant of the ASAP schedule, with actual run times
        or with time limits, whichever is wider (so the tasks always fit inside it), and at
        least the widest task."""
        return max(
            max(c for _, c in self.profile(self.asap())),
            max(c for _, c in self.profile(self.asap(limits=True))),
            max(t.cores for t in self.tasks),
        )

    @cached_property
    def usage(self) -> float:
        """Core-seconds the tasks use (actual run times)."""
        return float(sum(t.cores * t.runtime for t in self.tasks))

    @cached_property
    def usage_limit(self) -> float:
        """Core-seconds the tasks request (time limits)."""
        return float(sum(t.cores * t.limit for t in self.tasks))

    @cached_property
    def pilot_runtime(self) -> float:
        """How long a pilot job of :attr:`max_cores` cores runs its tasks (seconds)."""
        return self.within(self.max_cores).makespan

    @cached_property
    def potential_waste(self) -> float:
        """Core-seconds a pilot job holds idle: max cores x pilot runtime - usage."""
        return self.max_cores * self.pilot_runtime - self.usage

    @cached_property
    def potential_waste_limit(self) -> float:
        """The same with time limits: max cores x limit critical path - requested usage (the
        paper's Table 1, and its Table 2 for LongWide and WideLong)."""
        return self.max_cores * self.critical_path_limit - self.usage_limit

    def summary(self) -> dict[str, Any]:
        """The derived values in one flat dict (hours for times, core-hours for work)."""
        return {
            "name": self.name,
            "tasks": len(self.tasks),
            "critical_path_tasks": len(self.critical_tasks),
            "critical_path_h": self.critical_path / 3600,
            "critical_path_limit_h": self.critical_path_limit / 3600,
            "max_cores": self.max_cores,
            "usage_core_h": self.usage / 3600,
            "potential_waste_core_h": self.potential_waste / 3600,
            "usage_limit_core_h": self.usage_limit / 3600,
            "potential_waste_limit_core_h": self.potential_waste_limit / 3600,
        }

    # -- conversion ------------------------------------------------------------------------------
    def to_manifest(self) -> dict[str, Any]:
        """The workflow as the seed's JSON manifest (Fig. 4), with actual run times and limits."""
        return {
            "name": self.name,
            "tasks": [
                {
                    "id": t.id,
                    "cores": t.cores,
                    "runtime": t.runtime,
                    "runtime_limit": t.limit,
                    **({"deps": list(t.deps)} if t.deps else {}),
                }
                for t in self.tasks
            ],
        }

    @classmethod
    def build(
        cls,
        name: str,
        rows: Sequence[tuple[str, int, float, float, Sequence[str]]] | Mapping[str, Any],
        source: str | None = None,
    ) -> Workflow:
        """A workflow from ``(id, cores, runtime, limit, deps)`` rows."""
        tasks = tuple(Task(str(i), c, float(r), float(lim), tuple(d)) for i, c, r, lim, d in rows)
        return cls(name, tasks, source)
