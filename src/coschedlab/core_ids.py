"""Which cores of its nodes each job of a shared-node schedule holds, as core ids.

A co-location run records, per job, its nodes (``alloc``) and how many cores it uses on each
(``node_cores``), not which ones. Tools that draw one row per resource (evalys' Gantt chart)
need disjoint resource ids, so :func:`assign_core_ids` gives each job concrete cores: core
``k`` of node ``n`` has id ``n * cores_per_node + k``. Jobs are replayed in time order (ends
before starts at the same instant, a zero-length job takes and frees its cores at its start)
and each takes the lowest-numbered free cores of every node it holds. Whenever the schedule
keeps every node within its cores, no two jobs ever hold the same core at once.

The machine is kept as *segments*, runs of consecutive nodes on which the same jobs hold the
same cores (as in the engine's shared-node accounting), so a job on many nodes costs one step
per segment, not per node. :func:`core_ids_to_nodes` is the inverse: core ids back to nodes and
the cores held on each.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import numpy as np

from .intervals import Intervals, format_intervals, parse_alloc_column

__all__ = ["assign_core_ids", "core_ids_to_nodes"]


def assign_core_ids(
    start: np.ndarray,
    end: np.ndarray,
    alloc: Sequence,
    node_cores: np.ndarray,
    cores_per_node: int,
) -> list[str]:
    """Core-id interval text (``"0-3 8-11"``) for each job of a shared-node schedule.

    ``alloc`` holds each job's node intervals as text (``"0-1"``), ``node_cores`` the cores it
    uses on each of them. A job without nodes or without finite times gets ``""``. On a schedule
    that overfills a node the job still gets its count of cores, some of them shared (the
    validator reports the overfilled node).
    """
    n = len(alloc)
    rows, first, count = parse_alloc_column(alloc)
    if not len(rows):
        return [""] * n
    limits = np.searchsorted(rows, np.arange(n + 1))
    intervals = [
        sorted(zip(first[a:b].tolist(), (first[a:b] + count[a:b]).tolist(), strict=True))
        for a, b in zip(limits[:-1], limits[1:], strict=True)
    ]
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    cores = np.asarray(node_cores, dtype=np.int64)
    ok = np.isfinite(start) & np.isfinite(end) & (np.diff(limits) > 0)
    jobs = np.flatnonzero(ok)
    stop = np.maximum(end[jobs], start[jobs])
    # events: (time, end before start, job order); a zero-length job frees its cores at once
    times = np.concatenate([start[jobs], stop])
    kind = np.concatenate([np.ones(len(jobs)), np.zeros(len(jobs))])
    who = np.concatenate([jobs, jobs])
    zero = np.concatenate([stop == start[jobs], np.zeros(len(jobs), dtype=bool)])
    keep = ~np.concatenate([np.zeros(len(jobs), dtype=bool), stop == start[jobs]])
    times, kind, who, zero = times[keep], kind[keep], who[keep], zero[keep]
    order = np.lexsort((who, kind, times))
    machine = _Cores(int((first + count).max()), cores_per_node)
    texts = [""] * n
    for e in order.tolist():
        j = int(who[e])
        if kind[e]:
            texts[j] = machine.take(j, intervals[j], int(cores[j]))
            if zero[e]:
                machine.release(j, intervals[j])
        else:
            machine.release(j, intervals[j])
    return texts


class _Cores:
    """Nodes ``0..n-1`` of ``cpn`` cores as segments: ``bounds[i]`` is the first node of
    segment ``i`` (``bounds[-1] == n``), ``held[i]`` maps each job on it to its core mask."""

    __slots__ = ("bounds", "cpn", "full", "held", "used")

    def __init__(self, n: int, cpn: int) -> None:
        self.cpn = cpn
        self.full = (1 << cpn) - 1
        self.bounds = [0, n]
        self.held: list[dict[int, int]] = [{}]
        self.used = [0]

    def _split(self, x: int) -> int:
        """The index of the segment starting at node ``x`` (made so if needed)."""
        i = bisect_right(self.bounds, x) - 1
        if self.bounds[i] == x:
            return i
        self.bounds.insert(i + 1, x)
        self.held.insert(i + 1, dict(self.held[i]))
        self.used.insert(i + 1, self.used[i])
        return i + 1

    def take(self, job: int, intervals: Intervals, c: int) -> str:
        """Give ``job`` the lowest ``c`` free cores on each of its nodes; its core-id text."""
        ranges: list[tuple[int, int]] = []
        for a, b in intervals:
            ia = self._split(a)
            ib = self._split(b)
            for i in range(ia, ib):
                mask = _lowest(self.full & ~self.used[i], c)
                if mask.bit_count() < c:  # an overfilled node: share some cores
                    mask |= _lowest(self.full & ~mask, c - mask.bit_count())
                self.held[i][job] = mask
                self.used[i] |= mask
                _add_ranges(ranges, self.bounds[i], self.bounds[i + 1], mask, self.cpn)
        return format_intervals(ranges)

    def release(self, job: int, intervals: Intervals) -> None:
        """Free ``job``'s cores, merging segments that became alike."""
        for a, b in intervals:
            ia = bisect_left(self.bounds, a)
            ib = bisect_left(self.bounds, b)
            for i in range(ia, ib):
                held = self.held[i]
                del held[job]
                used = 0
                for m in held.values():
                    used |= m
                self.used[i] = used
            for k in range(min(ib, len(self.held) - 1), max(ia, 1) - 1, -1):
                if self.held[k] == self.held[k - 1]:
                    del self.bounds[k], self.held[k], self.used[k]


def _lowest(free: int, c: int) -> int:
    """The ``c`` lowest set bits of ``free`` (fewer when it has fewer)."""
    if c <= 0 or not free:
        return 0
    shift = (free & -free).bit_length() - 1
    run = (1 << c) - 1
    if (free >> shift) & run == run:  # the usual case: c free cores in a row
        return run << shift
    mask = 0
    while c and free:
        low = free & -free
        mask |= low
        free ^= low
        c -= 1
    return mask


def _add_ranges(ranges: list[tuple[int, int]], a: int, b: int, mask: int, cpn: int) -> None:
    """Append the core ids of ``mask`` on nodes ``a..b-1`` as half-open ranges, merged."""
    if mask == (1 << cpn) - 1:  # whole nodes: one range
        pieces = [(a * cpn, b * cpn)]
    else:
        runs = []
        k = 0
        while mask:
            skip = (mask & -mask).bit_length() - 1
            mask >>= skip
            k += skip
            length = (~mask & (mask + 1)).bit_length() - 1  # trailing ones
            runs.append((k, k + length))
            mask >>= length
            k += length
        pieces = [(node * cpn + lo, node * cpn + hi) for node in range(a, b) for lo, hi in runs]
    for lo, hi in pieces:
        if ranges and ranges[-1][1] == lo:
            ranges[-1] = (ranges[-1][0], hi)
        else:
            ranges.append((lo, hi))


def core_ids_to_nodes(
    alloc: Sequence, cores_per_node: int
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Core-id texts back to nodes: ``(node texts, node counts, fewest cores, most cores)``.

    For each job: its nodes as interval text (``"0-1"``), how many, and the fewest and most
    cores it holds on one of them (equal when it holds the same on each; 0 without cores).
    """
    n = len(alloc)
    rows, first, count = parse_alloc_column(alloc)
    cpn = cores_per_node
    # split every core range at node borders: one (job, node, cores) piece per node touched
    last = first + count - 1
    node_a, node_b = first // cpn, last // cpn
    span = node_b - node_a + 1
    piece_job = np.repeat(rows, span)
    offset = np.arange(int(span.sum()), dtype=np.int64) - np.repeat(np.cumsum(span) - span, span)
    node = np.repeat(node_a, span) + offset
    lo = np.maximum(np.repeat(first, span), node * cpn)
    hi = np.minimum(np.repeat(last, span), node * cpn + cpn - 1)
    width = int(node.max(initial=0)) + 1
    uniq, inv = np.unique(piece_job * width + node, return_inverse=True)
    per = np.bincount(inv, weights=hi - lo + 1).astype(np.int64)
    uj, un = uniq // width, uniq % width
    none = np.iinfo(np.int64).max
    fewest = np.full(n, none, dtype=np.int64)
    most = np.zeros(n, dtype=np.int64)
    np.minimum.at(fewest, uj, per)
    np.maximum.at(most, uj, per)
    fewest[fewest == none] = 0
    # runs of consecutive nodes of one job
    cut = np.flatnonzero(np.r_[True, (uj[1:] != uj[:-1]) | (un[1:] != un[:-1] + 1)])
    last_of = np.r_[cut[1:], len(un)] - 1
    runs = list(zip(un[cut].tolist(), (un[last_of] + 1).tolist(), strict=True))
    limits = np.searchsorted(uj[cut], np.arange(n + 1)).tolist()
    texts = [format_intervals(runs[a:b]) for a, b in zip(limits[:-1], limits[1:], strict=True)]
    return texts, np.bincount(uj, minlength=n).astype(np.int64), fewest, most
