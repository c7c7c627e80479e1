"""Node accounting: which nodes (or cores) each running job holds, behind one interface.

The kernel never branches on how nodes are counted. It asks a :class:`NodeAccounting` to
``check`` a decision, ``take`` nodes for a starting job, ``release`` them when it ends, and
reads ``idle`` (whole idle nodes, the ``free`` a whole-node policy sees) and
``allocation(j)`` (the job's node intervals). Two implementations:

* :class:`~.wholenodes.WholeNodes` (compiled): the batch core. A job gets
  ``ceil(procs / cores_per_node)`` whole nodes, best fit (:class:`~.nodepool.NodePool`);
  allocations are kept as one flat C array (a few bytes per job).
* :class:`SharedCores`: co-location (ELiSE). Nodes are shared core by core
  (:class:`~.segments.SharedNodes`); a policy may return :class:`~.placement.Placement`
  decisions; a plain job number still means whole idle nodes.
"""

from __future__ import annotations

from ..intervals import Intervals, format_intervals
from ..platform import Cluster
from .placement import Placement, normalize
from .segments import SharedNodes
from .wholenodes import WholeNodes

__all__ = ["NodeAccounting", "SharedCores", "WholeNodes"]


class NodeAccounting:
    """What the kernel needs from node accounting (both implementations below)."""

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

    def alloc_texts(self, n: int) -> list[str]:
        """Batsim allocation text of jobs ``0..n-1`` (``""`` for a job that never started)."""
        return [format_intervals(self.allocation(j)) for j in range(n)]


class SharedCores(NodeAccounting):
    """Core-level accounting on shared nodes (co-location); ``nodes`` is the segments."""

    shared = True
    __slots__ = ("nodes", "cpn", "alloc", "cores")

    def __init__(self, cluster: Cluster, n_jobs: int) -> None:
        self.nodes = SharedNodes(cluster.nodes, cluster.cores_per_node)
        self.cpn = cluster.cores_per_node
        self.alloc: list[Intervals | None] = [None] * n_jobs
        self.cores: list[int] = [self.cpn] * n_jobs

    @property
    def idle(self) -> int:
        return self.nodes.n_idle

    def check(self, j: int, placement: Placement, procs: int) -> str | None:
        if placement.n_nodes * placement.cores < procs:
            return (
                f"gave {placement.n_nodes} nodes x {placement.cores} cores for {procs} processors"
            )
        return self.nodes.check(placement)

    def take(self, j: int, nodes: int, placement: Placement | None) -> None:
        sh = self.nodes
        if placement is None:
            where = sh.idle_intervals(nodes)
            sh.place(j, where, self.cpn)
        else:
            where = normalize(placement.intervals)
            sh.place(j, where, placement.cores)
            self.cores[j] = placement.cores
        self.alloc[j] = where

    def release(self, j: int) -> None:
        self.nodes.release(j, self.alloc[j], self.cores[j])

    def allocation(self, j: int) -> Intervals:
        return self.alloc[j] or []

    def cores_of(self, j: int) -> int:
        return self.cores[j]
