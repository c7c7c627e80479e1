"""Node accounting: which nodes (or cores) each running job holds, behind one interface.

The kernel never branches on how nodes are counted. It asks a :class:`NodeAccounting` to
``check`` a decision, ``take`` nodes for a starting job, ``release`` them when it ends, and
reads ``idle`` (whole idle nodes, the ``free`` a whole-node policy sees) and
``allocation(j)`` (the job's node intervals). Two implementations:

* :class:`~.wholenodes.WholeNodes` (compiled): the batch core. A job gets
  ``ceil(procs / cores_per_node)`` whole nodes, best fit (:class:`~.nodepool.NodePool`).
* :class:`~.segments.SharedCores` (compiled): co-location (ELiSE). Nodes are shared core by
  core (:class:`~.segments.SharedNodes`); a policy may return
  :class:`~.placement.Placement` decisions; a plain job number still means whole idle nodes.

Both keep the jobs' node intervals in one store, :class:`~.jobintervals.JobIntervals` (32-bit
intervals in mapped blocks, a few bytes per job), which makes the ``alloc`` column.
"""

from __future__ import annotations

from ..errors import InputError
from ..intervals import AllocColumn, Intervals
from .placement import Placement
from .segments import SharedCores
from .wholenodes import WholeNodes

__all__ = ["MAX_SHARED_SLOTS", "NodeAccounting", "SharedCores", "WholeNodes", "check_shared"]

#: the most nodes x (cores per node + 1) that core accounting on shared nodes
#: (:class:`~.segments.SharedNodes`) takes on: it reserves a 32-bit slot per core and node
#: (16 GiB of address space here, touched only where segments start) and a bitmap row per
#: core count (cores per node x nodes / 8 bytes, zeroed: 0.5 GB here). 10,000,000 nodes of
#: 4,096 cores asked 164 GB and stopped with a bare MemoryError after seconds
MAX_SHARED_SLOTS = 2**32


def check_shared(nodes: int, cores_per_node: int) -> None:
    """Refuse (:class:`InputError`, before the run) a machine too large for core accounting
    on shared nodes (:data:`MAX_SHARED_SLOTS`)."""
    slots = nodes * (cores_per_node + 1)
    if slots > MAX_SHARED_SLOTS:
        raise InputError(
            f"shared nodes (co-location, --pool) are accounted core by core: {nodes:,} nodes "
            f"x {cores_per_node:,} cores is too large (nodes x (cores per node + 1) must be at "
            f"most {MAX_SHARED_SLOTS:,}, got {slots:,}); use fewer nodes or cores per node"
        )


class NodeAccounting:
    """What the kernel needs from node accounting (both implementations, compiled)."""

    shared = False  #: True when jobs may share nodes (placements allowed)
    idle: int  #: whole idle nodes

    def check(self, j: int, placement: Placement, procs: int) -> str | None:
        """Why ``placement`` for job ``j`` is impossible now, or None if it fits."""
        raise NotImplementedError

    def take(self, j: int, nodes: int, placement: Placement | None) -> None:
        """Give job ``j`` its nodes: ``nodes`` whole idle nodes, or ``placement`` (checked)."""
        raise NotImplementedError

    def release(self, j: int) -> None:
        """Job ``j`` ended: free what it held."""
        raise NotImplementedError

    def allocation(self, j: int) -> Intervals:
        """The node intervals job ``j`` holds (held, for a job that ended)."""
        raise NotImplementedError

    def cores_of(self, j: int) -> int:
        """Cores per node job ``j`` holds."""
        raise NotImplementedError

    def alloc_column(self, n: int) -> AllocColumn:
        """The ``alloc`` column of jobs ``0..n-1``: their node intervals (none for a job
        that never started), written as Batsim's text."""
        return AllocColumn.from_intervals([self.allocation(j) for j in range(n)])
