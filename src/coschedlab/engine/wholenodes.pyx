# distutils: language = c++
"""Whole-node accounting: each job holds all the cores of ``ceil(procs / cores per node)``
nodes, best fit (:class:`~.nodepool.NodePool`).

One implementation of the :class:`~.accounting.NodeAccounting` interface (the other is
:class:`~.accounting.SharedCores`). Allocations are one flat C array of node intervals (a few
bytes per job, so million-job runs stay small); the kernel calls :meth:`take_c` and
:meth:`release_c` without a Python call.
"""

from libc.stdint cimport int32_t

import numpy as np

from ..intervals import AllocColumn
from .placement import normalize

__all__ = ["WholeNodes"]


cdef class WholeNodes:
    """Whole-node allocation of ``n_jobs`` jobs on ``cluster``."""

    shared = False  #: jobs never share a node

    def __init__(self, cluster, long n_jobs) -> None:
        self.pool = NodePool(cluster.nodes)
        self.cpn = cluster.cores_per_node
        self.idle = cluster.nodes
        self.off.assign(n_jobs, 0)
        self.cnt.assign(n_jobs, 0)

    cdef int take_c(self, long j, long nodes) except -1:
        self.off[j] = self.flat.size()
        self.cnt[j] = self.pool.take_c(nodes, self.flat)
        self.idle -= nodes
        return 0

    cdef void release_c(self, long j) noexcept:
        cdef long o = self.off[j], i
        for i in range(o, o + 2 * self.cnt[j], 2):
            self.pool.give_range_c(self.flat[i], self.flat[i + 1])
        self.idle = self.pool.free

    def check(self, long j, placement, long procs) -> str | None:
        """Why ``placement`` is impossible now, or None: a whole-node placement names exactly
        the job's nodes, all idle (``placement.cores`` is ignored)."""
        where = normalize(placement.intervals)
        if where is None:
            return "names a node twice"
        need = -(-procs // self.cpn)
        count = sum(b - a for a, b in where)
        if count != need:
            return f"names {count} nodes for a job of {need} whole nodes"
        for a, b in where:
            if a < 0 or not self.pool.holds_c(a, b):
                return f"nodes {a}-{b - 1} are not all idle"
        return None

    def take(self, long j, long nodes, placement) -> None:
        """Give job ``j`` its nodes: ``nodes`` whole idle nodes, or ``placement`` (checked)."""
        if placement is None:
            self.take_c(j, nodes)
            return
        where = normalize(placement.intervals)
        self.off[j] = self.flat.size()
        for a, b in where:
            self.pool.take_range_c(a, b)
            self.flat.push_back(a)
            self.flat.push_back(b)
        self.cnt[j] = len(where)
        self.idle = self.pool.free

    def release(self, long j) -> None:
        """Job ``j`` ended: free its nodes."""
        self.release_c(j)

    def allocation(self, long j) -> list[tuple[int, int]]:
        """The node intervals job ``j`` holds (held, for a job that ended)."""
        cdef long o = self.off[j], i
        return [(self.flat[i], self.flat[i + 1]) for i in range(o, o + 2 * self.cnt[j], 2)]

    def cores_of(self, long j) -> int:
        """Cores per node job ``j`` holds: all of them."""
        return self.cpn

    def alloc_column(self, long n):
        """The ``alloc`` column of jobs ``0..n-1`` (:class:`~coschedlab.intervals.AllocColumn`:
        their intervals, copied out as 32-bit node ids; no text made until written)."""
        cdef long j, k, m = 0
        for j in range(n):
            m += 2 * self.cnt[j]
        cnt = np.empty(n, dtype=np.int32)
        flat = np.empty(m, dtype=np.int32)
        cdef int32_t[::1] c = cnt
        cdef int32_t[::1] f = flat
        m = 0
        for j in range(n):  # packed in job order
            c[j] = self.cnt[j]
            for k in range(self.off[j], self.off[j] + 2 * self.cnt[j]):
                f[m] = <int32_t>self.flat[k]
                m += 1
        return AllocColumn(cnt, flat)
