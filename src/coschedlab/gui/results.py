"""What the dashboard reads from a comparison directory (``coschedlab compare``'s output, made
by the command line or by the dashboard): its table and its runs.

The table is the command's own ``comparison.csv``, shown with the command line's cell format
(:func:`~coschedlab.experiments.compare.table_cells`), so the page and the terminal show the
same numbers. Runs are read back with :meth:`Result.load <coschedlab.engine.result.Result.load>`
and kept (by directory and modification time), so a page of finished runs answers at once.
"""

from __future__ import annotations

import functools
import json
import math
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..outputs import slug

__all__ = ["Comparison", "open_comparison"]


@dataclass(frozen=True)
class Comparison:
    """A comparison directory: its name, baseline, table (``comparison.csv``, None before the
    first analysis) and the runs stored in it (workload, scheduler label, repetition)."""

    out: Path
    name: str
    baseline: str
    labels: tuple[str, ...]
    table: pd.DataFrame | None
    runs: tuple[tuple[str, str, int], ...]

    def run_dir(self, workload: str, label: str, rep: int) -> Path:
        """The directory of one of the comparison's stored runs (the values come from the
        browser: anything else, such as a path, is refused with :class:`InputError`)."""
        try:
            stored = (workload, label, rep) in set(self.runs)
        except TypeError:  # unhashable values a crafted request sends
            stored = False
        if not stored:
            raise InputError(f"no stored run of {label!r} on {workload!r}, repetition {rep!r}, "
                             "in this comparison")  # fmt: skip
        return self.out / workload / slug(label) / f"rep{rep}"

    def workloads(self) -> list[str]:
        """The workloads with stored runs, in the table's order (the spec's; the stored
        runs' for those not in the table yet), so that the page's choices follow the table."""
        return _in_table_order(self.table, "workload", [w for w, _, _ in self.runs])

    def schedulers(self) -> list[str]:
        """The schedulers with stored runs, in the table's order (as :meth:`workloads`)."""
        stored = {x for _, x, _ in self.runs}
        return _in_table_order(self.table, "scheduler", [x for x in self.labels if x in stored])

    def cells(self) -> tuple[list[str], list[list[str]]]:
        """The table as the command line prints it (column names, rows of text)."""
        from ..experiments.compare import table_cells

        if self.table is None or self.table.empty:
            return [], []
        names, rows, _ = table_cells(self.table, self.baseline)
        return names, rows


def open_comparison(out: Path) -> Comparison:
    """Read the comparison in ``out``; :class:`InputError` (one line) when it is not one."""
    out = Path(out)
    stored = out / "spec.json"
    if not stored.is_file():
        raise InputError("not a comparison output (no spec.json in it)", str(out))
    try:
        doc = json.loads(stored.read_text())
        labels = tuple(doc["runs"]["schedulers"])
        workloads = tuple(doc["runs"]["workloads"])
    except (ValueError, KeyError, TypeError):
        raise InputError("damaged spec.json: not a comparison's", str(stored)) from None
    table = None
    if (out / "comparison.csv").is_file():
        try:
            table = pd.read_csv(out / "comparison.csv")
        except (ValueError, OSError):
            raise InputError("damaged comparison.csv", str(out / "comparison.csv")) from None
    baseline = doc.get("baseline") or _baseline_of(table, labels)
    runs = []
    for w in workloads:
        for label in labels:
            folder = out / w / slug(label)
            if not folder.is_dir():
                continue
            for rep_dir in sorted(folder.glob("rep*")):
                suffix = rep_dir.name[3:]
                if suffix.isdigit() and (rep_dir / "metrics.json").is_file():
                    runs.append((w, label, int(suffix)))
    return Comparison(out, str(doc.get("name", out.name)), baseline, labels, table, tuple(runs))


def _in_table_order(table: pd.DataFrame | None, column: str, names: list[str]) -> list[str]:
    """``names`` (once each) in the order of their first row in ``table[column]``; those
    the table does not hold after them, in their own order."""
    names = list(dict.fromkeys(names))
    held = [] if table is None or column not in table else map(str, table[column])
    shown = list(dict.fromkeys(held))
    return [x for x in shown if x in names] + [x for x in names if x not in shown]


def _baseline_of(table: pd.DataFrame | None, labels: tuple[str, ...]) -> str:
    """The baseline of a comparison written before spec.json named it: the scheduler whose
    makespan improvement is 0 on every workload (else the first)."""
    if table is not None and "makespan_improvement_mean" in table:
        for label in labels:
            v = table.loc[table["scheduler"] == label, "makespan_improvement_mean"]
            if len(v) and all(x == 0 or (isinstance(x, float) and math.isnan(x)) for x in v):
                return label
    return labels[0] if labels else ""


def load_run(folder: Path) -> Any:
    """The :class:`~coschedlab.report.runs.Run` stored in ``folder`` (kept for the next
    request while the folder is unchanged)."""
    folder = Path(folder)
    try:
        stamp = (folder / "metrics.json").stat().st_mtime
    except OSError:
        raise InputError("no finished run here", str(folder)) from None
    return _load_run(folder, stamp)


@functools.lru_cache(maxsize=16)
def _load_run(folder: Path, _stamp: float) -> Any:
    from ..engine.result import Result
    from ..report.runs import Run

    r = Result.load(folder)
    jobs = r.jobs
    header = getattr(r, "header", None) or {}
    if header.get("Applications") and not jobs.attrs.get("app_names"):
        from ..jobs import app_names_from_header

        jobs.attrs["app_names"] = app_names_from_header(header["Applications"])
    return Run(jobs, r.cluster, r.metrics)


_MADE: OrderedDict[tuple, Any] = OrderedDict()


def made(key: tuple, make: Any, folders: tuple[Path, ...] = ()) -> Any:
    """``make()``, kept for the next request with the same ``key`` while the runs in
    ``folders`` are unchanged (a page of finished runs is drawn once, then served)."""
    stamps = []
    for f in folders:
        try:
            stamps.append((Path(f) / "metrics.json").stat().st_mtime_ns)
        except OSError:
            stamps.append(None)
    full = (*key, *stamps)
    if full in _MADE:
        _MADE.move_to_end(full)
        return _MADE[full]
    value = make()
    _MADE[full] = value
    while len(_MADE) > 32:
        _MADE.popitem(last=False)
    return value
