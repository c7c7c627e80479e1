"""A small moldable parallel simulation code for parameter studies: a steady 2-D plume (the
application of the real study examples/heat_study.yaml: an example beside coschedlab, which
runs any code a study's command names; docs/studies.md says why it is not in the package).

The model
---------
A passive scalar ``u`` (a concentration, a temperature excess) rises from an inlet at the bottom
of the unit square, carried upward at a uniform velocity, spreading by diffusion and decaying at
a fixed rate. The steady state solves the advection-diffusion-decay equation

    v du/dy = kappa (d2u/dx2 + d2u/dy2) - k u          on (0, 1) x (0, 1)

with the two design parameters

* ``diffusivity`` (> 0): kappa = KAPPA0 * diffusivity, KAPPA0 = 0.1 (a dimensionless
  diffusivity: it plays the role of a Prandtl number, a large value a wide, weak plume);
* ``velocity`` (>= 0): the upward velocity v of the whole fluid;

and the fixed decay rate k = DECAY = 1. Boundaries: u = 1 on the inlet (bottom edge,
1/3 <= x <= 2/3), u = 0 on the rest of the bottom edge and on the left and right edges, and an
outflow (zero gradient, du/dy = 0) on the top edge.

The discretisation
------------------
G x G interior nodes (``grid``, default 64) at x_i = i h, y_j = j h, i, j = 1..G, h = 1/(G+1);
the boundary nodes carry the boundary values, the top ghost row copies the last interior row.
Diffusion is the 5-point Laplacian, advection upwind (v >= 0: (u_j - u_{j-1}) / h). The steady
state is reached by explicit pseudo-time stepping (a damped Jacobi iteration), vectorised with
NumPy, from a stored field (a warm start or a resumed run) or from u = 0:

    u' = u + dt (kappa lap(u) - v dy(u) - k u),  dt = OMEGA / (4 kappa / h^2 + v / h + k)

with OMEGA = 0.9: every coefficient of the update is >= 0 (a maximum principle: stable, 0 <= u
<= 1), and dt is a deterministic function of the parameters and G. The coefficients sum to at
most 1 - dt k, so a step is a contraction of factor q <= 1 - dt k in the max norm and the
distance to the discrete steady state u* is at most max |u' - u| / (dt k). A run stops after the
first step where this bound is below ``tol`` (default 1e-4), or at ``max_steps`` (default
200000): a run from scratch and a run warm-started from any other state end within ``tol`` of
the same answer (a criterion on the change alone would stop a warm start far from it). With
the defaults a design of [0.5, 3] x [0.5, 3] takes a few thousand steps (about 0.1 to 0.5 s on
one process).

The objectives
--------------
Two, both minimised: the discrete L2 distance sqrt(h sum_i (u(x_i, y) - m(x_i, y))^2) between
the computed profile of u along x at the heights y = 0.2 and y = 0.4 (linear interpolation
between the two nearest rows of nodes) and a "measured" profile, the fixed Gaussian

    m(x, y) = A0 exp(-y / L) exp(-(x - 1/2)^2 / (2 s(y)^2)),  s(y) = S0 + S1 y

with A0 = 1, L = 0.6, S0 = 0.1, S1 = 0.3 (an observed plume that no design reproduces at both
heights: the best fit at y = 0.2 is not the best at y = 0.4, so the Pareto front of a 6 x 6 grid
of designs over [0.5, 3] x [0.5, 3] is a ridge of several designs, not a single point).

Moldable runs
-------------
``nprocs`` n >= 1: the rows are split into n horizontal strips of nearly equal height, each
updated by its own OS process (the calling process updates the bottom strip; n - 1 daemon
children of the 'fork' start method, so n > 1 needs a POSIX system). The two fields
(double-buffered) and the per-strip maxima live in one ``multiprocessing.shared_memory``
segment; a strip reads its halo rows from the shared field, all processes meet at a barrier once
per step, and the convergence test is the maximum of the per-strip maxima (kept per step parity,
so one barrier per step is enough). The update is elementwise, so the field, the step count and
the objectives are bitwise identical for every n; n = 1 runs in-process, without children or
shared memory.

The segment (``coschedlab_heat_<pid>_<random>``) is unlinked right after its creation: the
children inherit its mapping by fork, so no name is ever left in /dev/shm, whatever kills
whichever process (even a SIGKILL of the whole process group, which also kills the resource
tracker of ``multiprocessing``). The barrier is made of ``multiprocessing`` semaphores only (each
child posts an "arrived" semaphore and waits on its own "go" one; the parent collects, then
releases): unlike ``multiprocessing.Barrier`` (a condition variable and its lock) no lock is held
across processes, so a process that dies cannot leave the others blocked, a signal interrupts any
wait cleanly, and a wait costs ~13 us instead of ~50 us. Every wait is a timed one (0.05 s) that
checks the other side: the parent raises when a child died, a child whose parent is gone (even
by SIGKILL) exits; the parent terminates its children on every exit path of its own. SIGTERM and
SIGINT are held while a file is written and while the children are forked. The default grid is
small: a step costs ~60 us on one process, about what a barrier and a wake-up cost, so n > 1 does
not pay on it; larger grids do better.

Checkpoints, restart and reuse
------------------------------
A checkpoint (``.npz``) holds the interior field, the step count, the parameters, the grid, the
tolerance, the last bound on the distance to the steady state and whether it is the final state
(and converged). It is written
atomically (a temporary file in the same directory, then ``os.replace``): an interrupted run, even
one killed by SIGKILL, leaves the previous checkpoint whole (atomic against process death; not
fsynced, so not against power loss). Every ``checkpoint_every`` steps (0: never) and at the end
(marked final) the state goes to ``checkpoint_out``.

``checkpoint_in``: a checkpoint with the same parameters (exactly equal floats) RESUMES the
design: the run continues at the stored step from the stored field, and ends bitwise identical to
an uninterrupted run, whatever the two runs' nprocs (a final converged checkpoint runs no step at
all; the tolerance may differ: the stored last bound is tested against this run's ``tol``). A
checkpoint of other parameters (a neighbouring design) is a WARM START: its field is the initial
condition, the step count starts at 0. A checkpoint of another grid, or a missing or corrupt
file, is an error.

Command line (the study executor's contract)
--------------------------------------------
::

    python examples/heat.py --param diffusivity=1.5 --param velocity=2.0 \\
        --nprocs 2 --checkpoint-out run.npz [--checkpoint-in other.npz] \\
        [--checkpoint-every 200] [--result result.json] [--grid 64] [--tol 1e-6] \\
        [--max-steps N]

The parameters may also come as one argument, ``--params diffusivity=1.5,velocity=2.0``. On
success the result is written to ``--result`` (JSON, atomically) and printed as one line of JSON
on stdout, nothing else::

    {"objectives": [f1, f2], "steps": 3697, "steps_run": 3697, "start_step": 0,
     "mode": "scratch", "converged": true, "nprocs": 2, "seconds": 0.41}

``steps`` counts the design's steps including resumed ones, ``steps_run`` this invocation's;
``mode`` is ``scratch``, ``resume`` or ``warm``; ``converged`` is false (exit code still 0) when
``--max-steps`` stopped the run first. Exit codes: 0 success; 2 bad input (unknown or missing
parameter, non-numeric value, n < 1 or n > grid, a missing, corrupt or other-grid checkpoint),
one line ``heat: ...`` on stderr; 1 a failure while running (a worker died, a file could not be
written), one line; 143 on SIGTERM (within milliseconds; the last complete checkpoint is kept,
no temporary file is left); 130 on SIGINT.

Python API: :func:`solve` (same result dict; raises :class:`~coschedlab.errors.InputError` on bad
input and :class:`Interrupted` for its ``stop_after`` test hook), :func:`load_checkpoint`,
:func:`objectives`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import os
import secrets
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing import shared_memory
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from coschedlab.errors import InputError

__all__ = [
    "PARAMS",
    "Checkpoint",
    "Interrupted",
    "check_params",
    "load_checkpoint",
    "main",
    "measured_profile",
    "objectives",
    "solve",
]

PARAMS = ("diffusivity", "velocity")
KAPPA0 = 0.1  # diffusivity = KAPPA0 * design parameter "diffusivity"
DECAY = 1.0  # decay rate k
OMEGA = 0.9  # pseudo-time step as a fraction of the positivity limit
INLET = (1.0 / 3.0, 2.0 / 3.0)  # u = 1 on this part of the bottom edge
HEIGHTS = (0.2, 0.4)  # the two measured profiles
MEASURED_A0, MEASURED_L, MEASURED_S0, MEASURED_S1 = 1.0, 0.6, 0.1, 0.3

DEFAULT_GRID = 64
DEFAULT_TOL = 1e-4
DEFAULT_MAX_STEPS = 200_000
DEFAULT_CHECKPOINT_EVERY = 200
SHM_PREFIX = "coschedlab_heat_"
#: the checkpoints' format (named when this code was the module coschedlab.studies.heat)
CHECKPOINT_FORMAT = "coschedlab.studies.heat/1"
_POLL = 0.05  # seconds: a waiting process checks that the others are still alive


class Interrupted(Exception):
    """:func:`solve` stopped by its ``stop_after`` hook, as if killed right after writing the
    checkpoint of step ``step``."""

    def __init__(self, step: int) -> None:
        self.step = step
        super().__init__(f"interrupted after the checkpoint of step {step}")


class _Terminated(BaseException):
    """SIGTERM arrived (raised by the command line's handler)."""


@dataclass(frozen=True)
class Checkpoint:
    """A stored state: the interior field (G x G) after ``step`` steps of a design."""

    field: np.ndarray
    step: int
    params: dict[str, float]
    grid: int
    tol: float
    last_delta: float
    final: bool
    converged: bool


@dataclass(frozen=True)
class _Scheme:
    """The update u' = a (W + E + N) + ab S + c0 u of a design on a grid; ``bound`` turns a
    step's largest change into a bound on the distance to the steady state."""

    a: float
    ab: float
    c0: float
    bound: float


def _scheme(params: Mapping[str, float], grid: int) -> _Scheme:
    h = 1.0 / (grid + 1)
    kappa = KAPPA0 * params["diffusivity"]
    v = params["velocity"]
    dt = OMEGA / (4.0 * kappa / h**2 + v / h + DECAY)
    a = dt * kappa / h**2
    b = dt * v / h
    # Every coefficient is >= 0 and they sum to at most 1 - dt k: the step is a contraction of
    # factor q <= 1 - dt k in the max norm, so |u - u*| <= |u' - u| / (1 - q) <= change / (dt k)
    return _Scheme(a=a, ab=a + b, c0=1.0 - 4.0 * a - b - dt * DECAY, bound=1.0 / (dt * DECAY))


# ---------------------------------------------------------------------------------------------
# parameters


def check_params(params: Mapping[str, Any]) -> dict[str, float]:
    """The design's parameters as floats; unknown, missing, non-numeric or out-of-range values
    are an :class:`InputError`."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise InputError(f"unknown parameter {unknown[0]!r} (expected {', '.join(PARAMS)})")
    out: dict[str, float] = {}
    for name in PARAMS:
        if name not in params:
            raise InputError(f"missing parameter {name!r}")
        value = params[name]
        try:
            if isinstance(value, bool):
                raise ValueError
            x = float(value)
        except (TypeError, ValueError):
            raise InputError(f"parameter {name} is not a number: {value!r}") from None
        if not math.isfinite(x):
            raise InputError(f"parameter {name} must be finite, got {value!r}")
        out[name] = x
    if out["diffusivity"] <= 0:
        raise InputError(f"diffusivity must be > 0, got {out['diffusivity']!r}")
    if out["velocity"] < 0:
        raise InputError(f"velocity must be >= 0, got {out['velocity']!r}")
    return out


def _parse_assignments(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name or not value:
            raise InputError(f"a parameter must be name=value, got {item!r}")
        if name in out and out[name] != value:
            raise InputError(f"parameter {name} given twice ({out[name]} and {value})")
        out[name] = value
    return out


# ---------------------------------------------------------------------------------------------
# the field, the update and the objectives


def _padded(grid: int, interior: np.ndarray | None) -> np.ndarray:
    """The (G+2) x (G+2) field with its boundary rows and columns."""
    p = np.zeros((grid + 2, grid + 2))
    x = np.arange(grid + 2) / (grid + 1)
    inlet = (x >= INLET[0]) & (x <= INLET[1])
    inlet[0] = inlet[-1] = False
    p[0, inlet] = 1.0
    if interior is not None:
        p[1:-1, 1:-1] = interior
    p[-1, 1:-1] = p[-2, 1:-1]
    return p


def _update(
    cur: np.ndarray, nxt: np.ndarray, lo: int, hi: int, s: _Scheme, tmp: np.ndarray
) -> float:
    """One step on rows lo..hi-1 (padded indices) from ``cur`` into ``nxt``; returns the largest
    change. Elementwise, in the same order for any strip, hence bitwise identical for any n."""
    out = nxt[lo:hi, 1:-1]
    t = tmp[: hi - lo]
    np.add(cur[lo:hi, :-2], cur[lo:hi, 2:], out=out)
    out += cur[lo + 1 : hi + 1, 1:-1]
    out *= s.a
    np.multiply(cur[lo - 1 : hi - 1, 1:-1], s.ab, out=t)
    out += t
    c = cur[lo:hi, 1:-1]
    np.multiply(c, s.c0, out=t)
    out += t
    if hi == cur.shape[0] - 1:  # the top strip keeps the outflow ghost row
        nxt[hi, 1:-1] = nxt[hi - 1, 1:-1]
    np.subtract(out, c, out=t)
    np.abs(t, out=t)
    return float(t.max())


def _loop(
    bufs: np.ndarray,
    maxima: np.ndarray,
    rank: int,
    lo: int,
    hi: int,
    scheme: _Scheme,
    start_step: int,
    delta: float,
    tol: float,
    max_steps: int,
    barrier: Any | None,
    on_step: Callable[[int, float, np.ndarray, bool], None] | None,
) -> tuple[int, float, int]:
    """Step a strip until every strip sees convergence or ``max_steps``; returns (step, last
    change, index of the buffer holding the result). Every rank takes the same decisions: they
    depend on the step count and the maximum of the per-strip maxima only."""
    tmp = np.empty((hi - lo, bufs.shape[2] - 2))
    step, k = start_step, 0
    while not delta < tol and step < max_steps:
        maxima[k, rank] = _update(bufs[k], bufs[1 - k], lo, hi, scheme, tmp)
        if barrier is not None:
            barrier.wait()
        delta = float(maxima[k].max()) * scheme.bound  # the distance to the steady state
        step, k = step + 1, 1 - k
        if on_step is not None:
            on_step(step, delta, bufs[k], delta < tol or step >= max_steps)
    return step, delta, k


def measured_profile(x: np.ndarray, y: float) -> np.ndarray:
    """The "measured" profile m(x, y) (see the module docstring)."""
    s = MEASURED_S0 + MEASURED_S1 * y
    return MEASURED_A0 * math.exp(-y / MEASURED_L) * np.exp(-((x - 0.5) ** 2) / (2.0 * s * s))


def objectives(field: np.ndarray) -> list[float]:
    """The two objectives of an interior G x G field: the L2 distances to the measured profiles
    at the heights 0.2 and 0.4."""
    grid = field.shape[0]
    p = _padded(grid, field)
    h = 1.0 / (grid + 1)
    x = np.arange(1, grid + 1) * h
    out = []
    for y in HEIGHTS:
        j = min(int(math.floor(y / h)), grid)
        w = y / h - j
        u = (1.0 - w) * p[j, 1:-1] + w * p[j + 1, 1:-1]
        out.append(float(math.sqrt(h * float(np.sum((u - measured_profile(x, y)) ** 2)))))
    return out


# ---------------------------------------------------------------------------------------------
# signals (the command line's): a SIGTERM or SIGINT never cuts a file write or a fork


_hold = 0  # > 0: inside _signals_held
_stop_signal: int | None = None  # the first SIGTERM or SIGINT seen by the command line's handler
_pending = False  # it came while held


def _raise_for(signum: int) -> NoReturn:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise _Terminated


def _on_signal(signum: int, frame: Any) -> None:
    """The command line's SIGTERM and SIGINT handler: stop by an exception, at once or, inside
    :func:`_signals_held`, at its end (Python runs it in the main thread, whichever thread the
    signal reached, e.g. one of a BLAS library's)."""
    global _stop_signal, _pending
    if _stop_signal is None:
        _stop_signal = signum
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _hold:
        _pending = True
        return
    _raise_for(_stop_signal)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Under the command line's handler, a SIGTERM or SIGINT waits until the block is done
    (a file written, the children forked), then acts at once."""
    global _hold, _pending
    _hold += 1
    try:
        yield
    finally:
        _hold -= 1
        if not _hold and _pending and _stop_signal is not None:
            _pending = False
            _raise_for(_stop_signal)


# ---------------------------------------------------------------------------------------------
# checkpoints


def _atomic_write(path: Path, write: Callable[[Any], None], binary: bool) -> None:
    """Write through a temporary file of the same directory, then rename over ``path``; a signal
    waits for the end (~1 ms), so no temporary file is left behind."""
    with _signals_held():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "wb" if binary else "w") as f:
                write(f)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _write_checkpoint(
    path: Path,
    field: np.ndarray,
    step: int,
    params: Mapping[str, float],
    tol: float,
    delta: float,
    final: bool,
) -> None:
    arrays = {
        "format": np.array(CHECKPOINT_FORMAT),
        "field": np.ascontiguousarray(field, dtype=np.float64),
        "step": np.int64(step),
        "grid": np.int64(field.shape[0]),
        "tol": np.float64(tol),
        "last_delta": np.float64(delta),
        "final": np.bool_(final),
        "converged": np.bool_(delta < tol),
        **{name: np.float64(params[name]) for name in PARAMS},
    }
    _atomic_write(path, lambda f: np.savez(f, **arrays), binary=True)


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint; a missing, unreadable or malformed file is an :class:`InputError`."""
    where = f"checkpoint {os.fspath(path)}"
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {key: z[key] for key in z.files}
    except FileNotFoundError:
        raise InputError("no such file", where) from None
    except Exception as exc:  # zipfile.BadZipFile, ValueError, OSError, EOFError, ...
        raise InputError(f"not a readable checkpoint ({type(exc).__name__})", where) from None
    try:
        if str(data["format"]) != CHECKPOINT_FORMAT:
            raise ValueError("unknown format")
        field = np.asarray(data["field"], dtype=np.float64)
        grid = int(data["grid"])
        if field.ndim != 2 or field.shape != (grid, grid) or grid < 1:
            raise ValueError("field shape")
        if not np.all(np.isfinite(field)):
            raise ValueError("non-finite field")
        step = int(data["step"])
        if step < 0:
            raise ValueError("negative step")
        params = check_params({name: float(data[name]) for name in PARAMS})
        ckpt = Checkpoint(
            field=field,
            step=step,
            params=params,
            grid=grid,
            tol=float(data["tol"]),
            last_delta=float(data["last_delta"]),
            final=bool(data["final"]),
            converged=bool(data["converged"]),
        )
    except KeyError as exc:
        raise InputError(f"malformed checkpoint (no {exc.args[0]!r})", where) from None
    except (TypeError, ValueError, InputError) as exc:
        raise InputError(f"malformed checkpoint ({exc})", where) from None
    return ckpt


# ---------------------------------------------------------------------------------------------
# the parallel run


def _strips(grid: int, n: int) -> list[tuple[int, int]]:
    edges = [1 + (grid * r) // n for r in range(n + 1)]
    return [(edges[r], edges[r + 1]) for r in range(n)]


class _Barrier:
    """The barrier of every step, made of semaphores only: each child posts ``arrive`` then
    waits on its own ``go``; the parent (rank 0) takes the n - 1 arrivals, then posts every
    ``go``. No lock is ever held across processes (a process that dies cannot block another,
    a signal can interrupt any wait), and every wait is a timed one that checks the other side
    is still there: the parent raises when a child died, a child whose parent died exits."""

    def __init__(self, ctx: Any, nprocs: int, shm: shared_memory.SharedMemory) -> None:
        self.arrive = ctx.Semaphore(0)
        self.go = [ctx.Semaphore(0) for _ in range(nprocs)]
        self.shm = shm
        self.ppid = os.getpid()
        self.rank = 0
        self.procs: list[Any] = []

    def wait(self) -> None:
        if self.rank == 0:
            for _ in range(len(self.go) - 1):
                while not self.arrive.acquire(timeout=_POLL):
                    self._check_children()
            for go in self.go[1:]:
                go.release()
        else:
            self.arrive.release()
            while not self.go[self.rank].acquire(timeout=_POLL):
                self._check_parent()

    def _check_children(self) -> None:
        for rank, p in enumerate(self.procs, start=1):
            if p.exitcode is not None:
                raise RuntimeError(f"worker process {rank} died (exit code {p.exitcode})")

    def _check_parent(self) -> None:
        if os.getppid() != self.ppid:
            os._exit(1)


def _views(shm: shared_memory.SharedMemory, n2: int, nprocs: int) -> tuple[np.ndarray, np.ndarray]:
    """The two padded fields and the per-strip maxima (by step parity) in the segment."""
    field_bytes = 2 * n2 * n2 * 8
    bufs = np.ndarray((2, n2, n2), dtype=np.float64, buffer=shm.buf)
    maxima = np.ndarray((2, nprocs), dtype=np.float64, buffer=shm.buf, offset=field_bytes)
    return bufs, maxima


def _child(
    barrier: _Barrier,
    rank: int,
    n2: int,
    lo: int,
    hi: int,
    scheme: _Scheme,
    start_step: int,
    delta: float,
    tol: float,
    max_steps: int,
) -> None:
    """(In a child, forked inside :func:`_signals_held`) step the strip of ``rank``."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _stop_signal is not None:  # it came before the handlers above were set
        os._exit(1)
    barrier.rank = rank
    barrier.procs = []
    barrier._check_parent()
    bufs, maxima = _views(barrier.shm, n2, len(barrier.go))
    _loop(bufs, maxima, rank, lo, hi, scheme, start_step, delta, tol, max_steps, barrier, None)


def _run_parallel(
    padded: np.ndarray,
    nprocs: int,
    scheme: _Scheme,
    start_step: int,
    delta: float,
    tol: float,
    max_steps: int,
    on_step: Callable[[int, float, np.ndarray, bool], None],
) -> tuple[int, float, np.ndarray]:
    try:
        ctx = mp.get_context("fork")
    except ValueError:
        raise InputError("nprocs > 1 needs the 'fork' start method (a POSIX system)") from None
    n2 = padded.shape[0]
    name = f"{SHM_PREFIX}{os.getpid()}_{secrets.token_hex(4)}"
    with _signals_held():
        # the children inherit the mapping by fork: the name is not needed after creation, and
        # unlinked at once it cannot leak, whatever kills whichever process (even a SIGKILL of
        # the whole process group, which also kills multiprocessing's resource tracker)
        shm = shared_memory.SharedMemory(name=name, create=True, size=2 * n2 * n2 * 8 + 16 * nprocs)
        shm.unlink()
    procs: list[Any] = []
    bufs = maxima = None
    try:
        bufs, maxima = _views(shm, n2, nprocs)
        bufs[0] = padded
        bufs[1] = padded
        barrier = _Barrier(ctx, nprocs, shm)
        barrier.procs = procs
        strips = _strips(n2 - 2, nprocs)
        with _signals_held():  # a child starts with them held, until its own handlers are set
            for rank in range(1, nprocs):
                lo, hi = strips[rank]
                args = (barrier, rank, n2, lo, hi, scheme, start_step, delta, tol, max_steps)
                p = ctx.Process(target=_child, args=args, daemon=True, name=f"heat-strip-{rank}")
                p.start()
                procs.append(p)
        lo, hi = strips[0]
        step, delta, k = _loop(
            bufs, maxima, 0, lo, hi, scheme, start_step, delta, tol, max_steps, barrier, on_step
        )
        result = bufs[k].copy()
        for p in procs:
            p.join(timeout=5.0)
        return step, delta, result
    finally:
        for p in procs:
            if p.exitcode is None:
                p.terminate()
        for p in procs:
            p.join(timeout=2.0)
            if p.exitcode is None:
                p.kill()
                p.join(timeout=1.0)
        # release every view of the segment (also those of the frames of a passing exception)
        bufs = maxima = None
        exc = sys.exc_info()[1]
        if exc is not None:
            traceback.clear_frames(exc.__traceback__)
        try:
            shm.close()
        except BufferError:  # a view survives somewhere: the mapping goes with the process
            shm.close = lambda: None  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------------
# solve


def solve(
    params: Mapping[str, Any],
    nprocs: int = 1,
    checkpoint_in: str | os.PathLike[str] | None = None,
    checkpoint_out: str | os.PathLike[str] | None = None,
    checkpoint_every: int = DEFAULT_CHECKPOINT_EVERY,
    grid: int = DEFAULT_GRID,
    tol: float = DEFAULT_TOL,
    max_steps: int = DEFAULT_MAX_STEPS,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Run one design to its steady state on ``nprocs`` processes; returns the result dict of
    the command line (objectives, steps, steps_run, start_step, mode, converged, nprocs,
    seconds). ``stop_after``: a test hook, stop at the first step >= it, after writing a
    checkpoint of that step, by raising :class:`Interrupted`."""
    t0 = time.perf_counter()
    p = check_params(params)
    for name, value, low in (("nprocs", nprocs, 1), ("grid", grid, 1), ("max_steps", max_steps, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InputError(f"{name} must be an integer >= {low}, got {value!r}")
    if nprocs > grid:
        raise InputError(f"nprocs ({nprocs}) must not exceed the grid size ({grid})")
    if not isinstance(checkpoint_every, int | np.integer) or checkpoint_every < 0:
        raise InputError(f"checkpoint_every must be an integer >= 0, got {checkpoint_every!r}")
    if not (isinstance(tol, int | float) and math.isfinite(tol) and tol > 0):
        raise InputError(f"tol must be a finite number > 0, got {tol!r}")
    out_path = Path(checkpoint_out) if checkpoint_out is not None else None
    if out_path is not None and not out_path.resolve().parent.is_dir():
        raise InputError(f"no directory for the checkpoint {out_path}")

    mode, start_step, delta, interior = "scratch", 0, math.inf, None
    if checkpoint_in is not None:
        ckpt = load_checkpoint(checkpoint_in)
        if ckpt.grid != grid:
            raise InputError(
                f"grid {ckpt.grid}, this run's is {grid}", f"checkpoint {os.fspath(checkpoint_in)}"
            )
        interior = ckpt.field
        if ckpt.params == p:
            mode, start_step, delta = "resume", ckpt.step, ckpt.last_delta
        else:
            mode = "warm"
    padded = _padded(grid, interior)
    scheme = _scheme(p, grid)

    def on_step(step: int, delta: float, cur: np.ndarray, last: bool) -> None:
        if last:  # the final state is written below
            return
        stop = stop_after is not None and step >= stop_after
        if out_path is not None and (stop or (checkpoint_every and step % checkpoint_every == 0)):
            _write_checkpoint(out_path, cur[1:-1, 1:-1], step, p, tol, delta, final=False)
        if stop:
            raise Interrupted(step)

    if nprocs == 1:
        bufs = np.stack([padded, padded])
        maxima = np.zeros((2, 1))
        step, delta, k = _loop(
            bufs, maxima, 0, 1, grid + 1, scheme, start_step, delta, tol, max_steps, None, on_step
        )
        final = bufs[k]
    else:
        step, delta, final = _run_parallel(
            padded, nprocs, scheme, start_step, delta, tol, max_steps, on_step
        )
    field = final[1:-1, 1:-1]
    if out_path is not None:
        _write_checkpoint(out_path, field, step, p, tol, delta, final=True)
    return {
        "objectives": objectives(field),
        "steps": step,
        "steps_run": step - start_step,
        "start_step": start_step,
        "mode": mode,
        "converged": bool(delta < tol),
        "nprocs": nprocs,
        "seconds": round(time.perf_counter() - t0, 6),
    }


# ---------------------------------------------------------------------------------------------
# command line


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="heat.py",
        description="Solve one design of the steady plume (see the module docstring).",
    )
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--params", action="append", default=[], metavar="A=1,B=2")
    ap.add_argument("--nprocs", type=int, default=1)
    ap.add_argument("--checkpoint-out", default=None)
    ap.add_argument("--checkpoint-in", default=None)
    ap.add_argument("--checkpoint-every", type=int, default=DEFAULT_CHECKPOINT_EVERY)
    ap.add_argument("--result", default=None)
    ap.add_argument("--grid", type=int, default=DEFAULT_GRID)
    ap.add_argument("--tol", type=float, default=DEFAULT_TOL)
    ap.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS)
    ap.add_argument("--stop-after", type=int, default=None, help=argparse.SUPPRESS)
    return ap


def _signal_exit() -> int:
    return 130 if _stop_signal == signal.SIGINT else 143


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code."""
    global _stop_signal, _pending
    _stop_signal, _pending = None, False
    try:
        previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:  # not the main thread: no handler
        previous = {}
    try:
        return _main(argv)
    except BaseException:
        if _stop_signal is not None:  # whatever the signal interrupted, or became
            return _signal_exit()
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = _parser().parse_args(argv)
        items = list(args.param)
        for group in args.params:
            items.extend(part for part in group.split(",") if part.strip())
        params = check_params(_parse_assignments(items))
        result_path = Path(args.result) if args.result else None
        if result_path is not None and not result_path.resolve().parent.is_dir():
            raise InputError(f"no directory for the result {result_path}")
        result = solve(
            params,
            nprocs=args.nprocs,
            checkpoint_in=args.checkpoint_in,
            checkpoint_out=args.checkpoint_out,
            checkpoint_every=args.checkpoint_every,
            grid=args.grid,
            tol=args.tol,
            max_steps=args.max_steps,
            stop_after=args.stop_after,
        )
        line = json.dumps(result)
        if result_path is not None:
            _atomic_write(result_path, lambda f: f.write(line + "\n"), binary=False)
    except InputError as exc:
        if _stop_signal is not None:
            return _signal_exit()
        print(f"heat: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"heat: {exc}", file=sys.stderr)
        return 143
    except _Terminated:
        return 143
    except KeyboardInterrupt:
        return 130
    except (OSError, RuntimeError) as exc:
        if _stop_signal is not None:
            return _signal_exit()
        print(f"heat: {exc}", file=sys.stderr)
        return 1
    if _stop_signal is not None:
        return _signal_exit()
    print(line, flush=True)
    return 0


if __name__ == "__main__":
    _code = main()
    if _code in (
        130,
        143,
    ):  # preempted: skip the interpreter's slow teardown (~60 ms), all is clean
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_code)
    sys.exit(_code)
