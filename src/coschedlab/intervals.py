"""Node sets as half-open intervals, and Batsim's allocation text (``"0-3 7"``).

The one place that writes and reads the allocation strings of a result's ``alloc`` column
(Batsim's ``allocated_resources``): the engine writes them, the validator and the reports read
them back. ``[(0, 4), (7, 8)]`` is nodes 0, 1, 2, 3 and 7; its text is ``"0-3 7"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .errors import InputError

Intervals = list[tuple[int, int]]

__all__ = [
    "AllocColumn",
    "Intervals",
    "format_intervals",
    "nodes_to_intervals",
    "parse_alloc_column",
    "parse_intervals",
]

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
#: node (or core) ids at or beyond this are no machine's (and would overflow 64-bit arrays)
MAX_ID = 2**40


def format_intervals(intervals: Iterable[tuple[int, int]]) -> str:
    """Batsim-style text of node intervals: ``[(0, 4), (7, 8)]`` -> ``"0-3 7"``."""
    return " ".join(f"{a}" if b - a == 1 else f"{a}-{b - 1}" for a, b in intervals)


def nodes_to_intervals(nodes: Iterable[int]) -> Intervals:
    """``[3, 0, 1, 7]`` -> ``[(0, 2), (3, 4), (7, 8)]`` (a node given twice shows as overlap)."""
    out: Intervals = []
    for n in sorted(nodes):
        if out and out[-1][1] == n:
            out[-1] = (out[-1][0], n + 1)
        else:
            out.append((n, n + 1))
    return out


def parse_intervals(text: str) -> Intervals:
    """Inverse of :func:`format_intervals`: ``"0-3 7"`` -> ``[(0, 4), (7, 8)]``.

    Items are separated by spaces or commas; anything but ``N`` or ``A-B`` with ``A <= B`` is
    an :class:`~coschedlab.errors.InputError` quoting the text.
    """
    out: Intervals = []
    for part in text.replace(",", " ").split():
        m = _RANGE.match(part)
        if not m:
            raise InputError(f"bad node list {text!r}: expected ranges like '0-3 7'")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if b >= MAX_ID:
            raise InputError(f"bad node list {text!r}: id {b} is beyond any machine")
        if b < a:
            raise InputError(f"bad node list {text!r}: range {part} runs backwards")
        out.append((a, b + 1))
    return out


def parse_alloc_column(alloc: Iterable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse a column of allocation texts into contiguous node ranges.

    Returns ``(row, first_node, count)``: one entry per range, ``row`` = the position of the
    job in ``alloc``. Empty or missing (non-string) entries give no range. The column is parsed
    by pyarrow's vectorised string kernels; a text they do not accept is parsed again by
    :func:`parse_intervals`, whose error names it.
    """
    if isinstance(alloc, AllocColumn):  # a run's own column: its intervals as they are
        return alloc.ranges()
    tolist = getattr(alloc, "tolist", None)  # a NumPy column: its items at C speed
    texts = tolist() if tolist is not None and getattr(alloc, "ndim", 0) == 1 else list(alloc)
    fast = _parse_vectorised(texts)
    if fast is not None:
        return fast
    return _parse_one_by_one(texts)


class AllocColumn:
    """A run's ``alloc`` column kept as node intervals, not as one ``str`` per job (a million
    jobs: ~20 MB instead of ~80): job ``j`` holds the ``cnt[j]`` intervals
    ``[flat[i], flat[i + 1])`` that follow those of the jobs before it (``i`` from ``off[j]``
    in steps of 2). The writers format the
    texts in compiled code, in chunks (:meth:`text_buffers`); the validator reads the
    intervals (:meth:`ranges`); indexing, :meth:`tolist` and ``numpy.asarray`` give the texts
    (:func:`format_intervals`'s) for everything else."""

    ndim = 1
    dtype = np.dtype(object)

    def __init__(self, cnt: np.ndarray, flat: np.ndarray) -> None:
        self.cnt = np.ascontiguousarray(cnt, dtype=np.int32)
        self.flat = np.ascontiguousarray(flat, dtype=np.int32)

    @property
    def off(self) -> np.ndarray:
        """Where each job's intervals start in :attr:`flat` (made when asked for)."""
        off = np.cumsum(self.cnt, dtype=np.int64)  # made in place: one array, no temporaries
        off -= self.cnt
        off *= 2
        return off

    @classmethod
    def from_intervals(cls, allocations: Iterable[Intervals]) -> AllocColumn:
        """The column of each job's intervals (a list per job, in job order)."""
        cnt, flat = [], []
        for held in allocations:
            cnt.append(len(held))
            for a, b in held:
                flat += (a, b)
        return cls(np.asarray(cnt, dtype=np.int64), np.asarray(flat, dtype=np.int64))

    @property
    def shape(self) -> tuple[int]:
        return (len(self.cnt),)

    @property
    def size(self) -> int:
        return len(self.cnt)

    def __len__(self) -> int:
        return len(self.cnt)

    def text_buffers(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, bytearray]:
        """The texts of jobs ``start..stop-1`` as Arrow's string buffers ``(offsets, data)``
        (compiled: :func:`coschedlab._core.textrows.alloc_text`)."""
        from ._core.textrows import alloc_text

        return alloc_text(self.arrays(), start, len(self) if stop is None else stop)

    def text_chunks(self, rows: int) -> Iterator[tuple[np.ndarray, bytearray]]:
        """:meth:`text_buffers` of each run of ``rows`` jobs in turn (the offsets into
        :attr:`flat` made once, not per run)."""
        from ._core.textrows import alloc_text

        column = self.arrays()
        for lo in range(0, len(self), rows):
            yield alloc_text(column, lo, min(len(self), lo + rows))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(off, cnt, flat)``."""
        return self.off, self.cnt, self.flat

    def tolist(self) -> list[str]:
        """Every job's text (``""`` for a job that holds no node)."""
        offsets, data = self.text_buffers()
        text = bytes(data).decode("ascii")
        bounds = offsets.tolist()
        return [text[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.empty(len(self), dtype=object)
        out[:] = self.tolist()
        return out if dtype is None else out.astype(dtype)

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            j = int(key) + (len(self) if key < 0 else 0)
            if not 0 <= j < len(self):
                raise IndexError(f"job {key} of {len(self)}")
            offsets, data = self.text_buffers(j, j + 1)
            return bytes(data).decode("ascii")
        return np.asarray(self)[key]

    # as the object array of texts it replaces: compared item by item, printed as that
    # array, its other (reading) methods that array's; not changed in place
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        return np.asarray(self) == other

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return np.asarray(self) != other

    def __repr__(self) -> str:
        return repr(np.asarray(self))

    def __str__(self) -> str:
        return str(np.asarray(self))

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(_READ_ONLY)

    def __getattr__(self, name: str) -> Any:
        """The texts' array's attribute ``name`` (``size``, ``copy``, ``astype``, ...)."""
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(name)  # (a probe, getattr(col, "iloc", None): no texts made)
        if name in _IN_PLACE:
            raise TypeError(_READ_ONLY)
        return getattr(np.asarray(self), name)

    def held(self) -> bool:
        """True when some job holds a node."""
        return bool((self.cnt > 0).any())

    def ranges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(row, first_node, count)`` of every interval, jobs in order, as
        :func:`parse_alloc_column` gives them from the texts."""
        row = np.repeat(np.arange(len(self.cnt), dtype=np.int64), self.cnt)
        first = self.flat[0::2].astype(np.int64)  # packed: the intervals in job order
        return row, first, self.flat[1::2].astype(np.int64) - first


#: the array methods that change it in place (an AllocColumn refuses them)
_IN_PLACE = frozenset({"fill", "itemset", "partition", "put", "resize", "setfield", "setflags",
                       "sort"})  # fmt: skip
_READ_ONLY = (
    "a result's alloc column cannot be changed in place; numpy.asarray(column) gives an "
    "array of its texts to change (or change Result.jobs)"
)


def _parse_vectorised(texts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The whole column at once in NumPy, or None when some text is not plain ``A-B`` / ``N``
    items separated by spaces or commas (ASCII digits of at most 15 places)."""
    try:
        joined = "\n".join(texts) + "\n"  # all str (a result's column): at C speed
    except TypeError:  # missing entries (None, NaN): no range
        joined = "\n".join(t if isinstance(t, str) else "" for t in texts) + "\n"
    try:
        buf = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    digit = (buf >= ord("0")) & (buf <= ord("9"))
    dash = buf == ord("-")
    sep = np.isin(buf, np.frombuffer(b" \t\r,\n", dtype=np.uint8))
    if not (digit | dash | sep).all():
        return None
    prev_digit = np.r_[False, digit[:-1]]
    next_digit = np.r_[digit[1:], False]
    if (dash & ~(prev_digit & next_digit)).any():
        return None  # a dash not between two numbers
    first_char = np.flatnonzero(digit & ~prev_digit)  # each number's first and last digit
    last_char = np.flatnonzero(digit & ~next_digit)
    if not len(first_char):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if (last_char - first_char).max() >= 15:
        return None
    run = np.cumsum(digit & ~prev_digit) - 1  # the number each digit belongs to
    places = last_char[run[digit]] - np.flatnonzero(digit)
    value = np.add.reduceat(
        (buf[digit] - ord("0")).astype(np.int64) * 10 ** places.astype(np.int64),
        first_char - np.cumsum(~digit)[first_char],
    )
    before = np.r_[False, dash][first_char]  # the number ends a range A-B
    after = np.r_[dash, False][last_char + 1]  # the number starts one
    if (before & after).any():
        return None  # A-B-C
    starts = ~before
    first = value[starts]
    last = np.where(after, np.r_[value[1:], 0], value)[starts]
    if (last < first).any():
        return None
    row = np.cumsum(buf == ord("\n"))[first_char[starts]]
    return row.astype(np.int64), first, last - first + 1


def _parse_one_by_one(texts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cache: dict[str, Intervals] = {}
    rows: list[int] = []
    firsts: list[int] = []
    ends: list[int] = []
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            continue
        ranges = cache.get(text)
        if ranges is None:
            ranges = cache[text] = parse_intervals(text)
        for a, b in ranges:
            rows.append(i)
            firsts.append(a)
            ends.append(b)
    first = np.asarray(firsts, dtype=np.int64)
    return (
        np.asarray(rows, dtype=np.int64),
        first,
        np.asarray(ends, dtype=np.int64) - first,
    )
