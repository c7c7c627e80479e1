"""Plots and reports of simulated schedules (model layer; the ELiSE paper's 3.1 "Output").

- :mod:`.series`: the report's view of the series of :mod:`coschedlab.metrics`;
- :mod:`.figures`: matplotlib PNGs (Gantt chart, series, speedups, scheduler comparison);
- :mod:`.interactive`: one self-contained plotly HTML page.

:func:`write_report` writes all of them for a set of results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..platform import Cluster
from . import figures, interactive, series
from .series import app_names_from_header, run_summary

__all__ = [
    "app_names_from_header",
    "figures",
    "interactive",
    "run_summary",
    "series",
    "write_report",
]

_REQUIRED = ("submit", "start", "end", "procs")


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "run"


def write_report(
    results: Mapping[str, tuple[pd.DataFrame, Cluster]],
    out_dir: str | Path,
    app_names: Mapping[int, str] | None = None,
    metrics: Mapping[str, Mapping[str, float]] | None = None,
) -> list[Path]:
    """Write the PNGs of every result, ``comparison.png`` and ``report.html`` into ``out_dir``.

    ``results`` maps a name (e.g. the scheduler) to ``(jobs DataFrame, Cluster)``; ``metrics``
    the same names to the runs' stored summaries (metrics.json), which the report shows as they
    are (runs without one get :func:`.series.run_summary`). Application
    names for legends come from ``app_names`` or from a frame's ``attrs["app_names"]``.
    Per-result PNGs are named ``<name>_gantt.png``, ``<name>_utilization.png``, ...
    """
    if not results:
        raise InputError("write_report needs at least one result")
    for name, value in results.items():
        if not (isinstance(value, tuple) and len(value) == 2):
            raise InputError(f"result {name!r} must be a (jobs DataFrame, Cluster) pair")
        frame, cluster = value
        if not isinstance(cluster, Cluster):
            raise InputError(f"result {name!r}: second item must be a Cluster")
        missing = [c for c in _REQUIRED if c not in frame.columns]
        if missing:
            raise InputError(f"result {name!r}: jobs table lacks columns {missing}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    slugs: set[str] = set()
    for name, (frame, cluster) in results.items():
        slug = _slug(name)
        while slug in slugs:
            slug += "_"
        slugs.add(slug)
        names = app_names or frame.attrs.get("app_names")
        stored = (metrics or {}).get(name)
        paths += figures.save_figures(
            frame, cluster, out, prefix=f"{slug}_", app_names=names, metrics=stored
        )
    comp = out / "comparison.png"
    figures.comparison(results, metrics).savefig(comp)
    paths.append(comp)
    paths.append(interactive.write_html(results, out / "report.html", app_names, metrics))
    return paths
