"""What every figure of the report shares: size, colours, hatches, labels and scales.

Figures are sized for a paper: :data:`WIDTH` inches wide at :data:`DPI` (a text-width figure
printed as is). Categories (applications, schedulers) take the colours of :data:`PALETTE`,
twenty colours chosen to be told apart (Kelly's colours of maximum contrast, without white and
black); beyond twenty, a hatch pattern is the second encoding (:func:`category_style`).

A scheduler has one colour in every figure, PNG or HTML (:func:`scheduler_colors`): the
built-in schedulers, the workflow modes and the coupled-study schemes have fixed colours
(:data:`SCHEDULER_COLORS`); any other name (``easy:depth=50``, ``my_policy.py``) takes a colour
from its name's hash, so it too keeps its colour from figure to figure, unless two names of one
figure share a colour: the later one then takes the next free colour.
"""

from __future__ import annotations

import re
import textwrap
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "DPI",
    "HATCHES",
    "LOG_SPAN",
    "MAX_CATEGORIES",
    "PALETTE",
    "PLOTLY_HATCHES",
    "SCHEDULER_COLORS",
    "WIDTH",
    "category_style",
    "figure",
    "needs_log_scale",
    "plain_log_ticks",
    "scheduler_color",
    "scheduler_colors",
    "wrap_label",
]

#: Figure width (inches) and resolution: a paper's text width at print resolution.
WIDTH = 6.5
DPI = 150

PALETTE = [
    "#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#a1caf1", "#f3c300", "#848482",
    "#e68fac", "#882d17", "#8db600", "#604e97", "#f99379", "#c2b280", "#dcd300", "#b3446c",
    "#2b3d26", "#e25822", "#654522", "#f6a600",
]  # fmt: skip
#: The fixed colour of each built-in scheduler (and of the workflow modes and the coupled
#: study's scheme pairs, which figures show like schedulers), by name.
SCHEDULER_COLORS = {
    "easy": "#0067a5", "fcfs": "#848482", "conservative": "#875692", "easy-coloc": "#f38400",
    "filler": "#008856", "sjf": "#882d17", "slurm": "#604e97", "backfill": "#2b3d26",
    "bester": "#be0032", "best-pair": "#b3446c",
    # workflow modes (coschedlab workflows ...)
    "pilot": "#0067a5", "chained": "#f38400", "woas": "#008856",
    # coupled systems: scheme of the large and the small system (H, Y)
    "HH": "#008856", "HY": "#f38400", "YH": "#875692", "YY": "#be0032",
}  # fmt: skip
#: The colours other names hash into: colours no built-in scheduler has, none close to one
#: that does (the palette's, with black and a cyan added), all visible as a thin line.
_HASHED = ["#e68fac", "#8db600", "#222222", "#00b7eb", "#f99379", "#654522"]
#: Hatch patterns of the categories beyond the palette: the second encoding (matplotlib names).
HATCHES = ("", "////", "....", "xxxx")
#: Plotly's names of the same patterns.
PLOTLY_HATCHES = ("", "/", ".", "x")
#: The most categories with a style of their own (colour x hatch).
MAX_CATEGORIES = len(PALETTE) * len(HATCHES)
#: Ticks of a log axis (:func:`plain_log_ticks`): 1-2-5 per decade, finer within one decade;
#: the powers of ten only beyond :data:`_TICK_DECADES` decades.
_LOG_TICKS = tuple(m * 10.0**e for e in range(-6, 7) for m in (1, 2, 5))
_FINE_TICKS = tuple(m * 10.0**e for e in range(-6, 7) for m in (1, 1.2, 1.5, 2, 3, 4, 5, 6, 8))
_TICK_DECADES = 2.5
#: A positive series spanning more than this ratio is drawn on a log scale.
LOG_SPAN = 100.0


def figure(height: float, width: float = WIDTH) -> Figure:
    """A figure on an Agg canvas (no pyplot state: headless and thread-safe)."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def category_style(k: int) -> tuple[str, str]:
    """Colour and hatch of the ``k``-th category: the palette's colours first, then the same
    colours hatched (``k`` beyond :data:`MAX_CATEGORIES` repeats)."""
    k %= MAX_CATEGORIES
    return PALETTE[k % len(PALETTE)], HATCHES[k // len(PALETTE)]


def scheduler_color(name: str) -> str:
    """The colour of the scheduler (or mode) ``name`` in every figure: its fixed colour in
    :data:`SCHEDULER_COLORS`, else one chosen by the name's hash (stable across runs)."""
    key = str(name)
    if key in SCHEDULER_COLORS:
        return SCHEDULER_COLORS[key]
    return _HASHED[zlib.crc32(key.encode()) % len(_HASHED)]


def scheduler_colors(names: Iterable[str]) -> dict[str, str]:
    """The colours of the schedulers of one figure, by name: :func:`scheduler_color` of each,
    except that when two names of the figure share a colour, the later one (names with a fixed
    colour first, then alphabetically: whatever the figure's order) gets the next free one."""
    names = list(dict.fromkeys(str(n) for n in names))
    out: dict[str, str] = {}
    for name in sorted(names, key=lambda n: (n not in SCHEDULER_COLORS, n)):
        color = scheduler_color(name)
        if color in out.values():
            spare = [c for c in [*_HASHED, *PALETTE] if c not in out.values()]
            color = spare[0] if spare else color
        out[name] = color
    return {n: out[n] for n in names}


def needs_log_scale(values: Iterable[float]) -> bool:
    """True when the positive finite ``values`` span more than :data:`LOG_SPAN` (max / min)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    return len(v) > 1 and float(v.max()) > LOG_SPAN * float(v.min())


def plain_log_ticks(ax: Any, axis: str = "y") -> None:
    """Plain-number ticks (``0.5``, ``2``, ``10``: not ``6x10^0`` or ``2^3``) on the log
    ``axis`` ("x" or "y") of ``ax``, chosen for its current limits (set them first)."""
    from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter

    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    decades = np.log10(hi / lo) if lo > 0 else np.inf
    if decades < 1:
        ticks = [t for t in _FINE_TICKS if lo <= t <= hi]
    else:
        ticks = [t for t in _LOG_TICKS if lo <= t <= hi]
        ticks = [t for t in ticks if decades <= _TICK_DECADES or np.log10(t) % 1 < 1e-9]
    which = ax.xaxis if axis == "x" else ax.yaxis
    which.set_major_locator(FixedLocator(ticks))
    which.set_major_formatter(FormatStrFormatter("%g"))
    which.set_minor_formatter(NullFormatter())


def wrap_label(text: str, width: int = 14) -> str:
    """``text`` broken over lines of about ``width`` characters, after ``:``, ``,``, ``/``,
    ``=`` or spaces when it can (scheduler labels such as ``easy:depth=50,interval=30``)."""
    if len(text) <= width:
        return text
    pieces = re.findall(r"[^:,/ ]*[:,/ ]?", text)
    lines: list[str] = []
    line = ""
    for piece in (p for p in pieces if p):
        if line and len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    lines.append(line.rstrip())
    out = []
    for ln in lines:  # a piece longer than the width is cut
        out += textwrap.wrap(ln, width, break_on_hyphens=False) or [ln]
    return "\n".join(out)
