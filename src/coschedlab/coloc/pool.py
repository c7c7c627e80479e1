"""Application pools: the measured applications a co-location study draws its jobs from.

An ELiSE pool file (ELiSE's ``pools/*.json``, the ELiSE paper's "application seed", 3.1) is
``{"machine", "suite", "loads": [...]}`` where each load is a JSON *string* (a dict is accepted
too) with ``load_name``, ``num_of_processes``, ``compact_timelogs`` (seconds, whole-node runs),
``coscheduled_timelogs`` ``{partner: [[s, ...], ...]}`` and optionally ``spread_timelogs``
(runs alone on half-filled nodes; absent from the published files).

Times, as in ELiSE's loader (``get_med_time``):

- compact time = median of ``compact_timelogs``;
- co-run time of ``a`` beside ``b != a`` = median of all of ``coscheduled_timelogs[b]``
  flattened: the inner lists are the timings of the separate instances of ``a`` that ran in the
  co-schedule (e.g. 4 copies of a 32-process job beside one 128-process job), so all are samples
  of the same quantity;
- co-run time of ``a`` beside itself = mean of the per-instance medians (ELiSE's special case:
  the two lists are the two copies of ``a`` sharing the nodes).

Heatmap[a][b] = compact time of a / co-run time of a beside b (the ELiSE paper, 2.2).
Partners that are not loads of the file are not kept (counted in ``Pool.ignored_pairs``).

The file names the machine it was measured on (``"aris.compute"``); for the machines of the
published pools :attr:`Pool.platform` gives its size (:data:`KNOWN_MACHINES`), the default
machine of ``coschedlab generate``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..bundled import read_json
from ..errors import InputError
from ..jobs import MAX_PROCS, MAX_TIME
from ..platform import Cluster
from .heatmap import Heatmap

__all__ = [
    "KNOWN_MACHINES",
    "App",
    "Pool",
    "corun_time",
    "load_pool",
    "read_compact_times",
    "write_compact_times",
]

_REQUIRED = ("load_name", "num_of_processes", "compact_timelogs", "coscheduled_timelogs")

#: The machines of the published ELiSE pools, by the pool file's ``machine``: GRNET's ARIS
#: (426 compute nodes of 2 x 10-core Xeon E5-2680v2) and Grid'5000's grvingt cluster in Nancy
#: (64 nodes of 2 x 16-core Xeon Gold 6130).
KNOWN_MACHINES: dict[str, Cluster] = {
    "aris.compute": Cluster(426, 2, 10),
    "remake-g5k.nancy.grvingt": Cluster(64, 2, 16),
}


def check_spread_speedup(app: str, s: object) -> None:
    """A spread-alone speedup of application ``app`` is a finite number > 0 (an App's; the
    co-location model's ``alone``, where a NaN would key idle nodes by chance)."""
    try:
        ok = math.isfinite(float(s)) and float(s) > 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"application {app!r}: spread speedup must be > 0, got {s}")


@dataclass(frozen=True, slots=True)
class App:
    """One measured application: name, process count, compact time (s), optional spread speedup.

    ``spread_speedup`` = compact time / median time when spread alone on half-filled nodes
    (ELiSE's "spread alone" speedup), ``None`` when not measured.
    """

    name: str
    procs: int
    compact_time: float
    spread_speedup: float | None = None

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise InputError(f"application name must be a non-empty string, got {self.name!r}")
        if isinstance(self.procs, bool) or not isinstance(self.procs, int | np.integer):
            raise InputError(f"application {self.name!r}: procs must be an integer")
        if self.procs < 1:
            raise InputError(f"application {self.name!r}: procs must be >= 1, got {self.procs}")
        if self.procs > MAX_PROCS:  # a corrupt value, as in a trace
            raise InputError(
                f"application {self.name!r}: procs must be at most {MAX_PROCS:,}, "
                f"got {self.procs:,}"
            )
        if not (math.isfinite(self.compact_time) and 0 < self.compact_time <= MAX_TIME):
            raise InputError(
                f"application {self.name!r}: compact time must be > 0 s and at most "
                f"{MAX_TIME:,.0f} s, got {self.compact_time}"
            )
        if self.spread_speedup is not None:
            check_spread_speedup(self.name, self.spread_speedup)


@dataclass
class Pool:
    """Applications plus their pairwise co-location heatmap (ELiSE's application seed)."""

    apps: tuple[App, ...]
    heatmap: Heatmap
    machine: str = ""
    suite: str = ""
    source: str | None = None
    ignored_pairs: int = 0
    _by_name: dict[str, App] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.apps = tuple(self.apps)
        self._by_name = {}
        for a in self.apps:
            if a.name in self._by_name:
                raise InputError(f"application {a.name!r} appears twice in the pool")
            self._by_name[a.name] = a
        missing = [a.name for a in self.apps if a.name not in self.heatmap]
        if missing:
            raise InputError(f"applications missing from the heatmap: {', '.join(missing[:5])}")
        extra = [n for n in self.heatmap.names if n not in self._by_name]
        if extra:
            raise InputError(f"heatmap applications without a compact time: {', '.join(extra[:5])}")

    @property
    def names(self) -> list[str]:
        """Application names in pool order (the application id of a job is its index here)."""
        return [a.name for a in self.apps]

    @property
    def platform(self) -> Cluster | None:
        """The machine the pool was measured on, when it is a known one (else None)."""
        return KNOWN_MACHINES.get(self.machine)

    @property
    def n_pairs(self) -> int:
        """How many ordered application pairs were measured."""
        return self.heatmap.n_pairs

    def __len__(self) -> int:
        return len(self.apps)

    def app(self, name: str) -> App:
        """The application called ``name``."""
        try:
            return self._by_name[name]
        except KeyError:
            raise InputError(f"application {name!r} is not in the pool") from None

    def app_frame(self) -> pd.DataFrame:
        """Table ``app, procs, compact_time, spread_speedup`` (the generator's input)."""
        return pd.DataFrame(
            {
                "app": [a.name for a in self.apps],
                "procs": np.array([a.procs for a in self.apps], dtype=np.int64),
                "compact_time": np.array([a.compact_time for a in self.apps], dtype=np.float64),
                "spread_speedup": np.array(
                    [np.nan if a.spread_speedup is None else a.spread_speedup for a in self.apps]
                ),
            }
        )

    def summary(self) -> str:
        """One line: where from, how many applications and measured pairs, mean pair speedup."""
        where = f" from {self.source}" if self.source else ""
        return (
            f"{len(self)} applications, {self.n_pairs} measured pairs{where}; "
            f"mean pair speedup {self.heatmap.mean_pair_speedup():.4f}"
        )

    @classmethod
    def from_heatmap(
        cls,
        heatmap: Heatmap | str | Path,
        compact_times: Sequence[App] | pd.DataFrame | str | Path,
        **kwargs,
    ) -> Pool:
        """A pool from a heatmap and compact times, instead of an ELiSE pool file.

        ``heatmap`` is a :class:`Heatmap` or a CSV/JSON file; ``compact_times`` is a list of
        :class:`App`, a DataFrame or a CSV/JSON file with columns ``app, procs, compact_time``
        (optional ``spread_speedup``). Apps keep the order of ``compact_times``.
        """
        if isinstance(heatmap, str | Path):
            path = Path(heatmap)
            heatmap = Heatmap.from_json(path) if path.suffix == ".json" else Heatmap.from_csv(path)
            kwargs.setdefault("source", str(path))
        if isinstance(compact_times, str | Path):
            apps = read_compact_times(compact_times)
        elif isinstance(compact_times, pd.DataFrame):
            apps = _apps_from_frame(compact_times)
        else:
            apps = list(compact_times)
        names = [a.name for a in apps]
        missing = [n for n in heatmap.names if n not in set(names)]
        if missing:
            raise InputError(f"heatmap applications without a compact time: {', '.join(missing)}")
        unknown = [n for n in names if n not in heatmap]
        if unknown:
            raise InputError(f"applications missing from the heatmap: {', '.join(unknown)}")
        return cls(apps=tuple(apps), heatmap=heatmap.subset(names), **kwargs)


# -- ELiSE pool files -------------------------------------------------------------------------
def corun_time(app: str, partner: str, runs: Sequence[Sequence[float]]) -> float:
    """Median time of ``app`` beside ``partner`` from ELiSE's per-instance timing lists.

    ``partner != app``: median of all timings flattened; ``partner == app``: mean of the
    per-instance medians (ELiSE ``Load.get_med_time``). A flat list counts as one instance.
    """
    if runs and all(isinstance(x, int | float) and not isinstance(x, bool) for x in runs):
        runs = [runs]  # type: ignore[list-item]
    lists = [np.asarray(r, dtype=np.float64) for r in runs]
    if not lists or any(r.ndim != 1 or r.size == 0 for r in lists):
        raise InputError(f"co-run timings of {app!r} beside {partner!r} are empty or not lists")
    if app == partner:
        return float(np.mean([np.median(r) for r in lists]))
    return float(np.median(np.concatenate(lists)))


def _times(value: object, what: str) -> np.ndarray:
    """A non-empty 1-D array of positive finite seconds, or InputError naming ``what``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a list of numbers") from None
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(f"{what} must be a non-empty list of numbers")
    if not (np.isfinite(arr).all() and (arr > 0).all()):
        raise InputError(f"{what} must hold positive times, got {arr.tolist()[:5]}")
    if (arr > MAX_TIME).any():  # a corrupt value, as in a trace
        raise InputError(f"{what} must hold times of at most {MAX_TIME:,.0f} s, got {arr.max():g}")
    return arr


def _parse_load(raw: object, where: str) -> dict:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"load is not valid JSON ({exc})", where=where) from None
    if not isinstance(raw, Mapping):
        raise InputError("load must be a JSON object (or a string holding one)", where=where)
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        if isinstance(raw.get("load_name"), str):
            where = f"{where} {raw['load_name']!r}"
        raise InputError(f"load is missing key(s) {', '.join(missing)}", where=where)
    return dict(raw)


def load_pool(path: str | Path) -> Pool:
    """Read an ELiSE pool JSON file into a :class:`Pool` (times and heatmap as in module doc)."""
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("loads"), list):
        raise InputError("a pool file needs a top-level 'loads' list", where=str(path))
    if not doc["loads"]:
        raise InputError("the pool has no applications (its 'loads' list is empty)", str(path))
    loads = []
    for i, raw in enumerate(doc["loads"]):
        load = _parse_load(raw, f"{path}: load #{i}")
        name = load["load_name"]
        where = f"{path}: load #{i} {name!r}"
        if not isinstance(name, str) or not name:
            raise InputError("load_name must be a non-empty string", where=where)
        loads.append((name, load, where))
    names = [n for n, _, _ in loads]
    index = {n: i for i, n in enumerate(names)}
    if len(index) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"load {dup!r} appears twice", where=str(path))

    apps: list[App] = []
    values = np.full((len(names), len(names)), np.nan)
    ignored = 0
    for i, (name, load, where) in enumerate(loads):
        try:
            procs = load["num_of_processes"]
            if isinstance(procs, bool) or not isinstance(procs, int):
                raise InputError(f"num_of_processes must be an integer, got {procs!r}")
            compact = float(np.median(_times(load["compact_timelogs"], "compact_timelogs")))
            spread = None
            if load.get("spread_timelogs"):
                med = np.median(_times(load["spread_timelogs"], "spread_timelogs"))
                spread = compact / float(med)
            apps.append(App(name, procs, compact, spread))
            co = load["coscheduled_timelogs"]
            if not isinstance(co, Mapping):
                raise InputError("coscheduled_timelogs must map partner names to timing lists")
            for partner, runs in co.items():
                if partner not in index:
                    ignored += 1
                    continue
                if not isinstance(runs, list):
                    raise InputError(f"timings beside {partner!r} must be a list of lists")
                for r in runs:
                    _times(r, f"timings beside {partner!r}")
                values[i, index[partner]] = compact / corun_time(name, partner, runs)
        except InputError as exc:
            raise InputError(exc.what, where=where) from None
    return Pool(
        apps=tuple(apps),
        heatmap=Heatmap(names, values),
        machine=str(doc.get("machine", "")),
        suite=str(doc.get("suite", "")),
        source=str(path),
        ignored_pairs=ignored,
    )


# -- compact-time tables ------------------------------------------------------------------------
def file_stamp(path: str | Path) -> tuple[int, int]:
    """What tells a file's versions apart (size, modification time): a cache key."""
    st = Path(path).stat()
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=16)
def _read_pool(path: str, stamp: tuple[int, int]) -> Pool:
    return load_pool(path)


def cached_pool(path: str) -> Pool:
    """The pool in ``path`` (read once per process, again when the file changes)."""
    return _read_pool(path, file_stamp(path))


def _apps_from_frame(frame: pd.DataFrame, where: str | None = None) -> list[App]:
    missing = [c for c in ("app", "procs", "compact_time") if c not in frame.columns]
    if missing:
        raise InputError(
            f"compact-time table needs columns app, procs, compact_time (missing {missing})",
            where=where,
        )
    apps = []
    has_spread = "spread_speedup" in frame.columns
    for k, row in enumerate(frame.itertuples(index=False)):
        try:
            procs = float(row.procs)
            if not procs.is_integer():
                raise InputError(f"procs must be an integer, got {row.procs!r}")
            raw = row.spread_speedup if has_spread else None
            spread = math.nan if raw is None else float(raw)
            apps.append(
                App(
                    str(row.app),
                    int(procs),
                    float(row.compact_time),
                    None if math.isnan(spread) else spread,
                )
            )
        except InputError as exc:
            raise InputError(f"row {k + 1}: {exc.what}", where=where) from None
        except (TypeError, ValueError) as exc:
            raise InputError(f"row {k + 1}: {exc}", where=where) from None
    return apps


def read_compact_times(path: str | Path) -> list[App]:
    """Read ``app,procs,compact_time[,spread_speedup]`` from CSV, or a JSON list of records."""
    path = Path(path)
    try:
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            if isinstance(doc, Mapping) and "apps" in doc:
                doc = doc["apps"]
            if not isinstance(doc, list) or not all(isinstance(r, Mapping) for r in doc):
                raise InputError("expected a list of {app, procs, compact_time} records")
            frame = pd.DataFrame(doc)
        else:
            frame = pd.read_csv(path)
    except FileNotFoundError:
        raise InputError("no such file", where=str(path)) from None
    except (json.JSONDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read compact times ({exc})", where=str(path)) from None
    except InputError as exc:
        raise InputError(exc.what, where=str(path)) from None
    return _apps_from_frame(frame, where=str(path))


def write_compact_times(apps: Pool | Sequence[App], path: str | Path) -> Path:
    """Write ``app,procs,compact_time[,spread_speedup]`` as CSV (JSON if ``path`` ends .json)."""
    path = Path(path)
    apps = list(apps.apps if isinstance(apps, Pool) else apps)
    rows = []
    for a in apps:
        row = {"app": a.name, "procs": int(a.procs), "compact_time": float(a.compact_time)}
        if a.spread_speedup is not None:
            row["spread_speedup"] = float(a.spread_speedup)
        rows.append(row)
    if path.suffix == ".json":
        path.write_text(json.dumps(rows, indent=1) + "\n")
    else:
        pd.DataFrame(rows, columns=_columns(rows)).to_csv(path, index=False, float_format="%.10g")
    return path


def _columns(rows: list[dict]) -> list[str]:
    cols = ["app", "procs", "compact_time"]
    if any("spread_speedup" in r for r in rows):
        cols.append("spread_speedup")
    return cols
