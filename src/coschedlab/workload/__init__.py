"""Workload readers and writers: SWF traces (:mod:`.swf`) and Batsim job logs (:mod:`.batsim`)."""

from __future__ import annotations

from .batsim import write_jobs_csv
from .swf import cluster_from_header, read_swf, write_swf, write_workload_swf

__all__ = ["cluster_from_header", "read_swf", "write_jobs_csv", "write_swf", "write_workload_swf"]
