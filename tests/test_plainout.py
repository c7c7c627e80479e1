"""The plain simulate's lines without rich (``cli.plainout``) against rich's own console: the
same text for the lines and tables it draws, None (rich draws) for every other."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markup import escape

from coschedlab.cli import plainout
from coschedlab.cli.plainout import plain_table, plain_width, wrapped
from coschedlab.tables import Col, fit_table


def _rich(obj: object, width: int) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, emoji=False).print(obj)
    return buf.getvalue()


_WORD = st.text(alphabet="ab]/-x.:,()%0123456789", min_size=1, max_size=40)
_LINE = st.lists(st.tuples(st.integers(0, 3), _WORD), max_size=12).map(
    lambda ws: "".join(" " * k + w for k, w in ws)
)


@settings(max_examples=400, deadline=None)
@given(text=_LINE, trail=st.integers(0, 3), width=st.integers(1, 90))
def test_wrapped_is_rich(text: str, trail: int, width: int) -> None:
    text += " " * trail
    if not text:
        return
    got = wrapped(text, width)
    assert got is not None
    assert got + "\n" == _rich(escape(text), width)


@pytest.mark.parametrize("text", ["a [b] c", "C:\\trace.swf", "tab\there", "é", "two\nlines"])
def test_wrapped_leaves_the_rest_to_rich(text: str) -> None:
    assert wrapped(text, 80) is None


_CELL = st.text(alphabet="ab ,.-0123456789%/", max_size=24)
_COL = st.builds(Col, _CELL.map(lambda s: s or "x"), st.sampled_from(["left", "right"]),
                 st.booleans())  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    cols=st.lists(_COL, min_size=1, max_size=12),
    data=st.data(),
    title=st.one_of(st.just(""), st.just("SDSC-SP2-1998-4.2-cln.swf.gz"), _CELL),
    width=st.integers(20, 200),
    first=st.booleans(),
)
def test_plain_table_is_rich(cols, data, title, width, first) -> None:
    if first:
        cols[0] = Col("scheduler", "left", wrap=True)
    rows = data.draw(st.lists(st.lists(_CELL, min_size=len(cols), max_size=len(cols)),
                              max_size=5))  # fmt: skip
    got = plain_table(title, cols, rows, width)
    if got is not None:
        assert got + "\n" == _rich(fit_table(title, cols, rows, width), width)


def test_the_end_table_is_drawn_plain() -> None:
    """The end table of a plain simulate (a metrics row of numbers) is drawn without rich,
    on its side at 80 columns and as one wide table at 200, as rich draws it."""
    from coschedlab.cli.batch import metrics_rows

    class R:  # what metrics_rows reads of a result
        metrics = {"makespan": 63025560.0, "utilization": 0.834, "wait_mean": 22860.0,
                   "wait_p95": 112932.0, "bounded_slowdown_mean": 103.39,
                   "bounded_slowdown_p95": 619.94, "jobs_per_s": 1127723.0,
                   "days_per_hour": 54797307.0}  # fmt: skip
        wall_time = 0.048
        _violations: list = []

    cols, rows = metrics_rows({"easy": R()})
    for width in (80, 200):
        got = plain_table("SDSC-SP2-1998-4.2-cln.swf.gz", cols, rows, width)
        assert got is not None
        want = _rich(fit_table("SDSC-SP2-1998-4.2-cln.swf.gz", cols, rows, width), width)
        assert got + "\n" == want
    assert "makespan h" in plain_table("t", cols, rows, 80).splitlines()[4]  # on its side


@pytest.mark.parametrize(
    ("env", "width"),
    [({}, 80), ({"COLUMNS": "132"}, 132), ({"COLUMNS": "x"}, 80), ({"FORCE_COLOR": "1"}, None),
     ({"FORCE_COLOR": ""}, 80), ({"TTY_COMPATIBLE": "1"}, None), ({"TTY_COMPATIBLE": "0"}, 80)],
)  # fmt: skip
def test_plain_width_is_rich_consoles(monkeypatch, env, width) -> None:
    """Not a terminal: rich's width (COLUMNS, else 80 with no terminal on 0, 1, 2); a console
    that rich takes as a terminal: None."""
    for key in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(os, "get_terminal_size", _no_terminal)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert plain_width() == width
    console = Console(emoji=False)
    assert console.is_terminal == (width is None)
    if width is not None:
        assert console.width == width


def _no_terminal(fd: int = 1) -> os.terminal_size:
    raise OSError("not a terminal")


def test_plain_width_refuses_other_encodings(monkeypatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    stream = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    monkeypatch.setattr("sys.stdout", stream)
    assert plainout.plain_width() is None
