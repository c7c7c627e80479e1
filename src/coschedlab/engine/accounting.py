"""Node accounting: which nodes (or cores) each running job holds, behind one interface.

The kernel never branches on how nodes are counted. It asks a :class:`NodeAccounting` to
``check`` a decision, ``take`` nodes for a starting job, ``release`` them when it ends, and
reads ``idle`` (whole idle nodes, the ``free`` a whole-node policy sees) and
``allocation(j)`` (the job's node intervals). Two implementations:

* :class:`WholeNodes`: the batch core. A job gets ``ceil(procs / cores_per_node)`` whole
  nodes, best fit (:class:`~.nodepool.NodePool`); allocations are kept as one flat
  integer array (a few bytes per job, so million-job runs stay small).
* :class:`SharedCores`: co-location (ELiSE). Nodes are shared core by core
  (:class:`~.segments.SharedNodes`); a policy may return :class:`~.placement.Placement`
  decisions; a plain job number still means whole idle nodes.
"""

from __future__ import annotations

from array import array

import numpy as np

from ..intervals import Intervals, format_intervals
from ..platform import Cluster
from .nodepool import NodePool
from .placement import Placement, normalize
from .segments import SharedNodes

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


class WholeNodes(NodeAccounting):
    """Whole-node allocation: each job holds all the cores of its nodes."""

    __slots__ = ("pool", "cpn", "idle", "flat", "off", "cnt")

    def __init__(self, cluster: Cluster, n_jobs: int) -> None:
        self.pool = NodePool(cluster.nodes)
        self.cpn = cluster.cores_per_node
        self.idle = cluster.nodes
        # node intervals of every job, flat: a0 b0 a1 b1 ..., from off[j], cnt[j] of them
        self.flat = array("q")
        self.off = array("q", bytes(8 * n_jobs))
        self.cnt = array("i", bytes(4 * n_jobs))

    def check(self, j: int, placement: Placement, procs: int) -> str | None:
        """A whole-node placement names exactly the job's nodes, all idle (cores per node are
        the node's: ``placement.cores`` is ignored)."""
        where = normalize(placement.intervals)
        if where is None:
            return "names a node twice"
        need = -(-procs // self.cpn)
        count = sum(b - a for a, b in where)
        if count != need:
            return f"names {count} nodes for a job of {need} whole nodes"
        for a, b in where:
            if a < 0 or not self.pool.holds(a, b):
                return f"nodes {a}-{b - 1} are not all idle"
        return None

    def take(self, j: int, nodes: int, placement: Placement | None) -> None:
        self.idle -= nodes
        flat = self.flat
        self.off[j] = len(flat)
        if placement is None:
            self.cnt[j] = self.pool.take_into(nodes, flat)
            return
        where = normalize(placement.intervals)
        for a, b in where:
            self.pool.take_range(a, b)
            flat.extend((a, b))
        self.cnt[j] = len(where)

    def release(self, j: int) -> None:
        o = self.off[j]
        flat, give = self.flat, self.pool.give_range
        if self.cnt[j] == 1:
            give(flat[o], flat[o + 1])
        else:
            for i in range(o, o + 2 * self.cnt[j], 2):
                give(flat[i], flat[i + 1])
        self.idle = self.pool.free

    def allocation(self, j: int) -> Intervals:
        o = self.off[j]
        iv = self.flat[o : o + 2 * self.cnt[j]]
        return list(zip(iv[0::2], iv[1::2], strict=True))

    def cores_of(self, j: int) -> int:
        return self.cpn

    def alloc_texts(self, n: int) -> list[str]:
        # the common single-interval allocation without a call per job (a million jobs: 0.3 s)
        off = np.frombuffer(self.off, dtype=np.int64)[:n]
        cnt = np.frombuffer(self.cnt, dtype=np.int32)[:n]
        flat = np.frombuffer(self.flat, dtype=np.int64)
        texts = [""] * n
        one = np.flatnonzero(cnt == 1)
        first, last = flat[off[one]].tolist(), (flat[off[one] + 1] - 1).tolist()
        for k, a, b in zip(one.tolist(), first, last, strict=True):
            texts[k] = f"{a}" if a == b else f"{a}-{b}"
        for k in np.flatnonzero(cnt > 1).tolist():
            texts[k] = format_intervals(self.allocation(k))
        return texts


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
