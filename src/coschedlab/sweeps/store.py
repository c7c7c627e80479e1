"""The one store of every sweep: where its finished runs live, written atomically.

A :class:`Store` keeps each finished run under its folder, laid out by a :class:`Layout`:

* :data:`JSON` (the default): ``<folder>/<key>.json`` holding the run's record, a failed run
  ``<key>.error.txt`` beside it;
* :class:`RunDirs`: a directory per run, ``<folder>/<a>/<b>/rep<k>/`` (a :class:`RunKey`),
  holding the files its result writes, ``run.json`` and ``metrics.json`` (the comparison's
  and ELiSE's runs of the core simulator).

A run is written into a hidden temporary sibling and renamed into place in one step, so a
killed process never leaves a half-written run that looks finished; a stored run that cannot
be read back (truncated, damaged) counts as not done and is run again. A store without a
folder keeps the runs' values in memory (a sweep whose results are not files).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..outputs import OLD_PREFIX, TMP_PREFIX, atomic_dir, atomic_file, left_by_the_dead
from .tasks import Outcome, Task

__all__ = [
    "JSON", "Layout", "RunDirs", "RunKey", "Store", "completed", "readable",
    "run_dir",
]  # fmt: skip


def readable(path: Path, key: str | None = None) -> bool:
    """True when ``path`` holds a JSON object (with the object ``key``, when given): a file
    truncated or damaged since it was stored is not, and its run counts as not done."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and (key is None or isinstance(doc.get(key), dict))


class Layout:
    """How a sweep's runs are laid out in the store's folder; this one (:data:`JSON`, the
    default): one JSON document per run, ``<folder>/<key>.json``, a failed run's message in
    ``<key>.error.txt`` (:class:`RunDirs`: a directory per run)."""

    #: True: a run is a directory (written with atomic_dir); False: one file
    directory = False

    def path(self, folder: Path, key: Any) -> Path:
        """Where the run ``key`` lives."""
        return folder / f"{key}.json"

    def finished(self, folder: Path) -> set:
        """The keys of the readable finished runs under ``folder``."""
        if not folder.is_dir():
            return set()
        return {f.stem for f in folder.glob("*.json")
                if not f.name.startswith(".") and readable(f)}  # fmt: skip

    def leftovers(self, folder: Path) -> list[Path]:
        """What killed writes left under ``folder`` (temporary siblings)."""
        return sorted(folder.glob(f"{TMP_PREFIX}*"))

    def write(self, tmp: Path, outcome: Outcome) -> None:
        """Write the finished run ``outcome`` into ``tmp`` (a directory or a file name)."""
        tmp.write_text(json.dumps(outcome.value, sort_keys=True))

    def error_path(self, folder: Path, key: Any) -> Path:
        """Where a failed run's message goes (the run does not count as finished)."""
        return folder / f"{key}.error.txt"

    def read(self, folder: Path, key: Any) -> Any:
        """A stored run's value."""
        return json.loads(self.path(folder, key).read_text())


#: the default layout: one JSON document per run
JSON = Layout()


@dataclass(frozen=True, order=True)
class RunKey:
    """One run of a :class:`RunDirs` sweep: workload name, scheduler directory name (slug of
    its label), repetition."""

    workload: str
    scheduler: str
    rep: int

    def __str__(self) -> str:
        return f"{self.workload}/{self.scheduler}/rep{self.rep}"


def run_dir(out: Path, key: RunKey) -> Path:
    """Where the run ``key`` lives."""
    return Path(out) / key.workload / key.scheduler / f"rep{key.rep}"


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
        if not readable(metrics, "metrics"):
            continue
        done.add(RunKey(rep_dir.parent.parent.name, rep_dir.parent.name, int(suffix)))
    return done


class RunDirs(Layout):
    """Runs as directories (:func:`run_dir`): a run's value is ``(result, info)``, ``result``
    writing its files into a directory (``result.write(dir)``, ``metrics.json`` among them)
    and ``info`` going to ``run.json`` with where and how long the run took; a failed run's
    directory holds ``error.txt``. ``load(dir)`` reads a result back."""

    directory = True

    def __init__(self, load: Callable[[Path], Any]) -> None:
        self.load = load

    def path(self, folder: Path, key: RunKey) -> Path:
        return run_dir(folder, key)

    def finished(self, folder: Path) -> set:
        return completed(folder)

    def leftovers(self, folder: Path) -> list[Path]:
        return [p for prefix in (TMP_PREFIX, OLD_PREFIX) for p in folder.glob(f"*/*/{prefix}*")]

    def write(self, tmp: Path, outcome: Outcome) -> None:
        result, info = outcome.value
        info = {**info, "seconds": round(outcome.seconds, 3), "host": outcome.host,
                "pid": outcome.pid}  # fmt: skip
        result.write(tmp)
        (tmp / "run.json").write_text(json.dumps(info, indent=2, default=str) + "\n")

    def error_path(self, folder: Path, key: RunKey) -> Path:
        return run_dir(folder, key) / "error.txt"

    def read(self, folder: Path, key: RunKey) -> Any:
        """A stored run's result; a damaged one is an InputError saying how to redo it."""
        where = run_dir(folder, key)
        try:
            return self.load(where)
        except InputError as exc:
            raise InputError(
                f"{exc}; delete {where} and run the command again to redo that run"
            ) from None


class Store:
    """Where a sweep's finished runs live (the runner's store): ``folder`` laid out by
    ``layout`` (module doc); ``folder=None`` keeps the runs' values and errors in memory."""

    def __init__(self, folder: Path | str | None, layout: Layout = JSON) -> None:
        self.folder = None if folder is None else Path(folder)
        self.layout = layout
        self.values: dict = {}
        self.errors: dict = {}

    def done(self) -> set:
        """Keys of the runs stored as finished."""
        if self.folder is None:
            return set(self.values)
        return self.layout.finished(self.folder)

    def clean(self) -> None:
        """Remove what killed runs left (temporary files and directories); not what another
        sweep running into the same folder is writing (it failed, its run half-written)."""
        if self.folder is None:
            return
        if not self.layout.directory:
            self.folder.mkdir(parents=True, exist_ok=True)
        for stale in self.layout.leftovers(self.folder):
            if not left_by_the_dead(stale.name):
                continue
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)

    def save(self, task: Task, outcome: Outcome) -> None:
        """Store a finished run, atomically (replacing a failed attempt)."""
        if self.folder is None:
            self.values[task.key] = outcome.value
            return
        target = self.layout.path(self.folder, task.key)
        if self.layout.directory:
            with atomic_dir(target, force=True, option="run") as tmp:
                self.layout.write(tmp, outcome)
        else:
            with atomic_file(target, force=True, option="run", probe=False) as tmp:
                self.layout.write(tmp, outcome)
            self.layout.error_path(self.folder, task.key).unlink(missing_ok=True)

    def save_error(self, task: Task, outcome: Outcome) -> None:
        """Record a failed run (it does not count as finished)."""
        if self.folder is None:
            self.errors[task.key] = outcome.error
            return
        text = (outcome.detail or outcome.error or "failed").rstrip() + "\n"
        path = self.layout.error_path(self.folder, task.key)
        if self.layout.directory:  # the run's directory holds only its error
            with atomic_dir(path.parent, force=True, option="run") as tmp:
                (tmp / path.name).write_text(text)
        else:
            with atomic_file(path, force=True, option="run", probe=False) as tmp:
                tmp.write_text(text)

    def load(self, keys: Iterable[Any] | None = None) -> list[Any]:
        """The stored runs' values (all, in key order, or those of ``keys`` that exist)."""
        done = self.done()
        names = sorted(done) if keys is None else [k for k in keys if k in done]
        if self.folder is None:
            return [self.values[k] for k in names]
        return [self.layout.read(self.folder, k) for k in names]
