# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.jobintervals`."""

cimport cython
from libc.stdint cimport int32_t
from libcpp.vector cimport vector

cdef enum:
    BLOCK_BITS = 18  # 262,144 ints (1 MiB) per block; an even size: an interval never straddles
    BLOCK = 1 << BLOCK_BITS


@cython.final
cdef class JobIntervals:
    cdef vector[int32_t*] blocks  # node intervals of every job, flat a0 b0 a1 b1 ..., in blocks
    cdef long used                # ints written to the blocks
    cdef vector[long] off         # where job j's intervals start (an index of an int)
    cdef vector[int32_t] cnt      # how many intervals job j holds

    cdef int store_c(self, long j, const long* iv, long niv) except -1

    cdef inline int32_t at(self, long i) noexcept:
        """The ``i``-th int written."""
        return self.blocks[i >> BLOCK_BITS][i & (BLOCK - 1)]

    cdef void flat_c(self, long j, vector[long]* out) noexcept
