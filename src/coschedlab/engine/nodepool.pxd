# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.nodepool` (cimported by the kernel's accounting)."""

cimport cython
from libc.stdint cimport int32_t, uint32_t, uint64_t
from libcpp.vector cimport vector


cdef struct Run:
    # a free run [s, e) at u = 1 + s, its treap fields beside it (one cache line a step down)
    int32_t end     # e (0: no free run starts at s)
    int32_t lo      # best fit: a treap of the runs by (length, start): the u of its children
    int32_t hi
    uint32_t prio   # its treap priority (_prio(u))


@cython.final
cdef class NodePool:
    # per node id, zeroed pages allocated once (nothing allocated per take or give; 0: none):
    cdef Run* run           # [u]: the free run starting at u - 1
    cdef int32_t* start_of  # [e - 1]: 1 + start of the free run ending at e
    cdef uint64_t* heads    # bit s: a free run starts at s (the run holding a node)
    cdef int32_t root       # the treap's root (its u; 0: no free node)
    cdef readonly long n
    cdef public long free

    cdef int take_c(self, long k, vector[long]& out) except -1
    cdef bint holds_c(self, long a, long b)
    cdef int take_range_c(self, long a, long b) except -1
    cdef void give_range_c(self, long a, long b) noexcept
    cdef bint _before(self, int32_t x, int32_t y) noexcept
    cdef void _add(self, int32_t s, int32_t e) noexcept
    cdef void _drop(self, int32_t s) noexcept
    cdef int32_t _fit(self, long k) noexcept
    cdef int32_t _run_at(self, long a) noexcept
    cdef int _check_given(self, long a, long b) except -1
