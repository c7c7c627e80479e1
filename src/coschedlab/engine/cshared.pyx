# distutils: language = c++
"""A compiled pass on shared nodes (co-location), called by the kernel with no Python call.

A :class:`SharedPass` is a :class:`~.cpass.CompiledPass` whose decisions say where a job runs
(node intervals and cores per node), so the kernel cannot start them after the pass as it
starts whole-node decisions: each start changes the shared nodes (and the speeds of the jobs
beside it) before the next decision. The kernel gives the pass a :class:`Starter` before the
run: :meth:`Starter.start_c` starts a job at once on the given nodes (checked, accounted, its
end from the speed model, listed in the pass's ``started``), :meth:`Starter.running` is the
kernel's running jobs as they are now (they change as the pass starts jobs).
"""

__all__ = ["SharedPass", "Starter"]


cdef class Starter:
    """Starts jobs for a :class:`SharedPass` (the kernel's implementation)."""

    cdef int start_c(self, long j, const long* iv, long niv, long cores) except -1:
        raise NotImplementedError

    cdef const Est* running(self, long* n) noexcept:
        n[0] = 0
        return NULL


cdef class SharedPass(CompiledPass):
    """A compiled pass that starts jobs on shared nodes through its :attr:`starter`."""
