# distutils: language = c++
# cython: boundscheck=False, wraparound=False
"""Whole-node accounting: each job holds all the cores of ``ceil(procs / cores per node)``
nodes, best fit (:class:`~.nodepool.NodePool`).

One implementation of the :class:`~.accounting.NodeAccounting` interface (the other is
:class:`~.accounting.SharedCores`). Allocations are node intervals of 32-bit ids written one
after the other in mapped blocks of 1 MiB (8 bytes per interval plus 12 per job; nothing copied
as a run grows, only the pages written count: million-job runs stay small); the kernel calls :meth:`take_c` and :meth:`release_c`
without a Python call.
"""

from libc.stdint cimport int32_t
from posix.mman cimport (
    MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE, mmap, munmap,
)

import numpy as np

from ..intervals import AllocColumn
from .placement import normalize

__all__ = ["WholeNodes"]

cdef enum:
    BLOCK_BITS = 18  # 262,144 ints (1 MiB) per block; an even size: an interval never straddles
    BLOCK = 1 << BLOCK_BITS


cdef class WholeNodes:
    """Whole-node allocation of ``n_jobs`` jobs on ``cluster``."""

    shared = False  #: jobs never share a node

    def __init__(self, cluster, long n_jobs) -> None:
        self.pool = NodePool(cluster.nodes)
        self.cpn = cluster.cores_per_node
        self.idle = cluster.nodes
        self.used = 0
        self.off.assign(n_jobs, 0)
        self.cnt.assign(n_jobs, 0)

    def __dealloc__(self):
        cdef long k
        for k in range(<long>self.blocks.size()):
            munmap(self.blocks[k], BLOCK * sizeof(int32_t))

    cdef int _put(self, long a, long b) except -1:
        """Write the interval ``[a, b)`` after the last one. Blocks are mapped pages of their
        own (``mmap``): only the pages written count, and they never pin the heap, so memory
        the rest of a run frees goes back to the system."""
        cdef void* block
        if not self.used & (BLOCK - 1):
            block = mmap(NULL, BLOCK * sizeof(int32_t), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if block == MAP_FAILED:
                raise MemoryError()
            self.blocks.push_back(<int32_t*>block)
        cdef int32_t* at = self.blocks[self.used >> BLOCK_BITS] + (self.used & (BLOCK - 1))
        at[0] = <int32_t>a
        at[1] = <int32_t>b
        self.used += 2
        return 0

    cdef int32_t _at(self, long i) noexcept:
        """The ``i``-th int written."""
        return self.blocks[i >> BLOCK_BITS][i & (BLOCK - 1)]

    cdef int take_c(self, long j, long nodes) except -1:
        cdef long i
        self.got.clear()
        self.cnt[j] = self.pool.take_c(nodes, self.got)
        self.off[j] = self.used
        for i in range(0, <long>self.got.size(), 2):
            self._put(self.got[i], self.got[i + 1])
        self.idle -= nodes
        return 0

    cdef void release_c(self, long j) noexcept:
        cdef long o = self.off[j], i
        for i in range(o, o + 2 * self.cnt[j], 2):
            self.pool.give_range_c(self._at(i), self._at(i + 1))
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
        self.off[j] = self.used
        for a, b in where:
            self.pool.take_range_c(a, b)
            self._put(a, b)
        self.cnt[j] = len(where)
        self.idle = self.pool.free

    def release(self, long j) -> None:
        """Job ``j`` ended: free its nodes."""
        self.release_c(j)

    def allocation(self, long j) -> list[tuple[int, int]]:
        """The node intervals job ``j`` holds (held, for a job that ended)."""
        cdef long o = self.off[j], i
        return [(self._at(i), self._at(i + 1)) for i in range(o, o + 2 * self.cnt[j], 2)]

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
                f[m] = self._at(k)
                m += 1
        return AllocColumn(cnt, flat)
