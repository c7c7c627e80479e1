"""The real executor: a study's runs as process groups of a moldable command, in wall time
(SimX, Sections 3-4; the twin of :mod:`~coschedlab.studies.simulate`).

The same :class:`~coschedlab.studies.manager.Manager` decides; this module owns time (wall
seconds from the study's start) and the runs. Each :class:`~coschedlab.studies.manager.Start`
becomes one OS process group (``start_new_session``: a signal to the group reaches the
solver's own children) of the command template, filled in for the run.

**The command template** is split with :func:`shlex.split` (no shell) and these placeholders
are replaced inside each token (other braces are left alone):

* ``{params}``: the design as ``name=value,...``; a token that is exactly ``{params}`` and
  does not follow an option word (a token starting with ``-``) becomes the two words
  ``--params name=value,...``: ``heat {params}`` and ``heat --params {params}`` are the same;
* ``{nprocs}``: the run's group size; ``{workers}``: its worker numbers, ``0,1,...``;
* ``{checkpoint_out}``: the design's own checkpoint, ``OUT/checkpoints/d<i>-<j>.npz``;
* ``{checkpoint_in}``: the final state to start from: the reuse source's final checkpoint
  (SimX Section 4.3) or the run's own last checkpoint (a run resumed after a preemption or a
  killed study; the run reads a copy, ``d<i>-<j>.resume.npz``, as it rewrites its own).
  **When there is none, the token holding** ``{checkpoint_in}`` **is dropped,
  and when that token is exactly** ``{checkpoint_in}`` **the option word before it** (a token
  starting with ``-``) **is dropped with it**: ``--checkpoint-in {checkpoint_in}`` and
  ``--checkpoint-in={checkpoint_in}`` both vanish;
* ``{result}``: the run's JSON result file, ``OUT/runs/d<i>-<j>.json``;
* ``{checkpoint_every}``: timesteps between checkpoints (``checkpoint_every``).

A run succeeds when it exits 0 with a JSON object holding ``"objectives"`` (a list of finite
numbers) in the ``{result}`` file or on the last non-empty line of its standard output;
``"steps"`` (its timesteps) and ``"mode"`` are recorded when given. Anything else stops the
study with a one-line :class:`RunFailed` naming the run, the design, the command and the
last line the run wrote to standard error; every running group is killed (no orphans) and the
finished runs stay stored. Standard output and error go to ``OUT/runs/d<i>-<j>.out|.err``.

**Persistence and resuming.** Finished runs are stored in ``OUT/store.sqlite`` as they finish
(one commit per run), with their records and scheduling-graph bars. A study started again on
the same ``OUT`` never redoes a finished design (the manager skips stored designs), keeps the
stored records (the new runs' clock continues from the last stored end) and resumes an
unfinished design from its own leftover checkpoint. One executor at a time uses an ``OUT``
(a lock file).

**Preemption** (configuration E, SimX Section 4.4). When workers are spare, running runs
(most expected work left first: the mean timesteps of finished runs of the same kind, scratch
or reused, minus the checkpoints seen) are offered the larger group
:meth:`~coschedlab.studies.manager.Manager.expansion`. The fraction ``sigma`` of the current
checkpoint interval done is estimated from the checkpoint file's modification times: the time
since the last one over the mean interval between those seen in this invocation (the first
measured from the invocation's start), below 1, and just below 1 before the first checkpoint
(wait for one). ``alpha`` is the ratio of the scaling table's times per timestep. When
:func:`~coschedlab.studies.manager.beneficial`, the group gets SIGTERM (SIGKILL after
``grace`` seconds), the run takes the larger group and restarts from its own last checkpoint
(from its reuse source or from scratch when it has none yet); the lost timesteps are
estimated as ``sigma x checkpoint_every`` at the kill. Otherwise it is asked again at the
next poll.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import numbers
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import InputError
from ..outputs import record
from .batching import ScalingTable
from .manager import Config, Manager, Start, beneficial
from .result import Segment, StudyResult
from .sampling import Design, DesignSpace, pareto_front
from .store import ResultStore

__all__ = ["CommandTemplate", "RunFailed", "run_real_study"]


#: Linux's prctl option: the signal a process gets when its parent dies
_PR_SET_PDEATHSIG = 1


def _dies_with(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes a run's leader die (SIGKILL) when the study's process dies,
    even by SIGKILL (which leaves no time to stop the groups): its own session would otherwise
    keep it computing for nobody (its children, like the heat solver's strips, follow their
    parent). Linux only (``prctl``); None elsewhere, where only a live study stops its runs."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None

    def preexec() -> None:  # in the child, between fork and exec
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the study died before prctl: nobody waits for this run
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


_PLACEHOLDER = re.compile(
    r"\{(params|nprocs|workers|checkpoint_in|checkpoint_out|checkpoint_every|result)\}"
)
_CKPT_IN = "{checkpoint_in}"
#: the files a real study keeps in its folder besides each run's (its lock and its store,
#: with SQLite's side files)
STUDY_FILES = (".lock", "store.sqlite", "store.sqlite-journal", "store.sqlite-wal",
               "store.sqlite-shm")  # fmt: skip
_ALMOST_ONE = 1.0 - 1e-9


class RunFailed(InputError):
    """A run of the study failed (non-zero exit, or no usable result): one line naming the
    run, its design, the reason, the last standard-error line and the command."""


def _plain(v: Any) -> int | float:
    """A parameter value as a JSON-friendly Python number."""
    return int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else float(v)


def params_text(space: DesignSpace, d: Design) -> str:
    """``name=value,...`` of design ``d`` (the ``{params}`` placeholder)."""
    return ",".join(f"{n}={_plain(v)!r}" for n, v in space.params(d).items())


@dataclass(frozen=True)
class CommandTemplate:
    """A run command with placeholders (module doc), split into tokens once."""

    text: str
    tokens: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> CommandTemplate:
        """A checked template: it splits, is not empty and holds ``{params}``."""
        try:
            tokens = tuple(shlex.split(text))
        except ValueError as exc:
            raise InputError(f"the run command does not split into words ({exc})") from None
        if not tokens:
            raise InputError("the run command is empty")
        if not any("{params}" in t for t in tokens):
            raise InputError(
                "the run command must pass the design: write {params} or --params {params}"
            )
        return cls(text, tokens)

    def has(self, name: str) -> bool:
        return any("{" + name + "}" in t for t in self.tokens)

    def argv(self, values: dict[str, str], checkpoint_in: str | None) -> list[str]:
        """The command's words for one run (``values``: placeholder -> text; the placeholder
        rules of the module doc)."""
        vals = {**values, "checkpoint_in": checkpoint_in or ""}
        words: list[list[str]] = []  # the words of each template token
        for i, tok in enumerate(self.tokens):
            after_option = i > 0 and _is_option(self.tokens[i - 1])
            if _CKPT_IN in tok and checkpoint_in is None:
                if tok == _CKPT_IN and after_option:
                    words[-1] = []
                words.append([])
            elif tok == "{params}" and not after_option:
                words.append(["--params", vals["params"]])
            else:
                words.append([_PLACEHOLDER.sub(lambda m: vals[m.group(1)], tok)])
        return [w for ws in words for w in ws]


def _is_option(token: str) -> bool:
    """An option word: starts with ``-`` and holds no placeholder."""
    return token.startswith("-") and len(token) > 1 and not _PLACEHOLDER.search(token)


@dataclass
class _Run:
    start: Start
    id: int  # the run's number in the study (continues a resumed study's numbers)
    key: str  # d<i>-<j>: the design's file stem
    workers: tuple[int, ...]
    began: float  # first start (study clock)
    source: Design | None  # the finished design whose final state this run read
    source_ckpt: str | None
    proc: subprocess.Popen | None = None
    pidfd: int | None = None
    argv: list[str] = field(default_factory=list)
    wall: float = 0.0  # when the current group started (its bars start there)
    launched: float = 0.0  # the current invocation's start (epoch seconds)
    mtime_ns: int | None = None  # the checkpoint file's last seen modification time
    seen: list[float] = field(default_factory=list)  # checkpoint times in this invocation
    ckpts: int = 0  # checkpoints written and not lost, over invocations
    lost: float = 0.0
    moves: int = 0
    groups: list[int] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)


def _tail_line(path: Path, limit: int = 65536) -> str:
    """The last non-empty line of a file (its last ``limit`` bytes), or ''."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            data = f.read()
    except OSError:
        return ""
    for line in reversed(data.decode("utf-8", "replace").splitlines()):
        if line.strip():
            return line.strip()
    return ""


def _ideal(procs: int) -> ScalingTable:
    return ScalingTable.of({p: 1.0 / p for p in range(1, procs + 1)})


def run_real_study(
    space: DesignSpace,
    config: Config,
    procs: int,
    per_run: int,
    command: str,
    out_dir: str | Path,
    reuse: Sequence[str] = (),
    checkpoint_every: int = 200,
    step: int = 2,
    scaling: ScalingTable | None = None,
    poll: float = 0.05,
    on_finish: Callable[[int, int], None] | None = None,
    objectives_count: int | None = None,
    barrier: bool = True,
    grace: float = 10.0,
    checkpoint_suffix: str = ".npz",
    alpha: str = "scaling",
) -> StudyResult:
    """Run a study of ``space`` for real on ``procs`` workers under ``config`` (module doc):
    ``command`` is the run template, ``out_dir`` holds the store, checkpoints and logs;
    ``per_run`` workers per run without batching; ``scaling`` the code's seconds per timestep
    (default: ideal speed-up on 1..procs) for batching and the preemption rule; the command
    checkpoints every ``checkpoint_every`` timesteps; ``poll`` seconds between checks of
    the checkpoints (finishes wake the executor at once); ``objectives_count`` checks each
    result; ``on_finish(done, issued)`` reports progress; ``grace`` seconds between SIGTERM
    and SIGKILL."""
    tpl = CommandTemplate.parse(command)
    if (config.reuse or config.preempt) and not (tpl.has("checkpoint_in")
                                                 and tpl.has("checkpoint_out")):  # fmt: skip
        raise InputError(
            f"configuration {config.name} reuses or resumes final states: the run command "
            "needs {checkpoint_in} and {checkpoint_out}"
        )
    for name, v in (("checkpoint_every", checkpoint_every), ("procs", procs)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"{name} must be a whole number >= 1, got {v!r}")
    if not (isinstance(poll, int | float) and 0 < poll < math.inf):
        raise InputError(f"poll must be a positive number of seconds, got {poll!r}")
    scaling = scaling or _ideal(procs)
    out = Path(out_dir)
    try:
        for sub in ("checkpoints", "runs"):
            (out / sub).mkdir(parents=True, exist_ok=True)
        # (--force replaces only what is listed; a resumed study's are listed already)
        record((out / name for name in STUDY_FILES), once=True)
        lock = (out / ".lock").open("w")
    except OSError as exc:
        raise InputError(f"cannot use the study folder ({exc.strerror})", str(out)) from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise InputError("another study is running in this folder", str(out)) from None
    try:
        store = ResultStore(space, reuse if config.reuse else (), path=out / "store.sqlite")
    except BaseException:
        lock.close()
        raise
    try:
        return _Executor(space, config, procs, per_run, tpl, out, store, scaling,
                         checkpoint_every, step, poll, on_finish, objectives_count, barrier,
                         grace, checkpoint_suffix, alpha).run()  # fmt: skip
    finally:
        store.close()
        lock.close()


class _Executor:
    """One run of :func:`run_real_study` (the loop and the process groups)."""

    def __init__(self, space: DesignSpace, config: Config, procs: int, per_run: int,
                 tpl: CommandTemplate, out: Path, store: ResultStore, scaling: ScalingTable,
                 checkpoint_every: int, step: int, poll: float,
                 on_finish: Callable[[int, int], None] | None, objectives_count: int | None,
                 barrier: bool, grace: float, suffix: str,
                 alpha: str = "scaling") -> None:  # fmt: skip
        self.space, self.config, self.procs, self.tpl, self.out = space, config, procs, tpl, out
        self.store, self.scaling, self.every, self.poll = store, scaling, checkpoint_every, poll
        self.on_finish, self.grace, self.suffix = on_finish, grace, suffix
        self.mgr = Manager(space, config, scaling, procs, per_run, store, step=step,
                           barrier=barrier, alpha=alpha)  # fmt: skip
        self.runs: dict[int, _Run] = {}
        self.records: list[dict] = []
        self.segments: list[Segment] = []
        for sr in sorted(store.runs(), key=lambda r: (r.record.get("end", 0.0), r.design)):
            rec = dict(sr.record)
            bars = rec.pop("segments", [])
            self.records.append(rec)
            self.segments += [Segment(int(w), int(rec.get("run", -1)), float(s), float(e), k)
                              for w, s, e, k in bars]  # fmt: skip
        self.prior = len(self.records)
        self.base = 1 + max((int(r.get("run", -1)) for r in self.records), default=-1)
        self.offset = max((float(r.get("end", 0.0)) for r in self.records), default=0.0)
        counts = {len(r.objectives) for r in store.runs()}
        self.nobj = objectives_count if objectives_count is not None else (
            counts.pop() if len(counts) == 1 else None)  # fmt: skip
        self.t0 = time.monotonic()

    def clock(self) -> float:
        """Wall seconds since the study's start (continuing a resumed study's clock)."""
        return self.offset + time.monotonic() - self.t0

    # -- the loop ---------------------------------------------------------------------------
    def run(self) -> StudyResult:
        """Start what the manager says, wait, finish, offer spare workers; until done."""
        try:
            changed = True
            while True:
                if changed:
                    for s in self.mgr.starts():
                        self._launch(s)
                    changed = False
                if not self.runs:
                    break
                if self.config.preempt:
                    changed = self._offer_spare()
                    if changed:
                        continue
                self._wait()
                for r in list(self.runs.values()):
                    if self._exited(r):
                        self._finish(r)
                        changed = True
            if not self.mgr.done():  # pragma: no cover - a manager bug, never a user's input
                raise RuntimeError("the study stopped with runs left")
        except BaseException:
            self._kill_all()
            raise
        return StudyResult(
            config=self.config.name,
            procs=self.procs,
            records=self.records,
            segments=self.segments,
            front=sorted(pareto_front(self.store.results())),
            batches=self.mgr.batches,
            info={"out_dir": str(self.out), "command": self.tpl.text, "resumed": self.prior},
        )

    def _wait(self) -> None:
        """Sleep up to ``poll`` seconds; a run's exit wakes it at once (pidfds)."""
        fds = [r.pidfd for r in self.runs.values() if r.pidfd is not None]
        if fds and len(fds) == len(self.runs):
            select.select(fds, [], [], self.poll)
        else:
            time.sleep(self.poll)

    # -- starting and stopping process groups -------------------------------------------------
    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.out / "checkpoints" / f"{key}{self.suffix}", self.out / "runs" / key

    def _launch(self, s: Start) -> None:
        """A new run (SimX Section 3: the Task Queue's start on the allocated group)."""
        key = "d" + "-".join(str(i) for i in s.design)
        src, src_ckpt = None, None
        if s.source is not None:
            stored = self.store.get(s.source).checkpoint
            path = None if stored is None else Path(stored)
            if path is not None and not path.is_file():  # a moved study folder: by name
                path = self.out / "checkpoints" / path.name
            if path is not None and path.is_file():
                src, src_ckpt = s.source, str(path)
        now = self.clock()
        r = _Run(s, self.base + s.run, key, s.workers, now, src, src_ckpt,
                 groups=[len(s.workers)])  # fmt: skip
        self.runs[s.run] = r
        self._spawn(r, now)

    def _spawn(self, r: _Run, now: float) -> None:
        """Start (or restart) run ``r``'s process group on ``r.workers``: from its own last
        checkpoint when there is one, else from its reuse source, else from scratch."""
        ckpt, stem = self._paths(r.key)
        ckpt_in = r.source_ckpt
        if ckpt.is_file():  # resume: read a copy, the run rewrites its own checkpoint
            copy = ckpt.with_name(f"{r.key}.resume{self.suffix}")
            shutil.copyfile(ckpt, copy)
            ckpt_in = str(copy)
        result = stem.with_suffix(".json")
        result.unlink(missing_ok=True)
        # the run's files are the study's: listed for --force before they are written
        record([ckpt, ckpt.with_name(f"{r.key}.resume{self.suffix}"), result,
                stem.with_suffix(".out"), stem.with_suffix(".err")])  # fmt: skip
        values = {
            "params": params_text(self.space, r.start.design),
            "nprocs": str(len(r.workers)),
            "workers": ",".join(map(str, r.workers)),
            "checkpoint_out": str(ckpt),
            "checkpoint_every": str(self.every),
            "result": str(result),
        }
        r.argv = self.tpl.argv(values, ckpt_in)
        r.mtime_ns = _mtime_ns(ckpt)
        r.seen = []
        r.wall = now
        r.launched = time.time()
        outs: list[IO[bytes]] = []
        try:
            outs = [stem.with_suffix(".out").open("wb"), stem.with_suffix(".err").open("wb")]
            r.proc = subprocess.Popen(r.argv, stdin=subprocess.DEVNULL, stdout=outs[0],
                                      stderr=outs[1], start_new_session=True,
                                      preexec_fn=_dies_with(os.getpid()))  # fmt: skip
        except OSError as exc:
            del self.runs[r.start.run]
            raise RunFailed(f"cannot start {r.argv[0]!r} ({exc.strerror}); command: "
                            f"{shlex.join(r.argv)}", self._where(r)) from None  # fmt: skip
        finally:
            for f in outs:
                f.close()
        try:
            r.pidfd = os.pidfd_open(r.proc.pid)
        except (AttributeError, OSError):  # pragma: no cover - old kernels
            r.pidfd = None

    def _exited(self, r: _Run) -> bool:
        """True when ``r``'s leader has exited (not reaped yet, so its group id is not reused)."""
        assert r.proc is not None
        if r.proc.returncode is not None:
            return True
        try:
            info = os.waitid(os.P_PID, r.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # pragma: no cover - reaped elsewhere
            return True
        return info is not None

    def _reap(self, r: _Run) -> int:
        """Kill what is left of ``r``'s group (a leader that exited may leave children) and
        collect the leader's exit code."""
        assert r.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(r.proc.pid, signal.SIGKILL)
        rc = r.proc.wait()
        if r.pidfd is not None:
            os.close(r.pidfd)
            r.pidfd = None
        return rc

    def _stop(self, r: _Run) -> int:
        """SIGTERM ``r``'s group, SIGKILL after ``grace`` seconds; its exit code."""
        assert r.proc is not None
        if not self._exited(r):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(r.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                r.proc.wait(self.grace)
        return self._reap(r)

    def _kill_all(self) -> None:
        """Stop every running group (an error or Ctrl-C): SIGTERM all, SIGKILL stragglers."""
        live = [r for r in self.runs.values() if r.proc is not None]
        for r in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if r.proc.returncode is None:
                    os.killpg(r.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + min(self.grace, 5.0)
        for r in live:
            with contextlib.suppress(subprocess.TimeoutExpired):
                r.proc.wait(max(0.0, deadline - time.monotonic()))
            with contextlib.suppress(Exception):
                self._reap(r)
        self.runs.clear()

    # -- finishing ----------------------------------------------------------------------------
    def _where(self, r: _Run) -> str:
        return (f"run {r.id} (design {list(r.start.design)}: "
                f"{params_text(self.space, r.start.design)})")  # fmt: skip

    def _failed(self, r: _Run, why: str) -> RunFailed:
        err = _tail_line(self._paths(r.key)[1].with_suffix(".err"))
        last = f"last stderr line: {err!r}" if err else "no stderr output"
        return RunFailed(f"{why}; {last}; command: {shlex.join(r.argv)}", self._where(r))

    def _outcome(self, r: _Run) -> dict | str:
        """The run's result (the ``{result}`` file, else the last stdout line), or why not."""
        stem = self._paths(r.key)[1]
        result = stem.with_suffix(".json")
        if self.tpl.has("result") and result.is_file():
            text, where = result.read_text(errors="replace").strip(), "its result file"
        else:
            text, where = _tail_line(stem.with_suffix(".out")), "its last output line"
        if not text:
            return "printed no result"
        try:
            res = json.loads(text)
        except ValueError:
            return f"{where} is not JSON: {text[:120]!r}"
        objs = res.get("objectives") if isinstance(res, dict) else None
        if not (isinstance(objs, list) and objs and all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in objs)):  # fmt: skip
            return f'{where} has no "objectives" list of finite numbers: {text[:120]!r}'
        if self.nobj is not None and len(objs) != self.nobj:
            return f"{where} has {len(objs)} objectives, expected {self.nobj}"
        steps = res.get("steps", res.get("steps_run", 0))
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            return f'{where} has a bad "steps": {steps!r}'
        return {**res, "steps": steps}

    def _close(self, r: _Run, until: float) -> None:
        bars = [Segment(w, r.id, r.wall, until, "run") for w in r.workers]
        r.segments += bars
        self.segments += bars

    def _finish(self, r: _Run, rc: int | None = None) -> None:
        """A run's group exited: store the run (SimX Section 3: SISOL keeps its final state
        for reuse, Section 4.3), free its workers, report progress; or stop the study."""
        now = self.clock()
        rc = self._reap(r) if rc is None else rc
        del self.runs[r.start.run]
        if rc != 0:
            why = f"was killed by signal {-rc}" if rc < 0 else f"failed with exit code {rc}"
            raise self._failed(r, why)
        res = self._outcome(r)
        if isinstance(res, str):
            raise self._failed(r, res)
        self._close(r, now)
        objectives = [float(v) for v in res["objectives"]]
        self.nobj = len(objectives)
        rec = {
            "run": r.id,
            "design": list(r.start.design),
            **{n: _plain(v) for n, v in self.space.params(r.start.design).items()},
            "source": None if r.source is None else list(r.source),
            "batch": r.start.batch,
            "start": r.began,
            "end": now,
            "steps": res["steps"],
            "lost_steps": r.lost,
            "preemptions": r.moves,
            "first_procs": r.groups[0],
            "last_procs": r.groups[-1],
            "objectives": objectives,
            "mode": str(res.get("mode", "")),
        }
        ckpt = self._paths(r.key)[0]
        ckpt.with_name(f"{r.key}.resume{self.suffix}").unlink(missing_ok=True)
        bars = [[s.worker, s.start, s.end, s.kind] for s in r.segments]
        self.mgr.finish(r.start.run, objectives, rec["steps"],
                        checkpoint=str(ckpt.resolve()) if ckpt.is_file() else None,
                        record={**rec, "segments": bars})  # fmt: skip
        self.records.append(rec)
        if self.on_finish is not None:
            self.on_finish(len(self.records), self.prior + self.mgr.issued)

    # -- preemption ---------------------------------------------------------------------------
    def _observe(self, r: _Run) -> None:
        """Note a new checkpoint file version of ``r`` (its modification time)."""
        m = _mtime_ns(self._paths(r.key)[0])
        if m is not None and m != r.mtime_ns:
            r.mtime_ns = m
            r.seen.append(m / 1e9)
            r.ckpts += 1

    def _progress(self, r: _Run, now: float) -> float:
        """The fraction of the current checkpoint interval done (module doc), in [0, 1)."""
        if not r.seen:
            return _ALMOST_ONE
        interval = (r.seen[-1] - r.launched) / len(r.seen)
        if interval <= 0:
            return _ALMOST_ONE
        return min(max((now - r.seen[-1]) / interval, 0.0), _ALMOST_ONE)

    def _left(self, r: _Run) -> float:
        """Expected timesteps left (module doc)."""
        same = [x["steps"] for x in self.records if (x["source"] is None) == (r.source is None)]
        pool = same or [x["steps"] for x in self.records] or [0]
        return sum(pool) / len(pool) - r.ckpts * self.every

    def _offer_spare(self) -> bool:
        """Offer spare workers to running runs, most work left first (SimX Section 4.4);
        True when something changed (a run moved or finished meanwhile)."""
        if not self.mgr.spare():
            return False
        changed = False
        for r in sorted(self.runs.values(), key=lambda r: (-self._left(r), r.id)):
            spare = self.mgr.spare()
            if not spare:
                break
            new = self.mgr.expansion(r.start.run, spare)
            if new is None or self._exited(r):
                continue
            self._observe(r)
            alpha = self.mgr.speedup_ratio(r.start.run, new)
            if not beneficial(alpha, self._progress(r, time.time())):
                continue
            rc = self._stop(r)
            killed_at = time.time()
            if rc == 0 and not isinstance(self._outcome(r), str):
                self._finish(r, rc)  # it finished meanwhile
                return True
            now = self.clock()
            self._close(r, now)
            self._observe(r)
            r.lost += self._progress(r, killed_at) * self.every if r.seen else 0.0
            r.moves += 1
            r.workers = self.mgr.expand(r.start.run, new)
            r.groups.append(new)
            self._spawn(r, now)
            changed = True
        return changed


def _mtime_ns(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None
