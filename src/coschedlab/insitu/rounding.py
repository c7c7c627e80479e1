"""Sum-preserving integer rounding (Do et al., Section IV-B2, Algorithm 1)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import InputError

_EPS = 1e-9


def sum_preserving_round(
    values: Sequence[float],
    total: int,
    priority: Sequence[float],
    *,
    minimum: int = 1,
    where: str = "rounding",
) -> list[int]:
    """Algorithm 1: round ``values`` to integers summing to ``total``.

    Every value starts at its floor (values below ``minimum`` are rounded up to it, as the
    authors' code does); then the k = total - sum(floors) items with the largest ``priority``
    (t(1) of the job, or Q of the allocation) are rounded up. Items that are already integers
    are skipped so that the sum is preserved; ties go to the earlier item. If the minimum pushes
    the sum above ``total``, units are taken back from the largest items (lowest priority first).
    """
    n = len(values)
    if n == 0:
        if total != 0:
            raise InputError(f"cannot split {total} over nothing", where=where)
        return []
    if total < minimum * n:
        raise InputError(
            f"{total} units cannot give {n} items at least {minimum} each", where=where
        )
    base = [max(math.floor(v + _EPS), minimum) for v in values]
    k = total - sum(base)
    order = sorted(range(n), key=lambda i: (-priority[i], i))
    if k > 0:
        frac = [i for i in order if values[i] - base[i] > _EPS]
        rest = [i for i in order if i not in set(frac)]
        chosen = frac + rest
        j = 0
        while k > 0:
            base[chosen[j % n]] += 1
            k -= 1
            j += 1
    while k < 0:
        i = max(
            (i for i in range(n) if base[i] > minimum), key=lambda i: (base[i], -priority[i], i)
        )
        base[i] -= 1
        k += 1
    return base


def _is_int(v: float) -> bool:
    return abs(v - round(v)) <= _EPS


def threshold_round(
    values: Sequence[float], total: int, priority: Sequence[float], *, where: str = "rounding"
) -> list[int]:
    """Algorithm 1 as the authors' ``solver/scheduler.py`` applies it (their ``allocate``).

    Integer values are kept. The other items are visited by ascending ``priority`` (a stable
    sort: ties in declaration order); values below 1 are rounded up; of the rest, the first
    k = #non-integer - (total - sum of floors) are rounded down and the others up. The result
    sums to ``total`` + (the part of k left over). Their last public scheduler rejects such a
    configuration, but their published runs include configurations it would reject (e.g. 32
    simulations on 32 group nodes, INCREASING-75), so the surplus is taken back here from the
    largest items (ties: lowest priority first); :class:`InputError` only if that is impossible.
    """
    n = len(values)
    if total < n:
        raise InputError(f"{total} units cannot give {n} items at least 1 each", where=where)
    floors = [math.floor(v + _EPS) for v in values]
    nonint = [i for i in range(n) if not _is_int(values[i])]
    k = len(nonint) - (total - sum(floors))
    out = [0] * n
    for i in sorted(range(n), key=lambda i: priority[i]):
        v = values[i]
        if _is_int(v):
            out[i] = max(1, round(v))
        elif v < 1:
            out[i] = math.ceil(v)
        elif k > 0:
            out[i] = floors[i]
            k -= 1
        else:
            out[i] = floors[i] + 1
    surplus = sum(out) - total
    while surplus > 0:
        i = max((i for i in range(n) if out[i] > 1), key=lambda i: (out[i], -priority[i], i))
        out[i] -= 1
        surplus -= 1
    if surplus < 0:
        raise InputError(
            f"{n} items cannot be rounded to integers summing to {total} "
            f"(values {', '.join(f'{v:.3g}' for v in values)})",
            where=where,
        )
    return out
