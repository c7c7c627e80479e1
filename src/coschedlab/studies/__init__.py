"""Simulation-collection studies (SimX, Yue et al.): batching, sampling, reuse and preemption
for a study of many runs of a moldable parallel code (issue 13, in progress: batching and
sampling so far)."""

from .batching import Batching, ScalingTable, batch_time, optimal_batches, parse_scaling
from .sampling import ActiveParetoSampler, DesignSpace, GridSampler, Sampler, pareto_front

__all__ = [
    "ActiveParetoSampler",
    "Batching",
    "DesignSpace",
    "GridSampler",
    "Sampler",
    "ScalingTable",
    "batch_time",
    "optimal_batches",
    "parse_scaling",
    "pareto_front",
]
