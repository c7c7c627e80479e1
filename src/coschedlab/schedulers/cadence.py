"""Periodic passes: the ticks ``k x interval + phase``, computed once for every clock.

Slurm's backfill thread runs every ``bf_interval`` seconds (``sched/backfill``,
``backfill_agent`` in ``src/plugins/sched/backfill/backfill.c``: it sleeps ``backfill_interval``
between passes of ``_attempt_backfill``), and a real slurmctld runs its main scheduler about
once a second (``sched_interval``). :class:`Ticks` is the arithmetic of such a clock, used by
:class:`.slurm.Slurm` (``bf_interval`` at ``bf_phase``, ``sched_interval`` at ``sched_phase``)
and by :class:`.backfill.Backfill`'s ``interval`` (EASY that backfills only in the first pass at
or after each multiple of ``interval``, Slurm's cadence on Lifka's EASY). What a policy does
between ticks (wake up for one, skip a missed one, make it up at the next pass) is its own.
"""

from __future__ import annotations

import math

__all__ = ["Ticks"]


class Ticks:
    """The times ``k x interval + phase`` (k whole).

    ``slack``: a time less than ``slack`` intervals before a tick counts as on it (Slurm's
    clocks use 1e-9, so that a pass woken at a tick computed in floating point is on it);
    :class:`.backfill.Backfill`'s ``interval`` has always used exact multiples (``slack=0``).
    """

    __slots__ = ("interval", "phase", "slack")

    def __init__(self, interval: float, phase: float = 0.0, slack: float = 1e-9) -> None:
        self.interval = interval
        self.phase = phase
        self.slack = slack

    def at_or_after(self, t: float) -> float:
        """The first tick at or after ``t``."""
        k = math.ceil((t - self.phase) / self.interval - self.slack)
        return k * self.interval + self.phase

    def after(self, t: float) -> float:
        """The first tick strictly after ``t``."""
        k = math.floor((t - self.phase) / self.interval + self.slack) + 1
        return k * self.interval + self.phase
