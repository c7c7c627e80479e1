"""Scheduling policies: a small interface, built-ins registered by name, user files welcome.

The policy API: subclass :class:`Scheduler`, read the :class:`View`, return job numbers or
:class:`Placement` decisions. Shared pieces to compose: :func:`start_in_order`, EASY's
:func:`shadow_time` and :func:`admit` on a :class:`NodeCounts` or :class:`CoreCounts`
projection, the availability :class:`Profile`, the queue orders in :data:`ORDERS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.placement import Placement
from ..engine.view import View
from .base import GUARANTEES, ORDERS, Scheduler
from .easy import CoreCounts, NodeCounts, ScanMemo, admit, shadow_time
from .profile import Profile
from .registry import available, get_scheduler, register

if TYPE_CHECKING:
    from .backfill import EASY, Backfill, Conservative
    from .priority import Multifactor
    from .slurm import Slurm
    from .strict import FCFS, SJF, start_in_order

# The built-ins' classes, imported on first use (the registry imports a built-in when its name
# is first looked up): a run of one scheduler does not import the others.
_LAZY = {
    "EASY": "backfill",
    "Backfill": "backfill",
    "Conservative": "backfill",
    "Multifactor": "priority",
    "Slurm": "slurm",
    "FCFS": "strict",
    "SJF": "strict",
    "start_in_order": "strict",
}


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "EASY",
    "FCFS",
    "GUARANTEES",
    "ORDERS",
    "SJF",
    "Backfill",
    "Conservative",
    "CoreCounts",
    "NodeCounts",
    "Placement",
    "Profile",
    "ScanMemo",
    "Scheduler",
    "Slurm",
    "Multifactor",
    "View",
    "admit",
    "available",
    "get_scheduler",
    "register",
    "shadow_time",
    "start_in_order",
]
