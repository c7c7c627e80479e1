"""Node co-location (ELiSE, "ELiSE: A tool to support algorithmic design for HPC
co-scheduling"): application pools and heatmaps.

- :mod:`.pool`: read ELiSE pool JSON files (measured compact and co-run times) into a
  :class:`Pool`, or build one from a heatmap plus compact times.
- :mod:`.heatmap`: the pairwise speedup matrix with the unknown-pair fallback and CSV/JSON I/O.
"""

from __future__ import annotations

from .heatmap import Heatmap
from .pool import App, Pool, corun_time, load_pool, read_compact_times, write_compact_times

__all__ = [
    "App",
    "Heatmap",
    "Pool",
    "corun_time",
    "load_pool",
    "read_compact_times",
    "write_compact_times",
]
