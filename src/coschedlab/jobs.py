"""Jobs and workloads (the model layer: plain data, nothing here knows about time advancing).

A :class:`Job` is a small slots record for users; a :class:`Workload` stores many jobs as NumPy
columns so that million-job traces stay compact and fast to read, write and simulate.
Column names follow the SWF fields they come from (the Standard Workload Format, v2.2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from .errors import InputError

if TYPE_CHECKING:  # pragma: no cover (pandas is imported where a frame is made)
    import pandas as pd


@dataclass(slots=True)
class Job:
    """One job: what was asked for (procs, requested time) and what it really needs (run)."""

    id: int
    submit: float
    run: float
    requested_time: float
    procs: int
    user: int = -1
    group: int = -1
    app: int = -1
    queue: int = -1
    partition: int = -1
    status: int = 1
    deps: tuple[int, ...] = ()
    preceding: int = -1
    think_time: float = -1.0


# Column name -> dtype, in SWF-like order. ``deps`` is kept aside (sparse). The labels (user,
# group, application, queue, partition, status) are 32-bit: SWF numbers them from 1, and a
# million-job workload keeps 24 MB less (a label beyond :data:`MAX_LABEL` is refused).
COLUMNS: dict[str, type] = {
    "id": np.int64,
    "submit": np.float64,
    "run": np.float64,
    "requested_time": np.float64,
    "procs": np.int64,
    "user": np.int32,
    "group": np.int32,
    "app": np.int32,
    "queue": np.int32,
    "partition": np.int32,
    "status": np.int32,
    "preceding": np.int64,
    "think_time": np.float64,
}
_JOB_FIELDS = [f.name for f in fields(Job)]

#: Sane ranges (the SWF reader's, and every Workload's): a time beyond ~317 years or a
#: processor count beyond 2**31 - 1 is a corrupt value, not a job (1e18 as a submit time would
#: erase every run time in float arithmetic; 1e20 processors would wrap around in an integer
#: cast).
MAX_TIME = 1e10
MAX_PROCS = 2**31 - 1
#: the largest label (user, group, application, queue, partition, status) in magnitude: the
#: 32-bit columns' range
MAX_LABEL = 2**31 - 1
#: the columns held to :data:`MAX_TIME` (seconds) and :data:`MAX_PROCS`
_LIMITS = {"submit": MAX_TIME, "run": MAX_TIME, "requested_time": MAX_TIME,
           "think_time": MAX_TIME, "procs": MAX_PROCS}  # fmt: skip


#: the columns a workload may hold as one value broadcast to its length (a read-only array
#: of zero stride: a reader's field left at -1 throughout), as given; the others (the ones the
#: kernel reads into C arrays) are always C arrays of their type
_ONE_VALUE_OK = frozenset(
    ("user", "group", "app", "queue", "partition", "status", "preceding", "think_time")
)


def _is_one_value(a: object, dtype: type) -> bool:
    """``a`` is a 1-D array of ``dtype`` with zero stride (one value broadcast)."""
    return isinstance(a, np.ndarray) and a.dtype == dtype and a.ndim == 1 and a.strides == (0,)


def take(a: np.ndarray, index: np.ndarray | slice) -> np.ndarray:
    """The rows of column ``a`` at ``index`` (a mask, indices or a slice); a column of one
    value broadcast stays so (no memory per job)."""
    if not _is_one_value(a, a.dtype):
        return a[index]
    if isinstance(index, slice):
        n = len(range(*index.indices(len(a))))
    else:
        index = np.asarray(index)
        n = int(np.count_nonzero(index)) if index.dtype == bool else len(index)
    return np.broadcast_to(a[:1], (n,))


def _check_label(columns: Mapping[str, object], name: str) -> None:
    """Refuse a label column with a value beyond :data:`MAX_LABEL` (it would wrap around in
    the 32-bit column), naming the first such job."""
    a = np.asarray(columns[name])
    if not len(a) or a.dtype == np.int32 or a.dtype.kind not in "iuf":
        return
    big = np.abs(a) > MAX_LABEL if a.dtype.kind != "u" else a > MAX_LABEL
    if a.dtype.kind == "f":
        big |= ~np.isfinite(a)
    if big.any():
        k = int(np.argmax(big))
        ids = columns.get("id")
        who = f"job {int(np.asarray(ids)[k])}" if ids is not None else f"row {k}"
        value = a[k].item()
        whole = not isinstance(value, float) or value.is_integer()
        text = str(int(value)) if whole else f"{value:g}"
        raise InputError(
            f"{who}: {name} is {text}, beyond the range of a label "
            f"(|value| <= {MAX_LABEL:,}); a corrupt value?"
        )


class KeyedArrays(Mapping[int, tuple]):
    """A mapping whose keys are the int64 job ids ``keys`` (each once) and whose values are
    rows of arrays, made as read (:meth:`_row`): the base of :class:`Dependencies` and of
    Slurm's ``Inheritance``, which hand the kernel arrays and read as the mappings of old."""

    __slots__ = ("_at", "_keys")

    def _set_keys(self, keys: np.ndarray, twice: str) -> None:
        m = len(keys)
        if m > 1 and not (keys[1:] > keys[:-1]).all() and len(np.unique(keys)) != m:
            raise InputError(twice)
        self._keys = keys
        self._at: dict[int, int] | None = None

    def _row(self, k: int) -> tuple:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys.tolist())

    def __getitem__(self, jid: int) -> tuple:
        if self._at is None:
            self._at = {c: k for k, c in enumerate(self._keys.tolist())}
        return self._row(self._at[jid])

    def __contains__(self, jid: object) -> bool:
        try:
            self[jid]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True


class Dependencies(KeyedArrays):
    """Job dependencies as arrays (CSR): job ``child[k]`` waits for the jobs
    ``parents[ptr[k]:ptr[k + 1]]`` (ids). It reads as the mapping ``{child: (parents, ...)}``
    (a :attr:`Workload.deps`); the checks and the kernel read the arrays (:func:`dep_arrays`),
    so a generator of many dependent jobs (:func:`.workflows.modes.expand`) makes no Python
    object per job."""

    __slots__ = ("child", "parents", "ptr")

    def __init__(self, child: np.ndarray, ptr: np.ndarray, parents: np.ndarray) -> None:
        self.child = np.ascontiguousarray(child, dtype=np.int64)
        self.ptr = np.ascontiguousarray(ptr, dtype=np.int64)
        self.parents = np.ascontiguousarray(parents, dtype=np.int64)
        m = len(self.child)
        p = self.ptr
        if (
            self.child.ndim != 1
            or p.shape != (m + 1,)
            or p[0] != 0
            or p[-1] != len(self.parents)
            or (np.diff(p) < 0).any()
        ):
            raise InputError(
                f"dependencies: ptr must rise from 0 to {len(self.parents)} (the parents) in "
                f"{m + 1} steps (one per child, plus one)"
            )
        self._set_keys(self.child, "dependencies: a child job is given more than once")

    def _row(self, k: int) -> tuple[int, ...]:
        return tuple(self.parents[self.ptr[k] : self.ptr[k + 1]].tolist())

    def __repr__(self) -> str:
        return f"Dependencies({len(self)} jobs, {len(self.parents)} parents)"


def dep_arrays(deps: Mapping[int, tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(child, lens, parents)`` of int ids: each child, how many parents it names, their ids
    in the order given. Raises TypeError or OverflowError when an id is not an int64 number."""
    if isinstance(deps, Dependencies):
        return deps.child, np.diff(deps.ptr), deps.parents
    lens = np.fromiter(map(len, deps.values()), np.int64, len(deps))
    child = np.fromiter(deps, np.int64, len(deps))
    par = np.fromiter(chain.from_iterable(deps.values()), np.int64, int(lens.sum()))
    return child, lens, par


@dataclass
class Workload:
    """A set of jobs as NumPy columns (see :data:`COLUMNS`), plus where they came from.

    ``deps`` maps a job id to the ids it must wait for (a dict, or :class:`Dependencies`:
    the same as arrays); ``header`` holds the SWF header keys;
    ``dropped`` counts the jobs a reader left out, by reason, so that none is silently lost.
    Extra columns a reader keeps (e.g. the trace's own wait times) live in ``extra``.
    """

    columns: dict[str, np.ndarray]
    deps: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    header: dict[str, str] = field(default_factory=dict)
    dropped: Counter = field(default_factory=Counter)
    source: str | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = None
        cols: dict[str, np.ndarray] = {}
        for name, dtype in COLUMNS.items():
            if name not in self.columns:
                if name in ("id", "submit", "run", "procs"):
                    raise InputError(f"workload is missing column {name!r}")
                continue
            if dtype is np.int32:
                _check_label(self.columns, name)
            a = self.columns[name]
            if name in _ONE_VALUE_OK and _is_one_value(a, dtype):
                cols[name] = a  # a column of one value broadcast (no memory per job) stays
            else:
                cols[name] = np.ascontiguousarray(a, dtype=dtype)
            if n is None:
                n = len(cols[name])
            elif len(cols[name]) != n:
                raise InputError(f"workload column {name!r} has {len(cols[name])} rows, not {n}")
        n = n or 0
        if "requested_time" not in cols:
            cols["requested_time"] = cols["run"].copy()
        defaults = {"status": 1, "think_time": -1.0}
        for name, dtype in COLUMNS.items():
            if name not in cols:  # (all in _ONE_VALUE_OK: one value broadcast, read-only)
                cols[name] = np.broadcast_to(np.array(defaults.get(name, -1), dtype), (n,))
        unknown = set(self.columns) - set(COLUMNS)
        if unknown:
            raise InputError(f"workload has unknown columns {sorted(unknown)}")
        self.columns = cols
        for name, limit in _LIMITS.items():
            a = cols[name]
            if not len(a):
                continue
            if _is_one_value(a, a.dtype):
                a = a[:1]  # (its one value checked once)
            big = np.abs(a) > limit
            if name != "procs":
                big &= np.isfinite(a)  # NaN and infinities: the kernel names them
            if big.any():
                k = int(np.argmax(big))
                unit, value = ("", int(a[k])) if name == "procs" else (" s", f"{a[k]:g}")
                raise InputError(
                    f"job {int(cols['id'][k])}: {name} is {value}, beyond the sane "
                    f"range (|value| <= {limit:,.0f}{unit}); a corrupt value?"
                )
        ids = cols["id"]
        if not (ids[1:] > ids[:-1]).all():  # most workloads come in id order: no sort then
            ids = np.sort(ids)
            dup = np.flatnonzero(ids[1:] == ids[:-1])
            if len(dup):
                raise InputError(f"job id {int(ids[dup[0]])} appears more than once")
        if self.deps:
            _check_deps(self.deps, ids)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_jobs(cls, jobs: Iterable[Job], **kwargs) -> Workload:
        """Build a workload from :class:`Job` records."""
        jobs = list(jobs)
        columns = {name: np.array([getattr(j, name) for j in jobs]) for name in COLUMNS}
        if not jobs:
            columns = {name: np.empty(0, dtype=dt) for name, dt in COLUMNS.items()}
        deps = {j.id: tuple(j.deps) for j in jobs if j.deps}
        return cls(columns=columns, deps=deps, **kwargs)

    @classmethod
    def from_records(cls, rows: Iterable[Mapping | tuple], **kwargs) -> Workload:
        """Build from dicts (column names as keys) or (id, submit, run, requested_time, procs)."""
        jobs = []
        for r in rows:
            if isinstance(r, Mapping):
                jobs.append(Job(**r))
            else:
                jobs.append(Job(*r))
        return cls.from_jobs(jobs, **kwargs)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, **kwargs) -> Workload:
        """Build from a DataFrame whose columns are (a subset of) :data:`COLUMNS`."""
        columns = {c: frame[c].to_numpy() for c in frame.columns if c in COLUMNS}
        return cls(columns=columns, **kwargs)

    # -- access ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.columns["id"])

    def __getattr__(self, name: str) -> np.ndarray:
        cols = self.__dict__.get("columns")
        if cols is not None and name in cols:
            return cols[name]
        raise AttributeError(name)

    def __getitem__(self, i: int) -> Job:
        row = {name: self.columns[name][i].item() for name in COLUMNS}
        return Job(**row, deps=self.deps.get(row["id"], ()))

    def __iter__(self) -> Iterator[Job]:
        for i in range(len(self)):
            yield self[i]

    def to_frame(self) -> pd.DataFrame:
        """The jobs as a DataFrame (one row per job, :data:`COLUMNS` as columns)."""
        import pandas as pd

        return pd.DataFrame(self.columns)

    def select(self, mask: np.ndarray) -> Workload:
        """The jobs where ``mask`` is true (dependencies on removed jobs are dropped)."""
        ids = self.columns["id"][mask]
        cols = {k: take(v, mask) for k, v in self.columns.items()}
        kept = set(ids.tolist()) if self.deps else set()  # (1M ids: ~60 MB of set)
        deps = {j: tuple(d for d in ds if d in kept) for j, ds in self.deps.items() if j in kept}
        deps = {j: ds for j, ds in deps.items() if ds}
        extra = {k: take(v, mask) for k, v in self.extra.items()}
        return Workload(cols, deps, dict(self.header), Counter(self.dropped), self.source, extra)

    def head(self, n: int) -> Workload:
        """The first ``n`` jobs in file order."""
        mask = np.zeros(len(self), dtype=bool)
        mask[:n] = True
        return self.select(mask)

    def shifted(self) -> Workload:
        """A copy whose first submit time is 0."""
        w = self.select(np.ones(len(self), dtype=bool))
        if len(w):
            w.columns["submit"] = w.columns["submit"] - w.columns["submit"].min()
        return w

    def drop_oversized(self, max_procs: int, reason: str = "larger than the machine") -> Workload:
        """Drop (and count in ``dropped``) the jobs asking for more than ``max_procs``: a new
        workload, or this one when none does."""
        mask = self.columns["procs"] <= max_procs
        if mask.all():
            return self  # nothing to drop: no copy of every column
        w = self.select(mask)
        if (~mask).any():
            w.dropped[reason] += int((~mask).sum())
        return w

    def freeze(self) -> Workload:
        """Make the columns read-only (this workload, returned): its results then share them
        instead of copying them (a million jobs: ~100 MB less); an edit in place is refused."""
        for a in (*self.columns.values(), *self.extra.values()):
            a.flags.writeable = False
        return self

    def summary(self) -> str:
        """One line: how many jobs, from where, and what was dropped."""
        from .tables import count

        text = count(len(self), "job")
        if self.source:
            text += f" from {self.source}"
        if self.dropped:
            parts = ", ".join(f"{n:,} {why}" for why, n in sorted(self.dropped.items()))
            text += f" ({sum(self.dropped.values()):,} dropped: {parts})"
        return text


def _check_deps(deps: Mapping[int, tuple[int, ...]], sorted_ids: np.ndarray) -> None:
    """Every job ``deps`` names is one of ``sorted_ids``; the first that is not, in the order a
    scan of ``deps`` meets them (a job, then its parents), is refused in one line. Ids that are
    all Python ints (or :class:`Dependencies`' arrays) are looked up at once (NumPy); any other
    key or value, as a scan would."""
    plain = isinstance(deps, Dependencies)
    if plain:
        child, lens, par = dep_arrays(deps)
    else:
        parents: list = []
        try:
            for dep_ids in deps.values():
                parents.extend(dep_ids)
            plain = {type(x) for x in deps} | {type(x) for x in parents} <= {int}
            if plain:
                child, lens, par = dep_arrays(deps)
        except (TypeError, OverflowError):
            plain = False
    if not plain:
        known = set(sorted_ids.tolist())
        for jid, dep_ids in deps.items():
            if jid not in known:
                raise InputError(f"dependencies given for unknown job {jid}")
            for d in dep_ids:
                if d not in known:
                    raise InputError(f"job {jid} depends on unknown job {d}")
        return

    def unknown(q: np.ndarray) -> np.ndarray:
        if not len(sorted_ids):
            return np.ones(len(q), bool)
        pos = np.minimum(np.searchsorted(sorted_ids, q), len(sorted_ids) - 1)
        return sorted_ids[pos] != q

    bad_child, bad_par = unknown(child), unknown(par)
    if not (bad_child.any() or bad_par.any()):
        return
    first_child = int(np.argmax(bad_child)) if bad_child.any() else len(child)
    k = int(np.argmax(bad_par)) if bad_par.any() else -1
    item = int(np.repeat(np.arange(len(child)), lens)[k]) if k >= 0 else len(child)
    if first_child <= item:
        raise InputError(f"dependencies given for unknown job {int(child[first_child])}")
    raise InputError(f"job {int(child[item])} depends on unknown job {int(par[k])}")


def app_names_from_header(text: str | None) -> dict[int, str]:
    """``"0=lu.E.2048 1=cg.D.64"`` (a generated workload's ``Applications`` header, which maps
    the ``app`` column to application names) -> ``{0: "lu.E.2048", 1: "cg.D.64"}``."""
    names: dict[int, str] = {}
    for part in (text or "").split():
        key, sep, name = part.partition("=")
        if sep and key.lstrip("-").isdigit():
            names[int(key)] = name
    return names
