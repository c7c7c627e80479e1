"""Per-node core accounting as *segments* in plain Python: the oracle of the compiled
:mod:`coschedlab.engine.segments` (which replaced this code in the package; the tests compare
the two operation by operation, ``test_compiled_coloc.py``).

:class:`SharedNodes` keeps the machine as maximal runs of nodes holding the same jobs;
:class:`CoreProjection` is a scratch copy of it for look-ahead questions (EASY's shadow time on
shared nodes).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

import numpy as np

from coschedlab.engine.placement import Placement, normalize
from coschedlab.intervals import Intervals

__all__ = ["CoreProjection", "SharedNodes"]


class SharedNodes:
    """Per-node core accounting, so that several jobs can share a node (co-location).

    The machine is kept as *segments*: maximal runs of consecutive nodes with the same set of
    jobs on them (so the same free cores). Segment ``i`` starts at node ``starts[i]`` and ends
    where the next one starts; ``seg_free[i]`` free cores on each of its nodes, ``seg_jobs[i]``
    the jobs on them. Jobs take runs of nodes, so a machine of thousands of nodes holds a few
    hundred segments at most, and placing, releasing or checking a job costs
    O(log segments + segments touched) in plain Python, like the whole-node ``NodePool``.
    Every running job's node intervals are unions of whole segments. The jobs beside each
    running job are kept as a set (``neighbours_of``), updated as jobs are placed and released.
    """

    __slots__ = ("n", "cpn", "starts", "seg_free", "seg_jobs", "nodes_by_free", "n_idle",
                 "total_free", "adj", "_left", "changes", "_runs")  # fmt: skip

    def __init__(self, nodes: int, cores_per_node: int) -> None:
        self.n = nodes
        self.cpn = cores_per_node
        self.starts: list[int] = [0] if nodes else []
        self.seg_free: list[int] = [cores_per_node] if nodes else []
        self.seg_jobs: list[tuple[int, ...]] = [()] if nodes else []
        # nodes_by_free[f]: how many nodes have exactly f free cores
        self.nodes_by_free = [0] * (cores_per_node + 1)
        self.nodes_by_free[cores_per_node] = nodes
        self.n_idle = nodes
        self.total_free = nodes * cores_per_node
        self.adj: dict[int, set[int]] = {}  # running job -> the jobs beside it
        self._left: tuple[int, set[int]] = (-1, set())
        self.changes = 0  # places and releases so far
        self._runs: tuple = ((), [])

    # -- queries ----------------------------------------------------------------------------
    def _seg(self, node: int) -> int:
        return bisect_right(self.starts, node) - 1

    def free_cores(self, node: int) -> int:
        """Free cores on ``node``."""
        return self.seg_free[self._seg(node)]

    def occupants(self, node: int) -> list[int]:
        """The jobs on ``node``."""
        return list(self.seg_jobs[self._seg(node)])

    @property
    def free(self) -> np.ndarray:
        """Free cores of every node (a new array)."""
        lengths = [b - a for a, b, _, _ in self.segments()]
        return np.repeat(np.asarray(self.seg_free, dtype=np.int64), lengths)

    def segments(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """Every segment as ``(first node, end node, free cores, jobs)``."""
        ends = self.starts[1:] + [self.n]
        return list(zip(self.starts, ends, self.seg_free, self.seg_jobs, strict=True))

    def count_with(self, cores: int) -> int:
        """Nodes (idle or partly used) with at least ``cores`` free cores."""
        return sum(self.nodes_by_free[max(cores, 0) :])

    def room(self) -> list[int]:
        """``room()[c]`` = ``count_with(c)`` for every c from 0 to the cores per node."""
        return list(accumulate(reversed(self.nodes_by_free)))[::-1]

    def partly_free(self, cores: int, limit: int | None = None) -> list[tuple[int, int, tuple]]:
        """Runs of partly used nodes with at least ``cores`` free cores, by node id, as
        ``(first, end, jobs)``; stops once ``limit`` nodes are listed. The whole list (no
        limit) is kept until the next change: treat it as read only."""
        if limit is None:
            key = (self.changes, cores)
            if self._runs[0] == key:
                return self._runs[1]
            runs = self._partly_free(cores, None)
            self._runs = (key, runs)
            return runs
        return self._partly_free(cores, limit)

    def _partly_free(self, cores: int, limit: int | None) -> list[tuple[int, int, tuple]]:
        cpn = self.cpn
        by_free = self.nodes_by_free
        if not any(by_free[max(cores, 0) : cpn]):
            return []
        starts, free, jobs = self.starts, self.seg_free, self.seg_jobs
        n, m = self.n, len(starts)
        out: list[tuple[int, int, tuple]] = []
        got = 0
        values = [f for f in range(max(cores, 0), cpn) if by_free[f]]
        if len(values) == 1:  # the usual case (e.g. spread: half-free nodes): C-speed scan
            f = values[0]
            i = -1
            try:
                while limit is None or got < limit:
                    i = free.index(f, i + 1)
                    b = starts[i + 1] if i + 1 < m else n
                    out.append((starts[i], b, jobs[i]))
                    got += b - starts[i]
            except ValueError:
                pass
            return out
        for i in range(m):
            if cores <= free[i] < cpn:
                b = starts[i + 1] if i + 1 < m else n
                out.append((starts[i], b, jobs[i]))
                got += b - starts[i]
                if limit is not None and got >= limit:
                    break
        return out

    def free_runs(self, cores: int) -> list[tuple[int, int, tuple]]:
        """Runs of nodes (idle or partly used) with at least ``cores`` free cores, by node id,
        as ``(first, end, jobs)`` (``jobs`` is ``()`` on idle nodes)."""
        starts, free, jobs = self.starts, self.seg_free, self.seg_jobs
        n, m = self.n, len(starts)
        return [
            (starts[i], starts[i + 1] if i + 1 < m else n, jobs[i])
            for i in range(m)
            if free[i] >= cores
        ]

    def idle_intervals(self, k: int) -> Intervals:
        """The ``k`` lowest idle nodes, as intervals (without taking them)."""
        if k > self.n_idle:
            raise ValueError(f"asked for {k} idle nodes, {self.n_idle} idle")
        starts, free = self.starts, self.seg_free
        n, m, cpn = self.n, len(starts), self.cpn
        out: Intervals = []
        i = -1
        while k > 0:
            i = free.index(cpn, i + 1)
            a = starts[i]
            b = starts[i + 1] if i + 1 < m else n
            if b - a > k:
                b = a + k
            out.append((a, b))
            k -= b - a
        return out

    def check(self, p: Placement) -> str | None:
        """Why placement ``p`` is impossible now, or None if it fits."""
        iv = normalize(p.intervals)
        if iv is None:
            return "uses a node twice"
        p._iv = iv  # the same nodes, sorted and merged: what claim() places
        if not 0 < p.cores <= self.cpn:
            return f"asks for {p.cores} cores per node on {self.cpn}-core nodes"
        if iv and (iv[0][0] < 0 or iv[-1][1] > self.n):
            return "uses a node that does not exist"
        starts, free = self.starts, self.seg_free
        m = len(starts)
        c = p.cores
        for a, b in iv:
            i = bisect_right(starts, a) - 1
            while i < m and starts[i] < b:
                if free[i] < c:
                    node = max(a, starts[i])
                    return f"needs {c} cores on node {node}, which has {free[i]} free"
                i += 1
        return None

    # -- changes ----------------------------------------------------------------------------
    def place(self, j: int, intervals: Intervals, cores: int) -> None:
        """Put job ``j`` on ``intervals`` (sorted, disjoint, not touching) with ``cores`` cores
        on each node; the caller checked they fit."""
        starts, free, jobs, by_free = self.starts, self.seg_free, self.seg_jobs, self.nodes_by_free
        n, cpn = self.n, self.cpn
        total = 0
        nb: set[int] = set()
        i = 0
        for a, b in intervals:
            i = bisect_right(starts, a, i) - 1
            if starts[i] != a:  # split: the run now starts at a
                i += 1
                starts.insert(i, a)
                free.insert(i, free[i - 1])
                jobs.insert(i, jobs[i - 1])
            m = len(starts)
            e = a
            while e < b:
                e = starts[i + 1] if i + 1 < m else n
                if e > b:  # split: the run ends at b
                    starts.insert(i + 1, b)
                    free.insert(i + 1, free[i])
                    jobs.insert(i + 1, jobs[i])
                    m += 1
                    e = b
                length = e - starts[i]
                f = free[i]
                if f == cpn:
                    self.n_idle -= length
                by_free[f] -= length
                by_free[f - cores] += length
                free[i] = f - cores
                held = jobs[i]
                if held:
                    nb.update(held)
                jobs[i] = held + (j,)
                total += length
                i += 1
        self.total_free -= total * cores
        self.changes += 1
        adj = self.adj
        for k in nb:
            adj[k].add(j)
        adj[j] = nb

    def release(self, j: int, intervals: Intervals, cores: int) -> None:
        """Give back the cores job ``j`` held on ``intervals`` (as given to :meth:`place`)."""
        starts, free, jobs, by_free = self.starts, self.seg_free, self.seg_jobs, self.nodes_by_free
        n, cpn = self.n, self.cpn
        total = 0
        i = 0
        for a, b in intervals:
            first = i = bisect_right(starts, a, i) - 1
            m = len(starts)
            while i < m and starts[i] < b:
                e = starts[i + 1] if i + 1 < m else n
                length = e - starts[i]
                f = free[i] + cores
                by_free[f - cores] -= length
                by_free[f] += length
                if f == cpn:
                    self.n_idle += length
                free[i] = f
                held = jobs[i]
                if len(held) == 1:
                    jobs[i] = ()
                elif len(held) == 2:
                    jobs[i] = (held[1],) if held[0] == j else (held[0],)
                else:
                    jobs[i] = tuple(x for x in held if x != j)
                total += length
                i += 1
            # only the outer boundaries can join: inside, the job sets differed before
            if i < m and free[i] == free[i - 1]:
                i -= self._merge(i)
            if first and free[first] == free[first - 1]:
                i -= self._merge(first)
        self.total_free += total * cores
        self.changes += 1
        nb = self.adj.pop(j)
        for k in nb:
            self.adj[k].discard(j)
        self._left = (j, nb)

    def neighbours_of(self, j: int) -> set[int]:
        """The jobs beside running job ``j`` (on any of its nodes), kept up to date as jobs
        start and end; for the job released last, the jobs that were beside it. Read only."""
        nb = self.adj.get(j)
        if nb is None:
            last, nb = self._left
            if last != j:
                raise KeyError(f"job {j} is not running")
        return nb

    def _merge(self, i: int) -> int:
        """Join segment ``i`` to segment ``i - 1`` if they hold the same jobs (returns 1)."""
        if i <= 0 or i >= len(self.starts):
            return 0
        free, jobs = self.seg_free, self.seg_jobs
        x, y = jobs[i - 1], jobs[i]
        if free[i - 1] != free[i] or len(x) != len(y):
            return 0
        if x != y and sorted(x) != sorted(y):
            return 0
        del self.starts[i], free[i], jobs[i]
        return 1

    def claim(self, p: Placement) -> Intervals:
        """Apply placement ``p`` (checked); returns its nodes as sorted intervals."""
        iv = normalize(p.intervals)
        self.place(p.job, iv, p.cores)
        return iv

    def projection(self, threshold: int) -> CoreProjection:
        """A scratch copy of the free cores per segment, for looking ahead (shadow times),
        counting the nodes with at least ``threshold`` free cores."""
        return CoreProjection(self, threshold)


class CoreProjection:
    """Free cores per node as they would be, for what-if questions (EASY's shadow time on
    shared nodes): add or remove cores on node intervals and count the nodes that have at
    least ``threshold`` free (``count``). A copy of the segments of :class:`SharedNodes`,
    split further where needed; it never changes the real accounting."""

    __slots__ = ("n", "starts", "free", "threshold", "count")

    def __init__(self, sh: SharedNodes, threshold: int) -> None:
        self.n = sh.n
        self.starts = list(sh.starts)
        self.free = list(sh.seg_free)
        self.threshold = threshold
        self.count = sh.count_with(threshold)

    def loss(self, intervals: Intervals, cores: int) -> int:
        """How many nodes would drop below the watched free cores if ``cores`` were taken on
        every node of ``intervals`` (read only: nothing is split or changed)."""
        starts, free = self.starts, self.free
        n, thr = self.n, self.threshold
        m = len(starts)
        lost = 0
        for a, b in intervals:
            i = bisect_right(starts, a) - 1
            while i < m and starts[i] < b:
                f = free[i]
                if f >= thr > f - cores:
                    e = starts[i + 1] if i + 1 < m else n
                    lost += min(b, e) - max(a, starts[i])
                i += 1
        return lost

    def add(self, intervals: Intervals, cores: int) -> int:
        """Add ``cores`` free cores (negative: take them) on every node of ``intervals``;
        returns the new count of nodes with at least the watched free cores."""
        starts, free = self.starts, self.free
        n, thr = self.n, self.threshold
        count = self.count
        i = 0
        for a, b in sorted(intervals):
            i = bisect_right(starts, a, i) - 1
            if starts[i] != a:
                i += 1
                starts.insert(i, a)
                free.insert(i, free[i - 1])
            m = len(starts)
            e = a
            while e < b:
                e = starts[i + 1] if i + 1 < m else n
                if e > b:
                    starts.insert(i + 1, b)
                    free.insert(i + 1, free[i])
                    m += 1
                    e = b
                f = free[i]
                g = f + cores
                free[i] = g
                if (f >= thr) != (g >= thr):
                    count += (e - starts[i]) if g >= thr else starts[i] - e
                i += 1
        self.count = count
        return count
