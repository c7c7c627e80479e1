"""Strict list scheduling: start jobs in priority order until the first one that does not fit.

``fcfs`` keeps submission order; ``sjf`` orders by requested time (shortest first). Neither
backfills: the first job that does not fit blocks every job behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .base import Scheduler
from .registry import register

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.view import View


def start_in_order(view: View, queue: Sequence[int], free: int) -> list[int]:
    """The longest prefix of ``queue`` that fits in ``free`` nodes, one job after another."""
    nodes = view.nodes
    started = []
    for j in queue:
        if nodes[j] > free:
            break
        free -= nodes[j]
        started.append(j)
    return started


@register("fcfs")
class FCFS(Scheduler):
    """First come, first served, strictly (no backfilling)."""

    def schedule(self, view: View) -> list[int]:
        return start_in_order(view, self.ordered_queue(view), view.free)


@register("sjf")
class SJF(FCFS):
    """Shortest (requested) job first, strictly; ties by submission order."""

    def __init__(self, order: str = "sjf") -> None:
        super().__init__(order)
