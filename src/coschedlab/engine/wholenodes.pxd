# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.wholenodes`."""

cimport cython
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

from coschedlab.engine.nodepool cimport NodePool


@cython.final
cdef class WholeNodes:
    cdef readonly NodePool pool
    cdef readonly long cpn
    cdef public long idle
    cdef vector[int32_t*] blocks  # node intervals of every job, flat a0 b0 a1 b1 ..., in blocks
    cdef long used                # ints written to the blocks
    cdef vector[long] off         # where job j's intervals start (an index of an int)
    cdef vector[int32_t] cnt      # how many intervals job j holds
    cdef vector[long] got         # the pool's answer to one take (reused)

    cdef int take_c(self, long j, long nodes) except -1
    cdef void release_c(self, long j) noexcept
    cdef int _put(self, long a, long b) except -1
    cdef int32_t _at(self, long i) noexcept
