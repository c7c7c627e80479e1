"""In situ workflow ensembles: Co-SCHED / Co-ALLOC planning (Do et al.) checked in SimGrid.

The planner (spec, mapping, allocation, rounding, model, plan) is pure NumPy/SciPy; SimGrid is
imported lazily by :mod:`coschedlab.insitu.simulate` only.
"""

from __future__ import annotations

from .allocation import Allocation, Block, integer_allocation, rational_allocation
from .mapping import SCENARIOS, Mapping, normal_form, scenario_mapping
from .model import BANDWIDTH_MODELS, model_bandwidth, model_makespan, step_times
from .plan import Plan, make_plan
from .spec import Ensemble, generate_ensemble, load_ensemble

__all__ = [
    "BANDWIDTH_MODELS",
    "SCENARIOS",
    "Allocation",
    "Block",
    "Ensemble",
    "Mapping",
    "Plan",
    "generate_ensemble",
    "integer_allocation",
    "load_ensemble",
    "make_plan",
    "model_bandwidth",
    "model_makespan",
    "normal_form",
    "rational_allocation",
    "scenario_mapping",
    "step_times",
]
