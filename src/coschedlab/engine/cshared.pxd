# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.cshared`: a compiled pass that starts its jobs."""

from libcpp.vector cimport vector

from coschedlab.engine.cpass cimport CompiledPass, Est


cdef class Starter:
    cdef int start_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef const Est* running(self, long* n) noexcept
    cdef long idle(self) noexcept
    cdef void nodes_of(self, long j, vector[long]* out) noexcept
    cdef const double* starts(self) noexcept


cdef class SharedPass(CompiledPass):
    cdef Starter starter  # set by the kernel before the run (None: the pass is not bound)
    # the pass starts its jobs itself through ``starter`` (False: it lists them in
    # ``PassState.started`` and the kernel starts them after the call, as any compiled pass)
    cdef public bint places
    # its starts take whole nodes: it runs on whole-node accounting too (else shared cores)
    cdef public bint whole_nodes
