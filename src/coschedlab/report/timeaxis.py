"""How the report draws time: one unit for the whole report and an optional window.

Every time axis shows the time since the run's first submission. A report chooses its unit
once (s, min, h or days, :func:`time_unit`) from the longest makespan of its runs, or from the
window's length when a window is given, and uses it in every figure and in the HTML page.

A window (``coschedlab report --from T --to T``) limits the Gantt chart and the series figures
to ``[start, end)`` seconds since the first submission; times are written in seconds or with a
unit suffix (``3600``, ``90m``, ``12h``, ``2d``; :func:`parse_duration`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError
from .runs import Run, longest_span, span

__all__ = [
    "TimeAxis",
    "Window",
    "format_number",
    "bin_note",
    "format_seconds",
    "parse_duration",
    "report_axis",
    "time_unit",
]

_SUFFIX = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-z]*)\s*")
_HELP = "give seconds or a number with s, m, h or d, e.g. 3600, 90m, 12h, 2d"


def time_unit(span: float) -> tuple[float, str]:
    """Divisor and unit label for a time span in seconds (s, min, h or days)."""
    if span >= 3 * 86400:
        return 86400.0, "days"
    if span >= 3 * 3600:
        return 3600.0, "h"
    if span >= 3 * 60:
        return 60.0, "min"
    return 1.0, "s"


def parse_duration(text: str, option: str) -> float:
    """``"3600"``, ``"90m"``, ``"12h"``, ``"2d"`` (also ``"30s"``, ``"1.5h"``) -> seconds.

    Raises :class:`InputError` naming ``option`` for anything else, negative or not finite."""
    m = _DURATION.fullmatch(text.lower().removeprefix("-"))
    if m is None or m.group(2) not in _SUFFIX:
        raise InputError(f"{text!r} is not a time; {_HELP}", where=option)
    if text.strip().startswith("-"):
        raise InputError(f"{text!r} is negative; times count from the first submission", option)
    seconds = float(m.group(1)) * _SUFFIX[m.group(2)]
    if not math.isfinite(seconds):
        raise InputError(f"{text!r} is not a finite time", where=option)
    return seconds


def format_number(v: float) -> str:
    """``v`` with 4 significant digits, whole with thousands separators from 1,000 on, with
    an exponent from 10^12 on (``--from 1e308`` was said in 104 groups of digits)."""
    return f"{v:,.0f}" if 1000 <= abs(v) < 1e12 else f"{v:.4g}"


def bin_note(width: float | None, how: str, newline: str = "\n") -> str:
    """What a binned curve's label adds (``"(mean per 4 h bin)"`` on a new line); nothing for
    a curve drawn exactly (``width`` None). ``newline``: ``"<br>"`` in HTML."""
    return "" if width is None else f"{newline}({how} per {format_seconds(width)} bin)"


def format_seconds(seconds: float, like: float | None = None) -> str:
    """A time in seconds in its own unit (or that of ``like``), for messages: ``5400`` ->
    ``"1.5 h"``."""
    div, unit = time_unit(seconds if like is None else like)
    return f"{format_number(seconds / div)} {unit}"


@dataclass(frozen=True)
class Window:
    """A time window ``[start, end)`` in seconds since the first submission (None: open).

    ``name_start`` and ``name_end`` say how the user wrote the bounds, for error messages (the
    command line uses its options, ``--from`` and ``--to``)."""

    start: float | None = None
    end: float | None = None
    name_start: str = "window start"
    name_end: str = "window end"

    @classmethod
    def parse(
        cls, start: str | None, end: str | None, names: tuple[str, str] = ("--from", "--to")
    ) -> Window:
        """The window of two texts as :func:`parse_duration` reads them (None: open), checked."""
        a = None if start is None else parse_duration(start, names[0])
        b = None if end is None else parse_duration(end, names[1])
        if start is not None and end is not None and b <= a:  # in the user's words
            raise InputError(f"{end.strip()} is not after {names[0]} {start.strip()}", names[1])
        return cls(a, b, *names).checked()

    def checked(self) -> Window:
        """This window; :class:`InputError` for a negative or empty one."""
        for v, name in ((self.start, self.name_start), (self.end, self.name_end)):
            if v is not None and not (math.isfinite(v) and v >= 0):
                raise InputError(
                    f"must be a time >= 0 since the first submission, got {v!r}", where=name
                )
        if self.end is not None and self.end <= (self.start or 0.0):
            after = (
                f"{self.name_start} {format_seconds(self.start, like=self.start)}"
                if self.start is not None
                else "the first submission"
            )
            end = format_seconds(self.end, like=self.start)
            raise InputError(f"{end} is not after {after}", self.name_end)
        return self

    @property
    def is_open(self) -> bool:
        """True when neither bound is given (the whole run)."""
        return self.start is None and self.end is None

    def check_inside(self, spans: Iterable[float]) -> None:
        """:class:`InputError` when the window holds nothing of any run (``spans``: each run's
        last end minus its first submission, in seconds)."""
        longest = max(spans, default=0.0)
        if self.start is not None and self.start >= longest and self.start > 0:
            raise InputError(
                f"{format_seconds(self.start)} is after the end of every run (the longest ends "
                f"{format_seconds(longest)} after its first submission)",
                where=self.name_start,
            )

    def bounds(self, span: float) -> tuple[float, float]:
        """``(start, end)`` in seconds for a run of length ``span`` (open bounds: 0 and span)."""
        start = 0.0 if self.start is None else self.start
        end = max(span, start) if self.end is None else self.end
        return start, end

    def length(self, span: float) -> float:
        """The window's length for a run of length ``span``."""
        start, end = self.bounds(span)
        return end - start


@dataclass(frozen=True)
class TimeAxis:
    """The time axis of a report: unit divisor ``div`` and label ``unit``, and the window."""

    div: float = 1.0
    unit: str = "s"
    window: Window = Window()

    @classmethod
    def for_span(cls, span: float, window: Window | None = None) -> TimeAxis:
        """The axis of runs whose longest span (makespan) is ``span`` seconds: the unit fits
        the window's length when a window is given, else the span."""
        window = window or Window()
        return cls(*time_unit(window.length(span) if not window.is_open else span), window)

    @property
    def label(self) -> str:
        """The x-axis label, with the unit."""
        return f"time since first submission ({self.unit})"

    def limits(self, span: float) -> tuple[float, float]:
        """x-limits in axis units for a run of length ``span`` seconds."""
        start, end = self.window.bounds(span)
        return start / self.div, (end if end > start else start + self.div) / self.div

    def describe(self, span: float) -> str:
        """The shown window in words, e.g. ``"12-24 h of 240 h"``; empty without a window."""
        if self.window.is_open:
            return ""
        lo, hi = (format_number(v) for v in self.limits(span))
        return f"{lo}-{hi} {self.unit} of {format_number(span / self.div)} {self.unit}"


def report_axis(runs: Mapping[str, Run], window: Window | None = None) -> TimeAxis:
    """The one time axis of a report of ``runs``: its unit fits the longest run (or the
    window); :class:`InputError` when the window holds nothing of any run."""
    window = window or Window()
    window.check_inside(span(r.jobs)[1] for r in runs.values())
    return TimeAxis.for_span(longest_span(runs), window)
