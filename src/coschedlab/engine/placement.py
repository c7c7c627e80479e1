"""A policy's decision about *where* a job runs: :class:`Placement` (part of the policy API).

A scheduler returns a plain job number to start a job on the default placement (whole idle
nodes, best fit) or a :class:`Placement` for anything else, e.g. ELiSE's spread
placement (half of every socket, so that two jobs share a node). On whole nodes a placement
names the job's nodes (exactly as many as it needs, all idle; its ``cores`` are ignored): a
policy that reserves specific nodes, as Slurm's backfill does, starts jobs where it planned.
"""

from __future__ import annotations

import numpy as np

from ..intervals import Intervals, format_intervals, nodes_to_intervals

__all__ = ["Placement", "normalize"]


class Placement:
    """A decision that says where a job runs: ``cores`` cores on each of its nodes.

    A scheduler returns a plain job number for the default placement (whole idle nodes) or a
    Placement for anything else (e.g. ELiSE's spread placement: half of every socket). The
    nodes are given either as node ids (``nodes``, any order) or as half-open node intervals
    (``intervals=[(a, b), ...]``, cheaper for long runs of nodes).
    """

    __slots__ = ("job", "cores", "_nodes", "_iv")

    def __init__(
        self,
        job: int,
        nodes: list[int] | np.ndarray | None = None,
        cores: int = 0,
        *,
        intervals: Intervals | None = None,
    ) -> None:
        if (nodes is None) == (intervals is None):
            raise ValueError("give a placement either nodes or intervals")
        self.job = job
        self.cores = cores
        self._nodes = None if nodes is None else [int(n) for n in nodes]
        self._iv = intervals

    @property
    def nodes(self) -> list[int]:
        """The node ids, as given (or expanded from the intervals)."""
        if self._nodes is None:
            self._nodes = [n for a, b in self._iv for n in range(a, b)]
        return self._nodes

    @property
    def intervals(self) -> Intervals:
        """The nodes as sorted half-open intervals; a node given twice shows as an overlap."""
        if self._iv is None:
            self._iv = nodes_to_intervals(self._nodes)
        return self._iv

    @property
    def n_nodes(self) -> int:
        """How many nodes (counted with repeats)."""
        if self._nodes is not None:
            return len(self._nodes)
        k = 0
        for a, b in self._iv:
            k += b - a
        return k

    def __repr__(self) -> str:
        return (
            f"Placement(job={self.job}, nodes={format_intervals(self.intervals)!r}, "
            f"cores={self.cores})"
        )


def normalize(intervals: Intervals) -> Intervals | None:
    """Sorted intervals with touching ones merged; None if two of them overlap."""
    prev = -1
    for a, b in intervals:  # already normal (the usual case): as it is
        if a <= prev or a >= b:
            break
        prev = b
    else:
        return intervals
    iv = sorted(intervals)
    out: Intervals = []
    for a, b in iv:
        if a >= b:
            continue
        if out and a < out[-1][1]:
            return None
        if out and a == out[-1][1]:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
