"""Which nodes are busy when: the node-level availability map of a backfill pass.

:class:`.profile.Profile` counts free nodes over time; :class:`NodeSpace` also knows *which*
nodes, as Slurm's backfill node-space map does (``backfill.c``: a list of time slices, each with
a bitmap of available nodes). A reservation then holds specific nodes, so a job that fits the
node *count* of a future slot can still be refused because the nodes it could use now are
promised to a higher-priority job. Same two operations as the profile: :meth:`earliest` and
:meth:`reserve`; nodes are chosen as select/linear chooses them (:func:`best_fit`). The cost grows
with nodes x busy intervals: meant for machines of up to a few hundred nodes.
"""

from __future__ import annotations

import math
from bisect import insort

__all__ = ["NodeSpace", "best_fit"]

INF = math.inf


def best_fit(avail: list[int], need: int) -> list[int]:
    """select/linear's choice among the sorted node ids ``avail``: the smallest run of
    consecutive ids that holds the rest of the job (lowest ids among equals; the lowest ids of
    it), else the longest run whole (lowest ids among equals), until ``need`` nodes are taken
    (the kernel's default placement follows the same rule, :class:`~..engine.nodepool.NodePool`)."""
    runs: list[list[int]] = []
    for node in avail:
        if runs and runs[-1][-1] == node - 1:
            runs[-1].append(node)
        else:
            runs.append([node])
    out: list[int] = []
    while need > 0 and runs:
        fits = [r for r in runs if len(r) >= need]
        if fits:
            run = min(fits, key=len)
            out += run[:need]
            break
        run = max(runs, key=len)
        runs.remove(run)
        out += run
        need -= len(run)
    return sorted(out)


class NodeSpace:
    """Busy intervals ``[start, end)`` per node, from ``now`` on."""

    __slots__ = ("now", "busy")

    def __init__(self, now: float, n_nodes: int) -> None:
        self.now = now
        self.busy: list[list[tuple[float, float]]] = [[] for _ in range(n_nodes)]

    def hold(self, node: int, start: float, end: float) -> None:
        """Mark ``node`` busy during ``[start, end)`` (a running job: start = now)."""
        if end > start:
            insort(self.busy[node], (start, end))

    def _free(self, node: int, t: float, end: float) -> bool:
        # a busy interval that begins exactly at ``end`` still counts (Slurm's mask takes every
        # record with begin <= end)
        for s, e in self.busy[node]:
            if s > end:
                return True
            if e > t:
                return False
        return True

    def earliest(self, need: int, duration: float, window: float = INF) -> tuple[float, list[int]]:
        """The earliest time ``t`` (now or the end of a busy interval, up to ``window``) at
        which ``need`` nodes are free during ``[t, t + duration)``, and the lowest-index such
        nodes; ``(inf, [])`` if none."""
        duration = max(duration, 1e-6)
        times = sorted({self.now, *(e for b in self.busy for _, e in b if e > self.now)})
        for t in times:
            if t > window:
                break
            end = t + duration
            avail = [node for node in range(len(self.busy)) if self._free(node, t, end)]
            if len(avail) >= need:
                return t, best_fit(avail, need)
        return INF, []

    def reserve(self, nodes: list[int], start: float, duration: float) -> None:
        """Hold ``nodes`` during ``[start, start + duration)``."""
        end = start + max(duration, 1e-6)
        for node in nodes:
            insort(self.busy[node], (start, end))
