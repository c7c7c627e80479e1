"""Coupled systems from their short specs (``TRACE[:key=value,...]``, the command line's
``--system``), one coupled run with its no-pairing baseline, and the run's table: shared by
``coschedlab coupled simulate`` and the dashboard."""

from __future__ import annotations

import calendar
from pathlib import Path
from typing import Any

from ..errors import InputError, ScheduleError

__all__ = ["DEFAULT_SYSTEMS", "build_systems", "parse_system", "run_coupled", "table_cells"]

SYSTEM_KEYS = (
    "name", "nodes", "scheme", "hold_cap", "release", "release_age", "max_yields", "month",
    "load", "calibrate",
)  # fmt: skip
DEFAULT_SYSTEMS = ["theta:calibrate=paper,scheme=hold", "kth:load=0.5,calibrate=paper,scheme=hold"]


def parse_system(text: str) -> tuple[str, dict[str, str]]:
    """``TRACE[:key=value,...]`` -> (trace, options); TRACE is a path, ``theta`` or ``kth``."""
    from ..bundled import PREFIX, is_bundled

    prefix = PREFIX if is_bundled(text) else ""  # coschedlab:NAME[:key=value,...]
    trace, opts = text[len(prefix) :], ""
    head, sep, tail = trace.rpartition(":")
    if sep and head and ("=" in tail or not Path(trace).exists()):
        trace, opts = head, tail
    trace = prefix + trace
    if not trace or (sep and not head and "=" in tail):  # '' or ':name=a'
        raise InputError(f"--system {text!r}: give a trace (a file, theta or kth)")
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in opts.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not value or not key:
            raise InputError(f"--system {text!r}: expected key=value, got {item!r}")
        if key not in SYSTEM_KEYS:
            raise InputError(
                f"--system {text!r}: unknown key {key!r}; use {', '.join(SYSTEM_KEYS)}"
            )
        if key in out:
            raise InputError(f"--system {text!r}: {key} given twice")
        out[key] = value
    return trace, out


#: names a system may not take (they are files of the output directory)
_RESERVED = {".", "..", "holds.csv", "pairs.csv", "coupled.json"}


def _system_name(text: str, opts: dict[str, str], trace: str) -> str:
    import re

    from ..bundled import file_name
    from ..schema import MOST_NAME

    name = opts.get("name") or (
        trace if trace in ("theta", "kth") else file_name(trace).split(".")[0] or "system"
    )
    if not re.fullmatch(r"[A-Za-z0-9_.+=,-]+", name) or name in _RESERVED or name[0] == ".":
        # a leading '.': the output's own files (.coschedlab: 'Is a directory' after the run)
        raise InputError(
            f"--system {text!r}: name {name!r} names a directory of the output: use letters, "
            "digits and _ . + = , - (not starting with '.', not holds.csv pairs.csv "
            "coupled.json)"
        )
    if len(name) > MOST_NAME:  # 'File name too long' once the run was done
        raise InputError(
            f"--system {text!r}: name must be at most {MOST_NAME} characters, got {len(name):,}"
            + ("" if "name" in opts else " (from the trace's file name: give name=)")
        )
    return name


def _num(
    text: str, key: str, where: str, *, integer: bool = False, minimum: float = 0,
    none: tuple[str, ...] = (),
):  # fmt: skip
    """The number ``text`` of option ``key`` (``none``: words meaning "none")."""
    if text.lower() in none:
        return None
    try:
        v = int(text) if integer else float(text)
    except ValueError:
        v = None
    if v is None or v != v or v in (float("inf"), float("-inf")) or v < minimum:
        kind = "a whole number" if integer else "a number"
        extra = f" or {' / '.join(none)}" if none else ""
        raise InputError(
            f"--system {where!r}: {key} must be {kind} >= {minimum:g}{extra}, got {text!r}"
        )
    return v


def _system(
    text: str,
    trace: str,
    opts: dict[str, str],
    name: str,
    sched: str | None,
    seed: int,
    span: float | None,
) -> tuple[Any, float | None]:
    """One ``--system`` spec (``text``, parsed into its trace, options and name) as a
    :class:`~coschedlab.coupled.System` (and the span of its month, for traces with epoch
    times)."""
    from ..bundled import local_path
    from ..schedulers import get_scheduler
    from ..workload.swf import cluster_from_header, read_swf
    from .system import System
    from .workloads import (
        PAPER_LARGE_LOAD,
        PAPER_LARGE_NODES,
        THETA_NODES,
        TRACES,
        cluster_of,
        month_of,
        paper_small_load,
        stretch_to_load,
    )

    # the bundled traces by their coschedlab: names, which messages and summaries then show
    path = f"coschedlab:{Path(TRACES[trace]).name}" if trace in TRACES else trace
    try:  # coschedlab:NAME: read as written (its messages name it so)
        file = local_path(path)
    except InputError as exc:
        raise InputError(f"--system {text!r}: {exc}") from None
    if file.is_dir():
        raise InputError(f"--system {text!r}: {trace} is a directory, not a trace file")
    if not file.is_file():
        raise InputError(f"--system {text!r}: no such trace file {trace!r}")
    n = _num(opts["nodes"], "nodes", text, integer=True, minimum=1) if "nodes" in opts else None
    paper = _paper(text, trace, opts)
    load = None
    if "load" in opts:
        load = _num(opts["load"], "load", text)
        if not 0 < load <= 2:
            raise InputError(f"--system {text!r}: load must be in (0, 2], got {load:g}")
    month_span = None
    if "month" in opts or trace == "theta":
        month = _num(opts.get("month", "1"), "month", text, integer=True, minimum=1)
        if month > 12:
            raise InputError(f"--system {text!r}: month must be 1..12, got {month}")
        if paper:  # five Thetas at Intrepid's load (docs/coupled.md, Calibration)
            load = PAPER_LARGE_LOAD
            n = PAPER_LARGE_NODES
        year = 2022 if trace == "theta" else _epoch_year(text, path, n)
        # with a load: the month's jobs and the following months', stretched from the month's
        # start (as large_at_load)
        w = month_of(path, year, month, n, onward=load is not None)
        n = n or (THETA_NODES if trace == "theta" else None)
        month_span = calendar.monthrange(year, month)[1] * 86400.0
    else:
        w = read_swf(path, max_procs=n)
    if n is None:
        c = cluster_from_header(w.header)
        if c is None:
            raise InputError(f"--system {text!r}: the trace has no MaxNodes; give nodes=N")
        n = c.nodes
        w = w.drop_oversized(n)
    if not len(w):
        raise InputError(f"--system {text!r}: no job fits {n} nodes")
    if load is not None and month_span is not None:
        w, _ = stretch_to_load(w, n, load, month_span)
    elif load is not None:
        if paper:
            try:
                load = paper_small_load(load)
            except InputError as exc:
                raise InputError(f"--system {text!r}: {exc}") from None
        w, _ = stretch_to_load(w, n, load, span or 31 * 86400.0, seed)
    if sched is not None and not sched.strip():
        raise InputError("--scheduler: an empty scheduler spec")
    try:
        policy = get_scheduler(sched) if sched else None
    except InputError as exc:
        if exc.where:  # a policy file's own line
            raise
        raise InputError(f"--scheduler {sched!r} (system {name}): {exc.what}") from None
    system = System(
        name,
        w,
        cluster_of(n),
        scheduler=policy,
        scheme=opts.get("scheme", "hold"),
        hold_cap=_num(opts.get("hold_cap", "0.6"), "hold_cap", text),
        release=_num(opts.get("release", "1200"), "release", text, none=("none", "off")),
        release_age=_num(opts.get("release_age", "600"), "release_age", text),
        max_yields=_num(
            opts.get("max_yields", "none"), "max_yields", text, integer=True, none=("none",)
        ),
    )
    return system, month_span


def _epoch_year(text: str, path: str, nodes: int | None) -> int:
    """The year (UTC) of the first submit time of a trace given ``month=``; a trace whose
    times do not look like epoch times (before 2001) has no months."""
    import time

    from ..workload.swf import read_swf

    w = read_swf(path, max_procs=nodes)
    first = float(w.columns["submit"].min()) if len(w) else 0.0
    if first <= 1e9:
        raise InputError(
            f"--system {text!r}: month= picks a calendar month of a trace with epoch submit "
            f"times (e.g. theta); this trace's times start at {first:g} s"
        )
    return time.gmtime(first).tm_year


def _paper(text: str, trace: str, opts: dict[str, str]) -> bool:
    """Whether ``calibrate=paper`` is on (checked: it is fitted on theta and kth)."""
    value = opts.get("calibrate", "none")
    if value not in ("paper", "none"):
        raise InputError(f"--system {text!r}: calibrate must be paper or none, got {value!r}")
    if value == "none":
        return False

    def refused(why: str) -> InputError:
        return InputError(f"--system {text!r}: calibrate=paper {why}")

    if "nodes" in opts:
        raise refused(f"sets the machine (fitted on {trace}'s own size); drop nodes=")
    if trace == "theta" and "load" in opts:
        raise refused("sets theta's load; give one or the other")
    if trace == "kth" and "month" in opts:
        raise refused("runs kth whole at its label's load; drop month=")
    if trace == "kth" and "load" not in opts:
        raise refused("needs load=0.25, 0.5 or 0.75 (the paper's labels)")
    if trace not in ("theta", "kth"):
        raise refused("is fitted on theta and kth only")
    return True


def build_systems(
    specs: list[str], schedulers: list[str], seed: int
) -> tuple[list[Any], list[str]]:
    """The :class:`~coschedlab.coupled.System` of each ``--system`` spec, and a note per
    system that dropped trace jobs."""
    if len(specs) < 2:
        raise InputError("give at least two --system options (a coupled set has two machines)")
    if len(schedulers) not in (0, 1, len(specs)):
        raise InputError(
            f"--scheduler: give one (for every system) or one per system ({len(specs)}), "
            f"got {len(schedulers)}"
        )
    names: dict[str, str] = {}
    parsed = []
    for text in specs:
        trace, opts = parse_system(text)
        name = _system_name(text, opts, trace)
        if name in names:
            raise InputError(
                f"--system {text!r} and --system {names[name]!r} are both named {name!r}; "
                "give name= to tell them apart"
            )
        names[name] = text
        parsed.append((text, trace, opts, name))
    systems: list[Any] = []
    notes: list[str] = []
    span: float | None = None
    for i, (text, trace, opts, name) in enumerate(parsed):
        sched = schedulers[0] if len(schedulers) == 1 else schedulers[i] if schedulers else None
        try:
            system, month_span = _system(text, trace, opts, name, sched, seed, span)
        except InputError as exc:
            if exc.where or exc.what.startswith(("--system", "--scheduler")):
                raise
            raise InputError(f"--system {text!r}: {exc.what}") from None
        span = span or month_span
        if system.workload.dropped:
            notes.append(f"{system.name}: {system.workload.summary()}")
        systems.append(system)
    return systems, notes


def run_coupled(
    systems: list[Any], pairs: str, mate_attempt: str = "queued", baseline: bool = True,
    compat: str | None = None, pass_timeout: float | None = None, wake_limit: int | None = None,
) -> tuple[Any, dict, dict | None, Any, list[float]]:  # fmt: skip
    """Pair the systems' jobs (``pairs``: ``vicinity:SECONDS``, ``every:K``,
    ``proportion:P``, ``file:PATH`` or ``none``) and run them coupled (``compat``: see
    :class:`~.system.CoupledSimulation`); with ``baseline``, also without pairing. The result
    (validated), its metrics, the baseline's metrics (None without), the pairs and each
    system's paired share. ``pass_timeout`` (s): a scheduling pass of any system that takes
    longer stops the run with an :class:`InputError` (as ``simulate --pass-timeout``), as do
    more than ``wake_limit`` passes of a livelock (``simulate --wake-limit``)."""
    import copy

    from ..engine.watchdog import check_limit, check_wake_limit
    from .mates import Pairs, make_pairs, paired_share
    from .result import CoupledResult
    from .system import ATTEMPTS, CoupledSimulation

    if mate_attempt not in ATTEMPTS:
        raise InputError(f"--mate-attempt must be queued or yielded, got {mate_attempt!r}")
    check_limit(pass_timeout)
    check_wake_limit(wake_limit)
    workloads = [s.workload for s in systems]
    p = make_pairs(pairs, workloads)
    shares = paired_share(p, [len(w) for w in workloads])
    base = None
    if baseline and len(p):
        plain = [copy.copy(s) for s in systems]
        for s, orig in zip(plain, systems, strict=True):
            s.scheduler = copy.deepcopy(orig.scheduler)
        c0 = _timed_run(
            CoupledSimulation(plain, Pairs(), compat=compat, wake_limit=wake_limit), pass_timeout
        )
        base = CoupledResult.from_simulation(c0).metrics()
    c = _timed_run(
        CoupledSimulation(
            systems, p, mate_attempt=mate_attempt, compat=compat, wake_limit=wake_limit
        ),
        pass_timeout,
    )
    r = CoupledResult.from_simulation(c)
    problems = r.validate()
    if problems:  # (a policy that changed the kernel's state, or a bug)
        raise ScheduleError(problems)
    return r, r.metrics(), base, p, shares


def _timed_run(coupled: Any, pass_timeout: float | None) -> Any:
    """``coupled.run()`` with each system's scheduling pass timed (``pass_timeout`` s; None:
    no limit): the schedulers the systems' kernels call (a copy, under ``compat`` cobalt)."""
    from contextlib import ExitStack

    from ..engine.watchdog import pass_time_limit

    with ExitStack() as limits:
        for st in coupled.state:
            sched = st.sim.scheduler
            limits.enter_context(pass_time_limit(sched, pass_timeout, sched.describe))
        return coupled.run()


#: the columns of :func:`table_cells`
COLUMNS = (
    "system", "jobs", "paired", "wait min", "bsld", "util %", "sync min", "SU loss",
)  # fmt: skip


def _short(v: float, digits: int = 1) -> str:
    """``v`` in at most ~6 characters (80-column tables): 12.3, 1234, 12.3k, 575k, 1.37M."""
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:.2f}M"
    if a >= 99950:  # (at 99,950 and over, .1f would print 100.0k)
        return f"{v / 1e3:.0f}k"
    if a >= 1e4:
        return f"{v / 1e3:.1f}k"
    return f"{v:.{digits if a < 100 else 0}f}"


def table_cells(metrics: dict, baseline: dict | None) -> list[list[str]]:
    """One text row per system (:data:`COLUMNS`; in brackets: the change against the run
    without pairing; ``util %``: the useful utilization, and below it (``a``) with the held
    nodes counted as busy-but-idle; ``SU loss``: node-hours, and below it the share): what
    ``coschedlab coupled simulate`` prints and the
    dashboard shows."""
    rows = []
    for name, m in metrics.items():
        b = (baseline or {}).get(name)

        def delta(key: str, scale: float, m=m, b=b) -> str:
            v = m[key] * scale
            if b is None:
                return _short(v)
            d = v - b[key] * scale
            return f"{_short(v)} ({'+' if d >= 0 else ''}{_short(d)})"

        rows.append([
            name,
            f"{m['jobs']:,}",
            f"{100 * m['paired_share']:.1f}%",
            delta("wait_mean", 1 / 60),
            delta("bounded_slowdown_mean", 1),
            f"{100 * m['utilization']:.1f}\n{100 * m['allocated_utilization']:.1f} a",
            _short(m["sync_mean"] / 60),
            f"{_short(m['su_loss_node_hours'], 0)} nh\n{100 * m['su_loss_share']:.1f}%",
        ])  # fmt: skip
    return rows
