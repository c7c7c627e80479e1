"""Node sets as half-open intervals, and Batsim's allocation text (``"0-3 7"``).

The one place that writes and reads the allocation strings of a result's ``alloc`` column
(Batsim's ``allocated_resources``): the engine writes them, the validator and the reports read
them back. ``[(0, 4), (7, 8)]`` is nodes 0, 1, 2, 3 and 7; its text is ``"0-3 7"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from .errors import InputError

Intervals = list[tuple[int, int]]

__all__ = [
    "Intervals",
    "format_intervals",
    "nodes_to_intervals",
    "parse_alloc_column",
    "parse_intervals",
]

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


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
        if b < a:
            raise InputError(f"bad node list {text!r}: range {part} runs backwards")
        out.append((a, b + 1))
    return out


def parse_alloc_column(alloc: Iterable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse a column of allocation texts into contiguous node ranges.

    Returns ``(row, first_node, count)``: one entry per range, ``row`` = the position of the
    job in ``alloc``. Empty or missing (non-string) entries give no range. Equal texts are
    parsed once.
    """
    cache: dict[str, Intervals] = {}
    rows: list[int] = []
    firsts: list[int] = []
    ends: list[int] = []
    for i, text in enumerate(alloc):
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
