"""Scheduling policies: a small interface, built-ins registered by name, user files welcome."""

from __future__ import annotations

from . import backfill, strict  # noqa: F401  (registers the built-ins)
from .backfill import EASY, Backfill, Conservative
from .base import ORDERS, Scheduler
from .registry import available, get_scheduler, register
from .strict import FCFS, SJF, start_in_order

__all__ = [
    "EASY",
    "FCFS",
    "ORDERS",
    "SJF",
    "Backfill",
    "Conservative",
    "Scheduler",
    "available",
    "get_scheduler",
    "register",
    "start_in_order",
]
