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
    texts = list(alloc)
    fast = _parse_vectorised(texts)
    if fast is not None:
        return fast
    return _parse_one_by_one(texts)


def _parse_vectorised(texts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The whole column at once, or None when some text is not plain ``A-B`` / ``N`` items."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        arr = pa.array([t if isinstance(t, str) else "" for t in texts], type=pa.string())
        tokens = pc.split_pattern_regex(pc.utf8_trim(arr, " ,\t\n\r"), r"[\s,]+")
        rows = pc.list_parent_indices(tokens)
        items = pc.list_flatten(tokens)
        keep = pc.not_equal(items, "")
        rows, items = pc.filter(rows, keep), pc.filter(items, keep)
        if (
            len(items)
            and not pc.all(pc.match_substring_regex(items, r"^[0-9]+(-[0-9]+)?$")).as_py()
        ):
            return None
        single = pc.invert(pc.match_substring(items, "-"))
        pairs = pc.split_pattern(
            pc.if_else(single, pc.binary_join_element_wise(items, items, "-"), items), "-"
        )
        first = pc.cast(pc.list_element(pairs, 0), pa.int64()).to_numpy(zero_copy_only=False)
        last = pc.cast(pc.list_element(pairs, 1), pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if (last < first).any():
        return None
    row = np.asarray(rows.to_numpy(zero_copy_only=False), dtype=np.int64)
    return row, np.asarray(first, dtype=np.int64), np.asarray(last - first + 1, dtype=np.int64)


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
