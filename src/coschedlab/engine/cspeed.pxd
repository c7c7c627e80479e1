# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.cspeed` (cimported by the kernel; the co-pass
also takes its two copies of an array into a C vector)."""

from libcpp.utility cimport pair
from libcpp.vector cimport vector

from coschedlab.engine.segments cimport SharedNodes


cdef vector[long] longs_of(object values) except *  # (an array or a sequence, copied at once)
cdef vector[double] doubles_of(object values) except *


cdef class NeighbourSpeed:
    cdef public object speed, work, t_upd, met  # per-job arrays (the C views below)
    cdef SharedNodes sh
    cdef long long[::1] cores_   # cores per node of every job (the accounting's, live)
    cdef long cpn, ncol
    cdef vector[double] m_       # pair speedups, row per application, ncol columns
    cdef vector[double] alone_   # spread-alone speedup per application
    cdef vector[long] app_, col_  # per job: its row (-1 unknown) and its column
    cdef double[::1] sp, wk, tu  # per job: speedup, compact-seconds left, when they were set
    cdef long long[::1] mt       # per job: jobs met on a shared node
    cdef const double[::1] run_  # the kernel's run times (read-only)
    cdef double[::1] start_
    cdef vector[double] req_
    cdef unsigned char[::1] killed_
    cdef bint cap                # kill at walltime (not late): an end is capped at start + req
    cdef vector[pair[long, double]] changes  # (job, new end) after a start or an end

    cdef double target_c(self, long j) except? -1.0
    cdef double end_c(self, long j) noexcept
    cdef double begin_c(self, long j, double now) except? -1.0
    cdef int arrived_c(self, long j, double now) except -1
    cdef int left_c(self, long j, double now) except -1
    cdef int update_c(self, long j, double now, bint arrived) except -1
