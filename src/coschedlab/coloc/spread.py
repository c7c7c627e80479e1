"""The spread placement of ELiSE (the ELiSE paper, 3.2): half of every socket of a node.

A spread job gets ``sockets x (cores_per_socket // 2)`` cores on each of
``ceil(procs / that)`` nodes, so another spread job can take the other halves. A job whose
spread form needs more nodes than the machine has cannot be spread: the co-schedulers place it
compact (whole nodes), and the co-location metrics count it as too large to spread.

The rule is a fact of the node shape, so it lives with the machine (:mod:`coschedlab.platform`,
where the metrics read it too); this module is its name in the co-location package.
"""

from __future__ import annotations

from ..platform import spread_cores, spread_nodes, too_large_to_spread

__all__ = ["spread_cores", "spread_nodes", "too_large_to_spread"]
