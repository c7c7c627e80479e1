"""The machine: nodes x sockets x cores (ELiSE's ``socket-conf``), and the geometry of ELiSE's
spread placement on it (half of every socket of a node: :func:`spread_cores`), which the
co-schedulers place by and the co-location metrics count with."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError

#: the largest machine a simulation takes: nodes, and cores per node (sockets x cores)
MAX_NODES = 10_000_000
MAX_CORES = 4096


@dataclass(frozen=True, slots=True)
class Cluster:
    """A homogeneous cluster of ``nodes`` nodes, each ``sockets_per_node`` x ``cores_per_socket``.

    Whole-node allocation (the batch core) gives a job ``ceil(procs / cores_per_node)`` nodes.
    """

    nodes: int
    sockets_per_node: int = 1
    cores_per_socket: int = 1

    def __post_init__(self) -> None:
        for name in ("nodes", "sockets_per_node", "cores_per_socket"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(f"cluster {name} must be a positive integer, got {value!r}")
        if self.nodes > MAX_NODES:
            raise InputError(f"cluster nodes must be at most {MAX_NODES:,}, got {self.nodes:,}")
        if self.cores_per_node > MAX_CORES:
            raise InputError(
                f"cluster cores per node must be at most {MAX_CORES:,}, got {self.cores_per_node:,}"
            )

    @classmethod
    def from_cores(cls, nodes: int, cores_per_node: int) -> Cluster:
        """A cluster of ``nodes`` nodes of ``cores_per_node`` cores on one socket."""
        return cls(nodes=nodes, sockets_per_node=1, cores_per_socket=cores_per_node)

    @property
    def cores_per_node(self) -> int:
        return self.sockets_per_node * self.cores_per_socket

    @property
    def total_cores(self) -> int:
        return self.nodes * self.cores_per_node

    def nodes_for(self, procs: int) -> int:
        """Whole nodes a job of ``procs`` processors needs: ceil(procs / cores_per_node)."""
        return -(-procs // self.cores_per_node)

    def __str__(self) -> str:
        from .tables import count

        return (
            f"{count(self.nodes, 'node')} x {count(self.sockets_per_node, 'socket')} x "
            f"{count(self.cores_per_socket, 'core')} ({count(self.total_cores, 'core')})"
        )


# -- ELiSE's spread placement (the ELiSE paper, 3.2) -------------------------------------------
# A spread job gets sockets x (cores_per_socket // 2) cores on each of ceil(procs / that) nodes,
# so another spread job can take the other halves. A job whose spread form needs more nodes than
# the machine has cannot be spread: the co-schedulers place it compact (whole nodes), and the
# co-location metrics count it as too large to spread. A fact of the node shape, so it is here.
def spread_cores(cluster: Cluster) -> int:
    """Cores a spread job takes on each of its nodes (0 for sockets of one core)."""
    return cluster.sockets_per_node * (cluster.cores_per_socket // 2)


def too_large_to_spread(procs: np.ndarray, cluster: Cluster) -> np.ndarray:
    """Which jobs (``procs`` per job) cannot be spread on ``cluster``: their spread form needs
    more nodes than it has (every job, when its sockets have one core)."""
    procs = np.asarray(procs, dtype=np.int64)
    half = spread_cores(cluster)
    if not half:
        return np.ones(procs.shape, dtype=bool)
    return -(-procs // half) > cluster.nodes
