# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.nodepool` (cimported by the kernel's accounting)."""

from libcpp.map cimport map as cmap
from libcpp.set cimport set as cset
from libcpp.utility cimport pair
from libcpp.vector cimport vector


cdef class NodePool:
    cdef cmap[long, long] iv            # free intervals: start -> end (half-open)
    cdef cset[pair[long, long]] runs  # (length, start) of every free interval: best fit
    cdef public long free

    cdef int take_c(self, long k, vector[long]& out) except -1
    cdef bint holds_c(self, long a, long b)
    cdef int take_range_c(self, long a, long b) except -1
    cdef void give_range_c(self, long a, long b) noexcept
