"""Experiments: comparisons of workloads x schedulers x repetitions (docs/experiments.md).

- :mod:`.spec`: the YAML spec, validated strictly (:func:`load_spec`);
- :mod:`.workloads`: the workload of one run (pool-generated or SWF trace);
- :mod:`.store`: one directory per finished run, written atomically; resume checks;
- :mod:`.comparison`: a comparison's runs on the one runner of :mod:`coschedlab.sweeps`
  (:func:`run_comparison`);
- :mod:`.compare` and :mod:`.plots`: the comparison table, ``comparison.csv`` and figures.
"""

from __future__ import annotations

from .compare import comparison_table, run_metrics, write_analysis
from .comparison import RunTask, plan, run_comparison
from .spec import SchedulerSpec, Spec, WorkloadSpec, load_spec, spec_from_dict

__all__ = [
    "RunTask",
    "SchedulerSpec",
    "Spec",
    "WorkloadSpec",
    "comparison_table",
    "load_spec",
    "plan",
    "run_comparison",
    "run_metrics",
    "spec_from_dict",
    "write_analysis",
]
