# distutils: language = c++
"""A compiled pass that starts its jobs itself, on the nodes it chose, with no Python call.

A :class:`SharedPass` is a :class:`~.cpass.CompiledPass` whose decisions say where a job runs
(node intervals and cores per node: co-location on shared nodes, or Slurm's node-space map on
whole nodes), so the kernel cannot start them after the pass as it starts whole-node
decisions: each start changes the nodes (and the speeds of the jobs beside it) before the next
decision. The kernel gives the pass a :class:`Starter` before the run (when ``places``):
:meth:`Starter.start_c` starts a job at once on the given nodes, or where the kernel's best fit
puts it (checked, accounted, its end from the speed model, listed in the pass's ``started``;
with a coupled run's gate or on ELiSE's clock through the kernel's ``start_now``, gate
included), :meth:`Starter.running` is the kernel's running jobs as they are now (they change
as the pass starts jobs), :meth:`Starter.nodes_of` a running job's node intervals,
:meth:`Starter.idle` the whole idle nodes and :meth:`Starter.starts` the jobs' start times.
"""

__all__ = ["SharedPass", "Starter"]


cdef class Starter:
    """Starts jobs for a :class:`SharedPass` (the kernel's implementation)."""

    cdef int start_c(self, long j, const long* iv, long niv, long cores) except -1:
        """Start queued job ``j`` now on ``niv`` flat node intervals ``a0 b0 a1 b1 ...``
        (sorted, disjoint) with ``cores`` cores on each, or (``niv`` < 0) on the whole idle
        nodes the kernel's best fit gives it."""
        raise NotImplementedError

    cdef const Est* running(self, long* n) noexcept:
        n[0] = 0
        return NULL

    cdef long idle(self) noexcept:
        """Whole idle nodes now."""
        return 0

    cdef void nodes_of(self, long j, vector[long]* out) noexcept:
        """Job ``j``'s node intervals (running or held), flat, into ``out`` (cleared)."""
        out.clear()

    cdef const double* starts(self) noexcept:
        """Per job: its start time (NaN: not started)."""
        return NULL


cdef class SharedPass(CompiledPass):
    """A compiled pass that starts jobs on the nodes it chose through its :attr:`starter`."""

    def __cinit__(self, *args, **kwargs):
        self.places = True
        self.whole_nodes = False
