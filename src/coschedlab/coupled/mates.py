"""Mates: which job on one system must start together with which job on another.

Three ways to pair, as in Tang et al. (2011) and their Qsim code (Argonne's Cobalt):

* :func:`pair_by_vicinity`: a job on system 2 pairs with the *latest* job on system 1
  submitted at most ``v`` seconds before it (at or before its own submit time); one-to-one:
  when several system-2 jobs find the same system-1 job, the last of them keeps it (Cobalt's
  ``init_mate_job_dict_by_vicinity``; Cobalt compares with ``<``, we with ``<=`` as the paper
  says "within 2 minutes").
* :func:`pair_every`: the i-th jobs of both systems (submit order), every ``k``-th ``i``
  (Cobalt's ``init_mate_job_dict_by_ratio`` with ratio 1/k); the paired proportion is 1/k.
* :func:`read_pairs`: explicit pairs from a CSV file (``system,job,system,job`` per line, or
  ``job,job`` for two systems; an optional first line of column names).

A :class:`Pairs` maps ``(system, job id)`` to the mate's ``(system, job id)`` both ways.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..bundled import read_bytes
from ..errors import InputError
from ..jobs import Workload

__all__ = ["Pairs", "pair_by_vicinity", "pair_every", "parse_pairing", "read_pairs"]


@dataclass
class Pairs:
    """Mates between systems: ``mate[(system, job id)] = (other system, its job id)``."""

    mate: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)

    def add(self, a: tuple[int, int], b: tuple[int, int], where: str | None = None) -> None:
        """Pair job ``a`` with job ``b`` (each ``(system, job id)``); a job has one mate."""
        if a[0] == b[0]:
            raise InputError(f"job {a[1]} and job {b[1]} are on the same system", where)
        for x in (a, b):
            if x in self.mate:
                raise InputError(f"job {x[1]} of system {x[0] + 1} has two mates", where)
        self.mate[a] = b
        self.mate[b] = a

    def __len__(self) -> int:
        """Number of pairs."""
        return len(self.mate) // 2

    def of(self, system: int) -> dict[int, tuple[int, int]]:
        """The paired jobs of ``system``: job id -> (mate's system, mate's job id)."""
        return {j: m for (s, j), m in self.mate.items() if s == system}

    def table(self) -> list[tuple[int, int, int, int]]:
        """Each pair once, as ``(system, job id, system, job id)``, lower system first."""
        return sorted((a[0], a[1], b[0], b[1]) for a, b in self.mate.items() if a < b)


def _order(w: Workload) -> tuple[np.ndarray, np.ndarray]:
    c = w.columns
    k = np.lexsort((c["id"], c["submit"]))
    return c["submit"][k], c["id"][k]


def pair_by_vicinity(
    first: Workload, second: Workload, v: float, systems: tuple[int, int] = (0, 1)
) -> Pairs:
    """Pair each job of ``second`` with the latest job of ``first`` submitted at most ``v``
    seconds before it (one-to-one: a ``first`` job claimed twice keeps the later claimant)."""
    if not (v >= 0):
        raise InputError(f"the vicinity must be a number of seconds >= 0, got {v!r}")
    s1, id1 = _order(first)
    s2, id2 = _order(second)
    # the last first-system job submitted at or before each second-system job
    at = np.searchsorted(s1, s2, side="right") - 1
    ok = (at >= 0) & (s2 - s1[np.maximum(at, 0)] <= v)
    claim: dict[int, int] = {}
    for k in np.flatnonzero(ok).tolist():  # submit order: a later claimant overwrites
        claim[int(at[k])] = k
    pairs = Pairs()
    a, b = systems
    for i, k in sorted(claim.items()):
        pairs.add((a, int(id1[i])), (b, int(id2[k])))
    return pairs


def pair_every(
    first: Workload, second: Workload, k: int, systems: tuple[int, int] = (0, 1)
) -> Pairs:
    """Pair the i-th jobs (submit order) of both systems for every ``i`` divisible by ``k``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"every: the step must be a whole number >= 1, got {k!r}")
    _, id1 = _order(first)
    _, id2 = _order(second)
    pairs = Pairs()
    a, b = systems
    for i in range(0, min(len(id1), len(id2)), k):
        pairs.add((a, int(id1[i])), (b, int(id2[i])))
    return pairs


def read_pairs(path: str | Path, workloads: Sequence[Workload]) -> Pairs:
    """Explicit pairs from a CSV file: ``system,job,system,job`` per line (systems numbered
    from 1), or ``job,job`` when there are two systems; ``#`` starts a comment, a first line
    without any number is a header. Every job must exist on its system."""
    path = Path(path)
    text = read_bytes(path).decode("utf-8-sig", errors="replace")  # a spreadsheet's BOM
    ids = [set(w.columns["id"].tolist()) for w in workloads]
    pairs = Pairs()
    reader = csv.reader(io.StringIO(text))
    first = True
    try:
        for row in reader:
            lineno = reader.line_num  # the physical line the record ends on
            cells = [c.strip() for c in row]
            if not cells or not any(cells) or cells[0].startswith("#"):
                continue
            where = f"{path}:{lineno}"
            header, first = first, False
            if any("\n" in c or "\r" in c for c in row):
                raise InputError("a value spans lines (a quoted line break)", where)
            try:
                nums = [int(c) for c in cells]
            except ValueError:
                if header and not any(c.lstrip("+-").isdigit() for c in cells):
                    continue  # a header: no number in it
                raise InputError(
                    f"expected whole numbers, got {','.join(cells)!r}", where
                ) from None
            if len(nums) == 2 and len(workloads) == 2:
                a_, b_ = (0, nums[0]), (1, nums[1])
            elif len(nums) == 4:
                a_, b_ = (nums[0] - 1, nums[1]), (nums[2] - 1, nums[3])
            else:
                want = "system,job,system,job" + (" or job,job" if len(workloads) == 2 else "")
                raise InputError(f"expected {want}, got {len(nums)} values", where)
            for sy, j in (a_, b_):
                if not 0 <= sy < len(workloads):
                    raise InputError(f"no system {sy + 1} (there are {len(workloads)})", where)
                if j not in ids[sy]:
                    raise InputError(f"system {sy + 1} has no job {j}", where)
            pairs.add(a_, b_, where)
    except csv.Error as exc:
        raise InputError(f"not a CSV file of pairs ({exc})", f"{path}:{reader.line_num}") from None
    if not len(pairs):
        raise InputError("no pairs in the file (system,job,system,job per line)", str(path))
    return pairs


def parse_pairing(text: str) -> tuple[str, float | str]:
    """``vicinity:V``, ``every:K``, ``proportion:P`` (every round(1/P)-th job), ``file:PATH``
    or ``none``, as ``(kind, value)``."""
    kind, _, value = text.partition(":")
    kind = kind.strip()
    if kind == "none" and not value:
        return "none", 0
    if kind == "file" and value:
        return "file", value
    if kind in ("vicinity", "every", "proportion") and value:
        try:
            num = float(value)
        except ValueError:
            num = float("nan")
        if kind == "vicinity" and 0 <= num < float("inf"):
            return kind, num
        if kind == "every" and num >= 1 and num.is_integer():
            return kind, int(num)
        if kind == "proportion" and 0 < num <= 1:
            return "every", max(1, round(1 / num))
        raise InputError(f"bad pairing {text!r}: {kind} needs {_NEEDS[kind]}")
    raise InputError(
        f"unknown pairing {text!r}; use vicinity:SECONDS, every:K, proportion:P, file:PATH or none"
    )


_NEEDS = {
    "vicinity": "a finite number of seconds >= 0",
    "every": "a whole number >= 1",
    "proportion": "a fraction in (0, 1]",
}


def make_pairs(how: str, workloads: Sequence[Workload]) -> Pairs:
    """The pairs ``how`` (see :func:`parse_pairing`) describes between the first two
    systems (or from a file, between any)."""
    kind, value = parse_pairing(how)
    if kind == "none":
        return Pairs()
    if kind == "file":
        return read_pairs(str(value), workloads)
    if len(workloads) < 2:
        raise InputError("pairing needs at least two systems")
    if kind == "vicinity":
        return pair_by_vicinity(workloads[0], workloads[1], float(value))
    return pair_every(workloads[0], workloads[1], int(value))


def paired_share(pairs: Pairs, sizes: Iterable[int]) -> list[float]:
    """Per system, the share of its jobs that have a mate."""
    counts = Counter(s for s, _ in pairs.mate)
    return [counts.get(s, 0) / n if n else 0.0 for s, n in enumerate(sizes)]
