"""ELiSE's workload generators and arrival distributions, draw for draw.

ELiSE (``framework/realsim/generators``) makes a job per drawn application: its run time is
the application's median compact time, its requested time 1.4 times that. It seeds NumPy and
Python's ``random`` from the clock (``seed(time_ns() % 2**32)``) before every draw, so its
workloads cannot be drawn again. Here the generators read an :class:`EliseClock` instead: it
gives ``seed``, ``seed + 1``, ... at each read, and the draws use the same legacy NumPy
(``RandomState``) and Python generators in the same order, so a workload is reproducible and
is exactly the one ELiSE draws when its clock is given the same readings
(``tests/coloc/elise/regenerate.py`` runs ELiSE so).

Generators (ELiSE's names, ``generator: {type, arg}``):

* ``Random Generator`` (arg: number of jobs): applications uniformly from the pool;
* ``Random From List Generator`` (arg: ``[jobs, "name\\nname\\n..."]``): uniformly from a list;
* ``Dictionary Generator`` (arg: ``{name: count}``): the given counts, shuffled;
* ``List Generator`` (arg: a workload CSV's text, or here also its path): the jobs as listed;
* ``Shuffle List Generator`` (arg: a workload CSV's path): listed jobs shuffled, submit times
  kept in place;
* ``SWF Generator`` (arg: an SWF path): an SWF trace's jobs, the executable number as the
  application (ELiSE's batch runner cannot build this one: its constructor takes no pool).

Distributions (``distribution: {type, arg}``, arg in seconds): ``Constant Distribution``
(a job every ``arg``), ``Poisson Distribution`` (exponential gaps of mean ``arg``, NumPy's
generator as the last draw left it), ``Random Distribution`` (uniform gaps in [0, arg]).

A workload CSV is ELiSE's own layout (``Logger.get_workload``: SWF's 18 fields by name plus
``Assigned Processors``); its List Generator reads field 0 (id), 1 (submit), 8 (requested
time) and 13 (application); the run time is always the pool's median compact time.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...bundled import read_bytes
from ...errors import InputError
from ...jobs import MAX_TIME
from ..pool import Pool

__all__ = [
    "DISTRIBUTIONS",
    "GENERATORS",
    "EliseClock",
    "EliseJob",
    "WORKLOAD_HEADER",
    "apply_distribution",
    "generate",
    "setup_jobs",
    "workload_csv",
]

#: ELiSE's workload CSV header (``Logger.get_workload``)
WORKLOAD_HEADER = [
    "Job Number",
    "Submit Time",
    "Wait Time",
    "Run Time",
    "Number of Allocated Processors",
    "Average CPU Time Used",
    "Used Memory",
    "Requested Number of Processors",
    "Requested Time",
    "Requested Memory",
    "Status",
    "User ID",
    "Group ID",
    "Executable Number",
    "Queue Number",
    "Partition Number",
    "Preceding Job Number",
    "Think Time from Preceding Job",
    "Assigned Processors",
]


class EliseClock:
    """The readings ELiSE's generators take from ``time.time_ns()``: ``seed``, ``seed + 1``,
    ... One clock serves a whole experiment, read in ELiSE's order. ``np`` and ``py`` are the
    NumPy and Python generators as ELiSE's last ``seed(...)`` calls left them."""

    def __init__(self, seed: int) -> None:
        self.next = int(seed)
        self.np = np.random.RandomState(self.next % 2**32)
        self.py = random.Random(self.next)

    def read(self) -> int:
        value = self.next
        self.next += 1
        return value

    def seed_numpy(self) -> None:
        """``numpy.random.seed(time_ns() % 2**32)``."""
        self.np = np.random.RandomState(self.read() % 2**32)

    def seed_python(self) -> None:
        """``random.seed(time_ns() % 2**32)``."""
        self.py = random.Random(self.read() % 2**32)


@dataclass
class EliseJob:
    """One job as ELiSE's generators make it (``realsim.jobs.Job``)."""

    id: int
    app: str
    procs: int
    run: float  # ELiSE's remaining_time: the application's median compact time
    submit: float
    wall: float
    #: ``file:line`` of a listed job (List Generators), else ""
    at: str = field(default="", compare=False)


def _job(clock: EliseClock, idx: int, pool: Pool, name: str, where: str) -> EliseJob:
    """ELiSE's ``AbstractCustomLogsGenerator.generate_job`` (it reseeds NumPy first)."""
    clock.seed_numpy()
    try:
        app = pool.app(name)
    except InputError:
        raise InputError(f"application {name!r} is not in the pool", where=where) from None
    t = app.compact_time
    return EliseJob(idx, name, app.procs if app.procs > 0 else 1, t, 0.0, 1.4 * t)


def _count(arg: Any, what: str, where: str) -> int:
    if isinstance(arg, bool) or not isinstance(arg, int) or arg < 1:
        raise InputError(f"{what} must be a whole number of jobs >= 1, got {arg!r}", where)
    if arg > 10_000_000:
        raise InputError(f"{what} asks for {arg} jobs; at most 10,000,000", where)
    return arg


def _random(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    n = _count(arg, "the Random Generator's arg", where)
    names = pool.names
    clock.seed_numpy()
    ints = clock.np.randint(low=0, high=len(names), size=(n,))
    return [_job(clock, i, pool, names[k], where) for i, k in enumerate(ints.tolist())]


def _random_from_list(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], str)):
        raise InputError(
            'the Random From List Generator\'s arg must be [jobs, "name\\nname\\n..."]', where
        )
    n = _count(arg[0], "the Random From List Generator's job count", where)
    keys = [k for k in arg[1].split("\n") if k]
    if not keys:
        raise InputError("the Random From List Generator's list names no application", where)
    for k in keys:
        if k not in pool.names:
            raise InputError(f"application {k!r} of the list is not in the pool", where)
    clock.seed_numpy()
    ints = clock.np.randint(low=0, high=len(keys), size=(n,))
    return [_job(clock, i, pool, keys[k], where) for i, k in enumerate(ints.tolist())]


def _dictionary(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    if not isinstance(arg, dict) or not arg:
        raise InputError("the Dictionary Generator's arg must map applications to counts", where)
    jobs: list[EliseJob] = []
    for name, freq in arg.items():
        if isinstance(freq, bool) or not isinstance(freq, int) or freq < 0:
            raise InputError(f"the count of {name!r} must be a whole number >= 0", where)
    total = sum(arg.values())
    if total > 10_000_000:  # as the other generators (10^11 made jobs until memory ran out)
        raise InputError(
            f"the Dictionary Generator's counts ask for {total:,} jobs; at most 10,000,000", where
        )
    for name, freq in arg.items():
        for _ in range(freq):
            jobs.append(_job(clock, len(jobs), pool, str(name), where))
    if not jobs:
        raise InputError("the Dictionary Generator's counts make no job", where)
    clock.seed_python()
    clock.py.shuffle(jobs)
    return jobs


def _csv_text(arg: Any, where: str, path_only: bool) -> tuple[str, str]:
    """The text of a workload CSV given as its path (or, unless ``path_only``, inline)."""
    if not isinstance(arg, str) or not arg:
        raise InputError("the List Generators' arg must be a workload CSV", where)
    if "\n" in arg and not path_only:
        return arg, where
    path = Path(arg)
    if path_only or path.exists():
        return read_bytes(path).decode("utf-8-sig", errors="replace"), str(path)
    raise InputError(f"workload CSV {arg!r} not found", where)


def _listed(clock: EliseClock, pool: Pool, text: str, where: str) -> list[EliseJob]:
    """ELiSE's ``KeysListGenerator``: one job per line of 18 fields or more, after the
    header; id from field 0, submit from field 1, requested time from field 8, application
    from field 13 (the run time is the pool's)."""
    jobs = []
    for no, line in enumerate(text.split("\n")[1:], start=2):
        fields = line.split(",")
        if len(fields) < 18:
            continue
        at = f"{where}:{no}"
        try:
            idx = int(fields[0])
            submit = float(fields[1])
            wall = float(fields[8])
        except ValueError:
            raise InputError(
                "a job line needs a whole job number (field 1) and numeric submit and "
                "requested times (fields 2 and 9)",
                at,
            ) from None
        if not (math.isfinite(submit) and math.isfinite(wall)) or abs(submit) > 1e10:
            raise InputError("submit and requested times must be finite numbers", at)
        if abs(wall) > MAX_TIME:  # (was a failed run per scheduler, after the set-up)
            raise InputError(
                f"field 9 (requested time) is {wall:g}, beyond the sane range (|value| <= "
                f"{MAX_TIME:,.0f} s); a corrupt line?",
                at,
            )
        job = _job(clock, idx, pool, fields[13], at)
        job.submit, job.wall, job.at = submit, wall, at
        jobs.append(job)
    if not jobs:
        raise InputError("the workload CSV has no job line (18 fields or more)", where)
    return jobs


def _list(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    text, at = _csv_text(arg, where, path_only=False)
    return _listed(clock, pool, text, at)


def _shuffle_list(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    text, at = _csv_text(arg, where, path_only=True)
    jobs = _listed(clock, pool, text, at)
    times = [j.submit for j in jobs]
    clock.seed_python()
    clock.py.shuffle(jobs)
    for job, t in zip(jobs, times, strict=True):
        job.submit = t
    return jobs


def _swf(clock: EliseClock, pool: Pool, arg: Any, where: str) -> list[EliseJob]:
    from ...workload.swf import read_swf

    if not isinstance(arg, str):
        raise InputError("the SWF Generator's arg must be an SWF file's path", where)
    w = read_swf(arg)
    c = w.columns
    jobs = []
    for jid, exe, procs, run, submit, req in zip(
        c["id"].tolist(),
        c["app"].tolist(),
        c["procs"].tolist(),
        c["run"].tolist(),
        c["submit"].tolist(),
        c["requested_time"].tolist(),
        strict=True,
    ):
        jobs.append(EliseJob(jid, str(exe), max(procs, 1), max(run, 0.0), submit, max(req, 0)))
    return jobs


Generator = Callable[[EliseClock, Pool, Any, str], list[EliseJob]]
#: ELiSE's generators by their names
GENERATORS: dict[str, Generator] = {
    "Random Generator": _random,
    "Random From List Generator": _random_from_list,
    "Dictionary Generator": _dictionary,
    "List Generator": _list,
    "Shuffle List Generator": _shuffle_list,
    "SWF Generator": _swf,
}


def generate(kind: str, arg: Any, clock: EliseClock, pool: Pool, where: str) -> list[EliseJob]:
    """The jobs ELiSE's generator ``kind`` makes from ``arg`` (reading ``clock``)."""
    fn = GENERATORS.get(kind)
    if fn is None:
        raise InputError(f"unknown generator {kind!r}; ELiSE's are {', '.join(GENERATORS)}", where)
    return fn(clock, pool, arg, where)


def _step(arg: Any, kind: str, where: str) -> float:
    try:
        step = float(arg)
    except (TypeError, ValueError):
        raise InputError(
            f"the {kind}'s arg must be a time in seconds, got {arg!r}", where
        ) from None
    if not (math.isfinite(step) and 0 <= step <= 1e9):
        raise InputError(f"the {kind}'s arg must be from 0 to 1e9 seconds, got {arg!r}", where)
    return step


def _constant(jobs: list[EliseJob], step: float, clock: EliseClock) -> None:
    t = jobs[0].submit
    for job in jobs:
        job.submit = t
        t += step


def _poisson(jobs: list[EliseJob], step: float, clock: EliseClock) -> None:
    gap = len(jobs) * step
    t = clock.np.exponential(step)
    for i, job in enumerate(jobs):
        if i % len(jobs) == 0:
            t += gap
        job.submit = t
        t += clock.np.exponential(step)


def _uniform(jobs: list[EliseJob], step: float, clock: EliseClock) -> None:
    clock.seed_numpy()
    t = clock.np.uniform(low=0, high=step, size=(1,))[0]
    for job in jobs:
        job.submit = float(t)
        clock.seed_numpy()
        t += clock.np.uniform(low=0, high=step, size=(1,))[0]


#: ELiSE's arrival distributions by their names
DISTRIBUTIONS: dict[str, Callable[[list[EliseJob], float, EliseClock], None]] = {
    "Constant Distribution": _constant,
    "Poisson Distribution": _poisson,
    "Random Distribution": _uniform,
}


def apply_distribution(
    jobs: list[EliseJob], kind: str, arg: Any, clock: EliseClock, where: str
) -> None:
    """Set the submit times of ``jobs`` as ELiSE's distribution ``kind`` does."""
    fn = DISTRIBUTIONS.get(kind)
    if fn is None:
        raise InputError(
            f"unknown distribution {kind!r}; ELiSE's are {', '.join(DISTRIBUTIONS)}", where
        )
    fn(jobs, _step(arg, kind, where), clock)
    for job in jobs:
        job.submit = float(job.submit)


def setup_jobs(jobs: list[EliseJob]) -> list[EliseJob]:
    """ELiSE's ``ComputeEngine.setup_preloaded_jobs``: copies sorted by submit time (stable),
    times shifted so the first is 0, ids renumbered 0, 1, ... in that order (ELiSE replaces
    the generator's ids; Filler's order uses these)."""
    out = sorted(
        (
            EliseJob(
                j.id,
                j.app,
                j.procs if j.procs > 0 else 1,
                max(j.run, 0.0),
                max(j.submit, 0.0),
                max(j.wall, 0.0),
            )
            for j in jobs
        ),
        key=lambda j: j.submit,
    )
    if out:
        first = out[0].submit
        for k, job in enumerate(out):
            job.submit -= first
            job.id = k
    return out


def workload_csv(jobs: list[EliseJob]) -> str:
    """Jobs in ELiSE's workload CSV layout, as its List Generator reads them back."""
    buf = io.StringIO()
    buf.write(",".join(WORKLOAD_HEADER) + "\n")
    for j in jobs:
        buf.write(f"{j.id},{j.submit!r},,{j.run!r},,,,{j.procs},{j.wall!r},,1,,,{j.app},,,,,\n")
    return buf.getvalue()
