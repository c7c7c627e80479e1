"""The spread placement of ELiSE (the ELiSE paper, 3.2): half of every socket of a node.

A spread job gets ``sockets x (cores_per_socket // 2)`` cores on each of
``ceil(procs / that)`` nodes, so another spread job can take the other halves. A job whose
spread form needs more nodes than the machine has cannot be spread: the co-schedulers place it
compact (whole nodes), and the co-location metrics count it as too large to spread.
"""

from __future__ import annotations

import numpy as np

from ..platform import Cluster

__all__ = ["spread_cores", "spread_nodes", "too_large_to_spread"]


def spread_cores(cluster: Cluster) -> int:
    """Cores a spread job takes on each of its nodes (0 for sockets of one core)."""
    return cluster.sockets_per_node * (cluster.cores_per_socket // 2)


def spread_nodes(procs: int, cluster: Cluster) -> int:
    """Nodes a spread job of ``procs`` processors needs (``procs`` if nodes cannot split)."""
    half = spread_cores(cluster)
    return -(-procs // half) if half else procs


def too_large_to_spread(procs: np.ndarray, cluster: Cluster) -> np.ndarray:
    """Which jobs (``procs`` per job) cannot be spread on ``cluster``: their spread form needs
    more nodes than it has (every job, when its sockets have one core)."""
    procs = np.asarray(procs, dtype=np.int64)
    half = spread_cores(cluster)
    if not half:
        return np.ones(procs.shape, dtype=bool)
    return -(-procs // half) > cluster.nodes
