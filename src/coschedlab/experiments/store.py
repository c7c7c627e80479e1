"""The result store of a comparison: one directory per finished run, written atomically.

Layout of an output directory::

    OUT/spec.json                         what the runs were made from (checked on resume)
    OUT/<workload>/<scheduler>/rep<k>/    metrics.json, jobs.parquet, jobs.csv, result.swf,
                                          run.json (a finished run)
    OUT/<workload>/<scheduler>/rep<k>/error.txt   (a failed run: no metrics.json)

A run is written into a hidden temporary sibling and renamed into place in one step, so a
killed process never leaves a half-written run that looks finished: a run is finished exactly
when its directory holds ``metrics.json``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.result import Result
from ..errors import InputError
from ..outputs import (
    MARKER,
    OLD_PREFIX,
    OUR_FILES,
    TMP_PREFIX,
    atomic_dir,
    atomic_file,
    first_foreign,
    is_empty,
    mark,
)
from .spec import Spec

__all__ = [
    "JsonStore",
    "JsonSweep",
    "check_json_sweep",
    "run_json_sweep",
    "RunKey",
    "RunStore",
    "check_spec",
    "clear",
    "completed",
    "load_run",
    "run_dir",
    "save_error",
    "save_run",
]

SPEC_FILE = "spec.json"
#: Files and directories an analysis writes at the top of OUT (removed by --fresh).
ANALYSIS_OUTPUTS = ("comparison.csv", "runs.csv", "improvement.png", "plots")


@dataclass(frozen=True, order=True)
class RunKey:
    """One run: workload name, scheduler directory name (slug of its label), repetition."""

    workload: str
    scheduler: str
    rep: int

    def __str__(self) -> str:
        return f"{self.workload}/{self.scheduler}/rep{self.rep}"


def run_dir(out: Path, key: RunKey) -> Path:
    """Where the run ``key`` lives."""
    return Path(out) / key.workload / key.scheduler / f"rep{key.rep}"


def save_run(out: Path, key: RunKey, result: Result, info: dict[str, Any]) -> Path:
    """Store a finished run atomically (:func:`coschedlab.outputs.atomic_dir`, replacing a
    failed attempt); ``info`` goes to ``run.json``. Returns its directory."""
    target = run_dir(out, key)
    with atomic_dir(target, force=True, option="run") as tmp:
        result.write(tmp)
        (tmp / "run.json").write_text(json.dumps(info, indent=2, default=str) + "\n")
    return target


def save_error(out: Path, key: RunKey, message: str) -> Path:
    """Record a failed run: ``<run dir>/error.txt`` (the run does not count as finished)."""
    target = run_dir(out, key)
    with atomic_dir(target, force=True, option="run") as tmp:
        (tmp / "error.txt").write_text(message.rstrip() + "\n")
    return target / "error.txt"


def _readable(path: Path, key: str | None = None) -> bool:
    """True when ``path`` holds a JSON object (with ``key``, when given): a file truncated or
    damaged since it was stored is not, and its run counts as not done (it is run again)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and (key is None or isinstance(doc.get(key), dict))


def completed(out: Path) -> set[RunKey]:
    """The runs stored under ``out`` that finished (their directory holds a readable
    ``metrics.json``; a damaged one is run again)."""
    done: set[RunKey] = set()
    out = Path(out)
    if not out.is_dir():
        return done
    for metrics in out.glob("*/*/rep*/metrics.json"):
        rep_dir = metrics.parent
        suffix = rep_dir.name[3:]
        if not suffix.isdigit() or rep_dir.name.startswith(TMP_PREFIX):
            continue
        if not _readable(metrics, "metrics"):
            continue
        done.add(RunKey(rep_dir.parent.parent.name, rep_dir.parent.name, int(suffix)))
    return done


def load_run(out: Path, key: RunKey) -> Result:
    """Read back a stored run; a damaged one is an InputError saying how to redo it."""
    where = run_dir(out, key)
    try:
        return Result.load(where)
    except InputError as exc:
        raise InputError(
            f"{exc}; delete {where} and run the command again to redo that run"
        ) from None


def remove_leftovers(out: Path) -> int:
    """Delete temporary directories left by killed runs; returns how many."""
    n = 0
    for prefix in (TMP_PREFIX, OLD_PREFIX):
        for tmp in Path(out).glob(f"*/*/{prefix}*"):
            shutil.rmtree(tmp, ignore_errors=True)
            n += 1
    return n


class RunStore:
    """The runner's store (:class:`~coschedlab.sweeps.store.Store`) of a comparison
    directory: a run's value is
    ``(Result, info)``, written by :func:`save_run` with where and how long it ran."""

    def __init__(self, out: Path) -> None:
        self.out = Path(out)

    def done(self) -> set[RunKey]:
        return completed(self.out)

    def clean(self) -> None:
        remove_leftovers(self.out)

    def save(self, task: Any, outcome: Any) -> None:
        result, info = outcome.value
        info = {
            **info,
            "seconds": round(outcome.seconds, 3),
            "host": outcome.host,
            "pid": outcome.pid,
        }
        save_run(self.out, task.key, result, info)

    def save_error(self, task: Any, outcome: Any) -> None:
        save_error(self.out, task.key, outcome.detail or outcome.error or "failed")


class JsonStore:
    """The runner's store of a sweep whose runs are JSON documents: ``<folder>/<key>.json``,
    written through a temporary file and :func:`os.replace` (a run is finished exactly when its
    file exists); failed runs leave ``<key>.error.txt``."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def done(self) -> set[str]:
        if not self.folder.is_dir():
            return set()
        return {
            f.stem
            for f in self.folder.glob("*.json")
            if not f.name.startswith(".") and _readable(f)  # a damaged run is run again
        }

    def clean(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in self.folder.glob(f"{TMP_PREFIX}*"):  # left by an interrupted write
            stale.unlink(missing_ok=True)

    def save(self, task: Any, outcome: Any) -> None:
        self._write(self._path(task.key), json.dumps(outcome.value, sort_keys=True))
        (self.folder / f"{task.key}.error.txt").unlink(missing_ok=True)

    def save_error(self, task: Any, outcome: Any) -> None:
        text = (outcome.detail or outcome.error or "failed").rstrip() + "\n"
        self._write(self.folder / f"{task.key}.error.txt", text)

    def _write(self, path: Path, text: str) -> None:
        with atomic_file(path, force=True, option="run", probe=False) as tmp:
            tmp.write_text(text)

    def load(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The stored runs (all, or those of ``keys`` that exist), in key order."""
        done = self.done()
        names = sorted(done) if keys is None else [k for k in keys if k in done]
        return [json.loads(self._path(k).read_text()) for k in names]


# -- sweeps whose runs are JSON documents --------------------------------------------------------
def check_json_sweep(
    out: Path, what: str, described: dict[str, Any] | None, fixed: Iterable[str]
) -> None:
    """``out`` can hold this sweep of ``what`` (e.g. "workflow"): new, empty, or a sweep
    directory whose ``spec.json`` agrees with ``described`` on every ``fixed`` key (resuming
    with more values of the other keys is fine)."""
    from ..outputs import check_target

    out = Path(out)
    kind = sweep_kind(out)
    if kind is not None and kind != what:
        raise InputError(f"--out {out} holds a {kind} sweep, not a {what} sweep; give "
                         "another --out")  # fmt: skip
    if out.is_dir() and not is_empty(out) and not (out / "runs").is_dir():
        raise InputError(f"--out {out} is not a {what} sweep directory (no runs/ in it)")
    stored = out / "spec.json"
    if not stored.is_file() and (out / "runs").is_dir() and any((out / "runs").glob("*.json")):
        raise InputError(
            f"--out {out} holds runs but no spec.json (what they were made from); "
            "give another --out"
        )
    check_target(out, force=True)
    if described is None or not stored.is_file():
        return
    try:
        old = json.loads(stored.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise InputError("not valid JSON; give another --out", str(stored)) from None
    if not isinstance(old, dict):
        raise InputError("not a sweep's spec.json; give another --out", str(stored))
    new = json.loads(json.dumps(described, default=str))
    diffs = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in fixed if old.get(k) != new.get(k)]
    if diffs:
        raise InputError(
            f"--out {out} holds runs of another sweep ({'; '.join(diffs)}); give another --out"
        )


def run_json_sweep(
    out: Path,
    tasks: list[Any],
    described: dict[str, Any],
    shape: Any,
    *,
    what: str,
    jobs: int | None = None,
    on_start: Any = None,
    on_done: Any = None,
    executor: Any = None,
    on_info: Any = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """Run (or resume) ``tasks`` (:class:`~coschedlab.sweeps.tasks.Task`) into ``out/runs``
    with ``described``
    as ``out/spec.json`` (and ``"sweep": what``, which names the kind of sweep to readers such
    as the dashboard); the runner's summary and every finished run's record, in task order.
    ``shape(record)`` raises KeyError or TypeError for a record that is not a run of this
    sweep (a damaged file: one line naming it)."""
    from ..sweeps.runner import run_tasks

    out = mark(out)
    doc = {"sweep": what, **described}
    (out / "spec.json").write_text(json.dumps(doc, default=str, indent=1) + "\n")
    store = JsonStore(out / "runs")
    summary = run_tasks(tasks, store, jobs=jobs, quiet=True, on_start=on_start, on_done=on_done,
                        executor=executor, on_info=on_info)  # fmt: skip
    rows = []
    done = store.done()
    for t in tasks:
        if t.key not in done:
            continue
        path = store.folder / f"{t.key}.json"
        try:
            row = json.loads(path.read_text())
            shape(row)
            config = row["config"]
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError):
            raise InputError(
                "damaged run file: delete it and run the sweep again to redo that run", str(path)
            ) from None
        if t.args and config != json.loads(json.dumps(t.args[0], default=str)):
            raise InputError(
                "this run was made with other settings than the spec's: delete it (or the "
                "whole --out) and run the sweep again",
                str(path),
            )
        rows.append(row)
    return summary, rows


def sweep_kind(out: Path) -> str | None:
    """What kind of sweep the directory ``out`` holds, from its spec.json: "comparison"
    (``coschedlab compare``), "workflow", "coupled", "study reproduction" (the ``"sweep"``
    a :func:`run_json_sweep` writes; older directories by their keys); None when it holds no
    readable spec.json."""
    try:
        doc = json.loads((Path(out) / "spec.json").read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("sweep"), str):
        return doc["sweep"]
    for kind, key in (("comparison", "runs"), ("workflow", "modes"), ("coupled", "schemes"),
                      ("study reproduction", "spec_sha256")):  # fmt: skip
        if key in doc:
            return kind
    return None


@dataclass(frozen=True)
class JsonSweep:
    """A sweep whose runs are JSON documents, resumable: ``what`` names it in messages,
    ``describe(spec)`` is what its ``spec.json`` holds, ``fixed`` the keys a resumed sweep may
    not change, ``run_one(config)`` one run, ``shape(record)`` raises KeyError or TypeError for
    a record that is not one of its runs. ``spec.configs()`` gives every run's key and
    configuration."""

    what: str
    describe: Any
    fixed: tuple[str, ...]
    run_one: Any
    shape: Any

    def check_output(self, out: Path, spec: Any = None) -> None:
        """``out`` can hold the sweep ``spec`` (:func:`check_json_sweep`)."""
        check_json_sweep(out, self.what, None if spec is None else self.describe(spec), self.fixed)

    def run(
        self,
        spec: Any,
        out: Path,
        jobs: int | None = None,
        on_start: Any = None,
        on_done: Any = None,
        executor: Any = None,
        on_info: Any = None,
    ) -> tuple[Any, list[dict[str, Any]]]:
        """Run (or resume) every configuration of ``spec`` into ``out/runs``: the runner's
        summary and the finished runs' records; ``executor``: where the runs execute (default:
        the spec's ``executor``, else the local pool)."""
        from ..sweeps.tasks import Task

        if jobs is not None and jobs < 1:
            raise InputError(f"--jobs must be at least 1, got {jobs}")
        self.check_output(out, spec)
        configs = spec.configs()
        tasks = [Task(k, self.run_one, (configs[k],)) for k in sorted(configs)]
        return run_json_sweep(
            out, tasks, self.describe(spec), self.shape, what=self.what, jobs=jobs,
            on_start=on_start,
            on_done=on_done, executor=executor or getattr(spec, "executor", None),
            on_info=on_info,
        )  # fmt: skip


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
    _refuse_other_sweeps(out)
    new = spec.describe()
    old = _stored(out)
    if old is None:
        if out.is_dir() and not is_empty(out):
            raise InputError(
                f"{out} exists and is not a comparison output (no {SPEC_FILE}); "
                "choose another --out or empty it"
            )
        merged = new
    else:
        old_runs = old.get("runs", {})
        diffs = _differences(old_runs, new)
        if diffs:
            raise InputError(
                f"{out} holds runs of a different spec ({'; '.join(diffs)}); rerun with "
                "--fresh to discard them, or give another --out"
            )
        merged = {
            **new,
            "workloads": {**old_runs.get("workloads", {}), **new["workloads"]},
            "schedulers": {**old_runs.get("schedulers", {}), **new["schedulers"]},
        }
    return merged


def _refuse_other_sweeps(out: Path) -> None:
    """A comparison never resumes into, or clears, another kind of sweep's directory."""
    kind = sweep_kind(out)
    if kind not in (None, "comparison"):
        raise InputError(f"{out} holds a {kind} sweep, not a comparison; give another --out")


def _refuse_foreign(out: Path, names: Iterable[str]) -> None:
    """Refuse to clear ``out`` when it holds anything a comparison does not write (a user's
    notes beside the runs, a file in a workload's folder): ``--fresh`` deletes nothing then."""
    ours = {*names, *ANALYSIS_OUTPUTS, SPEC_FILE, MARKER}
    for item in sorted(out.iterdir()):
        if item.name.startswith((TMP_PREFIX, OLD_PREFIX)):
            continue  # left by a killed run: cleared with the rest
        foreign: Path | None = item if item.name not in ours else None
        if foreign is None and item.is_dir():
            foreign = first_foreign(item, OUR_FILES)
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
    _refuse_other_sweeps(out)
    try:
        old = _stored(out)
    except InputError:  # a damaged spec.json: still a comparison output, start over
        old = {}
    if old is None and not is_empty(out):
        raise InputError(f"{out} is not a comparison output (no {SPEC_FILE}); refusing to clear it")
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
