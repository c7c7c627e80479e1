"""Co-SCHED co-scheduling mappings (Do et al., Section IV-A, Table III, Theorems 1 and 2).

A mapping says, for every analysis, whether it runs beside its coupled simulation (inside the
simulation's co-scheduling allocation) or in the analysis-only allocation (the *pool*).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .spec import Ensemble

POOL = "pool"
SCENARIOS = (
    "ideal",
    "increasing-25",
    "increasing-50",
    "increasing-75",
    "decreasing-25",
    "decreasing-50",
    "decreasing-75",
    "in-transit",
)


@dataclass(frozen=True)
class Mapping:
    """m: analysis name -> name of the simulation it is co-scheduled with, or ``None`` (pool)."""

    placement: tuple[tuple[str, str | None], ...]
    name: str = "user"

    def pool(self) -> list[str]:
        """P^NC: analyses in the analysis-only allocation."""
        return [a for a, s in self.placement if s is None]

    def with_sim(self, sim: str) -> list[str]:
        """m(S_i): analyses co-scheduled with simulation ``sim``."""
        return [a for a, s in self.placement if s == sim]


def scenario_mapping(ens: Ensemble, scenario: str) -> Mapping:
    """The mapping of a Table III scenario.

    INCREASING-x / DECREASING-x send the k = int(|A| x) analyses with the smallest / largest
    work (over the whole ensemble, ties by declaration order) to the pool, as the authors' code
    does (their public simulator; the paper's Table III words it the other way round).
    """
    scenario = scenario.lower()
    names = [a.name for a in ens.analyses]
    if scenario == "ideal":
        pool: set[str] = set()
    elif scenario == "in-transit":
        pool = set(names)
    else:
        try:
            kind, pct = scenario.split("-")
            frac = int(pct) / 100.0
        except ValueError:
            frac, kind = -1.0, ""
        if kind not in ("increasing", "decreasing") or not 0 <= frac <= 1:
            raise InputError(
                f"unknown scenario {scenario!r}; use one of {', '.join(SCENARIOS)} "
                "(or increasing-X / decreasing-X with X in 0..100)",
                where="--scenario",
            )
        k = int(len(names) * frac)
        sign = -1 if kind == "decreasing" else 1
        order = sorted(range(len(names)), key=lambda i: (sign * ens.analyses[i].work, i))
        pool = {names[i] for i in order[:k]}
    return Mapping(
        tuple((a.name, None if a.name in pool else a.simulation) for a in ens.analyses),
        name=scenario,
    )


def user_mapping(ens: Ensemble, raw: dict[str, str]) -> Mapping:
    """A mapping from the ensemble file: analysis -> simulation name or ``pool``; analyses not
    listed stay with their coupled simulation."""
    sims = {s.name for s in ens.simulations}
    known = {a.name for a in ens.analyses}
    for a, s in raw.items():
        if a not in known:
            raise InputError(f"unknown analysis {a!r}", where="mapping")
        if s != POOL and s not in sims:
            raise InputError(
                f"analysis {a!r}: {s!r} is neither a simulation nor 'pool'", where="mapping"
            )
    placement = [(a.name, raw.get(a.name, a.simulation)) for a in ens.analyses]
    return Mapping(tuple((a, None if s == POOL else s) for a, s in placement), name="user")


def normal_form(ens: Ensemble, mapping: Mapping) -> tuple[Mapping, list[str]]:
    """Theorem 2: an analysis not co-scheduled with its coupled simulation goes to the
    analysis-only allocation. Returns the normal mapping and the analyses that were moved."""
    coupled = {a.name: a.simulation for a in ens.analyses}
    moved = [a for a, s in mapping.placement if s is not None and s != coupled[a]]
    placement = tuple(
        (a, s if s is None or s == coupled[a] else None) for a, s in mapping.placement
    )
    return Mapping(placement, mapping.name), moved


def resolve_mapping(ens: Ensemble, scenario: str | None) -> tuple[Mapping, list[str]]:
    """The mapping to plan: a named scenario, else the file's mapping, else IDEAL (Theorem 1);
    always in Theorem 2's normal form."""
    if scenario:
        m = scenario_mapping(ens, scenario)
    elif ens.mapping is not None:
        m = user_mapping(ens, ens.mapping)
    else:
        m = scenario_mapping(ens, "ideal")
    return normal_form(ens, m)
