"""The study manager: SimX's Task Queue, Resource Allocator and preemption rule (Section 3,
Tables 1-2, Sections 4.1-4.4), shared by the simulated and the real executor.

The manager owns the decisions; an executor owns time and the runs themselves. The executor
calls :meth:`Manager.starts` whenever something changed and makes the runs it is given,
reports each finished run with :meth:`Manager.finish`, and, when preemption is on, offers the
:meth:`Manager.spare` workers to running runs through :func:`beneficial`.

* **Task Queue.** The sampler's designs wait in issue order. Without batching, each run gets
  ``per_run`` processors as soon as that many are free (the seed's configurations O-B: "one
  simulation at a time to 32 processors"). With batching, a *batch* is chosen when the
  previous one has finished (the seed: "when all tasks in a batch are executed, a new batch
  is selected"): the first batch of the optimal split of the waiting runs
  (:func:`~coschedlab.studies.batching.optimal_batches`, smallest first), every run of it on
  the batch's ideal group size. With *reuse-class-first* (configuration D) a batch is first
  one waiting run of each reuse class that has no finished or running run, so that every
  later run has a result to reuse.
* **Resource Allocator.** Workers are numbered ``0..P-1``; a group is the lowest-numbered
  free workers, those no run has used yet first (so that no worker stays outside the
  idle-process database below for long; the seed does not say which workers a group gets); a
  preempted run keeps its workers and adds claimed ones of the idle-process database.
* **Reuse.** A run starts from the final state of the nearest finished run of its reuse class
  (:meth:`~coschedlab.studies.store.ResultStore.nearest`) when reuse is on.
* **Preemption** (configuration E). Workers are *spare* when the Task Queue cannot use them
  now (the batch is all issued, or nothing waits) and they are in the idle-process database:
  the workers of a run that finished and were not assigned a new one (the seed, Section 4.4:
  "Every time a process group finishes its simulation and is not assigned a new one, the
  information about its processors are written into the database"; workers no run has used
  yet are not in it). A running run that has done a fraction
  ``sigma`` of the work between its last checkpoint and the next moves to a larger group
  (the fastest tabulated count within its workers plus the spare ones) when
  ``alpha < 1 - sigma``, ``alpha`` the ratio of the time per timestep on the new group to
  that on the old by the scaling table (``alpha="scaling"``: "The scaling behavior can help
  decide when it is beneficial to preempt") or the old group size over the new
  (``"perfect-scaling"``: "i.e., assuming perfect scaling, alpha = original group size /
  expanded group size") (Section 4.4); it restarts from its last checkpoint and the work since is
  lost. Runs with the most work left are offered spare workers first.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import InputError
from .batching import ScalingTable, optimal_batches
from .sampling import ActiveParetoSampler, Design, DesignSpace, GridSampler, Sampler
from .store import ResultStore, StoredRun

__all__ = ["ALPHAS", "CONFIGS", "Config", "Manager", "Start", "beneficial", "config_of"]

#: how ``alpha`` is reckoned (module doc)
ALPHAS = ("scaling", "perfect-scaling")


@dataclass(frozen=True)
class Config:
    """Which pieces of application knowledge a study uses (the seed's Section 5)."""

    name: str
    sampler: str = "grid"  # "grid" or "active"
    reuse: bool = False
    batching: bool = False
    class_first: bool = False
    preempt: bool = False

    def describe(self) -> str:
        parts = ["active sampler" if self.sampler == "active" else "full grid"]
        parts += [n for n, on in (("reuse", self.reuse), ("optimal batching", self.batching),
                                  ("reuse class first", self.class_first),
                                  ("preemption", self.preempt)) if on]  # fmt: skip
        return ", ".join(parts)


#: The seed's configurations: O brute force; A active sampler; B + reuse; C + optimal
#: batching; D + reuse class first; E + preemption.
CONFIGS: dict[str, Config] = {
    "O": Config("O"),
    "A": Config("A", "active"),
    "B": Config("B", "active", reuse=True),
    "C": Config("C", "active", reuse=True, batching=True),
    "D": Config("D", "active", reuse=True, batching=True, class_first=True),
    "E": Config("E", "active", reuse=True, batching=True, class_first=True, preempt=True),
}


def config_of(name: str) -> Config:
    """A named configuration (O, A-E), case-insensitive."""
    try:
        return CONFIGS[name.upper()]
    except KeyError:
        raise InputError(f"unknown configuration {name!r}; known: {', '.join(CONFIGS)}") from None


def beneficial(alpha: float, sigma: float) -> bool:
    """SimX's preemption rule (Section 4.4): move to the larger group now when
    ``alpha < 1 - sigma`` (``alpha``: new over old time per timestep; ``sigma``: the
    fraction of the current checkpoint interval done)."""
    return alpha < 1.0 - sigma


@dataclass(frozen=True)
class Start:
    """Run ``run`` (issue number) of design ``design`` on ``workers``, from the final state of
    ``source`` (a finished design of the same reuse class) or from scratch (None); ``batch``
    numbers the batch it belongs to (0 without batching)."""

    run: int
    design: Design
    workers: tuple[int, ...]
    source: Design | None
    batch: int


@dataclass
class _Running:
    design: Design
    workers: list[int]
    batch: int


@dataclass
class Manager:
    """The decisions of one study (module doc)."""

    space: DesignSpace
    config: Config
    scaling: ScalingTable
    procs: int
    per_run: int
    store: ResultStore
    step: int = 2  # the active sampler's coarse step
    barrier: bool = True  # a new batch only when the previous one has finished
    alpha: str = "scaling"  # how the preemption rule's alpha is reckoned (module doc)
    sampler: Sampler = field(init=False)
    queue: deque = field(init=False, default_factory=deque)
    unused: deque = field(init=False)  # free workers no run has used yet, ascending
    idle: list[int] = field(init=False, default_factory=list)  # the idle-process database (heap)
    running: dict[int, _Running] = field(init=False, default_factory=dict)
    issued: int = field(init=False, default=0)
    batches: int = field(init=False, default=0)
    _batch: deque = field(init=False, default_factory=deque)  # this batch's runs not started
    _group: int = field(init=False, default=0)
    _asked: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.scaling.group(1, self.procs) is None:
            raise InputError(
                f"no tabulated processor count fits the study's {self.procs} processors "
                f"(smallest: {self.scaling.seconds[0][0]})"
            )
        if self.per_run not in dict(self.scaling.seconds) or self.per_run > self.procs:
            raise InputError(
                f"processors per run ({self.per_run}) must be a tabulated count of the "
                f"scaling table and at most the study's {self.procs}"
            )
        if self.alpha not in ALPHAS:
            raise InputError(f"alpha must be one of {', '.join(ALPHAS)}, got {self.alpha!r}")
        self.sampler = (
            ActiveParetoSampler(self.space, step=self.step)
            if self.config.sampler == "active"
            else GridSampler(self.space)
        )
        self.unused = deque(range(self.procs))

    # -- the sampler ------------------------------------------------------------------------
    def _refill(self) -> None:
        """Ask the sampler for more designs (it answers [] while it waits for results);
        designs already finished (a resumed study) are not queued again."""
        results = self.store.results()
        while True:
            new = self.sampler.next(results)
            if not new:
                return
            fresh = [d for d in new if d not in self.store]
            self.queue.extend(fresh)
            if fresh:
                return

    def done(self) -> bool:
        """True when nothing runs, nothing waits and the sampler has nothing more."""
        if self.running or self.queue or self._batch:
            return False
        self._refill()
        return not self.queue

    # -- the task queue and the allocator ---------------------------------------------------
    def free(self) -> int:
        """How many workers run nothing."""
        return len(self.unused) + len(self.idle)

    def _take(self, g: int, idle_only: bool = False) -> tuple[int, ...]:
        """``g`` free workers: those no run has used yet first (not with ``idle_only``),
        then the lowest-numbered of the idle database, which they leave (module doc)."""
        n = 0 if idle_only else min(g, len(self.unused))
        taken = [self.unused.popleft() for _ in range(n)]
        taken += [heapq.heappop(self.idle) for _ in range(g - n)]
        return tuple(taken)

    def _source(self, d: Design) -> Design | None:
        return self.store.nearest(d) if self.config.reuse else None

    def _launch(self, d: Design, g: int, batch: int) -> Start:
        s = Start(self.issued, d, self._take(g), self._source(d), batch)
        self.running[s.run] = _Running(d, list(s.workers), batch)
        self.issued += 1
        return s

    def _class_firsts(self) -> list[Design]:
        busy = {self.store.reuse_class(r.design) for r in self.running.values()}
        seen, firsts = set(), []
        for d in self.queue:
            c = self.store.reuse_class(d)
            if c in seen or c in busy or self.store.class_done(d):
                continue
            seen.add(c)
            firsts.append(d)
        return firsts

    def _new_batch(self) -> None:
        kmax = self.procs // self.scaling.seconds[0][0]
        firsts = self._class_firsts() if self.config.class_first else []
        if firsts:
            chosen = firsts[:kmax]
            picked = set(chosen)
            rest = [d for d in self.queue if d not in picked]
            self.queue = deque(rest)
        else:
            k = optimal_batches(len(self.queue), self.scaling, self.procs).sizes[0]
            chosen = [self.queue.popleft() for _ in range(k)]
        self._batch = deque(chosen)
        self._group = self.scaling.group(len(chosen), self.procs) or 0
        self.batches += 1

    def starts(self) -> list[Start]:
        """The runs to start now (workers are taken); call after every change."""
        if not self._asked:
            self._asked = True
            self._refill()
        out: list[Start] = []
        if not self.config.batching:
            while self.queue and self.free() >= self.per_run:
                out.append(self._launch(self.queue.popleft(), self.per_run, 0))
            return out
        if not self._batch and (not self.running or not self.barrier) and self.queue:
            self._new_batch()
        while self._batch and self.free() >= self._group:
            out.append(self._launch(self._batch.popleft(), self._group, self.batches))
        return out

    def finish(self, run: int, objectives: Iterable[float], steps: int,
               checkpoint: str | None = None, record: dict | None = None,
               commit: bool = True) -> None:  # fmt: skip
        """Record finished run ``run`` (its workers become free) and ask the sampler."""
        r = self.running.pop(run)
        for w in r.workers:  # into the idle-process database
            heapq.heappush(self.idle, w)
        self.store.add(
            StoredRun(r.design, tuple(float(v) for v in objectives), int(steps), checkpoint,
                      record or {}),
            commit=commit,
        )  # fmt: skip
        self._refill()

    # -- preemption ---------------------------------------------------------------------------
    def spare(self) -> int:
        """Workers of the idle database the Task Queue cannot use now (module doc)."""
        if not self.idle:
            return 0
        if self.config.batching:
            usable = bool(self._batch) or (
                (not self.running or not self.barrier) and bool(self.queue)
            )
        else:
            usable = bool(self.queue)
        return 0 if usable else len(self.idle)

    def expansion(self, run: int, spare: int) -> int | None:
        """The larger group run ``run`` could move to with ``spare`` more workers: the
        tabulated count within them that runs a timestep fastest (None when none is larger)."""
        g = len(self.running[run].workers)
        larger = [(t, p) for p, t in self.scaling.seconds if g < p <= g + spare]
        return min(larger)[1] if larger else None

    def speedup_ratio(self, run: int, size: int) -> float:
        """The preemption rule's ``alpha`` for moving run ``run`` to ``size`` workers
        (module doc)."""
        g = len(self.running[run].workers)
        if self.alpha == "perfect-scaling":
            return g / size
        return self.scaling.time(size) / self.scaling.time(g)

    def expand(self, run: int, size: int) -> tuple[int, ...]:
        """Give run ``run`` spare workers up to ``size``; its whole new group is returned."""
        r = self.running[run]
        r.workers.extend(self._take(size - len(r.workers), idle_only=True))
        return tuple(r.workers)

    def workers(self, run: int) -> tuple[int, ...]:
        return tuple(self.running[run].workers)
