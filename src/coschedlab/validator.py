"""The schedule validator: checks a produced schedule's invariants from its job table alone.

It works on the per-job table (the ``Result.jobs`` columns ``job_id, submit, start, end,
nodes``, optionally ``alloc``, ``requested_time``, ``node_cores``, ``deps``, ``think``,
``reservation``, ``start_pass``), so it can check a run of any simulator that writes them (a
Batsim ``jobs.csv`` is read into such a table by :func:`coschedlab.workload.batsim.read_jobs_csv`).

Every schedule keeps these:

* every job starts and ends, never before it is submitted, and never before its dependencies
  end (plus its think time), read from the ``deps``/``think`` columns when present;
* nodes (cores, when nodes are shared) in use never exceed the machine at any instant;
* per node (from ``alloc``), jobs never hold more than its cores at once (whole nodes: never two
  jobs at once); each job holds exactly its node count, all within the machine.

A scheduler's declared guarantees (:data:`GUARANTEES`) add:

* ``head``: EASY never delays the head job: the shadow time is recomputed independently from
  the schedule at the instant each job became the head, and its start must not be later;
* ``reservations``: a job never starts later than the first reservation the policy recorded
  for it, while no job runs past its requested time;
* ``reservations-exact``: the same, promised only when every job ends exactly at its estimate
  (conservative backfilling in queue order, without compression).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError
from .intervals import AllocColumn, parse_alloc_column, parse_intervals
from .metrics import Jobs, column, rows
from .platform import Cluster

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["GUARANTEES", "Report", "check_jobs", "run_time_violations", "validate_jobs"]

EPS = 1e-9

#: The invariants a scheduler may promise on top of the ones every schedule keeps.
GUARANTEES: tuple[str, ...] = ("head", "reservations", "reservations-exact")

REQUIRED_COLUMNS = ("job_id", "submit", "start", "end", "nodes")


@dataclass
class Report:
    """What :func:`check_jobs` found: the violations, and which checks ran or could not."""

    n_jobs: int
    violations: list[str] = field(default_factory=list)
    #: the checks that ran on this table ("capacity", "per-node overlap", "dependencies", ...)
    checked: list[str] = field(default_factory=list)
    #: the checks asked for (or implied by the columns) that could not run, each with its reason
    not_checked: list[str] = field(default_factory=list)
    #: facts worth telling (jobs left out of a check, ...)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def validate_jobs(
    jobs: pd.DataFrame,
    cluster: Cluster,
    *,
    guarantees: Iterable[str] = (),
    scheduler: str = "",
    deps: Mapping[object, Iterable[object]] | None = None,
    max_errors: int = 20,
    orders: Mapping[str, np.ndarray] | None = None,
) -> list[str]:
    """Return the invariant violations found in ``jobs`` (empty list: valid).

    ``guarantees`` names the scheduler's promises to check on top of the invariants of every
    schedule (see :data:`GUARANTEES`; an unknown name is an :class:`InputError`). Dependencies
    are read from the table's ``deps`` (space-separated parent ids) and ``think`` columns when
    present; ``deps`` maps more job ids to their parents' ids (no think time). ``scheduler``
    only names the policy in messages. ``orders``: ``{"start": ..., "end": ...}``, the stable
    orders of the rows by start and by end when already made (``np.argsort(kind="stable")``'s;
    checked where used: a wrong one is a ValueError, never a verdict).
    """
    return check_jobs(
        jobs, cluster, guarantees=guarantees, scheduler=scheduler, deps=deps,
        max_errors=max_errors, orders=orders,
    ).violations  # fmt: skip


def check_jobs(
    jobs: pd.DataFrame,
    cluster: Cluster,
    *,
    guarantees: Iterable[str] = (),
    scheduler: str = "",
    deps: Mapping[object, Iterable[object]] | None = None,
    max_errors: int = 20,
    orders: Mapping[str, np.ndarray] | None = None,
) -> Report:
    """Like :func:`validate_jobs`, and also say which checks ran and which could not."""
    wanted = _guarantee_names(guarantees, scheduler)
    missing = [c for c in REQUIRED_COLUMNS if c not in jobs]
    if missing:
        raise InputError(f"the jobs table has no column(s) {', '.join(missing)}")
    rep = Report(n_jobs=rows(jobs))
    errors = rep.violations

    def err(msg: str) -> bool:
        errors.append(msg)
        return len(errors) >= max_errors

    ids = np.asarray(jobs["job_id"])
    submit = _floats(jobs, "submit")
    start = _floats(jobs, "start")
    end = _floats(jobs, "end")
    nodes = _ints(jobs, "nodes")
    rep.checked.append("times")
    done = False
    for k in np.flatnonzero(~(np.isfinite(start) & np.isfinite(end))):
        if done := err(f"job {ids[k]} never started or never ended"):
            break
    for k in [] if done else np.flatnonzero(start < submit - EPS):
        if done := err(f"job {ids[k]} starts at {start[k]} before its submission at {submit[k]}"):
            break
    for k in [] if done else np.flatnonzero(end < start - EPS):
        if done := err(f"job {ids[k]} ends at {end[k]} before it starts at {start[k]}"):
            break
    bad = np.flatnonzero((nodes > cluster.nodes) | (nodes < 1))
    if len(bad) and not done:
        k = int(bad[0])
        done = err(f"job {ids[k]} holds {nodes[k]} nodes on a {cluster.nodes}-node machine")
    parents = _parents(jobs, ids, deps)
    release = submit
    join_pass = None  # per job, the pass in which it joined the queue (-1: the instant's first)
    if parents is not None and not done:
        rep.checked.append("dependencies")
        child, parent, think, unknown = parents
        for jid, p in unknown:
            if done := err(f"job {jid} depends on job {p}, which is not in the table"):
                break
        ready = end[parent] + think
        late = np.flatnonzero(start[child] < ready - EPS)
        for i in [] if done else late:
            j, p = child[i], parent[i]
            extra = f" (+ think {think[i]:g})" if think[i] > 0 else ""
            if err(f"job {ids[j]} starts at {start[j]} before its dependency {ids[p]} ends at "
                   f"{end[p]}{extra}"):  # fmt: skip
                break
        # a dependant joins the queue when its last parent ends, plus its think time
        release = submit.copy()
        np.maximum.at(release, child, ready)
        if "start_pass" in jobs:
            # a zero-length parent started at that instant ends in the next pass there: the
            # dependant joins the queue in that pass, not the instant's first one
            passes = _ints(jobs, "start_pass")
            zero = (think <= 0) & (start[parent] == end[parent]) & (ready == release[child])
            join_pass = np.full(len(ids), -1, dtype=np.int64)
            np.maximum.at(join_pass, child[zero], passes[parent[zero]] + 1)
    if errors:
        rep.not_checked.append(
            "capacity, per-node use and guarantees (the invariants above are broken)"
        )
        return rep

    from ._core.order import stable_argsort  # np.argsort(kind="stable")'s order, compiled

    # the jobs by start and by end (stable): the capacity's events merged from them, and the
    # EASY head's scan when the table is in queue order
    if orders is None:
        by = {"start": stable_argsort(start), "end": stable_argsort(end)}
    else:  # (checked by the capacity's merge before anything else reads them)
        by = {"start": np.asarray(orders["start"]), "end": np.asarray(orders["end"])}
    shared = "node_cores" in jobs
    if shared:  # shared nodes: count cores, node by node
        cores = _ints(jobs, "node_cores")
        rep.checked.append("capacity")
        errors += _check_capacity(
            start, end, nodes * cores, cluster.total_cores, ids, "cores", by
        )  # fmt: skip
    else:
        cores = None
        rep.checked.append("capacity")
        errors += _check_capacity(start, end, nodes, cluster.nodes, ids, by=by)
    what = "per-node cores" if shared else "per-node overlap"
    if "alloc" not in jobs:
        rep.not_checked.append(f"{what} (no alloc column)")
    elif not _any_allocation(jobs["alloc"]):
        rep.not_checked.append(f"{what} (no allocation recorded)")
    elif int(nodes.sum()) > 20_000_000:
        rep.not_checked.append(f"{what} (more than 20 million node allocations)")
    else:
        rep.checked.append(what)
        errors += _check_nodes(
            _allocs(jobs["alloc"]), start, end, nodes, cluster.nodes, ids, cores,
            cluster.cores_per_node,
        )  # fmt: skip

    if not wanted:
        return _trim(rep, max_errors)
    if errors:
        rep.not_checked += [f"{g} (the invariants above are broken)" for g in wanted]
        return _trim(rep, max_errors)
    has_req = "requested_time" in jobs and np.isfinite(_floats(jobs, "requested_time")).all()
    order = _queue_order(jobs, ids, submit)
    if "head" in wanted:
        if shared:
            rep.not_checked.append("head (checked for whole-node allocation only)")
        elif not has_req:
            rep.not_checked.append("head (no requested_time for every job)")
        else:
            rep.checked.append("head")
            passes = _ints(jobs, "start_pass") if "start_pass" in jobs else None
            errors += _check_easy_head(
                order, release, start, end, _floats(jobs, "requested_time"), nodes, ids, passes,
                cluster.nodes, join_pass, by=by,
            )  # fmt: skip
    res_wanted = [g for g in ("reservations", "reservations-exact") if g in wanted]
    if res_wanted:
        name = res_wanted[0]
        if "reservation" not in jobs:
            rep.not_checked.append(f"{name} (no reservation column)")
        elif not has_req:
            rep.not_checked.append(f"{name} (no requested_time for every job)")
        else:
            errors += _check_reservations(
                jobs, ids, order, release, start, end, name, rep, join_pass
            )
    return _trim(rep, max_errors)


# -- inputs ------------------------------------------------------------------------------------


def run_time_violations(
    ids: Any,
    start: Any,
    end: Any,
    requested: Any,
    killed: Any,
    want: Any,
    when: str,
    speeds: tuple[Any, Any] | None = None,
    capped: bool = False,
) -> list[str]:
    """Each job ran as long as its input says (``want``, its run time): exactly, or, killed at
    its walltime, at least its requested time (its run time if less) and at most its run
    time. ``speeds``: ``(slowest, fastest)``, the least and greatest speedup each job may have
    run at (a co-location model's, :meth:`.engine.speed.SpeedModel.speed_range`; 0 and inf:
    unknown): it ran from ``want / fastest`` to ``want / slowest`` (killed: from the least of
    that and its requested time). ``capped`` (``kill_at_walltime``): no job ran past its
    requested time. A job without a start (NaN) is not checked. The one run-time check:
    :meth:`.engine.result.Result.validate` (``when``: ``"during the run"``) and ``coschedlab
    validate --trace`` call it; the first five violations, then a count."""
    ran = np.asarray(end, dtype=float) - np.asarray(start, dtype=float)
    want = np.asarray(want, dtype=float)
    req = np.asarray(requested, dtype=float)
    killed = np.asarray(killed, dtype=bool)
    ids = np.asarray(ids)
    if speeds is None:
        least = most = want
    else:
        slowest, fastest = (np.asarray(v, dtype=float) for v in speeds)
        with np.errstate(divide="ignore", invalid="ignore"):
            least = np.where(want > 0, want / fastest, 0.0)
            most = np.where(want > 0, want / slowest, 0.0)
    tol = 1e-6 * np.maximum(1.0, np.where(np.isfinite(most), most, want))
    short = ran < np.where(killed, np.minimum(req, least), least) - tol
    long = ran > most + tol
    over = (ran > req + tol) if capped else np.zeros(len(ran), dtype=bool)
    bad = short | long | over
    out = []
    for k in np.flatnonzero(bad)[:5]:
        if over[k] and not (short[k] or long[k]):
            out.append(
                f"job {ids[k]} ran {ran[k]:g} s, past its requested {req[k]:g} s, though jobs "
                f"are killed at their walltime: its run time was changed {when}"
            )
            continue
        said = f"{want[k]:g} s" if speeds is None or least[k] == most[k] else (
            f"{want[k]:g} s of work, {least[k]:g} to {most[k]:g} s at the speedups it may "
            "have had"
        )  # fmt: skip
        out.append(
            f"job {ids[k]} ran {ran[k]:g} s but the input says {said}"
            + (f" (killed at its requested {req[k]:g} s)" if killed[k] else "")
            + f": its run time was changed {when}"
        )
    if bad.sum() > 5:
        out.append(f"and {int(bad.sum()) - 5} more jobs whose run time was changed")
    return out


def _guarantee_names(guarantees: Iterable[str], scheduler: str) -> list[str]:
    if isinstance(guarantees, str):
        guarantees = (guarantees,)
    out: list[str] = []
    for g in guarantees:
        if g not in GUARANTEES:
            who = f"scheduler {scheduler} declares " if scheduler else ""
            raise InputError(
                f"{who}unknown guarantee {g!r}; known guarantees: {', '.join(GUARANTEES)}"
            )
        if g not in out:
            out.append(g)
    # "reservations" promises what "reservations-exact" does, and more
    if "reservations" in out and "reservations-exact" in out:
        out.remove("reservations-exact")
    return out


def _floats(jobs: pd.DataFrame, col: str) -> np.ndarray:
    try:
        return column(jobs, col)
    except (TypeError, ValueError):
        import pandas as pd

        given = pd.Series(np.asarray(jobs[col], dtype=object))
        values = pd.to_numeric(given, errors="coerce")
        k = int(np.flatnonzero(values.isna() & given.notna())[0])
        raise InputError(
            f"column {col} of job {_at(jobs, 'job_id', k)} is not a number: {_at(jobs, col, k)!r}"
        ) from None


def _at(jobs: Jobs, col: str, k: int) -> object:
    """Row ``k``'s value of column ``col``."""
    values = jobs[col]
    iloc = getattr(values, "iloc", None)
    return iloc[k] if iloc is not None else values[k]


def _ints(jobs: pd.DataFrame, col: str) -> np.ndarray:
    values = _floats(jobs, col)
    bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values)))
    if len(bad):
        k = int(bad[0])
        raise InputError(
            f"column {col} of job {_at(jobs, 'job_id', k)} is not a whole number: "
            f"{_at(jobs, col, k)!r}"
        )
    return values.astype(np.int64)


def _parents(jobs: pd.DataFrame, ids: np.ndarray, deps: Mapping | None):
    """(child rows, parent rows, think time per edge, unknown (job, parent) pairs), or None
    without dependencies. Parents come from the ``deps`` column (space-separated ids) and the
    ``deps`` mapping; the think time from the ``think`` column (0 when absent). A parent is
    named by its id's text (``str(id)``; the first row of that id), found in NumPy
    (:func:`_id_rows`): only the rows that name parents are read in Python."""
    has_col = "deps" in jobs
    if not has_col and not deps:
        return None
    children: list[np.ndarray] = []
    names: list[str] = []
    if has_col:
        texts = np.asarray(jobs["deps"], dtype=object)
        rows, parts = [], []
        for k in np.flatnonzero(texts != "").tolist():  # (NaN and None too: not texts)
            t = texts[k]
            if isinstance(t, str) and (named := t.replace(",", " ").split()):
                rows.append(k)
                parts.append(named)
        counts = np.fromiter(map(len, parts), np.int64, len(parts))
        children.append(np.repeat(np.asarray(rows, dtype=np.int64), counts))
        names += chain.from_iterable(parts)
    lookup = _id_rows(ids)
    for jid, ps in (deps or {}).items():
        k = int(lookup([str(jid)])[0])
        if k < 0:
            raise InputError(f"dependencies name job {jid}, which is not in the table")
        named = [str(p) for p in ps]
        children.append(np.full(len(named), k, dtype=np.int64))
        names += named
    child = np.concatenate(children) if children else np.zeros(0, dtype=np.int64)
    parent = lookup(names)
    known = parent >= 0
    miss = np.flatnonzero(~known)
    unknown = [(ids[k], names[i]) for i, k in zip(miss, child[miss], strict=True)]
    c = child[known]
    think = _floats(jobs, "think")[c] if "think" in jobs else np.zeros(len(c))
    think = np.where(np.isfinite(think), think, 0.0)
    return c, parent[known].astype(np.int64), think, unknown


def _id_rows(ids: np.ndarray) -> Any:
    """``rows(names)``: the first row whose id's text (``str(id)``) is each of ``names``, -1
    where none is. Integer ids are sorted as integers and a name matches when it is an
    integer's own text ("12", not "012" nor "+12"); other ids (texts, floats) by their texts."""
    ids = np.asarray(ids)
    numeric = ids.dtype.kind in "iu"
    keys = ids if numeric else ids.astype(str)
    by_key = np.argsort(keys, kind="stable")  # (the first row of equal ids comes first)
    ordered = keys[by_key]

    def rows(names: list[str]) -> np.ndarray:
        if not names or not len(keys):
            return np.full(len(names), -1, dtype=np.int64)
        t = np.asarray(names, dtype=str)
        if numeric:
            try:
                v = t.astype(np.int64)
            except (ValueError, OverflowError):  # a name that is no integer: by the texts
                return _id_rows(ids.astype(str))(names)
            canonical = v.astype(str) == t
        else:
            v, canonical = t, True
        at = np.minimum(np.searchsorted(ordered, v), len(keys) - 1)
        return np.where(canonical & (ordered[at] == v), by_key[at], -1)

    return rows


def _queue_order(jobs: pd.DataFrame, ids: np.ndarray, submit: np.ndarray) -> np.ndarray:
    """Rows in queue order: (submit, id) for numeric ids, else (submit, row)."""
    if np.issubdtype(ids.dtype, np.number):
        s0, s1 = submit[:-1], submit[1:]
        if ((s1 > s0) | ((s1 == s0) & (ids[1:] >= ids[:-1]))).all():
            return np.arange(len(ids))  # in that order already (a result's): no sort
        return np.lexsort((np.arange(len(ids)), ids, submit))
    return np.argsort(submit, kind="stable")


def _trim(rep: Report, max_errors: int) -> Report:
    del rep.violations[max_errors:]
    return rep


# -- every schedule ----------------------------------------------------------------------------


def _check_capacity(start, end, nodes, capacity, ids, what="nodes", by=None) -> list[str]:
    """Nodes (or cores) in use never exceed the machine (ends before starts at an instant).
    ``by``: the stable orders of the jobs by ``"start"`` and by ``"end"`` when already made
    (merged here, each checked while merging), else made here."""
    from ._core.order import first_over, stable_argsort

    end = np.ascontiguousarray(end, dtype=np.float64)
    start = np.ascontiguousarray(start, dtype=np.float64)
    if by is None:
        by = {"start": stable_argsort(start), "end": stable_argsort(end)}
    # compiled: the events in time order (at one instant the ends first), merged from the two
    # orders (each checked), the level summed as they come; the first one over the machine
    weights = np.ascontiguousarray(nodes, dtype=np.int64)
    over = first_over(end, by["end"], start, by["start"], weights, int(capacity))
    if over is not None:
        k, starting, used = over
        t = start[k] if starting else end[k]
        return [f"{used} {what} in use at t={t} on a machine of {capacity} {what} "
                f"(when job {ids[k]} starts)"]  # fmt: skip
    return []


def _any_allocation(column: Any) -> bool:
    """True when some job of the ``alloc`` column holds a node (a non-blank text)."""
    if isinstance(column, AllocColumn):
        return column.held()
    return any(isinstance(a, str) and a.strip() for a in column.tolist())


def _allocs(column: Any) -> Any:
    """The ``alloc`` column as :func:`_check_nodes` reads it: a run's intervals as they are,
    else the texts as a list."""
    return column if isinstance(column, AllocColumn) else column.tolist()


def _parse_allocs(allocs: list, ids: np.ndarray):
    try:
        return parse_alloc_column(allocs)
    except InputError:
        for k, text in enumerate(allocs):  # name the job whose text is bad
            if isinstance(text, str):
                try:
                    parse_intervals(text)
                except InputError as exc:
                    raise InputError(f"job {ids[k]}: {exc}") from None
        raise


def _check_nodes(allocs, start, end, nodes, capacity, ids, cores=None, cpn=1) -> list[str]:
    """Per node, jobs never hold more than its cores at once (whole nodes: never two jobs at
    once); each job holds exactly its node count, all within the machine."""
    ij, a, length = _parse_allocs(allocs, ids)
    held = np.bincount(ij, weights=length, minlength=len(allocs)).astype(np.int64)
    wrong = np.flatnonzero(held != nodes)
    if len(wrong):
        k = wrong[0]
        return [f"job {ids[k]} holds {held[k]} nodes ({allocs[k]!r}), not the {nodes[k]} it needs"]
    if not len(a):
        return []
    out = (length > 0) & ((a < 0) | (a + length > capacity))
    if out.any():  # the first interval (in table order) with a node outside the machine
        k = ij[np.argmax(out)]
        return [f"job {ids[k]} holds a node outside 0..{capacity - 1} ({allocs[k]!r})"]
    if cores is not None:
        # one row per (node, job): expand the intervals without a Python loop
        first = np.repeat(a - np.cumsum(length) + length, length)
        node = np.arange(int(length.sum()), dtype=np.int64) + first
        return _check_node_cores(node, np.repeat(ij, length), start, end, cores, cpn, ids)
    from ._core.checks import first_node_clash
    from ._core.order import stable_argsort  # np.argsort(kind="stable")'s order, compiled

    # whole nodes: on each node, sorted by start, any overlap shows between two neighbours
    s, e = np.ascontiguousarray(start, dtype=np.float64), np.ascontiguousarray(end, dtype=float)
    ij = np.ascontiguousarray(ij, dtype=np.int64)
    # np.lexsort((rows, e[ij], s[ij])): by start, then end, then row; two stable orders
    order = stable_argsort(e[ij])
    order = order[stable_argsort(s[ij][order])]
    clash = first_node_clash(
        ij, np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(length, dtype=np.int64),
        order, s, e, int(capacity),
    )  # fmt: skip
    if clash is None:
        return []
    v, p, j = clash
    return [f"node {v} is given to job {ids[p]} [{s[p]}, {e[p]}) and to job {ids[j]} "
            f"[{s[j]}, {e[j]}) at once"]  # fmt: skip


def _check_node_cores(node, job, start, end, cores, cpn, ids) -> list[str]:
    """Cores in use on every node never exceed its cores (ends first at an instant)."""
    m = len(node)
    t = np.concatenate([start[job], end[job]])
    nd = np.concatenate([node, node])
    delta = np.concatenate([cores[job], -cores[job]])
    kind = np.concatenate([np.ones(m), np.zeros(m)])  # ends (0) before starts (1)
    jj = np.concatenate([job, job])
    order = np.lexsort((kind, t, nd))
    nd, delta, t, jj = nd[order], delta[order], t[order], jj[order]
    used = np.cumsum(delta)
    # cumulative sum restarts at every node: subtract the total before each node's first event
    first = np.flatnonzero(np.r_[True, nd[1:] != nd[:-1]])
    base = np.repeat(np.r_[0, used[first[1:] - 1]], np.diff(np.r_[first, len(nd)]))
    used = used - base
    over = np.flatnonzero(used > cpn)
    if len(over):
        k = over[0]
        return [f"node {nd[k]} has {used[k]} cores in use at t={t[k]} ({cpn} cores; when job "
                f"{ids[jj[k]]} starts)"]  # fmt: skip
    return []


# -- declared guarantees -----------------------------------------------------------------------


def _check_easy_head(
    order, release, start, end, req, nodes, ids, passes, capacity, join_pass=None, by=None
) -> list[str]:
    """EASY never starts the head job later than the shadow time computed when it became head.

    Jobs are taken in queue order (submit, id); ``release`` is when each joined the queue (its
    submission, or its last parent's end plus its think time). Job j is the head for good from
    t_h = max(release_j, latest start of the jobs before it). Its shadow time is recomputed
    from the jobs running at t_h (estimated end = start + requested time, ``t_h`` when past);
    jobs behind j that started at t_h in the pass where j became head are not counted (they
    were backfilled around it; a dependant released in a later pass at that instant, see
    ``join_pass``, becomes head in that pass). The check is skipped where a job running between
    t_h and the start overran its estimate (EASY cannot know such an end; with
    ``kill_at_walltime`` no job overruns). ``by``: :func:`check_jobs`'s stable orders of the
    rows by ``"start"`` and by ``"end"`` (used when the table is in queue order).
    """
    from ._core.checks import late_heads
    from ._core.order import stable_argsort  # np.argsort(kind="stable")'s order, compiled

    if len(order) and order[0] == 0 and (np.diff(order) == 1).all():
        order = slice(None)  # the table is in queue order (a result's): no copies
    else:
        by = None  # orders of the rows, not of the queue
    submit = release[order]
    start = start[order]
    end = end[order]
    req = req[order]
    nodes = np.ascontiguousarray(nodes[order], dtype=np.int64)
    passes = np.ascontiguousarray(passes[order], dtype=np.int64) if passes is not None else None
    joined = join_pass[order] if join_pass is not None and passes is not None else None
    joined = np.ascontiguousarray(joined, dtype=np.int64) if joined is not None else None
    ids = ids[order]
    if by is not None:
        by_start, by_end = by["start"], by["end"]
    else:
        by_start = stable_argsort(np.ascontiguousarray(start, dtype=np.float64))
        by_end = stable_argsort(np.ascontiguousarray(end, dtype=np.float64))

    def c(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.float64)

    # compiled: t_h, the overruns and the shadow times (checks.late_heads)
    late = late_heads(
        c(submit), c(start), c(end), c(req), nodes, by_start, by_end, passes, joined,
        int(capacity),
    )  # fmt: skip
    return [
        f"EASY delayed head job {ids[j].item() if hasattr(ids[j], 'item') else ids[j]}: "
        f"head at t={th}, shadow time {shadow}, started at {float(start[j])}"
        for j, th, shadow in late
    ]


def _check_reservations(
    jobs, ids, order, release, start, end, name, rep: Report, join_pass=None
) -> list[str]:
    """A job never starts later than its first recorded reservation, where guaranteed.

    ``reservations``: while every job ends by its estimate (EASY in queue order, compressed
    conservative backfilling); ``reservations-exact``: only when every job ends exactly at its
    estimate (conservative backfilling in queue order). A job that a released dependant passed
    in the queue (a job ahead of it in queue order that joined after it and before its start)
    may lose its reservation: such jobs are left out, and counted in the notes.
    """
    res = _floats(jobs, "reservation")
    run = end - start
    req = _floats(jobs, "requested_time")
    over = np.flatnonzero(run > req + EPS)
    if len(over):
        rep.not_checked.append(f"{name} (job {ids[over[0]]} ran past its requested time)")
        return []
    if name == "reservations-exact":
        off = np.flatnonzero(np.abs(run - req) > EPS)
        if len(off):
            rep.not_checked.append(
                f"{name} (promised only when every job ends at its estimate; job "
                f"{ids[off[0]]} ended early)"
            )
            return []
    rep.checked.append(name)
    late = np.isfinite(res) & (start > res + EPS)
    submit = _floats(jobs, "submit")
    if late.any() and (release > submit + EPS).any():
        passes = _ints(jobs, "start_pass") if "start_pass" in jobs else None
        passed = _passed_by_released(order, release, submit, start, join_pass, passes)
        if (late & passed).any():
            rep.notes.append(
                f"{int((late & passed).sum())} job(s) passed in the queue by a released "
                "dependant were not held to their reservation"
            )
        late &= ~passed
    k = np.flatnonzero(late)
    return [
        f"job {ids[i]} started at {start[i]}, after its reservation at {res[i]}" for i in k[:20]
    ]


def _passed_by_released(order, release, submit, start, join_pass, passes) -> np.ndarray:
    """Per row: did a job ahead of it in queue order join the queue after it and before the
    pass it started in (a dependant released when its parents ended)? Instants are ordered by
    (time, pass) when ``start_pass`` is known; without it, an equal time counts as passing."""
    out = np.zeros(len(order), dtype=bool)
    joined = join_pass if join_pass is not None else np.full(len(order), -1, dtype=np.int64)
    held = (release > submit + EPS) | (joined > -1)  # only these can join after a job behind
    later: list[tuple[float, int]] = []  # (release, pass joined) of the held jobs ahead so far
    for j in order.tolist():
        if passes is not None:
            i = bisect_right(later, (release[j], int(joined[j])))
            if i < len(later) and later[i] < (start[j], int(passes[j])):
                out[j] = True
        else:
            i = bisect_left(later, (release[j], -1))
            if i < len(later) and later[i][0] <= start[j]:
                out[j] = True
        if held[j]:
            insort(later, (release[j], int(joined[j])))
    return out
