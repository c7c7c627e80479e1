# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.nodepool` (cimported by the kernel's accounting)."""

cimport cython
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector


@cython.final
cdef class NodePool:
    # per node id, zeroed pages allocated once (nothing allocated per take or give; 0: none):
    cdef int32_t* end_of    # [s]: end of the free run starting at s
    cdef int32_t* start_of  # [e - 1]: 1 + start of the free run ending at e
    cdef int32_t* lo_kid    # best fit: a treap of the runs by (length, start); a run is
    cdef int32_t* hi_kid    # u = 1 + its start, [u]: the u of its children
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
