"""Which nodes are free: a pool of node ids kept as sorted, disjoint half-open intervals.

Whole-node allocation (the batch core). A job takes the lowest free ids first, so allocations
stay contiguous where the machine allows; releasing merges intervals back. Each operation costs
O(pieces touched + log intervals), independent of the machine size.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

Intervals = list[tuple[int, int]]


class NodePool:
    """Free node ids of a machine of ``n`` nodes.

    Intervals are kept in descending order, so the lowest free ids sit at the end of the lists
    and are taken (and the list shortened) in O(1).
    """

    __slots__ = ("starts", "ends", "free")

    def __init__(self, n: int) -> None:
        # descending by start; negated starts make the list ascending for bisect
        self.starts: list[int] = [0] if n else []  # -start of each interval, ascending
        self.ends: list[int] = [n] if n else []
        self.free = n

    def take(self, k: int) -> Intervals:
        """Remove ``k`` free nodes (lowest ids first) and return them as intervals."""
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        self.free -= k
        out: Intervals = []
        starts, ends = self.starts, self.ends
        while k:
            a, b = -starts[-1], ends[-1]
            if b - a <= k:
                out.append((a, b))
                k -= b - a
                starts.pop()
                ends.pop()
            else:
                out.append((a, a + k))
                starts[-1] = -(a + k)
                k = 0
        return out

    def give(self, intervals: Intervals) -> None:
        """Return intervals taken earlier; adjacent free intervals merge."""
        starts, ends = self.starts, self.ends
        for a, b in intervals:
            # position among intervals ordered by descending start (ascending -start)
            i = bisect_left(starts, -a)
            # the interval just above (higher ids) is at i - 1, the one below at i
            merge_above = i > 0 and -starts[i - 1] == b
            merge_below = i < len(starts) and ends[i] == a
            if merge_above and merge_below:
                starts[i - 1] = starts[i]
                del starts[i], ends[i]
            elif merge_above:
                starts[i - 1] = -a
            elif merge_below:
                ends[i] = b
            else:
                starts.insert(i, -a)
                ends.insert(i, b)
            self.free += b - a


def format_intervals(intervals: Intervals) -> str:
    """Batsim-style text of node intervals: ``[(0, 4), (7, 8)]`` -> ``"0-3 7"``."""
    return " ".join(f"{a}" if b - a == 1 else f"{a}-{b - 1}" for a, b in intervals)


def nodes_to_intervals(nodes: list[int]) -> Intervals:
    """``[3, 0, 1, 7]`` -> ``[(0, 2), (3, 4), (7, 8)]``."""
    out: Intervals = []
    for n in sorted(nodes):
        if out and out[-1][1] == n:
            out[-1] = (out[-1][0], n + 1)
        else:
            out.append((n, n + 1))
    return out


def parse_intervals(text: str) -> Intervals:
    """Inverse of :func:`format_intervals`: ``"0-3 7"`` -> ``[(0, 4), (7, 8)]``."""
    out: Intervals = []
    for part in text.replace(",", " ").split():
        a, _, b = part.partition("-")
        out.append((int(a), int(b or a) + 1))
    return out


class Placement:
    """A decision that says where a job runs: ``cores`` cores on each node of ``nodes``.

    A scheduler returns a plain job number for the default placement (whole idle nodes) or a
    Placement for anything else (e.g. ELiSE's spread placement: half of every socket).
    """

    __slots__ = ("job", "nodes", "cores")

    def __init__(self, job: int, nodes: list[int], cores: int) -> None:
        self.job = job
        self.nodes = nodes
        self.cores = cores

    def __repr__(self) -> str:
        return f"Placement(job={self.job}, nodes={self.nodes}, cores={self.cores})"


class SharedNodes:
    """Per-node core accounting, so that several jobs can share a node (co-location).

    NumPy arrays, so that the cost of placing or releasing a job does not grow with the number
    of nodes it spans: ``free[n]`` free cores of node ``n``; ``occ[n]`` the jobs on node ``n``
    (-1 = empty slot; the table widens when a node takes more jobs than it has slots).
    Node lists are NumPy int arrays sorted by id; idle nodes are handed out lowest first.
    """

    def __init__(self, nodes: int, cores_per_node: int) -> None:
        self.cpn = cores_per_node
        self.free = np.full(nodes, cores_per_node, dtype=np.int64)
        self.occ = np.full((nodes, 2), -1, dtype=np.int64)
        self.n_idle = nodes

    def free_cores(self, node: int) -> int:
        """Free cores on ``node``."""
        return int(self.free[node])

    def occupants(self, node: int) -> list[int]:
        """The jobs on ``node``."""
        row = self.occ[node]
        return row[row >= 0].tolist()

    def neighbours(self, j: int, nodes: np.ndarray) -> np.ndarray:
        """The other jobs on any of ``nodes`` (sorted, unique)."""
        u = np.unique(self.occ[nodes])
        return u[(u >= 0) & (u != j)]

    def nodes_with(self, cores: int) -> np.ndarray:
        """Partly used nodes with at least ``cores`` free cores, by node id."""
        f = self.free
        return np.flatnonzero((f >= cores) & (f < self.cpn))

    def count_with(self, cores: int) -> int:
        """Nodes (idle or partly used) with at least ``cores`` free cores."""
        return int(np.count_nonzero(self.free >= cores))

    def peek_idle(self, k: int) -> np.ndarray:
        """The ``k`` lowest idle nodes, without taking them."""
        if k <= 0:
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(self.free == self.cpn)[:k]

    def place(self, j: int, nodes: np.ndarray, cores: int) -> None:
        """Put job ``j`` on ``nodes`` with ``cores`` cores each (the caller checked they fit)."""
        f = self.free[nodes]
        self.n_idle -= int(np.count_nonzero(f == self.cpn))
        self.free[nodes] = f - cores
        rows = self.occ[nodes]
        empty = rows < 0
        if not empty.any(axis=1).all():  # some node has no empty slot left: widen the table
            self.occ = np.pad(self.occ, ((0, 0), (0, self.occ.shape[1])), constant_values=-1)
            rows = self.occ[nodes]
            empty = rows < 0
        slot = empty.argmax(axis=1)
        self.occ[nodes, slot] = j

    def release(self, j: int, nodes: np.ndarray, cores: int) -> None:
        """Give back the cores job ``j`` held."""
        f = self.free[nodes] + cores
        self.free[nodes] = f
        self.n_idle += int(np.count_nonzero(f == self.cpn))
        rows = self.occ[nodes]
        rows[rows == j] = -1
        self.occ[nodes] = rows

    def check(self, p: Placement) -> str | None:
        """Why placement ``p`` is impossible now, or None if it fits."""
        nodes = np.asarray(p.nodes)
        if len(np.unique(nodes)) != len(nodes):
            return "uses a node twice"
        if not 0 < p.cores <= self.cpn:
            return f"asks for {p.cores} cores per node on {self.cpn}-core nodes"
        if len(nodes) and (nodes.min() < 0 or nodes.max() >= len(self.free)):
            return "uses a node that does not exist"
        short = np.flatnonzero(self.free[nodes] < p.cores)
        if len(short):
            n = int(nodes[short[0]])
            return f"needs {p.cores} cores on node {n}, which has {self.free_cores(n)} free"
        return None

    def claim(self, p: Placement) -> np.ndarray:
        """Apply placement ``p``; returns its nodes as a sorted array."""
        nodes = np.sort(np.asarray(p.nodes, dtype=np.int64))
        self.place(p.job, nodes, p.cores)
        return nodes
