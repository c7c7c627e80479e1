"""Simulation-collection studies (SimX, Yue et al.): batching, sampling, reuse and preemption
for a study of many runs of a moldable parallel code (issue 13, in progress: batching)."""

from .batching import Batching, ScalingTable, batch_time, optimal_batches, parse_scaling

__all__ = ["Batching", "ScalingTable", "batch_time", "optimal_batches", "parse_scaling"]
