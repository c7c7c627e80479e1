"""Scheduling policies: a small interface, built-ins registered by name, user files welcome.

The policy API: subclass :class:`Scheduler`, read the :class:`View`, return job numbers or
:class:`Placement` decisions. Shared pieces to compose: :func:`start_in_order`, EASY's
:func:`shadow_time` and :func:`admit` on a :class:`NodeCounts` or :class:`CoreCounts`
projection, the availability :class:`Profile`, the queue orders in :data:`ORDERS`.
"""

from __future__ import annotations

from ..engine.placement import Placement
from ..engine.view import View
from . import backfill, slurm, strict  # noqa: F401  (registers the built-ins)
from .backfill import EASY, Backfill, Conservative
from .base import GUARANTEES, ORDERS, Scheduler
from .easy import CoreCounts, NodeCounts, ScanMemo, admit, shadow_time
from .priority import Multifactor
from .profile import Profile
from .registry import available, get_scheduler, register
from .slurm import Slurm
from .strict import FCFS, SJF, start_in_order

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
