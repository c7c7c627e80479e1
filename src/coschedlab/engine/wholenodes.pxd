# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.wholenodes`."""

from libcpp.vector cimport vector

from coschedlab.engine.nodepool cimport NodePool


cdef class WholeNodes:
    cdef readonly NodePool pool
    cdef readonly long cpn
    cdef public long idle
    cdef vector[long] flat  # node intervals of every job, flat: a0 b0 a1 b1 ...
    cdef vector[long] off   # where job j's intervals start in flat
    cdef vector[int] cnt    # how many intervals job j holds

    cdef int take_c(self, long j, long nodes) except -1
    cdef void release_c(self, long j) noexcept
