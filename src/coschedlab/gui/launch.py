"""Comparisons the dashboard starts: ``coschedlab compare`` itself, in a process of its own.

The page's form becomes a comparison spec (the same YAML a user would write, saved under
``specs/`` in the workspace), and the run is the command line's ``compare`` on it: the one
experiments runner, the local pool or the configured Dask executor, the same stored runs, the
same resuming. So the command line reads what the dashboard made (``coschedlab compare
specs/NAME.yaml --out OUT`` resumes or re-analyses it) and the dashboard reads what the
command line made.

Progress is read from the output directory (a run is finished when its ``metrics.json``
exists, failed when its ``error.txt`` does), not from the process: it survives a reload of
the page, and shows the same for a comparison started at the command line. Cancel sends the
process group SIGINT, as Ctrl-C would: every finished run stays stored, and running the same
comparison again resumes it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from ..experiments.comparison import PROGRESS_DIR
from .workspace import Workspace

__all__ = ["Launch", "RunState", "launch", "launches", "progress", "spec_yaml"]

SPECS = "specs"


@dataclass
class Launch:
    """A comparison the dashboard started."""

    out: Path
    spec: Path
    log: Path
    proc: subprocess.Popen
    #: the checked comparison Spec of ``spec`` (what the progress is read against)
    plan: Any
    started: float = field(default_factory=time.time)
    cancelled: bool = False

    @property
    def live(self) -> Path:
        """Where its runs report their progress."""
        return live_dir(self.spec)

    @property
    def code(self) -> int | None:
        """The process's exit code (None while it runs)."""
        return self.proc.poll()

    def cancel(self) -> None:
        """Stop the comparison as Ctrl-C would (finished runs stay stored)."""
        if self.proc.poll() is None:
            self.cancelled = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGINT)

    def message(self) -> str:
        """The command's last line of output (its one-line error, or 'written ...')."""
        try:
            lines = [x for x in self.log.read_text(errors="replace").splitlines() if x.strip()]
        except OSError:
            return ""
        errors = [x for x in lines if x.startswith("error:")]
        return (errors or lines or [""])[-1].strip()


_LOCK = threading.Lock()
_LAUNCHES: dict[Path, Launch] = {}


def launches() -> dict[Path, Launch]:
    """The comparisons started by this dashboard, by output directory."""
    with _LOCK:
        return dict(_LAUNCHES)


def spec_yaml(doc: dict[str, Any]) -> str:
    """A comparison spec as YAML text (as a user would write it)."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)


def launch(
    ws: Workspace,
    doc: dict[str, Any],
    out: Path,
    jobs: int | None = None,
    executor: str | None = None,
) -> Launch:
    """Check the spec ``doc`` (the command line's checker), save it as
    ``specs/<output folder>.yaml`` and start ``coschedlab compare`` on it into ``out`` (a
    workspace path). Refused with :class:`InputError` while a comparison runs into ``out``,
    or when ``out`` holds something that is not this comparison."""
    from ..experiments.spec import spec_from_dict
    from ..experiments.store import check_spec_compatible

    with _LOCK:
        running = _LAUNCHES.get(out)
        if running is not None and running.code is None:
            raise InputError(f"a comparison is already running into {ws.relative(out)}")
    name = ws.relative(out).replace(os.sep, "_")
    spec_path = ws.root / SPECS / f"{name}.yaml"
    spec = spec_from_dict(doc, spec_path)  # the one checker: one-line errors
    check_spec_compatible(out, spec)
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(spec_yaml(doc))
    log = spec_path.with_suffix(".log")
    cmd = [sys.executable, "-m", "coschedlab.cli", "compare", str(spec_path), "--out", str(out)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    if executor:
        cmd += ["--executor", executor]
    live = live_dir(spec_path)
    shutil.rmtree(live, ignore_errors=True)
    live.mkdir()
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", PROGRESS_DIR: str(live)}
    with open(log, "wb") as f:
        proc = subprocess.Popen(
            cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=ws.root, start_new_session=True, env=env,
        )  # fmt: skip
    started = Launch(out, spec_path, log, proc, spec)
    with _LOCK:
        _LAUNCHES[out] = started
    return started


def live_dir(spec_path: Path) -> Path:
    """The folder where the runs of the comparison ``spec_path`` report their jobs done (the
    bar per run; :data:`~coschedlab.experiments.comparison.PROGRESS_DIR`)."""
    return spec_path.with_suffix(".progress")


@dataclass(frozen=True)
class RunState:
    """One run of a comparison: workload, scheduler (its directory name), repetition and
    ``state``: done, failed or waiting (not finished: queued or running)."""

    workload: str
    scheduler: str
    rep: int
    state: str
    seconds: float | None = None
    #: jobs finished and in all, while it runs (None: not started, or not reporting)
    jobs: tuple[int, int] | None = None


def progress(out: Path, spec: Any, live: Path | None = None) -> list[RunState]:
    """The state of every run of ``spec`` (a checked comparison Spec) in ``out``; ``live``:
    the folder where running runs report their jobs done (:data:`PROGRESS_DIR`)."""
    import json

    from ..experiments.comparison import progress_name
    from ..experiments.store import RunKey

    states = []
    for w in spec.workloads:
        for s in spec.schedulers:
            for rep in range(spec.repetitions):
                d = out / w.name / s.slug / f"rep{rep}"
                if (d / "metrics.json").is_file():
                    seconds = None
                    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                        seconds = float(json.loads((d / "run.json").read_text())["seconds"])
                    states.append(RunState(w.name, s.label, rep, "done", seconds))
                elif (d / "error.txt").is_file():
                    states.append(RunState(w.name, s.label, rep, "failed"))
                else:
                    jobs = None
                    if live is not None:
                        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                            d = json.loads((live / progress_name(RunKey(w.name, s.slug, rep)))
                                           .read_text())  # fmt: skip
                            jobs = (int(d["done"]), int(d["total"]))
                    states.append(RunState(w.name, s.label, rep, "waiting", jobs=jobs))
    return states
