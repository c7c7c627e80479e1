# distutils: language = c++
"""C declarations of :mod:`coschedlab.engine.cshared`: a compiled pass on shared nodes."""

from coschedlab.engine.cpass cimport CompiledPass, Est


cdef class Starter:
    cdef int start_c(self, long j, const long* iv, long niv, long cores) except -1
    cdef const Est* running(self, long* n) noexcept


cdef class SharedPass(CompiledPass):
    cdef Starter starter  # set by the kernel before the run (None: the pass is not bound)
