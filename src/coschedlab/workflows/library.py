"""The workflows of the WoAS paper (Rodrigo et al., HPDC'17): the six of its Table 2 and the
synthetic groups A, B and C of its Table 1, for any n.

Task numbers are the authors' manifests (ScSF, ``bin/manifests``; REFERENCE.md section 4):
actual run time and time limit per task. The paper's Table 2 SIPHT row (9 jobs, 384 cores) is
another version than the authors' manifest used here (12 tasks of 96 cores).

Groups (Table 1; the authors' synthetic manifests run each task 100 s under its limit):

* ``A<n>``: a chain of n tasks of 240 cores x 1 h;
* ``B<n>``: 240 cores x 1 h, then n x 240 cores x 1 h;
* ``C<n>``: 240 cores x 1 h, then n x 240 cores x (2n - 1) h.
"""

from __future__ import annotations

import re

from ..errors import InputError
from .model import Workflow

__all__ = ["BUILTIN", "builtin", "group", "names"]

H = 3600.0
MAX_N = 10_000  # group A<n> has n tasks


def _montage() -> Workflow:
    rows = [
        ("S0", 120, 543.73, 603.73, ()),
        ("S1", 960, 1270.79, 1330.79, ("S0",)),
        ("S2", 120, 429.49, 489.49, ("S0", "S4")),
        ("S3", 1, 4389.62, 4449.62, ("S2",)),
        ("S4", 1, 20787.09, 20847.09, ("S1",)),
    ]
    return Workflow.build("montage", rows)


def _cybershake() -> Workflow:
    rows = [
        ("S0", 120, 11574.44, 11634.44, ()),
        ("S1", 720, 3736.78, 3796.78, ("S0",)),
        ("S2", 720, 93.57, 153.57, ("S1",)),
        ("S3", 1, 325.26, 385.26, ("S1",)),
        ("S4", 1, 695.81, 755.81, ("S2",)),
    ]
    return Workflow.build("cybershake", rows)


def _sipht() -> Workflow:
    run = [15.37, 1332.44, 36.97, 55.04, 2335.14, 354.91, 1.66, 1.66, 1399.73, 32.87, 5.10, 5.06]
    deps: dict[int, tuple[int, ...]] = {
        5: (1, 2, 3, 4),
        6: (0, 5, 8, 9, 10, 11),
        7: (5,),
        8: (5,),
        9: (5, 7),
        10: (5,),
        11: (5,),
    }
    rows = [
        (f"S{k}", 96, r, r + 60, tuple(f"S{d}" for d in deps.get(k, ()))) for k, r in enumerate(run)
    ]
    return Workflow.build("sipht", rows)


def _floodplain() -> Workflow:
    spec = [
        (256, 39600, ()),
        (256, 3600, ()),
        (192, 10800, (0, 3)),
        (10, 28800, (0, 1)),
        (160, 14400, (0, 5)),
        (8, 46800, (0, 1)),
        (256, 16200, (2, 4)),
    ]
    rows = [
        (f"S{k}", c, float(r), r + 60.0, tuple(f"S{d}" for d in d_))
        for k, (c, r, d_) in enumerate(spec)
    ]
    return Workflow.build("floodplain", rows)


def _longwide() -> Workflow:
    return Workflow.build(
        "longwide", [("S0", 48, 14340, 14400, ()), ("S1", 480, 3540, 3600, ("S0",))]
    )


def _widelong() -> Workflow:
    return Workflow.build(
        "widelong", [("S0", 480, 3540, 3600, ()), ("S1", 48, 14340, 14400, ("S0",))]
    )


BUILTIN = {
    "montage": _montage,
    "cybershake": _cybershake,
    "sipht": _sipht,
    "floodplain": _floodplain,
    "longwide": _longwide,
    "widelong": _widelong,
}
_GROUP = re.compile(r"^([abc])(\d+)$", re.IGNORECASE)


def group(kind: str, n: int) -> Workflow:
    """Workflow ``n`` of synthetic group ``kind`` (A, B or C; the paper's Table 1)."""
    kind = kind.upper()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise InputError(f"group {kind} needs n from 1 to {MAX_N}, got {n!r}")
    slack = 100.0  # the authors' manifests run each task 100 s under its limit

    def task(k: int, cores: int, hours: float, deps: tuple[str, ...]):
        return (f"S{k}", cores, hours * H - slack, hours * H, deps)

    if kind == "A":
        rows = [task(k, 240, 1, (f"S{k - 1}",) if k else ()) for k in range(n)]
    elif kind == "B":
        rows = [task(0, 240, 1, ()), task(1, 240 * n, 1, ("S0",))]
    elif kind == "C":
        rows = [task(0, 240, 1, ()), task(1, 240 * n, 2 * n - 1, ("S0",))]
    else:
        raise InputError(f"unknown workflow group {kind!r}; choose A, B or C")
    return Workflow.build(f"{kind}{n}", rows)


def names() -> list[str]:
    """The built-in names (groups are ``A<n>``, ``B<n>``, ``C<n>``)."""
    return [*BUILTIN, "A<n>", "B<n>", "C<n>"]


def builtin(name: str) -> Workflow | None:
    """The built-in workflow ``name`` (case-insensitive), or None."""
    key = name.lower()
    if key in BUILTIN:
        return BUILTIN[key]()
    m = _GROUP.match(key)
    if m:
        return group(m.group(1), int(m.group(2)))
    return None
