"""Simulation-collection studies (SimX: Yau, Karamcheti, Zorin, Damevski and Parker,
"Application-aware management of parallel simulation collections", PPoPP 2009): a study of
many runs of a moldable parallel code on P processors, with an active Pareto sampler, reuse
of finished runs within reuse classes, optimal batching from the code's scaling table and
preemption onto idle processors; simulated through a work model or run for real.
:mod:`.sweep` is the Table 5 reproduction as a resumable sweep (``coschedlab study
reproduce``).

    from coschedlab.studies import load_spec, run_study
    result = run_study(load_spec("study.yaml"), "E")      # simulated
    result.metrics                                        # total time, utilization, ...
"""

from .batching import Batching, ScalingTable, batch_time, optimal_batches, parse_scaling
from .manager import CONFIGS, Config, beneficial
from .model import WorkModel
from .result import StudyResult, load_result
from .run import run_study
from .sampling import ActiveParetoSampler, DesignSpace, GridSampler, Sampler, pareto_front
from .spec import StudySpec, load_spec
from .store import ResultStore

__all__ = [
    "CONFIGS",
    "ActiveParetoSampler",
    "Batching",
    "Config",
    "DesignSpace",
    "GridSampler",
    "ResultStore",
    "Sampler",
    "ScalingTable",
    "StudyResult",
    "StudySpec",
    "WorkModel",
    "batch_time",
    "beneficial",
    "load_result",
    "load_spec",
    "optimal_batches",
    "parse_scaling",
    "pareto_front",
    "run_study",
]
