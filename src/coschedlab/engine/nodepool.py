"""Which nodes are free: a pool of node ids kept as sorted, disjoint half-open intervals.

Whole-node allocation (the batch core). A job gets the **smallest run of free nodes that holds
it whole** (the lowest ids among runs of that length: best fit, as resource managers place jobs
on consecutive nodes); when no run is long enough it takes the longest runs whole, so it gets as
few pieces as possible. This keeps long runs for large jobs and allocations contiguous: on a
loaded 100,000-node machine taking the lowest free ids gives a job 14 pieces on average.
Releasing merges intervals back. Each operation costs O(log intervals + pieces touched).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import MutableSequence

from ..intervals import Intervals

__all__ = ["NodePool"]


class NodePool:
    """Free node ids of a machine of ``n`` nodes.

    Intervals are kept in descending order of start (``starts`` holds the negated starts, so
    the list is ascending for bisect and the lowest free ids sit at its end), and by length in
    ``by_len`` (sorted ``(length, start)`` pairs) for best fit.
    """

    __slots__ = ("starts", "ends", "free", "by_len")

    def __init__(self, n: int) -> None:
        self.starts: list[int] = [0] if n else []  # -start of each interval, ascending
        self.ends: list[int] = [n] if n else []
        self.by_len: list[tuple[int, int]] = [(n, 0)] if n else []
        self.free = n

    def take_into(self, k: int, out: MutableSequence[int]) -> int:
        """Remove ``k`` free nodes, append them to ``out`` as flat ``a0, b0, a1, b1, ...``
        half-open intervals; returns how many intervals.

        Best fit: the shortest run of free nodes that holds all ``k`` (lowest ids among
        equals). When no run is long enough, the longest runs are taken whole (fewest pieces),
        then the rest by best fit again."""
        if k > self.free:
            raise ValueError(f"asked for {k} nodes, {self.free} free")
        self.free -= k
        by_len, starts, ends = self.by_len, self.starts, self.ends
        pieces = 0
        while k > 0:
            i = bisect_left(by_len, (k, -1))
            if i == len(by_len):  # none holds the rest: the longest run (lowest ids), whole
                i = bisect_left(by_len, (by_len[-1][0], -1))
            length, a = by_len.pop(i)
            pos = bisect_left(starts, -a)
            pieces += 1
            out.append(a)
            if length <= k:
                out.append(a + length)
                del starts[pos], ends[pos]
                k -= length
            else:
                out.append(a + k)
                starts[pos] = -(a + k)
                insort(by_len, (length - k, a + k))
                k = 0
        return pieces

    def take(self, k: int) -> Intervals:
        """Remove ``k`` free nodes and return them as intervals (see :meth:`take_into`)."""
        flat: list[int] = []
        self.take_into(k, flat)
        return list(zip(flat[0::2], flat[1::2], strict=True))

    def holds(self, a: int, b: int) -> bool:
        """Whether the nodes ``[a, b)`` are all free."""
        i = bisect_left(self.starts, -a)  # the free interval with the largest start <= a
        return i < len(self.starts) and self.ends[i] >= b

    def take_range(self, a: int, b: int) -> None:
        """Remove the free nodes ``[a, b)`` (a policy's chosen nodes; see :meth:`holds`)."""
        starts, ends, by_len = self.starts, self.ends, self.by_len
        i = bisect_left(starts, -a)
        if i == len(starts) or ends[i] < b:
            raise ValueError(f"nodes [{a}, {b}) are not all free")
        lo, hi = -starts[i], ends[i]
        del by_len[bisect_left(by_len, (hi - lo, lo))]
        del starts[i], ends[i]
        if b < hi:  # the part above (higher ids) keeps its place in the descending order
            starts.insert(i, -b)
            ends.insert(i, hi)
            insort(by_len, (hi - b, b))
            i += 1
        if lo < a:
            starts.insert(i, -lo)
            ends.insert(i, a)
            insort(by_len, (a - lo, lo))
        self.free -= b - a

    def give_range(self, a: int, b: int) -> None:
        """Return the nodes ``[a, b)`` taken earlier; adjacent free intervals merge."""
        starts, ends, by_len = self.starts, self.ends, self.by_len
        # position among intervals ordered by descending start (ascending -start)
        i = bisect_left(starts, -a)
        # the interval just above (higher ids) is at i - 1, the one below at i
        merge_above = i > 0 and -starts[i - 1] == b
        merge_below = i < len(starts) and ends[i] == a
        lo, hi = a, b
        if merge_above:
            hi = ends[i - 1]
            del by_len[bisect_left(by_len, (hi - b, b))]
        if merge_below:
            lo = -starts[i]
            del by_len[bisect_left(by_len, (a - lo, lo))]
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
        insort(by_len, (hi - lo, lo))
        self.free += b - a

    def give(self, intervals: Intervals) -> None:
        """Return intervals taken earlier; adjacent free intervals merge."""
        for a, b in intervals:
            self.give_range(a, b)
