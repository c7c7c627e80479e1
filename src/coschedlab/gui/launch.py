"""Sweeps the dashboard starts: the command line's own command, in a process of its own.

A page's form becomes the command's input (a comparison spec, the same YAML a user would
write, saved under ``specs/`` in the workspace; a sweep spec; an ensemble), and the run is
the command line's command on it (``coschedlab compare``, ``workflows compare``, ``coupled
compare``, ``study reproduce``, ``insitu simulate --search``): the one experiments runner,
the local pool or the configured Dask executor, the same stored runs, the same resuming. So
the command line reads what the dashboard made (``coschedlab compare specs/NAME.yaml --out
OUT`` resumes or re-analyses it) and the dashboard reads what the command line made.

Progress is read from files, not from the process: the runner's counts
(:func:`~coschedlab.sweeps.progress.sweep_progress`, in the launch's ``live`` folder,
given to the command as :data:`~coschedlab.sweeps.progress.PROGRESS_DIR`) and, for a
comparison, the output directory itself (a run is finished when its ``metrics.json``
exists, failed when its ``error.txt`` does) and each running run's jobs done. Cancel sends
the process group SIGINT, as Ctrl-C would: every finished run stays stored, and running the
same command again resumes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
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
from ..sweeps import PARENT
from ..sweeps.progress import PROGRESS_DIR
from .workspace import Workspace

__all__ = [
    "AlreadyRunning", "Launch", "RunState", "clock", "command_line", "launch", "launch_name",
    "launched", "launches", "progress", "refuse_running", "spec_yaml", "start", "status_line",
    "sweep_status", "watched",
]  # fmt: skip

SPECS = "specs"
#: how long a cancelled command has to stop after Ctrl-C before it is terminated (s)
CANCEL_GRACE_S = 10.0
#: how long checking a spec before its command starts (a comparison's, its policy files
#: loaded, or a sweep's) may take (s)
CHECK_S = 60.0


@dataclass
class Launch:
    """A command the dashboard started: its output directory ``out``, its log (stderr, and
    stdout unless ``stdout`` keeps it apart), the folder ``live`` where it reports progress,
    and ``plan``: what the page checked before starting it (a comparison's Spec)."""

    out: Path
    log: Path
    live: Path
    proc: subprocess.Popen
    plan: Any = None
    stdout: Path | None = None
    #: what it runs ("comparison", a sweep's kind, "insitu search"): which page watches it
    kind: str = "comparison"
    #: whether running it again resumes it (its finished runs are stored)
    resumes: bool = True
    started: float = field(default_factory=time.time)
    cancelled: bool = False
    ended: float | None = None

    @property
    def code(self) -> int | None:
        """The process's exit code (None while it runs)."""
        code = self.proc.poll()
        if code is not None and self.ended is None:
            self.ended = time.time()
        return code

    @property
    def elapsed(self) -> float:
        """Seconds it ran (so far, while it runs)."""
        self.code  # noqa: B018 (notes the end)
        return (self.ended or time.time()) - self.started

    def cancel(self, grace: float = CANCEL_GRACE_S) -> None:
        """Stop the command as Ctrl-C would (finished runs stay stored); a process still
        running ``grace`` seconds later (busy in a long computation) is terminated, then
        killed: the runs it stores are written atomically, so nothing stored is lost."""
        if self.proc.poll() is not None:
            return
        self.cancelled = True
        self._signal(signal.SIGINT)

        def escalate() -> None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    self.proc.wait(grace)
                    return
                except subprocess.TimeoutExpired:
                    self._signal(sig)

        threading.Thread(target=escalate, daemon=True).start()

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def message(self) -> str:
        """The command's last line of output (its one-line error, or 'written ...')."""
        try:
            lines = [x for x in self.log.read_text(errors="replace").splitlines() if x.strip()]
        except OSError:
            return ""
        errors = [x for x in lines if x.startswith("error:")]
        return (errors or lines or [""])[-1].strip()

    def counts(self) -> dict[str, Any] | None:
        """The sweep's counts, elapsed time and ETA (None before the runner reports)."""
        from ..sweeps.progress import sweep_progress

        return sweep_progress(self.live)


_LOCK = threading.Lock()
_STARTING = threading.RLock()
_LAUNCHES: dict[Path, Launch] = {}


def launches() -> dict[Path, Launch]:
    """The commands started by this dashboard, by output directory."""
    with _LOCK:
        return dict(_LAUNCHES)


def spec_yaml(doc: dict[str, Any]) -> str:
    """A comparison spec as YAML text (as a user would write it)."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)


class AlreadyRunning(InputError):
    """A command this dashboard started still writes into the output folder asked for."""


def launched(ws: Workspace, active: Any) -> Launch | None:
    """The command this dashboard started into the folder a page holds as active (a value
    the browser sends back: anything but a workspace-relative text names none)."""
    if not isinstance(active, str) or not active:
        return None
    return launches().get(ws.root / active)


def watched(ws: Workspace, kind: str) -> str | None:
    """The output folder (workspace-relative) of the latest command of ``kind`` still
    running: a page opened (or reloaded) while it runs shows its progress again."""
    with _LOCK:
        live = [x for x in _LAUNCHES.values() if x.kind == kind and x.code is None]
    if not live:
        return None
    return ws.relative(max(live, key=lambda x: x.started).out)


def refuse_running(ws: Workspace, out: Path) -> None:
    """:class:`AlreadyRunning` while a command this dashboard started still writes into
    ``out`` (a second click of a page's button: the page watches the first one's run)."""
    with _LOCK:
        running = _LAUNCHES.get(out)
    if running is not None and running.code is None:
        raise AlreadyRunning(f"a run is already going into {ws.relative(out)}")


def launch_name(ws: Workspace, out: Path) -> str:
    """The name of ``out``'s spec, log and progress files under ``specs/``: its
    workspace-relative path with ``_`` for ``/``, and for a nested folder a digest of the
    path, so that ``a/b`` and ``a_b`` never share files."""
    rel = ws.relative(out)
    if os.sep not in rel:
        return rel
    return f"{rel.replace(os.sep, '_')}-{hashlib.sha256(rel.encode()).hexdigest()[:6]}"


def command_line(ws: Workspace, args: list[str]) -> str:
    """``coschedlab ARGS`` as a user types it: bundled data as ``coschedlab:NAME``, paths in
    the workspace relative to it (where the dashboard runs its commands)."""
    return shlex.join(["coschedlab", *map(ws.words, args)])


def start(
    ws: Workspace,
    args: list[str],
    out: Path,
    name: str,
    *,
    plan: Any = None,
    keep_stdout: bool = False,
    jobs: int | None = None,
    executor: str | None = None,
    kind: str = "comparison",
    resumes: bool = True,
) -> Launch:
    """Start ``coschedlab ARGS`` (plus ``--jobs``/``--executor`` when given) in the workspace,
    writing into ``out``, ended if this process is killed (:data:`~coschedlab.sweeps.PARENT`
    names it); its log and
    progress folder are ``specs/NAME.log`` and ``specs/NAME.progress`` (``specs/NAME.out``
    holds stdout when ``keep_stdout``), and ``specs/NAME.command`` says the command as a
    user types it (:func:`command_line`), for the page that shows ``out`` later."""
    base = ws.root / SPECS / name
    log, live = base.with_name(f"{name}.log"), base.with_name(f"{name}.progress")
    stdout = base.with_name(f"{name}.out") if keep_stdout else None
    cmd = [sys.executable, "-m", "coschedlab.cli", *args]  # ends if the dashboard is killed
    if jobs:
        cmd += ["--jobs", str(jobs)]
    if executor:
        cmd += ["--executor", executor]
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", PROGRESS_DIR: str(live),
           PARENT: str(os.getpid())}  # fmt: skip
    with _STARTING:  # one start at a time: two clicks never start two commands
        refuse_running(ws, out)
        base.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(live, ignore_errors=True)
        live.mkdir()
        base.with_name(f"{name}.command").write_text(command_line(ws, args) + "\n")
        with contextlib.ExitStack() as files:
            err = files.enter_context(open(log, "wb"))
            out_f = files.enter_context(open(stdout, "wb")) if stdout is not None else err
            proc = subprocess.Popen(
                cmd, stdout=out_f, stderr=err if stdout is not None else subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=ws.root, start_new_session=True, env=env,
            )  # fmt: skip
        started = Launch(out, log, live, proc, plan, stdout, kind, resumes)
        with _LOCK:
            _LAUNCHES[out] = started
    return started


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
    when ``out`` holds something that is not this comparison, or when the comparison would
    leave out runs ``out`` holds (its table would silently lose them). Policy files the spec
    names are loaded for the check in a process of their own, never in this one."""
    from ..experiments.spec import spec_from_dict
    from ..experiments.store import check_spec_compatible
    from .isolated import call_isolated

    name = launch_name(ws, out)
    spec_path = ws.root / SPECS / f"{name}.yaml"
    trial = spec_path.with_name(f".{name}.checking.yaml")  # same folder: same relative paths

    def shown(exc: InputError) -> InputError:  # named as the workspace shows it
        where = (exc.where or "").replace(str(trial), str(spec_path))
        return InputError(exc.what, where.replace(f"{ws.root}{os.sep}", "") or None)

    with _STARTING:  # the check, the spec file and the start: one click at a time
        refuse_running(ws, out)
        try:
            spec = spec_from_dict(doc, spec_path, load_schedulers=False)
        except InputError as exc:
            raise shown(exc) from None
        merged = check_spec_compatible(out, spec)
        new = spec.describe()
        for part in ("schedulers", "workloads"):
            left = [k for k in merged.get(part, {}) if k not in new[part]]
            if left:
                raise InputError(
                    f"{ws.relative(out)} holds runs of {', '.join(left)} that this "
                    "comparison leaves out (its table would lose them): add them, or choose "
                    "another output folder"
                )
        spec_path.parent.mkdir(parents=True, exist_ok=True)
        trial.write_text(spec_yaml(doc))
        try:
            # read as ``coschedlab compare`` reads it, its policy files loaded
            call_isolated("coschedlab.experiments.spec:load_spec", str(trial), cwd=ws.root,
                          timeout=CHECK_S, where=str(spec_path))  # fmt: skip
        except InputError as exc:
            trial.unlink(missing_ok=True)
            raise shown(exc) from None
        os.replace(trial, spec_path)
        return start(ws, ["compare", str(spec_path), "--out", str(out)], out, name,
                     plan=spec, jobs=jobs, executor=executor)  # fmt: skip


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
    from ..sweeps.store import RunKey

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


def clock(seconds: float) -> str:
    """``seconds`` as minutes:seconds (hours:minutes:seconds from an hour)."""
    seconds = int(round(max(seconds, 0)))
    h, m, sec = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def status_line(
    running: Launch, finished: int, total: int, failed: int, counts: dict | None = None
) -> str:
    """The line under a sweep's progress bar: runs finished of all, failures, the time left
    (the runner's estimate from the runs this command finished, not those stored before;
    ``counts``: the runner's counts when the caller has read them already) while it runs;
    then how it ended (done, cancelled, or the command's one-line error)."""
    text = f"{finished} of {total} runs"
    if failed:
        text += f" ({failed} failed)"
    code = running.code
    elapsed = running.elapsed
    if code is None:
        if running.cancelled:
            return text + ": cancelling (waiting for the runs in progress to stop)"
        counts = running.counts() if counts is None else counts
        eta = (counts or {}).get("eta")  # from the runs done since it started
        if eta is not None and finished < total:
            text += f", about {clock(eta)} left"
        return text + f" ({clock(elapsed)} so far)"
    if code == 0:
        return text + f": done in {clock(elapsed)}"
    if running.cancelled or code in (130, -2):
        if not running.resumes:
            return text + ": cancelled (nothing is kept: Simulate again starts over)"
        return text + ": cancelled (finished runs are stored; Run again resumes)"
    return text + f": {running.message() or f'exit code {code}'}"


def sweep_status(running: Launch) -> tuple[int, int, str]:
    """(runs finished, runs in all, the line under the bar) of a launched sweep, from the
    runner's counts (:meth:`Launch.counts`)."""
    counts = running.counts() or {}
    total = int(counts.get("total", 0))
    finished = int(counts.get("stored", 0)) + int(counts.get("done", 0))
    if not counts and running.code is None:
        return 0, 0, "starting (reading the inputs)"
    failed = int(counts.get("failed", 0))
    return finished, total, status_line(running, finished, total, failed, counts)
