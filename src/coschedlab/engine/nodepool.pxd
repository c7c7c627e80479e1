# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.nodepool` (cimported by the kernel's accounting)."""

cimport cython
from libc.stdint cimport int32_t, uint64_t
from libcpp.vector cimport vector


@cython.final
cdef class NodePool:
    # per node id, zeroed pages allocated once (nothing allocated per take or give; 0: none):
    cdef int32_t* end_at    # [u]: the end of the free run starting at u - 1
    cdef int32_t* start_of  # [e - 1]: 1 + start of the free run ending at e
    cdef uint64_t* heads    # bit s: a free run starts at s (the run holding a node)
    # best fit: the runs' keys (length << 32 | start), sorted, in blocks (``top``: each
    # block's last key; one empty block when no node is free)
    cdef vector[vector[uint64_t]] blk
    cdef vector[uint64_t] top
    cdef readonly long n
    cdef public long free

    cdef int take_c(self, long k, vector[long]& out) except -1
    cdef bint holds_c(self, long a, long b)
    cdef int take_range_c(self, long a, long b) except -1
    cdef void give_range_c(self, long a, long b) noexcept
    cdef void _add(self, int32_t s, int32_t e) noexcept
    cdef void _drop(self, int32_t s) noexcept
    cdef void _mark(self, int32_t s, int32_t e) noexcept
    cdef void _unmark(self, int32_t s) noexcept
    cdef void _insert(self, uint64_t key) noexcept
    cdef void _erase_at(self, long b, long i) noexcept
    cdef uint64_t _pop_ge(self, uint64_t key) noexcept
    cdef int32_t _run_at(self, long a) noexcept
    cdef int _check_given(self, long a, long b) except -1
