"""Tables that stay readable at any terminal width: split into parts, never cut a digit.

A wide table (many metrics) is printed as several stacked tables, each as wide as the
terminal allows, the first ``keep`` columns (the row names) repeated in each part. Numbers are
never wrapped or truncated; only the text columns (names, descriptions) wrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table

__all__ = ["Col", "fit_table"]

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
    ``sections``: row indices before which a section line is drawn."""
    widths = [_width(c, [r[i] for r in rows]) + _PER_COLUMN for i, c in enumerate(cols)]
    fixed = sum(widths[:keep]) + 1
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
    tables = []
    for n, part in enumerate(parts):
        suffix = f" ({n + 1}/{len(parts)})" if len(parts) > 1 else ""
        t = Table(title=title + suffix if title else None)
        for i in [*range(keep), *part]:
            c = cols[i]
            t.add_column(
                c.name,
                justify=c.justify,  # type: ignore[arg-type]
                no_wrap=not c.wrap,
                overflow="fold" if c.wrap else "ellipsis",
                # a number column never shrinks below its widest cell: no digit is cut
                min_width=None if c.wrap else widths[i] - _PER_COLUMN,
                max_width=widths[i] - _PER_COLUMN if c.wrap else None,
            )
        for k, r in enumerate(rows):
            if k in sections:
                t.add_section()
            t.add_row(*[r[i] for i in [*range(keep), *part]])
        tables.append(t)
    return Group(*tables)
