"""The availability profile: free nodes as a step function of future time.

One mechanism for every reservation-based policy (Mu'alem & Feitelson 2001; pybatsim's
``reservation_depth``): built from the running jobs' estimated ends, then each job in priority
order either starts now or takes its earliest slot that fits for its whole requested time.
EASY is one reservation, conservative backfilling is all of them.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable

INF = math.inf


class Profile:
    """Free nodes over time: ``free[i]`` nodes during ``[times[i], times[i+1])``, last to inf."""

    __slots__ = ("times", "free")

    def __init__(self, now: float, free_now: int, releases: Iterable[tuple[float, int]]) -> None:
        """Start at ``now`` with ``free_now`` nodes; ``releases`` are sorted (time, nodes).

        A release at or before ``now`` (a job past its estimate) counts as released at ``now``.
        """
        times = [now]
        free = [free_now]
        for t, n in releases:
            if t <= now:
                free[0] += n
            elif t == times[-1]:
                free[-1] += n
            else:
                times.append(t)
                free.append(free[-1] + n)
        self.times = times
        self.free = free

    def earliest(self, need: int, duration: float) -> float:
        """Earliest breakpoint from which ``need`` nodes stay free for ``duration``."""
        times, free = self.times, self.free
        n = len(times)
        i = 0
        while i < n:
            if free[i] < need:
                i += 1
                continue
            end = times[i] + duration
            k = i + 1
            while k < n and times[k] < end:
                if free[k] < need:
                    break
                k += 1
            else:
                return times[i]
            i = k + 1
        return INF

    def reserve(self, t: float, duration: float, need: int) -> None:
        """Take ``need`` nodes during ``[t, t + duration)`` (t is a breakpoint or later)."""
        times, free = self.times, self.free
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            free.insert(i, free[i - 1])
        end = t + duration
        k = bisect_left(times, end, i)
        if k == len(times) or times[k] != end:
            times.insert(k, end)
            free.insert(k, free[k - 1])
        for m in range(i, k):
            free[m] -= need

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in zip(self.times, self.free, strict=True))
        return f"Profile({steps})"
