"""Plots and reports of simulated schedules (model layer; the ELiSE paper's 3.1 "Output").

- :mod:`.runs`: what the report is given per run (jobs, cluster, the stored metrics);
- :mod:`.series`: the report's view of the series of :mod:`coschedlab.metrics`;
- :mod:`.timeaxis`: the report's one time unit and its optional window (``--from``/``--to``);
- :mod:`.style`: figure size, colours and hatches, label wrapping, the log-scale rule;
- :mod:`.figures`: matplotlib PNGs (Gantt chart, series, speedups, scheduler comparison);
- :mod:`.interactive`: one self-contained plotly HTML page.

:func:`write_report` writes all of them for a set of results. The report computes no run-level
number: it shows each run's metrics as given (a result's metrics.json, i.e.
:attr:`Result.metrics <coschedlab.engine.result.Result.metrics>`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..outputs import (
    REPORT_FILES,
    forget,
    mark,
    marked_folder,
    os_error,
    record,
    recorded,
    slug,
)
from . import figures, interactive, runs, series, style, timeaxis
from .runs import Run, as_runs
from .series import app_names_from_header
from .timeaxis import TimeAxis, Window, parse_duration, report_axis

__all__ = [
    "Run",
    "TimeAxis",
    "Window",
    "app_names_from_header",
    "figures",
    "interactive",
    "parse_duration",
    "runs",
    "series",
    "style",
    "timeaxis",
    "write_report",
]


def write_report(
    results: Mapping[str, Any],
    out_dir: str | Path,
    app_names: Mapping[int, str] | None = None,
    window: Window | None = None,
) -> list[Path]:
    """Write the PNGs of every result, ``comparison.png`` and ``report.html`` into ``out_dir``.

    ``results`` maps a name (e.g. the scheduler) to a :class:`~coschedlab.engine.result.Result`
    (e.g. ``Result.load(dir)``), a :class:`.Run` or a ``(jobs DataFrame, Cluster, metrics)``
    triple. The numbers the report shows are each run's ``metrics`` as given (for a loaded
    result, its metrics.json); the report never recomputes them. Application names for legends
    come from ``app_names`` or from a frame's ``attrs["app_names"]``. Per-result PNGs are named
    ``<name>_gantt.png``, ``<name>_utilization.png``, ...

    Every figure and the HTML use one time unit, chosen from the longest run (or the window's
    length). ``window``: the time since the first submission the Gantt charts and the series
    show (:class:`.Window`; :class:`~coschedlab.errors.InputError` when it holds nothing of
    any run).
    """
    checked = as_runs(results)
    axis = report_axis(checked, window)
    final = Path(out_dir)
    final.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix=".report-", dir=final))  # drawn here, moved in at the end
    try:
        try:
            drawn = _draw(checked, out, app_names, axis)
        except OSError as exc:  # a full disk while drawing (the image writers name no file)
            raise os_error(exc, str(final)) from None
        return _replace_report(final, drawn)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _replace_report(final: Path, drawn: list[Path]) -> list[Path]:
    """Move the figures ``drawn`` into ``final``; the files an earlier report left there and
    this one does not write again are removed, so a folder never mixes two reports. The
    manifest of the folder's marker (:func:`coschedlab.outputs.record`, tag "report") says
    which files a report wrote (a folder no marker covers is marked first); a list a report
    wrote before manifests (``.report-files``) still counts, and goes."""
    if marked_folder(final) is None:
        mark(final)
    names = {p.name for p in drawn}
    earlier = recorded(final, "report")
    listed = final / REPORT_FILES
    if listed.is_file():
        earlier += [final / n for n in listed.read_text().split("\n") if n]
    listed_before = set(earlier)
    record([final / n for n in sorted(names) if final / n not in listed_before], "report")
    gone = []  # the earlier report's files this one does not write: removed, and forgotten
    for old in earlier:  # (a name of the folder itself: never one outside it)
        name, inside = old.name, old.parent == final and old.name not in ("", ".", "..")
        if inside and name not in names:
            if old.is_file() and not old.is_symlink():
                old.unlink()
            gone.append(old)
    forget(gone)
    for p in drawn:
        os.replace(p, final / p.name)
    listed.unlink(missing_ok=True)
    return [final / p.name for p in drawn]


def _draw(checked: dict, out: Path, app_names: Any, axis: Any) -> list[Path]:
    paths: list[Path] = []
    stems: set[str] = set()
    for name, (frame, cluster, metrics, _users) in checked.items():
        stem = slug(name, keep=".-", fallback="run")
        while stem in stems:
            stem += "_"
        stems.add(stem)
        names = app_names or frame.attrs.get("app_names")
        kw = {"app_names": names, "metrics": metrics, "axis": axis, "name": name}
        paths += figures.save_figures(frame, cluster, out, prefix=f"{stem}_", **kw)
    comp = out / "comparison.png"
    figures.comparison(checked, axis=axis).savefig(comp)
    paths.append(comp)
    paths.append(interactive.write_html(checked, out / "report.html", app_names, axis=axis))
    return paths
