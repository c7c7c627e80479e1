# distutils: language = c++
# cython: boundscheck=False, wraparound=False
"""Whole-node accounting: each job holds all the cores of ``ceil(procs / cores per node)``
nodes, best fit (:class:`~.nodepool.NodePool`).

One implementation of the :class:`~.accounting.NodeAccounting` interface (the other is
:class:`~.accounting.SharedCores`). Allocations are kept in a
:class:`~.jobintervals.JobIntervals` (32-bit node intervals in mapped blocks: million-job runs
stay small), as the shared-core accounting keeps them; the kernel calls :meth:`take_c` and
:meth:`release_c` without a Python call.
"""

from .jobintervals cimport JobIntervals

from .placement import normalize

__all__ = ["WholeNodes"]


cdef class WholeNodes:
    """Whole-node allocation of ``n_jobs`` jobs on ``cluster``."""

    shared = False  #: jobs never share a node

    def __init__(self, cluster, long n_jobs) -> None:
        self.pool = NodePool(cluster.nodes)
        self.cpn = cluster.cores_per_node
        self.idle = cluster.nodes
        self.ivs = JobIntervals(n_jobs)

    cdef int take_c(self, long j, long nodes) except -1:
        self.got.clear()
        self.pool.take_c(nodes, self.got)
        self.ivs.store_c(j, self.got.data(), self.got.size() // 2)
        self.idle -= nodes
        return 0

    cdef int take_iv_c(self, long j, const long* iv, long niv, long nodes) except -1:
        """Give job ``j`` the ``niv`` flat node intervals ``iv`` (sorted, disjoint): exactly
        its ``nodes`` nodes, all idle; a ValueError, and nothing taken, if they are not."""
        cdef long k, a, b, count = 0
        for k in range(niv):
            a, b = iv[2 * k], iv[2 * k + 1]
            if a < 0 or b > self.pool.n or a >= b or (k and a < iv[2 * k - 1]):
                raise ValueError(f"nodes {a}-{b - 1} are not among the machine's intervals")
            if not self.pool.holds_c(a, b):
                raise ValueError(f"nodes {a}-{b - 1} are not all idle")
            count += b - a
        if count != nodes:
            raise ValueError(f"names {count} nodes for a job of {nodes} whole nodes")
        for k in range(niv):
            self.pool.take_range_c(iv[2 * k], iv[2 * k + 1])
        self.ivs.store_c(j, iv, niv)
        self.idle = self.pool.free
        return 0

    cdef void release_c(self, long j) noexcept:
        cdef JobIntervals ivs = self.ivs
        cdef long o = ivs.off[j], i
        for i in range(o, o + 2 * ivs.cnt[j], 2):
            self.pool.give_range_c(ivs.at(i), ivs.at(i + 1))
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
        self.got.clear()
        for a, b in normalize(placement.intervals):
            self.got.push_back(a)
            self.got.push_back(b)
        self.take_iv_c(j, self.got.data(), self.got.size() // 2, nodes)

    def release(self, long j) -> None:
        """Job ``j`` ended: free its nodes."""
        self.release_c(j)

    def allocation(self, long j) -> list[tuple[int, int]]:
        """The node intervals job ``j`` holds (held, for a job that ended)."""
        return self.ivs.allocation(j)

    def cores_of(self, long j) -> int:
        """Cores per node job ``j`` holds: all of them."""
        return self.cpn

    def alloc_column(self, long n):
        """The ``alloc`` column of jobs ``0..n-1`` (:meth:`.JobIntervals.alloc_column`)."""
        return self.ivs.alloc_column(n)
