"""What every figure of the report shares: size, colours, hatches, labels and scales.

Figures are sized for a paper: :data:`WIDTH` inches wide at :data:`DPI` (a text-width figure
printed as is). Categories (applications, schedulers) take the colours of :data:`PALETTE`,
twenty colours chosen to be told apart (Kelly's colours of maximum contrast, without white and
black); beyond twenty, a hatch pattern is the second encoding (:func:`category_style`).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

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
    "WIDTH",
    "category_style",
    "figure",
    "needs_log_scale",
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
#: Hatch patterns of the categories beyond the palette: the second encoding (matplotlib names).
HATCHES = ("", "////", "....", "xxxx")
#: Plotly's names of the same patterns.
PLOTLY_HATCHES = ("", "/", ".", "x")
#: The most categories with a style of their own (colour x hatch).
MAX_CATEGORIES = len(PALETTE) * len(HATCHES)
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


def needs_log_scale(values: Iterable[float]) -> bool:
    """True when the positive finite ``values`` span more than :data:`LOG_SPAN` (max / min)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    return len(v) > 1 and float(v.max()) > LOG_SPAN * float(v.min())


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
