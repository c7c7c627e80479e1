# distutils: language = c++
# cython: boundscheck=False, wraparound=False
"""The node intervals every job of a run holds (or held), for both node accountings
(:class:`~.wholenodes.WholeNodes`, :class:`~.segments.SharedCores`): one store, one ``alloc``
column, one ``allocation``.

Intervals are 32-bit node ids written one after the other in mapped blocks of 1 MiB (8 bytes per
interval plus 12 per job; nothing copied as a run grows, only the pages written count:
million-job runs stay small).
"""

from libc.stdint cimport int32_t
from posix.mman cimport (
    MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE, mmap, munmap,
)

import numpy as np

from ..intervals import AllocColumn

__all__ = ["JobIntervals"]

cdef class JobIntervals:
    """The node intervals of each of ``n_jobs`` jobs (none until :meth:`begin`)."""

    def __init__(self, long n_jobs) -> None:
        self.used = 0
        self.off.assign(n_jobs, 0)
        self.cnt.assign(n_jobs, 0)

    def __dealloc__(self):
        cdef long k
        for k in range(<long>self.blocks.size()):
            munmap(self.blocks[k], BLOCK * sizeof(int32_t))

    cdef int store_c(self, long j, const long* iv, long niv) except -1:
        """Job ``j`` holds the ``niv`` flat intervals ``iv`` (``a0 b0 a1 b1 ...``), written
        after the last ones. Blocks are mapped pages of their own (``mmap``): only the pages
        written count, and they never pin the heap, so memory the rest of a run frees goes
        back to the system."""
        cdef long r, used = self.used
        cdef int32_t* p = NULL
        cdef void* block
        self.off[j] = used
        self.cnt[j] = <int32_t>niv
        for r in range(niv):
            if not used & (BLOCK - 1):  # a new block (an interval never straddles two)
                block = mmap(NULL, BLOCK * sizeof(int32_t), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                if block == MAP_FAILED:
                    self.used = used
                    raise MemoryError()
                self.blocks.push_back(<int32_t*>block)
                p = <int32_t*>block
            elif p == NULL:
                p = self.blocks[used >> BLOCK_BITS] + (used & (BLOCK - 1))
            p[0] = <int32_t>iv[2 * r]
            p[1] = <int32_t>iv[2 * r + 1]
            p += 2
            used += 2
        self.used = used
        return 0

    cdef void flat_c(self, long j, vector[long]* out) noexcept:
        """Job ``j``'s intervals into ``out`` (cleared) as flat ``a0 b0 a1 b1 ...``."""
        cdef long i, o = self.off[j], m = 2 * self.cnt[j]
        cdef const int32_t* src
        out.resize(m)
        if m == 0:
            return
        if (o >> BLOCK_BITS) == ((o + m - 1) >> BLOCK_BITS):  # in one block (nearly always)
            src = self.blocks[o >> BLOCK_BITS] + (o & (BLOCK - 1))
            for i in range(m):
                out[0][i] = src[i]
        else:
            for i in range(m):
                out[0][i] = self.at(o + i)

    def allocation(self, long j) -> list[tuple[int, int]]:
        """The node intervals job ``j`` holds (held, for a job that ended; [] never started)."""
        cdef long o = self.off[j], i
        return [(self.at(i), self.at(i + 1)) for i in range(o, o + 2 * self.cnt[j], 2)]

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
                f[m] = self.at(k)
                m += 1
        return AllocColumn(cnt, flat)

    def node_counts(self, long n) -> np.ndarray:
        """Nodes held by each of jobs ``0..n-1`` (0 for a job that never started)."""
        out = np.zeros(n, dtype=np.int64)
        cdef long long[::1] v = out
        cdef long j, i, o, total
        for j in range(n):
            o = self.off[j]
            total = 0
            for i in range(o, o + 2 * self.cnt[j], 2):
                total += self.at(i + 1) - self.at(i)
            v[j] = total
        return out
