"""Slurm's multifactor job priority (priority/multifactor), the age and job-size factors.

For a job eligible since ``origin`` asking ``cpus`` processors on ``nodes`` whole nodes for
``limit`` seconds, at time ``t`` (REFERENCE.md section 4; Slurm's ``priority_multifactor.c``):

* age = min(1, (t - origin) / PriorityMaxAge)
* job size, with PriorityFlags=SMALL_RELATIVE_TO_TIME: s = max(nodes x cores per node, cpus)
  / time limit in minutes / total cpus, clamped to [0, 1]; without it s = max(nodes x cores per
  node, cpus) / total cpus; PriorityFavorSmall=YES uses 1 - s
* priority = trunc(PriorityWeightAge x age + PriorityWeightJobSize x size) (an integer, as Slurm
  stores it)

Slurm keeps time limits in whole minutes: a limit is rounded up to the next minute (at least 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Multifactor", "limit_minutes"]


def limit_minutes(seconds: float) -> int:
    """A time limit as Slurm keeps it: whole minutes, rounded up, at least one."""
    return max(1, math.ceil(seconds / 60.0 - 1e-9))


@dataclass(frozen=True, slots=True)
class Multifactor:
    """The multifactor priority of the WoAS experiments' Slurm (defaults: their weights)."""

    weight_age: float = 5e7
    weight_job_size: float = 6e8
    max_age: float = 7 * 86400.0
    favor_small: bool = True
    small_relative_to_time: bool = True
    total_cpus: int = 1
    cores_per_node: int = 1

    def size(self, nodes: int, cpus: int, limit: float) -> float:
        """The job-size factor in [0, 1] of a job (``limit`` in seconds)."""
        s = max(nodes * self.cores_per_node, cpus) / self.total_cpus
        if self.small_relative_to_time:
            s /= limit_minutes(limit)
        s = min(1.0, max(0.0, s))
        return 1.0 - s if self.favor_small else s

    def age(self, origin: float, t: float) -> float:
        """The age factor in [0, 1] at time ``t`` of a job eligible since ``origin``."""
        if self.max_age <= 0:
            return 1.0
        return min(1.0, max(0.0, (t - origin) / self.max_age))

    def priority(self, origin: float, size: float, t: float) -> int:
        """The integer priority at ``t`` (size: :meth:`size`)."""
        return int(self.weight_age * self.age(origin, t) + self.weight_job_size * size)
