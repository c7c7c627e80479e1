"""The one driver of every sweep: a :class:`Sweep` turns a spec into runs, refuses an output
folder that holds another sweep, records what the runs are made from (``OUT/spec.json``, with
``"sweep"`` naming the kind of sweep), runs the missing ones on the runner into the one
:class:`~.store.Store`, and reads the finished runs back.

Resuming is the point: an interrupted sweep, run again, runs only what is not stored; a sweep
with more values of its free settings extends a finished one; one whose :attr:`Sweep.fixed`
settings differ is refused (its runs would not be comparable).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..outputs import atomic_file, check_target, is_empty, mark
from .executors import ExecutorSpec
from .store import JSON, Layout, Store
from .tasks import Summary, Task

__all__ = ["MAX_REPETITIONS", "Sweep", "check_folder", "check_kind", "sweep_kind"]

SPEC_FILE = "spec.json"
#: the most repetitions (trials) of one configuration a sweep runs: far beyond any study, it
#: catches a typo that would run for days
MAX_REPETITIONS = 1000


def sweep_kind(out: Path | str) -> str | None:
    """What kind of sweep the directory ``out`` holds, from its spec.json (the ``"sweep"`` the
    driver writes; one without it by a key only its kind writes: a registered sweep's
    :attr:`Sweep.legacy_key`), or the spec.json a capability keeps elsewhere under ``out``
    (its :attr:`~.capability.Capability.spec_file`); None when it holds no readable one."""
    from .capability import capabilities

    caps = capabilities()
    for name in dict.fromkeys([SPEC_FILE, *(c.spec_file for c in caps)]):
        try:
            doc = json.loads((Path(out) / name).read_text())
        except (OSError, ValueError, RecursionError):
            continue
        if not isinstance(doc, dict):
            continue
        if isinstance(doc.get("sweep"), str):
            return doc["sweep"]
        for cap in (c for c in caps if c.spec_file == name):
            sweep = cap.the_sweep()
            if sweep.legacy_key is not None and sweep.legacy_key in doc:
                return sweep.what
    return None


def check_kind(out: Path, what: str) -> None:
    """Refuse ``out`` when its spec.json says it holds another kind of sweep than ``what``
    (every sweep, whatever its own folder checks: none resumes into, or clears, another's)."""
    kind = sweep_kind(out)
    if kind is not None and kind != what:
        raise InputError(f"--out {out} holds {_a(kind)} sweep, not {_a(what)} sweep; give "
                         "another --out")  # fmt: skip


def _a(what: str) -> str:
    """``what`` with its article (an in situ ..., a workflow ...)."""
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def check_folder(
    out: Path, what: str, described: dict[str, Any] | None, fixed: Iterable[str]
) -> None:
    """``out`` can hold this sweep of ``what`` (e.g. "workflow"): new, empty, or a sweep
    directory whose ``spec.json`` agrees with ``described`` on every ``fixed`` key (resuming
    with more values of the other keys is fine)."""
    out = Path(out)
    check_kind(out, what)
    if out.is_dir() and not is_empty(out) and not (out / "runs").is_dir():
        raise InputError(f"--out {out} is not a {what} sweep directory (no runs/ in it)")
    stored = out / SPEC_FILE
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


def _plain(value: Any) -> Any:
    """``value`` as its JSON record holds it."""
    return json.loads(json.dumps(value, default=str))


def _describe_nothing(spec: Any) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Sweep:
    """A resumable sweep (module doc).

    ``what`` names it (messages; ``"sweep"`` in its spec.json); ``run_one(config, *extra)``
    is one run (a top-level function: it pickles); ``describe(spec)`` what its spec.json
    holds, ``fixed`` the keys of it a resumed sweep may not change; ``shape(record)`` raises
    KeyError or TypeError for a stored record that is not one of its runs (a damaged file),
    None when records are not checked; ``layout`` how its runs are stored, under ``OUT/runs``
    (``runs=""``: under ``OUT`` itself); ``fresh_process``: each run in a process of its own
    (SimGrid); ``quiet``: the workers' stderr silenced. ``check(out, spec)`` and
    ``record(out, spec)`` replace the folder check and the writing of what the runs are made
    from, before them, for a sweep that keeps its own (the comparison merges the definitions
    of its runs; ELiSE's refuses a folder holding files it did not write, and writes each
    input's drawn jobs beside its spec.json); ``plan(spec)``
    its tasks (default: one per configuration, in key order); ``clear(out, spec)`` removes
    its stored runs (its command's ``--fresh``).
    ``legacy_key``: a key only this kind's spec.json holds when it has no ``"sweep"`` (one
    written before it was, or one a ``record`` writes)."""

    what: str
    run_one: Callable[..., Any]
    describe: Callable[[Any], dict[str, Any]] = _describe_nothing
    fixed: tuple[str, ...] = ()
    shape: Callable[[dict[str, Any]], None] | None = None
    layout: Layout = JSON
    runs: str = "runs"
    fresh_process: bool = False
    quiet: bool = True
    check: Callable[[Path, Any], None] | None = None
    record: Callable[[Path, Any], None] | None = None
    legacy_key: str | None = None
    plan: Callable[[Any], list[Task]] | None = None
    clear: Callable[[Path, Any], None] | None = None

    def check_output(self, out: Path, spec: Any = None) -> None:
        """``out`` can hold the sweep ``spec`` (:func:`check_folder`), else one line saying
        why (nothing is written)."""
        if self.check is not None:
            self.check(Path(out), spec)
        else:
            described = None if spec is None else self.describe(spec)
            check_folder(out, self.what, described, self.fixed)

    def tasks(self, spec: Any) -> list[Task]:
        """The tasks of ``spec``: :attr:`plan`'s, else one per configuration
        (``spec.configs()``: key -> configuration), in key order."""
        if self.plan is not None:
            return self.plan(spec)
        configs = spec.configs()
        return [Task(k, self.run_one, (configs[k],)) for k in sorted(configs)]

    def store(self, out: Path | None) -> Store:
        """The store of the sweep in ``out`` (in memory when ``out`` is None)."""
        if out is None:
            return Store(None)
        return Store(Path(out) / self.runs if self.runs else Path(out), self.layout)

    def run(
        self,
        spec: Any,
        out: Path | None,
        *,
        tasks: Sequence[Task] | None = None,
        jobs: int | None = None,
        on_start: Callable[[int, int], None] | None = None,
        on_done: Callable[[Any], None] | None = None,
        executor: Any = None,
        on_info: Callable[[str], None] | None = None,
    ) -> tuple[Summary, list[Any]]:
        """Run (or resume) the runs of ``spec`` (``tasks``, default :meth:`tasks`) into
        ``out`` (None: in memory, nothing written): the runner's summary and the finished
        runs' values in task order (a directory layout's runs are not read back: an empty
        list). ``executor``: where the runs execute (default: the spec's ``executor``, else
        the local pool); see :func:`~.runner.run_tasks` for the callbacks and Ctrl-C."""
        if jobs is not None and jobs < 1:
            raise InputError(f"--jobs must be at least 1, got {jobs}")
        if out is not None:
            out = Path(out)
            self.check_output(out, spec)
            if self.record is not None:
                self.record(out, spec)
            else:
                doc = {"sweep": self.what, **self.describe(spec)}
                # whole or not at all: a full disk left an empty spec.json, and the rerun it
                # asked for was refused ("not a sweep directory")
                with atomic_file(mark(out) / SPEC_FILE, force=True, probe=False) as tmp:
                    tmp.write_text(json.dumps(doc, default=str, indent=1) + "\n")
        from .runner import run_tasks

        todo = list(self.tasks(spec) if tasks is None else tasks)
        store = self.store(out)
        if executor is None:  # the spec's own, when it names one
            executor = getattr(spec, "executor", None)
            executor = executor if isinstance(executor, ExecutorSpec) else None
        summary = run_tasks(
            todo, store, jobs=jobs, fresh_process=self.fresh_process, quiet=self.quiet,
            on_start=on_start, on_done=on_done, executor=executor, on_info=on_info,
        )  # fmt: skip
        if self.layout.directory and store.folder is not None:
            return summary, []
        return summary, self._finished(store, todo)

    def _finished(self, store: Store, tasks: list[Task]) -> list[Any]:
        """The finished runs' values, in task order; with :attr:`shape`, each checked (a
        damaged file, or one made with other settings than its task's: one line naming it)."""
        done = store.done()
        rows = []
        for t in tasks:
            if t.key not in done:
                continue
            if store.folder is None:
                rows.append(store.values[t.key])
                continue
            path = store.layout.path(store.folder, t.key)
            try:
                row = store.layout.read(store.folder, t.key)
                if self.shape is not None:
                    self.shape(row)
                    config = row["config"]
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError):
                raise InputError(
                    "damaged run file: delete it and run the sweep again to redo that run",
                    str(path),
                ) from None
            if self.shape is not None and t.args and config != _plain(t.args[0]):
                raise InputError(
                    "this run was made with other settings than the spec's: delete it (or "
                    "the whole --out) and run the sweep again",
                    str(path),
                )
            rows.append(row)
        return rows
