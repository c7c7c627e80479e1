# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.wholenodes`."""

cimport cython
from libcpp.vector cimport vector

from coschedlab.engine.jobintervals cimport JobIntervals
from coschedlab.engine.nodepool cimport NodePool


@cython.final
cdef class WholeNodes:
    cdef readonly NodePool pool
    cdef readonly long cpn
    cdef public long idle
    cdef readonly JobIntervals ivs  # the node intervals of every job
    cdef vector[long] got         # the pool's answer to one take (reused)

    cdef int take_c(self, long j, long nodes) except -1
    cdef int take_iv_c(self, long j, const long* iv, long niv, long nodes) except -1
    cdef void release_c(self, long j) noexcept
