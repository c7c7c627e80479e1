"""The comparison's runs in the one store (:class:`~coschedlab.sweeps.store.Store`): one
directory per finished run (:data:`RESULT_DIRS`), and the comparison's own resume checks.

Layout of an output directory::

    OUT/spec.json                         what the runs were made from (checked on resume)
    OUT/<workload>/<scheduler>/rep<k>/    metrics.json, jobs.parquet, jobs.csv, result.swf,
                                          run.json (a finished run)
    OUT/<workload>/<scheduler>/rep<k>/error.txt   (a failed run: no metrics.json)

A run is written into a hidden temporary sibling and renamed into place in one step (the
store does it), so a killed process never leaves a half-written run that looks finished: a
run is finished exactly when its directory holds ``metrics.json``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..engine.result import Result
from ..errors import InputError
from ..outputs import (
    MARKER,
    OLD_PREFIX,
    OUR_FILES,
    TMP_PREFIX,
    atomic_file,
    check_target,
    first_foreign,
    is_empty,
    mark,
    written,
)
from ..sweeps.store import RunDirs
from ..sweeps.sweep import check_kind
from .spec import Spec

__all__ = ["RESULT_DIRS", "check_spec", "check_spec_compatible", "clear"]

SPEC_FILE = "spec.json"
#: Files and directories an analysis writes at the top of OUT (removed by --fresh).
ANALYSIS_OUTPUTS = ("comparison.csv", "runs.csv", "improvement.png", "plots")


#: the comparison's layout of runs: a directory per run holding its core Result's files
RESULT_DIRS = RunDirs(Result.load)


# -- the spec of an output directory ----------------------------------------------------------
def _stored(out: Path) -> dict[str, Any] | None:
    path = Path(out) / SPEC_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError:
        raise InputError(f"{path} is not valid JSON; use --fresh to start over") from None


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed between two :meth:`Spec.describe` documents, for runs present in both."""
    diffs = [
        f"'{key}' {old.get(key)!r} -> {new[key]!r}"
        for key in ("seed", "kill_at_walltime")
        if old.get(key) != new[key]
    ]
    for group, what in (("workloads", "workload"), ("schedulers", "scheduler")):
        before, after = old.get(group, {}), new[group]
        for name in sorted(set(before) & set(after)):
            if before[name] != after[name]:
                if isinstance(after[name], dict):
                    keys = [k for k in after[name] if before[name].get(k) != after[name][k]] or [
                        "definition"
                    ]
                    diffs.append(f"{what} '{name}' ({', '.join(keys)})")
                else:
                    diffs.append(f"{what} '{name}' ({before[name]!r} -> {after[name]!r})")
    return diffs


def check_spec(out: Path, spec: Spec) -> None:
    """Refuse to resume into ``out`` when its runs were made from a different spec.

    Adding workloads, schedulers or repetitions is allowed (their runs are simply new); changing
    the seed, ``kill_at_walltime``, a workload or a scheduler spec that already has runs is not.
    On success ``spec.json`` records the union of old and new definitions.
    """
    out = Path(out)
    merged = check_spec_compatible(out, spec)
    mark(out)
    doc = {
        "name": spec.name,
        "spec_file": str(spec.path.resolve()),
        "baseline": spec.baseline,
        "files": {w.name: w.path for w in spec.workloads},
        "hash": spec.digest(),
        "runs": merged,
    }
    with atomic_file(out / SPEC_FILE, force=True) as tmp:
        tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def check_spec_compatible(out: Path, spec: Spec) -> dict[str, Any]:
    """:func:`check_spec` without writing anything: raises :class:`InputError` when ``out``
    cannot hold ``spec``'s runs; else the union of the stored and new run definitions."""
    out = Path(out)
    if not out.is_dir():
        check_target(out)  # a new folder: it can be made (a file: refused as every sweep's)
    check_kind(out, "comparison")  # never resumed into another kind of sweep's directory
    new = spec.describe()
    old = _stored(out)
    if old is None:
        if out.is_dir() and not is_empty(out):
            raise InputError(
                f"--out {out} exists and is not a comparison output (no {SPEC_FILE}); "
                "choose another --out or empty it"
            )
        merged = new
    else:
        old_runs = old.get("runs", {})
        diffs = _differences(old_runs, new)
        if diffs:
            raise InputError(
                f"--out {out} holds runs of a different spec ({'; '.join(diffs)}); rerun with "
                "--fresh to discard them, or give another --out"
            )
        merged = {
            **new,
            "workloads": {**old_runs.get("workloads", {}), **new["workloads"]},
            "schedulers": {**old_runs.get("schedulers", {}), **new["schedulers"]},
        }
    return merged


def _refuse_foreign(out: Path, names: Iterable[str]) -> None:
    """Refuse to clear ``out`` when it holds anything a comparison does not write (a user's
    notes beside the runs, a file in a workload's folder): ``--fresh`` deletes nothing then."""
    ours = {*names, *ANALYSIS_OUTPUTS, SPEC_FILE, MARKER}
    listed = written(out)  # (None: a folder written before manifests, ours by name)
    listed = None if listed is None else {*listed, MARKER}
    for item in sorted(out.iterdir()):
        if item.name.startswith((TMP_PREFIX, OLD_PREFIX)):
            continue  # left by a killed run: cleared with the rest
        foreign: Path | None = item if item.name not in ours else None
        if foreign is None and item.is_dir():
            foreign = first_foreign(item, top=out, legacy=OUR_FILES)
        elif foreign is None and listed is not None and item.name not in listed:
            foreign = item  # named like an output, but the user's (written after the run)
        if foreign is not None:
            raise InputError(
                f"--out {out} holds files coschedlab did not write ({foreign}); --fresh "
                "deleted nothing: move them away, or give another --out"
            )


def clear(out: Path, spec: Spec) -> None:
    """Remove the runs and analysis outputs of a comparison directory (``--fresh``).

    Only what a comparison writes is removed: ``spec.json``, the analysis outputs and the
    workload directories named by the stored or the current spec.
    """
    out = Path(out)
    if not out.is_dir():
        return
    check_kind(out, "comparison")  # never another kind of sweep's directory
    try:
        old = _stored(out)
    except InputError:  # a damaged spec.json: still a comparison output, start over
        old = {}
    if old is None and not is_empty(out):
        raise InputError(
            f"--out {out} is not a comparison output (no {SPEC_FILE}); refusing to clear it"
        )
    names = set(w.name for w in spec.workloads)
    if old is not None:
        names |= set(old.get("runs", {}).get("workloads", {}))
    _refuse_foreign(out, names)  # before deleting anything
    for name in sorted(names):
        shutil.rmtree(out / name, ignore_errors=True)
    leftovers = [p for p in out.iterdir() if p.name.startswith((TMP_PREFIX, OLD_PREFIX))]
    for path in [*(out / item for item in ANALYSIS_OUTPUTS), *leftovers]:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    (out / SPEC_FILE).unlink(missing_ok=True)
