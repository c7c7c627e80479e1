"""Optimal batching of a simulation collection from the code's scaling table (SimX, Section 4.2).

A study runs ``n`` simulations of a moldable code on ``P`` processors. A *batch* of ``k``
simulations runs them at once, each on the tabulated processor count ``p`` with
``k x p <= P`` that is fastest (the seed: "each simulation getting 4 workers, with 4 workers
left idle"; :meth:`ScalingTable.group`). If
every simulation needs the same number of timesteps, a batch of ``k`` takes ``B(k) = t(p)`` per
timestep, ``t`` the scaling table's seconds per timestep. The best split of ``n`` simulations
into consecutive batches is the dynamic programme

    T(0) = 0,    T(n) = min over 1 <= k <= n of  T(n - k) + B(k).

The seed prints ``T[m,n] = min_i T[m-1,i] + T[m-1,n-i]``, which forces a split and gives
2.28n for 7 jobs instead of the paper's own 1.95n (shared/REFERENCE.md section 6): the form
above reproduces both of the paper's examples (6 jobs -> batches of 2 and 4, 1.94n; 7 jobs ->
one batch, 1.95n) and is checked against a brute force over every partition.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bundled import read_bytes
from ..errors import InputError

__all__ = [
    "Batching",
    "ScalingTable",
    "batch_time",
    "load_scaling",
    "optimal_batches",
    "parse_scaling",
]

INF = math.inf
#: the most processors a study or a scaling table names (as a study spec's 'processors')
MOST_PROCESSORS = 10_000_000
#: the longest timestep a scaling table may tabulate (s): a sum over a study stays finite
MOST_STEP_SECONDS = 1e9


@dataclass(frozen=True)
class ScalingTable:
    """Seconds per timestep of one simulation on ``p`` processors, for the tabulated ``p``."""

    seconds: tuple[tuple[int, float], ...]  # (processors, seconds per timestep), by processors

    @classmethod
    def of(cls, table: Mapping[int, float]) -> ScalingTable:
        """A checked table: whole processor counts >= 1, positive finite times."""
        if not table:
            raise InputError("the scaling table is empty")
        rows = []
        for p, t in table.items():
            if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= MOST_PROCESSORS:
                raise InputError(
                    f"scaling table: processors must be whole numbers from 1 to "
                    f"{MOST_PROCESSORS:,}, got {p!r}"
                )
            if isinstance(t, bool) or not isinstance(t, int | float) or not 0 < t < INF:
                raise InputError(
                    f"scaling table: seconds per timestep on {p} processors must be a "
                    f"positive number, got {t!r}"
                )
            if t > MOST_STEP_SECONDS:
                raise InputError(
                    f"scaling table: seconds per timestep on {p} processors must be at most "
                    f"{MOST_STEP_SECONDS:.0e} (about 30 years), got {t!r}"
                )
            rows.append((p, float(t)))
        return cls(tuple(sorted(rows)))

    @classmethod
    def amdahl(
        cls, seconds: float, serial: float, counts: Sequence[int], overhead: float = 0.0
    ) -> ScalingTable:
        """A scaling model as a table: Amdahl's law with a communication term,
        ``t(p) = seconds x (serial + (1 - serial) / p) + overhead x log2(p)`` for each of
        ``counts`` (``seconds``: one timestep on one processor)."""
        if not 0 <= serial <= 1:
            raise InputError(
                f"scaling model: the serial fraction must be from 0 to 1, got {serial}"
            )
        if not counts:
            raise InputError("scaling model: no processor count given")
        return cls.of({
            int(p): seconds * (serial + (1 - serial) / p) + overhead * math.log2(p)
            for p in counts
        })  # fmt: skip

    def group(self, k: int, procs: int) -> int | None:
        """The processors each of ``k`` simultaneous simulations gets on ``procs``: the
        tabulated count ``p`` with ``k x p <= procs`` that runs a timestep fastest (the fewer
        processors on a tie; None if even the smallest is too many). With a table whose time
        falls as ``p`` grows this is the largest count that fits, the seed's rule; a table
        where too many processors slow a run down (the seed's 64) is not run on them."""
        fits = [(t, p) for p, t in self.seconds if k * p <= procs]
        return min(fits)[1] if fits else None

    def time(self, p: int) -> float:
        """Seconds per timestep on ``p`` processors (a tabulated count)."""
        return dict(self.seconds)[p]


def parse_scaling(text: str) -> ScalingTable:
    """``"4:1.95,8:1.14,16:0.80"`` (processors:seconds per timestep) as a table."""
    table: dict[int, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        p, sep, t = item.partition(":")
        try:
            procs, secs = int(p), float(t)
        except ValueError:
            raise InputError(
                f"scaling table: expected PROCESSORS:SECONDS, got {item!r} "
                "(e.g. 4:1.95,8:1.14,16:0.80)"
            ) from None
        if not sep:
            raise InputError(f"scaling table: expected PROCESSORS:SECONDS, got {item!r}")
        if procs in table:
            raise InputError(f"scaling table: {procs} processors given twice")
        table[procs] = secs
    return ScalingTable.of(table)


def batch_time(k: int, table: ScalingTable, procs: int) -> float:
    """``B(k)``: seconds per timestep of a batch of ``k`` equal simulations (inf when they
    cannot all run at once)."""
    p = table.group(k, procs)
    return INF if p is None else table.time(p)


@dataclass(frozen=True)
class Batching:
    """The optimal batches: their sizes in issue order, processors per simulation in each,
    and the total seconds per timestep of one simulation (the study takes ``time x n``
    seconds when every simulation runs ``n`` timesteps)."""

    sizes: tuple[int, ...]
    groups: tuple[int, ...]
    time: float


#: the most simulations a study holds (its design space), and so the most split in batches
MOST_SIMULATIONS = 1_000_000


def optimal_batches(n: int, table: ScalingTable, procs: int) -> Batching:
    """The split of ``n`` equal simulations into batches that minimises the total time
    (the module's recurrence). Ties keep fewer batches; batches are issued smallest first
    (the seed issues 2 then 4)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MOST_SIMULATIONS:
        raise InputError(
            "the number of simulations must be a whole number from 0 to "
            f"{MOST_SIMULATIONS:,} (the most a study holds), got {n!r}"
        )
    if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
        raise InputError(f"processors must be a whole number >= 1, got {procs!r}")
    if procs > MOST_PROCESSORS:
        raise InputError(f"processors must be at most {MOST_PROCESSORS:,}, got {procs:,}")
    if table.group(1, procs) is None:
        raise InputError(
            f"no tabulated processor count fits {procs} processors "
            f"(smallest: {table.seconds[0][0]})"
        )
    # B(k) is a step function of k: the batches served by tabulated count p (those with
    # group(k) = p) form one range of k. T(m) = min over ranges of t(p) + min T(m - k) over
    # the k of that range: a sliding-window minimum per range, O(n x table) instead of O(n^2).
    ranges = []
    ps = [p for p, _ in table.seconds if p <= procs]
    for i, p in enumerate(ps):
        hi = procs // p
        lo = procs // ps[i + 1] + 1 if i + 1 < len(ps) else 1
        if lo <= hi:  # group(k) is constant for k in [lo, hi]
            ranges.append((lo, hi, batch_time(hi, table, procs)))
    best = [0.0] + [INF] * n
    count = [0] + [0] * n
    choice = [0] * (n + 1)
    windows = [deque() for _ in ranges]  # candidate j = m - k, keys increasing
    for m in range(1, n + 1):
        for (lo, hi, t_p), win in zip(ranges, windows, strict=True):
            j_new = m - lo
            if j_new >= 0:
                key = (best[j_new], count[j_new])
                while win and (best[win[-1]], count[win[-1]]) >= key:
                    win.pop()
                win.append(j_new)
            while win and win[0] < m - hi:
                win.popleft()
            if not win:
                continue
            j = win[0]
            t, c = best[j] + t_p, count[j] + 1
            # strictly better (beyond rounding), or as good with fewer batches
            if t < best[m] - 1e-12 or (abs(t - best[m]) <= 1e-12 and c < count[m]):
                best[m], count[m], choice[m] = t, c, m - j
    sizes = []
    m = n
    while m:
        sizes.append(choice[m])
        m -= choice[m]
    sizes.sort()
    groups = tuple(table.group(k, procs) or 0 for k in sizes)
    return Batching(tuple(sizes), groups, best[n])


def load_scaling(text: str) -> ScalingTable:
    """A scaling table inline (``4:1.95,8:1.14``) or from a CSV file of
    ``processors,seconds_per_timestep`` lines (a header line allowed)."""
    path = Path(text)
    if ":" in text and not path.exists():
        return parse_scaling(text)
    if path.is_dir():
        raise InputError("is a directory, not a scaling table", str(path))
    if not path.is_file():
        raise InputError(
            f"--scaling {text!r}: not a file; give PROCESSORS:SECONDS,... or a CSV file"
        )
    lines = read_bytes(path).decode("utf-8-sig", errors="replace").splitlines()
    items = []
    for lineno, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split(",")]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2:
            raise InputError("expected processors,seconds_per_timestep", f"{path}:{lineno}")
        try:
            int(cells[0]), float(cells[1])
        except ValueError:
            if not items and lineno == 1:
                continue  # a header
            raise InputError(
                f"expected processors,seconds_per_timestep, got {line.strip()!r}",
                f"{path}:{lineno}",
            ) from None
        items.append(f"{cells[0]}:{cells[1]}")
    try:
        return parse_scaling(",".join(items))
    except InputError as exc:
        raise InputError(exc.what, str(path)) from None
