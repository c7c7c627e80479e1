"""List scheduling: start jobs in priority order, strictly or greedily.

``fcfs`` keeps submission order; ``sjf`` orders by requested time (shortest first). Neither
backfills: the first job that does not fit blocks every job behind it. ``firstfit`` starts every
job that fits, in priority order, with no reservation at all (greedy backfilling; with
``order=wfp`` it is the policy of Cobalt's cluster simulator, the analysis system of Tang et
al. 2011).

Their passes are compiled (:mod:`.passes`, ``StrictPass`` and ``FirstFitPass``, called by the
kernel with the queue in the policy's order, any order key, in every run, coupled ones too);
the Python passes they replaced are the test-suite's oracles (tests/reference_passes.py).
:func:`start_in_order` stays as a building block for user policies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .base import Scheduler
from .passes import FirstFitPass, StrictPass
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

    def setup(self, view: View) -> None:
        ok = self._compilable(FCFS, "schedule")
        self.compiled_pass = StrictPass(self.order_name()) if ok else None

    def schedule(self, view: View) -> list[int]:
        """The kernel runs the compiled pass (:class:`.passes.StrictPass`) instead; a subclass
        that overrides ``schedule`` writes its own (e.g. from :func:`start_in_order`)."""
        raise self._no_python_pass(FCFS)


@register("sjf")
class SJF(FCFS):
    """Shortest (requested) job first, strictly; ties by submission order."""

    def __init__(self, order: str = "sjf") -> None:
        super().__init__(order)


@register("firstfit")
class FirstFit(Scheduler):
    """Every job that fits now, in priority order (no reservation: a large job may starve)."""

    def setup(self, view: View) -> None:
        ok = self._compilable(FirstFit, "schedule")
        self.compiled_pass = FirstFitPass(self.order_name()) if ok else None

    def schedule(self, view: View) -> list[int]:
        """The kernel runs the compiled pass (:class:`.passes.FirstFitPass`) instead."""
        raise self._no_python_pass(FirstFit)
