"""Tables that stay readable at any terminal width: split into parts, never cut a digit.

A wide table (many metrics) is printed as several stacked tables, each as wide as the
terminal allows, the first ``keep`` columns (the row names) repeated in each part. Numbers are
never wrapped or truncated; only the text columns (names, descriptions) wrap. A table of a
few rows that does not fit is turned on its side instead (one row per column, one column per
row), so that one scheduler's results stay in one table.

The number format of every table: :func:`number` (thousands separators, fixed decimals per
column, no scientific notation, ``-`` for a missing value, ``0`` for float noise) and
:func:`count` (``54,044 jobs``, ``1 socket``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover (rich is imported where a table is drawn)
    from rich.console import Group

__all__ = ["Col", "count", "fit_table", "number", "plain"]

#: a table of at most this many rows that is too wide is turned on its side
TRANSPOSE_ROWS = 4
#: below this magnitude a value is float noise: printed as 0
NOISE = 1e-9


def number(value: float | None, decimals: int = 1, scale: float = 1.0) -> str:
    """``value * scale`` with ``decimals`` fixed decimals and thousands separators
    (``1,660.0``), never in scientific notation; ``-`` for None, NaN or infinity; ``0`` for
    float noise (``1.52e-15``). Percentages: ``scale=100`` and ``%`` in the header."""
    if value is None:
        return "-"
    try:
        x = float(value) * scale
    except (TypeError, ValueError):
        return "-"
    if not math.isfinite(x):
        return "-"
    if abs(x) < NOISE:
        return "0"
    text = f"{x:,.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text  # no "-0.0"


def plain(doc: str) -> str:
    """reStructuredText markup of a docstring removed for a terminal: ``:func:`~a.b``` and
    ``:class:`a.b``` -> ``b`` (``a.b`` without the tilde), double and single backquotes
    dropped; whitespace folded to single spaces."""
    text = re.sub(r":[a-z]+:`~?([^`<]*?)(?: <[^>]*>)?`", _role, doc)
    text = re.sub(r"``(.+?)``", r"\1", text)
    text = re.sub(r"`([^`]+)`_?", r"\1", text)
    return " ".join(text.split())


def _role(m: re.Match[str]) -> str:
    name = m.group(1)
    return name.rsplit(".", 1)[-1] if m.group(0).split("`", 1)[1].startswith("~") else name


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``54,044 jobs``, ``1 socket``: ``n`` with thousands separators and ``noun`` in the
    singular or plural (default: ``noun + "s"``)."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


#: what a column costs beyond its text: "| " and " " around each cell, one closing "|"
_PER_COLUMN = 3
_MIN_TEXT = 12
_MAX_WORD = 32


@dataclass(frozen=True)
class Col:
    """A column: its header, alignment, and whether its text may wrap (names, descriptions)."""

    name: str
    justify: str = "right"
    wrap: bool = False


def _width(col: Col, cells: Sequence[str]) -> int:
    longest = max([len(col.name), *(len(c) for c in cells)])
    if col.wrap:  # a wrapping column: room for its longest word, folded beyond _MAX_WORD
        words = [len(w) for c in [col.name, *cells] for w in c.split()]
        return min(longest, max(_MIN_TEXT, min(max(words, default=0), _MAX_WORD)))
    return longest


def fit_table(
    title: str,
    cols: Sequence[Col],
    rows: Sequence[Sequence[str]],
    width: int,
    keep: int = 1,
    sections: Sequence[int] = (),
) -> Group:
    """``rows`` (strings, one per column) as one table when it fits in ``width`` characters,
    else as stacked parts that each fit, the first ``keep`` columns repeated in every part.
    ``sections``: row indices before which a section line is drawn. A table of at most
    :data:`TRANSPOSE_ROWS` rows that would be split is printed on its side instead when that
    fits (a first column of the metric names, one column per row named by its ``keep``
    cells)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text  # names and cells as written: no markup, no emoji codes

    parts = table_parts(title, cols, rows, width, keep)
    if parts is None:
        return _as_lines(title, cols, rows, keep)  # no part fits with its row names shown
    tables = []
    for part_title, part_cols, part_rows in parts:
        t = Table(title=Text(part_title) if part_title else None)
        for j, c in enumerate(part_cols):
            w = _width(c, [r[j] for r in part_rows])
            t.add_column(
                Text(c.name),
                justify=c.justify,  # type: ignore[arg-type]
                no_wrap=not c.wrap,
                overflow="fold" if c.wrap else "ellipsis",
                # a number column never shrinks below its widest cell: no digit is cut
                min_width=None if c.wrap else w,
                max_width=w if c.wrap else None,
            )
        for k, r in enumerate(part_rows):
            if k in sections:
                t.add_section()
            t.add_row(*[Text(cell) for cell in r])
        tables.append(t)
    return Group(*tables)


def table_parts(
    title: str, cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, keep: int = 1
) -> list[tuple[str, list[Col], list[list[str]]]] | None:
    """How :func:`fit_table` lays ``rows`` out in ``width``: its tables, each as (title,
    columns, rows), or None when no part fits with its row names shown (plain lines)."""
    widths = [_width(c, [r[i] for r in rows]) + _PER_COLUMN for i, c in enumerate(cols)]
    fixed = sum(widths[:keep]) + 1
    narrowest = sum(min(w, _PER_COLUMN + 4) for w in widths[:keep]) + 1
    if keep and rows and narrowest + max(widths[keep:], default=0) > width:
        return None
    parts: list[list[int]] = []
    current: list[int] = []
    used = fixed
    for i in range(keep, len(cols)):
        if current and used + widths[i] > width:
            parts.append(current)
            current, used = [], fixed
        current.append(i)
        used += widths[i]
    if current or not parts:
        parts.append(current)
    if len(parts) > 1 and 0 < len(rows) <= TRANSPOSE_ROWS:
        side = _on_its_side(cols, rows, keep)
        if side is not None and _fits(*side, width):
            return table_parts(title, *side, width)
    out = []
    for n, part in enumerate(parts):
        suffix = f" ({n + 1}/{len(parts)})" if len(parts) > 1 else ""
        shown = [*range(keep), *part]
        out.append(
            (title + suffix if title else "", [cols[i] for i in shown],
             [[r[i] for i in shown] for r in rows])
        )  # fmt: skip
    return out


def _as_lines(title: str, cols: Sequence[Col], rows: Sequence[Sequence[str]], keep: int) -> Group:
    """The table as plain lines, for a terminal too narrow for any part of it: each row's
    ``keep`` cells (an empty one repeats the row above, as in a section), then one
    ``column: value`` line per filled cell. Nothing is cut: the terminal wraps the lines."""
    from rich.console import Group
    from rich.text import Text

    lines = [Text(title)] if title else []
    names = [""] * keep
    for r in rows:
        names = [r[i] or names[i] for i in range(keep)]
        lines.append(Text(" ".join(n for n in names if n), style="bold"))
        lines += [Text(f"  {cols[i].name}: {r[i]}") for i in range(keep, len(cols)) if r[i]]
    return Group(*lines)


def _on_its_side(
    cols: Sequence[Col], rows: Sequence[Sequence[str]], keep: int
) -> tuple[list[Col], list[list[str]]] | None:
    """The table transposed: the metric names down the first column, one column per row
    (its header: the row's ``keep`` cells, an empty one carried from the row above as in
    :func:`_as_lines`); the leading names every row shares (one workload) are said once,
    over the metric names, instead of in every header. None when two rows would share a
    header."""
    carried, last = [], [""] * keep
    for r in rows:
        last = [r[i] or last[i] for i in range(keep)]
        carried.append(last)
    same = 0  # the leading names all rows share (never the last: each column keeps a header)
    while same < keep - 1 and len({c[same] for c in carried}) == 1:
        same += 1
    shared = " ".join(n for n in carried[0][:same] if n)
    names = [" ".join(n for n in c[same:] if n) for c in carried]
    if len(set(names)) < len(names):
        return None
    side_cols = [Col(shared, "left"), *(Col(n) for n in names)]  # whole names: _fits checks
    side_rows = [[cols[i].name, *(r[i] for r in rows)] for i in range(keep, len(cols))]
    return side_cols, side_rows


def _fits(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int) -> bool:
    used = sum(_width(c, [r[i] for r in rows]) + _PER_COLUMN for i, c in enumerate(cols))
    return used + 1 <= width
