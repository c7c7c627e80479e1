"""The availability profile: free nodes as a step function of future time, and the one
reservation scan of backfilling.

One mechanism for every reservation-based policy (Mu'alem & Feitelson 2001; pybatsim's
``reservation_depth``): built from the running jobs' estimated ends, then each job in priority
order either starts now or takes its earliest slot that fits for its whole requested time
(:func:`reservation_scan`). EASY is one reservation, conservative backfilling is all of them,
Slurm's backfill pass (``_attempt_backfill``) is the first ``bf_max_job_test`` jobs, each
reserved. The scan works on a *space*: the profile itself (node counts) or
:class:`.nodemap.NodeMap` (which nodes, as a real Slurm's node-space map).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

INF = math.inf

__all__ = ["Profile", "Space", "reservation_scan"]


class Profile:
    """Free nodes over time: ``free[i]`` nodes during ``[times[i], times[i+1])``, last to inf."""

    __slots__ = ("times", "free")

    def __init__(self, now: float, free_now: int, releases: Iterable[tuple[float, int]]) -> None:
        """Start at ``now`` with ``free_now`` nodes; ``releases`` are sorted (time, nodes).

        A release at or before ``now`` (a job past its estimate) counts as released at ``now``.
        """
        times = [now]
        free = [free_now]
        for t, n in releases:
            if t <= now:
                free[0] += n
            elif t == times[-1]:
                free[-1] += n
            else:
                times.append(t)
                free.append(free[-1] + n)
        self.times = times
        self.free = free

    def earliest(self, need: int, duration: float) -> float:
        """Earliest breakpoint from which ``need`` nodes stay free for ``duration`` (inf:
        never)."""
        return self.test(need, duration)[0]

    def reserve(self, t: float, duration: float, need: int) -> None:
        """Take ``need`` nodes during ``[t, t + duration)`` (t is a breakpoint or later)."""
        self.hold(need, t, duration)

    # -- the :class:`Space` of :func:`reservation_scan` (``where``: a node count) -------------
    def test(self, need: int, duration: float) -> tuple[float, int]:
        """``(earliest(need, duration), need)``; at inf too (a slot there holds nothing)."""
        times, free = self.times, self.free
        n = len(times)
        i = 0
        while i < n:
            if free[i] < need:
                i += 1
                continue
            end = times[i] + duration
            k = i + 1
            while k < n and times[k] < end:
                if free[k] < need:
                    break
                k += 1
            else:
                return times[i], need
            i = k + 1
        return INF, need

    def hold(self, need: int, t: float, duration: float) -> None:
        """:meth:`reserve` in :class:`Space`'s argument order."""
        times, free = self.times, self.free
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            free.insert(i, free[i - 1])
        end = t + duration
        k = bisect_left(times, end, i)
        if k == len(times) or times[k] != end:
            times.insert(k, end)
            free.insert(k, free[k - 1])
        for m in range(i, k):
            free[m] -= need

    def start(self, need: int, order: int, duration: float) -> None:
        """Take ``need`` nodes from now (the profile's first breakpoint) for ``duration``."""
        self.hold(need, self.times[0], duration)

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in zip(self.times, self.free, strict=True))
        return f"Profile({steps})"


class Space(Protocol):
    """Where a backfill pass plans, as :func:`reservation_scan` uses it: :class:`Profile`
    (``where``: a node count) or a node map (``where``: node ids; the tests' Python
    ``BackfillMap``).
    ``where`` is falsy when a job gets no slot."""

    def test(self, need: int, limit: float) -> tuple[float, Any]:
        """``(t, where)``: the earliest start of a job of ``need`` nodes and ``limit`` seconds."""
        ...

    def start(self, where: Any, order: int, limit: float) -> None:
        """The job (``order``: its index) starts now on ``where``."""
        ...

    def hold(self, where: Any, start: float, limit: float) -> None:
        """The job holds ``where`` from ``start`` for ``limit`` seconds (a reservation)."""
        ...


def reservation_scan(
    space: Space,
    jobs: Iterable[int],
    nodes: Sequence[int],
    limit: Sequence[float],
    free: int,
    now: float,
    record: Callable[[int, float], None],
    reservations: int | None = None,
    while_full: bool = False,
    slots: dict[int, float] | None = None,
    places: list[Any] | None = None,
) -> list[int]:
    """Backfilling's reservation scan (Mu'alem & Feitelson 2001; Slurm's ``_attempt_backfill``).

    Each job ``j`` of ``jobs``, in priority order, holding ``nodes[j]`` nodes for ``limit[j]``
    seconds, starts now if its whole time fits from now on ``space`` and it fits in the
    ``free`` nodes; else it takes its earliest slot, while ``reservations`` remain (None: every
    job), and ``record(j, t)`` gets the slot's start. The scan stops when nothing is free,
    unless ``while_full`` (later jobs still take their slots while reservations remain).
    ``slots`` (compression) keeps each reserved job's slot, dropped when it starts. Returns
    the jobs to start now, in order (``places`` gets the ``where`` of each).
    """
    started: list[int] = []
    reserved = 0
    test, hold = space.test, space.hold
    for j in jobs:
        if free == 0 and not (while_full and (reservations is None or reserved < reservations)):
            break
        nj = nodes[j]
        d = limit[j]
        t, where = test(nj, d)
        if t <= now and where and nj <= free:
            space.start(where, j, d)
            free -= nj
            started.append(j)
            if places is not None:
                places.append(where)
            if slots is not None:
                slots.pop(j, None)
        elif where and (reservations is None or reserved < reservations):
            hold(where, t, d)
            reserved += 1
            if slots is not None:
                slots[j] = t
            record(j, t)
    return started
