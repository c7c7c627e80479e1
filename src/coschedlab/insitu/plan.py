"""A plan = Co-SCHED mapping + Co-ALLOC/EV-ALLOC allocation + model makespan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .allocation import (
    Allocation,
    allocation_from_dict,
    check_heuristics,
    check_rounding,
    integer_allocation,
    rational_allocation,
)
from .mapping import Mapping, resolve_mapping
from .model import BANDWIDTH_MODELS, bandwidth_key, model_bandwidth, model_makespan
from .spec import Ensemble


@dataclass(frozen=True)
class Plan:
    """Everything the planner decided, with the model makespans under every bandwidth model."""

    ensemble: Ensemble
    mapping: Mapping
    allocation: Allocation
    rational: Allocation | None
    bandwidth_model: str
    bandwidth: float
    model_makespan: float
    moved: list[str] = field(default_factory=list)
    alloc_bandwidth_model: str = "B3"
    rounding: str = "authors"

    def model_makespans(self) -> dict[str, float]:
        """Model makespan of this (integer) allocation under B, B'_1, B'_2 and B'_3."""
        ens, mapping = self.ensemble, self.mapping
        return {
            m: model_makespan(ens, mapping, self.allocation, model_bandwidth(ens, mapping, m))
            for m in BANDWIDTH_MODELS
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        out: dict[str, Any] = {
            "scenario": self.mapping.name,
            "mapping": {a: (s if s is not None else "pool") for a, s in self.mapping.placement},
            "node_alloc": self.allocation.node_heuristic,
            "core_alloc": self.allocation.core_heuristic,
            "bandwidth_model": self.bandwidth_model,
            "bandwidth": self.bandwidth,
            "alloc_bandwidth_model": self.alloc_bandwidth_model,
            "rounding": self.rounding,
            "model_makespan": self.model_makespan,
            "model_makespans": self.model_makespans(),
            "allocation": self.allocation.to_dict(),
        }
        if self.rational is not None:
            alloc_bw = model_bandwidth(self.ensemble, self.mapping, self.alloc_bandwidth_model)
            out["rational_model_makespan"] = model_makespan(
                self.ensemble, self.mapping, self.rational, alloc_bw
            )
        if self.moved:
            out["moved_to_pool"] = self.moved
        return out


def make_plan(
    ens: Ensemble,
    scenario: str | None = None,
    node_alloc: str | None = None,
    core_alloc: str | None = None,
    bandwidth_model: str = "B3",
    alloc_bandwidth: str = "B3",
    rounding: str = "authors",
    use_file_allocation: bool = True,
) -> Plan:
    """Mapping (scenario, else the file's mapping, else IDEAL) in Theorem 2's normal form, then
    the integer allocation (the file's explicit one if given and no scenario was asked).

    The allocation (U, n_NC, pool cores; Theorem 3) uses ``alloc_bandwidth``: B'_3 (default)
    as in the authors' Fig. 4 runs, B as in their Table II runs and their last public
    scheduler; ``bandwidth_model`` (default B'_3, Table II) gives the model makespan reported
    next to the simulated one. ``rounding`` is ``authors`` (their
    ``scheduler.py``) or ``min-time`` (see :func:`.allocation.integer_allocation`). The
    heuristics default to ``co``; naming one while the file's allocation is used is an
    InputError (it would be ignored)."""
    check_heuristics(node_alloc or "co", core_alloc or "co")
    check_rounding(rounding)
    alloc_bandwidth = bandwidth_key(alloc_bandwidth, "--alloc-bandwidth")
    mapping, moved = resolve_mapping(ens, scenario)
    bw = model_bandwidth(ens, mapping, bandwidth_model)
    alloc_bw = model_bandwidth(ens, mapping, alloc_bandwidth)
    if use_file_allocation and ens.allocation is not None and not scenario:
        given = [o for o, v in (("--node-alloc", node_alloc), ("--core-alloc", core_alloc)) if v]
        if given:
            raise InputError(
                f"{' and '.join(given)} would be ignored: the file gives an explicit allocation, "
                "used as is; give --scenario to plan a new one (or remove 'allocation')"
            )
        alloc = allocation_from_dict(ens, mapping, ens.allocation)
        rat = None
    else:
        node_alloc, core_alloc = node_alloc or "co", core_alloc or "co"
        rat = rational_allocation(ens, mapping, alloc_bw, node_alloc, core_alloc)
        alloc = integer_allocation(ens, mapping, alloc_bw, node_alloc, core_alloc, rounding)
    return Plan(
        ens,
        mapping,
        alloc,
        rat,
        bandwidth_model.upper(),
        bw,
        model_makespan(ens, mapping, alloc, bw),
        moved,
        alloc_bandwidth,
        rounding,
    )
