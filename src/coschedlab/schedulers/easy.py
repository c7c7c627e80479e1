"""EASY backfilling's mechanism, once: the shadow time and the two backfill rules.

EASY (Lifka, "The ANL/IBM SP scheduling system", 1995; Mu'alem and Feitelson, "Utilization,
predictability, workloads, and user runtime estimates in scheduling the IBM SP2 with
backfilling", 2001), at a pass where the head job ``h`` does not fit:

1. the **shadow time** ``S``: walk the running jobs by estimated end (start + requested time,
   ``now`` when past) and give back what each frees, until ``h`` fits; ``extra`` = what is
   usable by ``h`` at ``S`` (every job ending at ``S`` counted) beyond its need;
2. a later job that fits now may start if (a) it ends by ``S``, or (b) what it would still hold
   at ``S`` is no more than ``extra`` (then ``extra`` shrinks by that).

What "usable by h" means is the only thing that differs between whole-node and co-location
scheduling, so it is a small **projection** protocol with two implementations:
:class:`NodeCounts` (idle whole nodes; a job holds its node count) and :class:`CoreCounts`
(nodes with at least the head's cores per node free, counted on a scratch copy of the shared
nodes; a job holds the nodes it would push below that). :func:`shadow_time` and :func:`admit`
are the mechanism; the whole-node scan (:class:`~.backfill.Backfill`) and the co-schedulers'
class-based scan (:mod:`coschedlab.coloc.schedulers`) are two ways of feeding it candidates.

:class:`ScanMemo` is the one "nothing changed since the last scan" test both scans use to skip
work: while the head, the number of jobs ended and the number started outside the scan stay the
same and no running job is past its estimate, every verdict of the last scan still holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from .rules import admit

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.placement import Placement
    from ..engine.view import View

INF = math.inf

__all__ = ["CoreCounts", "NodeCounts", "Projection", "ScanMemo", "admit", "shadow_time"]


class Projection(Protocol):
    """Resources usable by the head job, projected forward in time."""

    count: int  #: units usable by the head at the projected time (whole nodes)

    def release(self, j: int) -> int:
        """Give back what running (or just started) job ``j`` holds; the new ``count``."""
        ...

    def loss(self, decision: Any) -> int:
        """Units usable by the head that ``decision`` (a job starting now) still holds at S."""
        ...

    def take(self, decision: Any) -> None:
        """Commit :meth:`loss`: the job started."""
        ...


class NodeCounts:
    """Whole-node projection: idle nodes; job ``j`` holds ``nodes[j]``."""

    __slots__ = ("count", "nodes")

    def __init__(self, free: int, nodes: tuple[int, ...]) -> None:
        self.count = free
        self.nodes = nodes

    def release(self, j: int) -> int:
        self.count += self.nodes[j]
        return self.count

    def loss(self, j: int) -> int:
        return self.nodes[j]

    def take(self, j: int) -> None:
        self.count -= self.nodes[j]


class CoreCounts:
    """Per-core projection on shared nodes: nodes with at least ``threshold`` free cores."""

    __slots__ = ("proj", "machine")

    def __init__(self, view: View, threshold: int) -> None:
        self.machine = view.machine
        self.proj = view.machine.projection(threshold)

    @property
    def count(self) -> int:
        return self.proj.count

    def release(self, j: int) -> int:
        m = self.machine
        return self.proj.add(m.allocation(j), m.cores_of(j))

    def loss(self, p: Placement) -> int:
        return self.proj.loss(p.intervals, p.cores)

    def take(self, p: Placement) -> None:
        self.proj.add(p.intervals, -p.cores)


def shadow_time(
    view: View,
    need: int,
    proj: Projection,
    just_started: Iterable[tuple[float, int]] = (),
    at_an_end: bool = False,
) -> tuple[float, int]:
    """EASY's shadow time S and ``extra`` for a head job needing ``need`` units (step 1).

    Running jobs (``view.est_sorted``, plus ``just_started``: ``(estimated end, j)`` of jobs
    this pass started but the kernel has not applied yet) give back their units at their
    estimated ends, ``now`` when already past. ``proj`` is left projected at S.
    ``(inf, 0)`` when the head never fits.

    ``at_an_end``: S is a running job's estimated end even when the head fits now (the first
    end, then), as ELiSE's backfill computes it (``ranks.py``: the walk over the running jobs
    tests the head after each end). It matters only where a pass left a head that fits
    unstarted (Filler's deploy order); with nothing running S is then inf.
    """
    now = view.now
    count = proj.count
    found = now if count >= need and not at_an_end else INF
    items: Iterable[tuple[float, int]] = view.est_sorted
    if just_started:
        items = sorted([*view.est_sorted, *just_started])
    if type(proj) is NodeCounts:  # the same walk without a method call per job
        nodes = proj.nodes
        for est, j in items:
            if est < now:
                est = now
            if est > found:
                break
            count += nodes[j]
            if found == INF and count >= need:
                found = est
        proj.count = count
    else:
        release = proj.release
        for est, j in items:
            if est < now:
                est = now
            if est > found:
                break
            count = release(j)
            if found == INF and count >= need:
                found = est
    if found == INF:
        return INF, 0
    return found, count - need


class ScanMemo:
    """Whether the last backfill scan's verdicts still hold (one test for every scan).

    ``same(view, head, outside)`` is true when the head is the same job, no job ended and no
    job was started outside the scan (``outside``: the caller's count of such starts) since
    the last call and no running job is past its estimate. Then a job the last scan did not
    start still cannot start, and its shadow time and projection still hold. (It assumes
    that the queue and the nodes change only by arrivals, completions and the policy's own
    starts: the Python scans that use it run without a gate. The compiled EASY pass keys the
    same memo on the kernel's ``PassState.epoch`` as well, which a gate's changes bump.)
    """

    __slots__ = ("key", "enabled")

    def __init__(self, enabled: bool = True) -> None:
        self.key: tuple = ()
        self.enabled = enabled

    def same(self, view: View, head: int, outside: int = 0) -> bool:
        key = (head, view.completed, outside)
        est = view.est_sorted
        same = self.enabled and key == self.key and (not est or est[0][0] >= view.now)
        self.key = key
        return same
