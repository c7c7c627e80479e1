"""Which nodes are free: a pool of node ids kept as sorted, disjoint half-open intervals.

Whole-node allocation (the batch core). A job takes the lowest free ids first, so allocations
stay contiguous where the machine allows; releasing merges intervals back. Each operation costs
O(pieces touched + log intervals), independent of the machine size.
"""

from __future__ import annotations

from bisect import bisect_left

Intervals = list[tuple[int, int]]


class NodePool:
    """Free node ids of a machine of ``n`` nodes, lowest-first allocation."""

    __slots__ = ("starts", "ends", "free")

    def __init__(self, n: int) -> None:
        self.starts: list[int] = [0] if n else []
        self.ends: list[int] = [n] if n else []
        self.free = n

    def take(self, k: int) -> Intervals:
        """Remove ``k`` free nodes (lowest ids first) and return them as intervals."""
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        out: Intervals = []
        starts, ends = self.starts, self.ends
        while k:
            a, b = starts[0], ends[0]
            if b - a <= k:
                out.append((a, b))
                k -= b - a
                del starts[0], ends[0]
            else:
                out.append((a, a + k))
                starts[0] = a + k
                k = 0
        self.free -= sum(b - a for a, b in out)
        return out

    def give(self, intervals: Intervals) -> None:
        """Return intervals taken earlier; adjacent free intervals merge."""
        starts, ends = self.starts, self.ends
        for a, b in intervals:
            i = bisect_left(starts, a)
            merge_left = i > 0 and ends[i - 1] == a
            merge_right = i < len(starts) and starts[i] == b
            if merge_left and merge_right:
                ends[i - 1] = ends[i]
                del starts[i], ends[i]
            elif merge_left:
                ends[i - 1] = b
            elif merge_right:
                starts[i] = a
            else:
                starts.insert(i, a)
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

    Idle nodes are kept in a :class:`NodePool` (compact placements take them lowest-first);
    nodes with some cores in use are in ``partial`` (node -> free cores); ``jobs_on[node]``
    lists the jobs on each node (the co-location speed model reads it).
    """

    def __init__(self, nodes: int, cores_per_node: int) -> None:
        self.cpn = cores_per_node
        self.idle = NodePool(nodes)
        self.partial: dict[int, int] = {}
        self.jobs_on: list[list[int]] = [[] for _ in range(nodes)]
        self.hist: dict[int, int] = {}  # free cores -> how many partly used nodes have that

    def free_cores(self, node: int) -> int:
        """Free cores on ``node``."""
        if node in self.partial:
            return self.partial[node]
        return self.cpn if not self.jobs_on[node] else 0

    def nodes_with(self, cores: int) -> list[int]:
        """Partly used nodes with at least ``cores`` free cores, by node id."""
        if not any(f >= cores for f in self.hist):
            return []
        return sorted(n for n, f in self.partial.items() if f >= cores)

    def count_with(self, cores: int) -> int:
        """Nodes (idle or partly used) with at least ``cores`` free cores."""
        return self.idle.free + sum(c for f, c in self.hist.items() if f >= cores)

    def _set_free(self, n: int, old: int, new: int) -> None:
        """Node ``n`` goes from ``old`` to ``new`` free cores (partial bookkeeping)."""
        hist, partial, cpn = self.hist, self.partial, self.cpn
        if 0 < old < cpn:
            del partial[n]
            if hist[old] == 1:
                del hist[old]
            else:
                hist[old] -= 1
        if 0 < new < cpn:
            partial[n] = new
            hist[new] = hist.get(new, 0) + 1

    def peek_idle(self, k: int) -> list[int]:
        """The ``k`` lowest idle nodes, without taking them."""
        out: list[int] = []
        for a, b in zip(self.idle.starts, self.idle.ends, strict=True):
            take = min(b - a, k - len(out))
            out.extend(range(a, a + take))
            if len(out) == k:
                break
        return out

    def take_idle(self, k: int) -> list[int]:
        """Take ``k`` idle nodes, lowest ids first."""
        out: list[int] = []
        for a, b in self.idle.take(k):
            out.extend(range(a, b))
        return out

    def place(self, j: int, nodes: list[int], cores: int) -> None:
        """Put job ``j`` on ``nodes`` with ``cores`` cores each (the caller checked they fit)."""
        cpn = self.cpn
        partial = self.partial
        for n in nodes:
            free = partial.get(n, cpn)
            self._set_free(n, free, free - cores)
            self.jobs_on[n].append(j)

    def release(self, j: int, nodes: list[int], cores: int) -> None:
        """Give back the cores job ``j`` held."""
        cpn = self.cpn
        partial = self.partial
        for n in nodes:
            self.jobs_on[n].remove(j)
            old = partial.get(n, 0)
            self._set_free(n, old, old + cores)
            if old + cores >= cpn:
                self.idle.give([(n, n + 1)])

    def check(self, p: Placement) -> str | None:
        """Why placement ``p`` is impossible now, or None if it fits."""
        if len(set(p.nodes)) != len(p.nodes):
            return "uses a node twice"
        if not 0 < p.cores <= self.cpn:
            return f"asks for {p.cores} cores per node on {self.cpn}-core nodes"
        for n in p.nodes:
            if not 0 <= n < len(self.jobs_on):
                return f"uses node {n}, which does not exist"
            if self.free_cores(n) < p.cores:
                return f"needs {p.cores} cores on node {n}, which has {self.free_cores(n)} free"
        return None

    def claim(self, p: Placement) -> None:
        """Apply placement ``p``: idle nodes leave the idle pool."""
        starts, ends = self.idle.starts, self.idle.ends
        for n in p.nodes:
            if n not in self.partial:  # idle: cut it out of the idle intervals
                i = bisect_left(ends, n + 1)
                a, b = starts[i], ends[i]
                if a == n and b == n + 1:
                    del starts[i], ends[i]
                elif a == n:
                    starts[i] = n + 1
                elif b == n + 1:
                    ends[i] = n
                else:
                    ends[i] = n
                    starts.insert(i + 1, n + 1)
                    ends.insert(i + 1, b)
                self.idle.free -= 1
        self.place(p.job, p.nodes, p.cores)
