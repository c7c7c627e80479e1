"""Pairwise co-location speedups (ELiSE's *heatmap*, the ELiSE paper, 2.2).

``Heatmap[a][b]`` is the speedup of application ``a`` while it shares its nodes with ``b``:
median compact time of ``a`` / median time of ``a`` when co-run with ``b`` (> 1: ``a`` runs
faster beside ``b`` than alone on whole nodes). The matrix is not symmetric. Unmeasured pairs are
stored as NaN; :meth:`Heatmap.speedup` answers them with the application's mean speedup over its
measured pairs, as ELiSE does for unknown pairs (section 3.5), and with 1.0 (no effect) when the
application has no measured pair at all.

Files: CSV is a square matrix with the application names as header and index (first column
``app``; an empty cell is an unmeasured pair). JSON is ``{"apps": [...], "heatmap": {a: {b: s}}}``
(``null`` = unmeasured); a bare ``{a: {b: s}}`` mapping, ELiSE's in-memory form, is read too.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..bundled import read_bytes, read_json
from ..errors import InputError

__all__ = ["Heatmap"]


def _check_row_widths(text: str, where: str) -> None:
    """Every row of a heatmap CSV has as many cells as its header (a short row is not a row of
    unmeasured pairs: an unmeasured pair is an empty cell): else one line naming FILE:LINE."""
    reader = csv.reader(io.StringIO(text))
    header = width = None
    try:
        for row in reader:
            if not row:
                continue  # a blank line
            if header is None:
                header = len(row)
                continue
            if width is None and len(row) in (header, header + 1):
                width = len(row)  # header + 1: the header does not name the first column
            if len(row) != width:
                raise InputError(
                    f"{len(row)} cells where the header has {header}: a row names its "
                    "application, then one cell per partner (an unmeasured pair is an empty "
                    "cell)",
                    where=f"{where}:{reader.line_num}",
                )
    except csv.Error as exc:
        raise InputError(f"not a heatmap CSV ({exc})", where=f"{where}:{reader.line_num}") from None


class Heatmap:
    """Speedup of each application beside each other one (NaN = unmeasured pair)."""

    __slots__ = ("_names", "_index", "_values", "_row_mean")

    def __init__(self, names: Sequence[str], values: np.ndarray | Sequence[Sequence[float]]):
        names = tuple(str(n) for n in names)
        values = np.array(values, dtype=np.float64)
        n = len(names)
        if values.shape != (n, n):
            raise InputError(f"heatmap for {n} applications must be {n} x {n}, got {values.shape}")
        if len(set(names)) != n:
            dup = next(x for x in names if names.count(x) > 1)
            raise InputError(f"application {dup!r} appears twice in the heatmap")
        bad = np.isfinite(values) & (values <= 0)
        if bad.any() or np.isinf(values).any():
            i, j = np.argwhere(bad | np.isinf(values))[0]
            raise InputError(
                f"speedup of {names[i]!r} beside {names[j]!r} must be a positive number, "
                f"got {float(values[i, j])}"
            )
        values.setflags(write=False)
        self._names = names
        self._index = {name: i for i, name in enumerate(names)}
        self._values = values
        known = np.isfinite(values)
        counts = known.sum(axis=1)
        sums = np.where(known, values, 0.0).sum(axis=1)
        # Fallback of each row: mean of its measured pairs, 1.0 when it has none.
        self._row_mean = np.where(counts > 0, sums / np.maximum(counts, 1), 1.0)

    # -- access ---------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """Application names, in matrix order."""
        return self._names

    @property
    def values(self) -> np.ndarray:
        """The raw (read-only) matrix, NaN where a pair was not measured."""
        return self._values

    @property
    def n_pairs(self) -> int:
        """How many ordered pairs (a, b) were measured (diagonal included)."""
        return int(np.isfinite(self._values).sum())

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Heatmap):
            return NotImplemented
        return self._names == other._names and np.array_equal(
            self._values, other._values, equal_nan=True
        )

    def __repr__(self) -> str:
        return f"Heatmap({len(self)} apps, {self.n_pairs} measured pairs)"

    def index(self, name: str) -> int:
        """Row/column of application ``name`` (InputError naming the known ones if absent)."""
        try:
            return self._index[name]
        except KeyError:
            known = ", ".join(self._names[:8]) + (", ..." if len(self) > 8 else "")
            raise InputError(f"unknown application {name!r} (heatmap has: {known})") from None

    def known(self, a: str, b: str) -> bool:
        """Whether the pair (a beside b) was measured."""
        return bool(np.isfinite(self._values[self.index(a), self.index(b)]))

    def app_mean(self, a: str) -> float:
        """Mean speedup of ``a`` over its measured pairs (1.0 if none): unknown-pair fallback."""
        return float(self._row_mean[self.index(a)])

    def speedup(self, a: str, b: str) -> float:
        """Speedup of ``a`` beside ``b``; unmeasured pair -> :meth:`app_mean` (ELiSE 3.5)."""
        i, j = self.index(a), self.index(b)
        v = self._values[i, j]
        return float(v) if math.isfinite(v) else float(self._row_mean[i])

    def matrix(self) -> np.ndarray:
        """The full matrix with unmeasured pairs filled by the row fallback (:meth:`speedup`)."""
        return np.where(np.isfinite(self._values), self._values, self._row_mean[:, None])

    def mean_pair_speedup(self, apps: Iterable[str] | None = None) -> float:
        """Mean speedup over application pairs (the x axis of ELiSE's Table 2).

        Without ``apps``: the mean of every measured ordered pair (a beside b) of the heatmap.
        With ``apps`` (a workload's application names, repeats allowed): the mean of
        speedup(a_i, a_j) over every ordered pair of distinct jobs i != j, unmeasured pairs
        answered by :meth:`speedup`'s fallback.
        """
        if apps is None:
            known = np.isfinite(self._values)
            if not known.any():
                raise InputError("the heatmap has no measured pair")
            return float(self._values[known].mean())
        counts = np.zeros(len(self))
        for name in apps:
            counts[self.index(name)] += 1
        n = counts.sum()
        if n < 2:
            raise InputError("a mean pair speedup needs at least two jobs")
        full = self.matrix()
        total = counts @ full @ counts - (counts * np.diag(full)).sum()
        return float(total / (n * (n - 1)))

    def subset(self, names: Sequence[str]) -> Heatmap:
        """The heatmap restricted to ``names`` (in that order)."""
        idx = [self.index(n) for n in names]
        return Heatmap(names, self._values[np.ix_(idx, idx)])

    # -- tables and files -----------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Square DataFrame: index and columns are the application names, NaN = unmeasured."""
        frame = pd.DataFrame(np.array(self._values), index=list(self._names), columns=self._names)
        frame.index.name = "app"
        return frame

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Heatmap:
        """From a square DataFrame whose index and columns hold the same application names."""
        rows = [str(x) for x in frame.index]
        cols = [str(x) for x in frame.columns]
        if sorted(rows) != sorted(cols) or len(rows) != len(cols):
            missing = sorted(set(rows) ^ set(cols))
            raise InputError(
                "heatmap rows and columns must name the same applications"
                + (f" (only on one side: {', '.join(missing[:5])})" if missing else "")
            )
        frame = frame.copy()
        frame.index = rows
        frame.columns = cols
        try:
            values = frame.loc[rows, rows].to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"heatmap cells must be numbers: {exc}") from None
        return cls(rows, values)

    def to_csv(self, path: str | Path) -> Path:
        """Write the square CSV matrix (empty cell = unmeasured pair)."""
        path = Path(path)
        self.to_frame().to_csv(path, float_format="%.10g")
        return path

    @classmethod
    def from_csv(cls, path: str | Path) -> Heatmap:
        """Read a square CSV matrix (first column: application names)."""
        path = Path(path)
        try:
            text = read_bytes(path).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("not a heatmap CSV (not UTF-8 text)", where=str(path)) from None
        _check_row_widths(text, str(path))
        try:
            frame = pd.read_csv(io.StringIO(text), index_col=0)
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            why = " ".join(str(exc).split())
            raise InputError(f"not a heatmap CSV ({why})", where=str(path)) from None
        try:
            return cls.from_frame(frame)
        except InputError as exc:
            raise InputError(exc.what, where=str(path)) from None

    def to_dict(self) -> dict[str, dict[str, float | None]]:
        """Nested mapping ``{a: {b: speedup}}`` with ``None`` for unmeasured pairs."""
        return {
            a: {
                b: (float(v) if math.isfinite(v) else None)
                for b, v in zip(self._names, self._values[i], strict=True)
            }
            for i, a in enumerate(self._names)
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, float | None]]) -> Heatmap:
        """From ``{a: {b: speedup}}``; names only seen as partners get unmeasured rows."""
        if not isinstance(data, Mapping):
            raise InputError("a heatmap must map each application to {partner: speedup}")
        names = list(data)
        for row in data.values():
            if not isinstance(row, Mapping):
                raise InputError("a heatmap must map each application to {partner: speedup}")
            names.extend(b for b in row if b not in names)
        index = {n: i for i, n in enumerate(names)}
        values = np.full((len(names), len(names)), np.nan)
        for a, row in data.items():
            for b, v in row.items():
                if v is None:
                    continue
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise InputError(f"speedup of {a!r} beside {b!r} is not a number: {v!r}")
                values[index[a], index[b]] = float(v)
        return cls(names, values)

    def to_json(self, path: str | Path) -> Path:
        """Write ``{"apps": [...], "heatmap": {a: {b: s}}}`` (``null`` = unmeasured)."""
        path = Path(path)
        doc = {"apps": list(self._names), "heatmap": self.to_dict()}
        path.write_text(json.dumps(doc, indent=1) + "\n")
        return path

    @classmethod
    def from_json(cls, path: str | Path) -> Heatmap:
        """Read a heatmap JSON file (see module doc); the ``apps`` list fixes the order."""
        path = Path(path)
        doc = read_json(path)
        try:
            if isinstance(doc, Mapping) and "heatmap" in doc:
                heatmap = cls.from_dict(doc["heatmap"])
                order = doc.get("apps")
                if order is not None:
                    if sorted(map(str, order)) != sorted(heatmap.names):
                        raise InputError("'apps' does not list the heatmap's applications")
                    heatmap = heatmap.subset([str(x) for x in order])
                return heatmap
            return cls.from_dict(doc)
        except InputError as exc:
            raise InputError(exc.what, where=str(path)) from None
