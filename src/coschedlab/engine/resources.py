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


def parse_intervals(text: str) -> Intervals:
    """Inverse of :func:`format_intervals`: ``"0-3 7"`` -> ``[(0, 4), (7, 8)]``."""
    out: Intervals = []
    for part in text.replace(",", " ").split():
        a, _, b = part.partition("-")
        out.append((int(a), int(b or a) + 1))
    return out
