"""The plain ``simulate`` command's printed lines without importing rich, when rich would
print plain text: the same bytes as the command's rich console (``progress.text_console``)
for an output that is not a terminal.

rich draws plain text (no colour, no control codes) when its console is not a terminal
(``TTY_COMPATIBLE``, ``FORCE_COLOR``, ``isatty``), not in Jupyter, on a non-Windows system;
its width is ``COLUMNS`` when that is a number, else the terminal size of the first of
stdin, stdout and stderr that is a terminal, else 80. Then a line of text is word-wrapped at
that width as :func:`rich._wrap.divide_line` does, and a table of
:func:`coschedlab.tables.fit_table` is drawn with rich's default box, when its text is ASCII
and no cell or title needs wrapping. Anything else (a terminal, another encoding, markup,
a cell to wrap) returns None here and goes to rich. ``tests/test_plainout.py`` compares the
two on random lines and tables."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # pragma: no cover
    from ..tables import Col

__all__ = ["is_terminal", "plain_table", "plain_width", "table_text", "wrapped"]


def is_terminal(stream: TextIO) -> bool:
    """Would rich's console on ``stream`` take it as a terminal (``Console.is_terminal``)?"""
    if type(sys.stdin).__module__.startswith("idlelib"):
        return False
    tty_compatible = os.environ.get("TTY_COMPATIBLE", "")
    if tty_compatible in ("0", "1"):
        return tty_compatible == "1"
    force_color = os.environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color != ""
    isatty = getattr(stream, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:
        return False


def plain_width(stderr: bool = False) -> int | None:
    """The width rich's console on stdout (``stderr``: stderr) draws plain text at, or None
    when that console would not draw plain UTF-8 text (a terminal, Jupyter, Windows,
    another encoding, an IDLE shell)."""
    stream = sys.stderr if stderr else sys.stdout
    import builtins

    if sys.platform == "win32" or hasattr(builtins, "get_ipython"):  # Windows, IPython
        return None
    if type(sys.stdin).__module__.startswith("idlelib") or is_terminal(stream):
        return None
    encoding = (getattr(stream, "encoding", "utf-8") or "utf-8").lower()
    if not encoding.startswith("utf"):
        return None
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    width = None
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd)[0]
        except (AttributeError, ValueError, OSError):
            continue
        break
    return width or 80


def _printable(text: str) -> bool:
    """ASCII without control characters: one cell per character for rich, no tab to expand."""
    return text.isascii() and text.isprintable()


def wrapped(text: str, width: int) -> str | None:
    """``text`` word-wrapped at ``width`` as rich's console prints ``escape(text)`` (lines
    joined by newlines, no final newline), or None: not printable ASCII, or a ``[`` or a
    backslash (rich's markup escapes, whose round trip is not always the text)."""
    if not _printable(text) or "[" in text or "\\" in text or width < 1:
        return None
    breaks: list[int] = []
    offset = 0  # cells used on the current line
    pos = 0
    n = len(text)
    while pos < n:  # rich's words: leading blanks, a word, trailing blanks
        end = pos
        while end < n and text[end] == " ":
            end += 1
        if end == n:
            break  # blanks only: no word (rich's regular expression matches none)
        while end < n and text[end] != " ":
            end += 1
        body = end
        while end < n and text[end] == " ":
            end += 1
        start, word_len = pos, len(text[pos:body].rstrip())
        if width - offset >= word_len:
            offset += end - start
        elif word_len > width:  # folded in chunks of ``width``
            chunks = [text[k : min(k + width, end)] for k in range(start, end, width)]
            for i, chunk in enumerate(chunks):
                if start:
                    breaks.append(start)
                if i == len(chunks) - 1:
                    offset = len(chunk)
                else:
                    start += len(chunk)
        elif offset and start:
            breaks.append(start)
            offset = end - start
        pos = end
    lines = [text[a:b] for a, b in zip([0, *breaks], [*breaks, n], strict=True)]
    out = []
    for line in lines:  # rich's rstrip_end (blanks beyond the width go), then its crop
        excess = len(line) - width
        if excess > 0:
            line = line[: len(line) - min(excess, len(line) - len(line.rstrip(" ")))]
        out.append(line[:width])
    return "\n".join(out)


def _justify(text: str, width: int, how: str) -> str:
    if how == "left":
        return text.ljust(width)
    if how == "right":
        return text.rjust(width)
    return None  # type: ignore[return-value]


def plain_table(
    title: str, cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, keep: int = 1
) -> str | None:
    """:func:`coschedlab.tables.fit_table`'s tables as rich prints them at ``width`` (see
    :func:`table_text`), or None (rich draws them)."""
    from ..tables import _width, table_parts

    parts = table_parts(title, cols, rows, width, keep)
    if parts is None:
        return None  # plain lines in bold
    for _, part_cols, part_rows in parts:
        for j, c in enumerate(part_cols):
            cells = [r[j] for r in part_rows]
            if c.wrap and _width(c, cells) < max(len(t) for t in [c.name, *cells]):
                return None  # rich wraps that column
    return table_text(parts, width)


def table_text(
    parts: Sequence[tuple[str, Sequence[Col], Sequence[Sequence[str]]]], width: int
) -> str | None:
    """The tables ``parts`` (each: title, columns, rows, as :func:`coschedlab.tables.fit_table`
    lays them out) as rich draws them, one after the other (lines joined by newlines, no final
    newline), or None when one would need more than plain drawing: a text that is not
    printable ASCII, a cell or title with blanks at an end, a cell or header wider than its column
    (wrapped by rich), a title wider than its table, a justification other than left and
    right."""
    lines: list[str] = []
    for title, cols, rows in parts:
        cells = [[c.name for c in cols], *rows]
        if not all(_printable(t) and t == t.strip() for r in cells for t in r):
            return None  # (rich drops a cell's blanks at its ends)
        if not _printable(title) or title != title.strip():
            return None
        if any(c.justify not in ("left", "right") for c in cols):
            return None
        widths = [max(len(r[i]) for r in cells) for i in range(len(cols))]
        if any(w < 1 for w in widths):
            return None  # an empty column: rich's measure differs
        total = sum(widths) + 3 * len(cols) + 1
        if total > width:
            return None  # rich crops it
        if title:
            if len(title) > total:
                return None
            pad = total - len(title)
            lines.append(" " * (pad // 2) + title + " " * (pad - pad // 2))
        bars = ["━" * (w + 2) for w in widths]
        lines.append("┏" + "┳".join(bars) + "┓")
        lines.append(_row(cells[0], cols, widths, "┃"))
        lines.append("┡" + "╇".join(bars) + "┩")
        for r in rows:
            lines.append(_row(r, cols, widths, "│"))
        lines.append("└" + "┴".join("─" * (w + 2) for w in widths) + "┘")
    return "\n".join(lines)


def _row(cells: Sequence[str], cols: Sequence[Col], widths: Sequence[int], bar: str) -> str:
    inner = [f" {_justify(t, w, c.justify)} " for t, w, c in zip(cells, widths, cols, strict=True)]
    return bar + bar.join(inner) + bar
